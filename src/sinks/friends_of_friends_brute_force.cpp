// The O(N²) reference of the friends-of-friends sink merger (seeds/000 §6.4, RAMSES merge_sink's
// pair enumeration): every pair is tested once, sequentially. The other backends must return
// exactly its partition.
#include "sinks/friends_of_friends_union_find.hpp"

namespace kosmo::sinks::detail {

std::vector<std::int64_t> brute_force_groups(const FriendsOfFriendsPoints& points, double linking_length) {
  const auto n = static_cast<std::int64_t>(points.x.size());
  const double linking_length2 = linking_length * linking_length;
  ConcurrentUnionFind sets(n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      if (squared_separation(points, static_cast<std::size_t>(i), static_cast<std::size_t>(j)) <= linking_length2)
        sets.unite(i, j);
  return labels_from_roots(sets);
}

}  // namespace kosmo::sinks::detail
