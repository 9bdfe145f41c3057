#include "sinks/friends_of_friends_partition.hpp"

#include <vector>

namespace kosmo::sinks {

bool same_partition(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  if (a.size() != b.size()) return false;
  const auto n = static_cast<std::int64_t>(a.size());
  std::vector<std::int64_t> a_to_b(a.size(), -1), b_to_a(b.size(), -1);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] < 0 || a[i] >= n || b[i] < 0 || b[i] >= n) return false;
    std::int64_t& image = a_to_b[static_cast<std::size_t>(a[i])];
    std::int64_t& preimage = b_to_a[static_cast<std::size_t>(b[i])];
    if (image < 0) image = b[i];
    if (preimage < 0) preimage = a[i];
    if (image != b[i] || preimage != a[i]) return false;
  }
  return true;
}

std::int64_t count_groups(std::span<const std::int64_t> labels) {
  std::vector<bool> seen(labels.size(), false);
  std::int64_t groups = 0;
  for (std::int64_t label : labels) {
    if (label < 0 || label >= static_cast<std::int64_t>(labels.size())) continue;
    if (!seen[static_cast<std::size_t>(label)]) ++groups;
    seen[static_cast<std::size_t>(label)] = true;
  }
  return groups;
}

}  // namespace kosmo::sinks
