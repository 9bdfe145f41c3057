#pragma once
// Comparing friends-of-friends results (seeds/000 §6.4: "identical group partitions ... verified by
// an O(N) bidirectional group-mapping check"): two label arrays describe the same partition when
// the map from labels of one to labels of the other is a function both ways.
#include <cstdint>
#include <span>

namespace kosmo::sinks {

// True when every group of `a` is exactly one group of `b` and conversely. Labels must lie in
// [0, size) (the contract's labels do); any other label makes the answer false. O(N).
bool same_partition(std::span<const std::int64_t> a, std::span<const std::int64_t> b);

// Number of distinct groups (labels in [0, size)).
std::int64_t count_groups(std::span<const std::int64_t> labels);

}  // namespace kosmo::sinks
