#pragma once
// The contract between the sink-particle module (which merges sinks closer than r_merge·Δx_min,
// RAMSES merge_sink) and the friends-of-friends group finder behind it (seeds/000 §6.4): one call,
// several backends that must return the same partition. Sinks are replicated on every rank, so the
// call is local (no MPI inside); every rank passes the same points in the same order and gets the
// same labels.
#include <cstdint>
#include <span>
#include <vector>

namespace kosmo::sinks {

enum class FriendsOfFriendsBackend {
  brute_force,  // O(N²) pair loop: the reference
  tree,         // spatial tree (k-d or oct-tree) range search
  cell_list,    // uniform-grid hash of cell size ≥ linking length + union–find, OpenMP, lock-free
  automatic,    // times the backends on the first call, keeps the fastest (agreed by all ranks)
};

struct FriendsOfFriendsPoints {
  std::span<const double> x, y, z;  // code units; unused dimensions all zero
  double box_size = 1.0;            // side of the periodic box; distances use the nearest image
  bool periodic = true;
};

// Group label of every point: the smallest index among the points of its group (so a label is
// independent of backend, thread count and rank count). Points i, j are friends when their
// distance is ≤ linking_length; groups are the transitive closure.
std::vector<std::int64_t> friends_of_friends_groups(const FriendsOfFriendsPoints& points, double linking_length,
                                                    FriendsOfFriendsBackend backend);

}  // namespace kosmo::sinks
