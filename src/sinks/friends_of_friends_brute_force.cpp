// A stand-in for the friends-of-friends backends until their module is merged: the O(N^2) pair loop
// with union-find, whatever backend is asked for (every backend must return this partition).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "sinks/friends_of_friends.hpp"

namespace kosmo::sinks {
namespace {

std::int64_t root_of(std::vector<std::int64_t>& parent, std::int64_t i) {
  while (parent[static_cast<std::size_t>(i)] != i) {
    parent[static_cast<std::size_t>(i)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    i = parent[static_cast<std::size_t>(i)];
  }
  return i;
}

double axis_distance(double a, double b, const FriendsOfFriendsPoints& points) {
  double d = std::fabs(a - b);
  if (points.periodic) d = std::min(d, points.box_size - d);
  return d;
}

}  // namespace

std::vector<std::int64_t> friends_of_friends_groups(const FriendsOfFriendsPoints& points, double linking_length,
                                                    FriendsOfFriendsBackend /*backend*/) {
  const std::size_t n = points.x.size();
  std::vector<std::int64_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::int64_t{0});
  const double limit = linking_length * linking_length;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = axis_distance(points.x[i], points.x[j], points);
      const double dy = axis_distance(points.y[i], points.y[j], points);
      const double dz = axis_distance(points.z[i], points.z[j], points);
      if (dx * dx + dy * dy + dz * dz > limit) continue;
      const std::int64_t a = root_of(parent, static_cast<std::int64_t>(i)), b = root_of(parent, static_cast<std::int64_t>(j));
      // The smaller index becomes the root, so a root is its group's smallest index.
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
  std::vector<std::int64_t> label(n);
  for (std::size_t i = 0; i < n; ++i) label[i] = root_of(parent, static_cast<std::int64_t>(i));
  return label;
}

}  // namespace kosmo::sinks
