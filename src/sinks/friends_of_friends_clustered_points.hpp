#pragma once
// Clustered sink positions for the friends-of-friends bench and tests (seeds/000 §6.4, Fig. 5: "a
// massively populated, highly clustered particle distribution in which nearly every particle has
// close neighbours"): a superposition of dense Gaussian clumps in a periodic unit box, reproducible
// from a seed, independent of thread and rank count (counter-based random numbers keyed by the
// point's index, seeds/000 §10).
#include <cstdint>
#include <vector>

#include "sinks/friends_of_friends.hpp"

namespace kosmo::sinks {

struct ClusteredPoints {
  std::vector<double> x, y, z;
  FriendsOfFriendsPoints view() const { return {x, y, z, 1.0, true}; }
};

// `count` points in clumps of about `points_per_clump` members each, the clump widths σ drawn
// between 0.3 and 1 linking length, and the clump centres uniform in the unit box.
ClusteredPoints clustered_points(std::int64_t count, double linking_length, std::uint64_t seed,
                                 std::int64_t points_per_clump = 100);

}  // namespace kosmo::sinks
