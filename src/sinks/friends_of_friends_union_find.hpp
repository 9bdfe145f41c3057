#pragma once
// Shared pieces of the friends-of-friends backends (seeds/000 §6.4; docs/galaxy.md "Sink merging
// (friends of friends)"): a lock-free union–find whose root is always the smallest element of its
// set, and the nearest-image separation every backend tests pairs with, so that all backends take
// the same decision on every pair.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sinks/friends_of_friends.hpp"

namespace kosmo::sinks::detail {

// Union–find safe under concurrent unite() calls: a root only ever changes by one compare-and-swap
// that hangs it under a smaller root, so parents strictly decrease along every path, no cycle can
// form, and the root of a set is its smallest element whatever the order of the unions (hence
// deterministic labels for any thread count). find() halves paths; a halving write only ever points
// an element at one of its ancestors, so racing writes keep the forest valid.
// Elements are 32-bit (the dispatcher limits a call to 2^31 - 1 points): half the memory traffic
// of the finds, which dominate on clustered sinks.
class ConcurrentUnionFind {
 public:
  explicit ConcurrentUnionFind(std::int64_t size) : parent_(static_cast<std::size_t>(size)) {
    for (std::int64_t i = 0; i < size; ++i)
      parent_[static_cast<std::size_t>(i)].store(static_cast<std::int32_t>(i), std::memory_order_relaxed);
  }

  std::int64_t find(std::int64_t element) {
    auto x = static_cast<std::int32_t>(element);
    for (;;) {
      const std::int32_t p = parent_[static_cast<std::size_t>(x)].load(std::memory_order_acquire);
      if (p == x) return x;
      const std::int32_t grandparent = parent_[static_cast<std::size_t>(p)].load(std::memory_order_acquire);
      if (grandparent != p) parent_[static_cast<std::size_t>(x)].store(grandparent, std::memory_order_release);
      x = grandparent;
    }
  }

  // Merges the sets of a and b; true when they were different sets.
  bool unite(std::int64_t a, std::int64_t b) {
    for (;;) {
      std::int64_t root_a = find(a);
      std::int64_t root_b = find(b);
      if (root_a == root_b) return false;
      if (root_a < root_b) std::swap(root_a, root_b);  // hang the larger root under the smaller
      auto expected = static_cast<std::int32_t>(root_a);
      if (parent_[static_cast<std::size_t>(root_a)].compare_exchange_strong(expected, static_cast<std::int32_t>(root_b),
                                                                            std::memory_order_acq_rel))
        return true;
      a = root_a;
      b = root_b;
    }
  }

  std::int64_t size() const { return static_cast<std::int64_t>(parent_.size()); }

 private:
  std::vector<std::atomic<std::int32_t>> parent_;
};

// Separation along one axis, nearest periodic image when the box is periodic.
inline double axis_separation(double a, double b, double box_size, bool periodic) {
  double d = std::fabs(a - b);
  if (periodic) {
    if (d >= box_size) d = std::fmod(d, box_size);  // only for points given outside the box
    d = std::min(d, box_size - d);
  }
  return d;
}

inline double squared_separation(const FriendsOfFriendsPoints& points, std::size_t i, std::size_t j) {
  const double dx = axis_separation(points.x[i], points.x[j], points.box_size, points.periodic);
  const double dy = axis_separation(points.y[i], points.y[j], points.box_size, points.periodic);
  const double dz = axis_separation(points.z[i], points.z[j], points.box_size, points.periodic);
  return dx * dx + dy * dy + dz * dz;
}

// Fewer points than this run on one thread: a parallel region's fork and join would cost more.
constexpr std::int64_t kParallelThreshold = 20000;

// Labels of a finished union–find whose roots are set minima: the label of a point is its root.
inline std::vector<std::int64_t> labels_from_roots(ConcurrentUnionFind& sets) {
  std::vector<std::int64_t> labels(static_cast<std::size_t>(sets.size()));
#pragma omp parallel for schedule(static) if (sets.size() > kParallelThreshold)
  for (std::int64_t i = 0; i < sets.size(); ++i) labels[static_cast<std::size_t>(i)] = sets.find(i);
  return labels;
}

// The backends behind friends_of_friends_groups (one file each).
std::vector<std::int64_t> brute_force_groups(const FriendsOfFriendsPoints& points, double linking_length);
std::vector<std::int64_t> tree_groups(const FriendsOfFriendsPoints& points, double linking_length);
std::vector<std::int64_t> cell_list_groups(const FriendsOfFriendsPoints& points, double linking_length);

}  // namespace kosmo::sinks::detail
