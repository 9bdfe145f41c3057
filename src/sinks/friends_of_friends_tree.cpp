// The tree backend of the friends-of-friends sink merger (seeds/000 §6.4, the oct-tree of
// cuRAMSES' Auto_Do_FoF): a k-d tree over the points, one range search per point, threaded over
// points with the lock-free union–find. Nodes whose bounding box has a diagonal below the linking
// length ("compact") are one group from the start, so a search stops at them: it joins the node
// with no distance test when the whole box is within the linking length, and otherwise at the
// first friend found in it. Distances and pruning use the nearest periodic image.
#include <algorithm>
#include <array>
#include <numeric>

#include "sinks/friends_of_friends_union_find.hpp"

namespace kosmo::sinks::detail {
namespace {

constexpr std::int64_t kLeafSize = 8;
// Pruning and the no-test joins keep a relative margin far above rounding, so that they never
// contradict the pair test of the reference.
constexpr double kMargin = 1e-9;

struct Node {
  std::int64_t begin = 0, end = 0;  // range of the tree order
  std::int64_t left = -1, right = -1;
  std::array<double, 3> centre{}, half{};
  bool compact = false;
};

class KdTree {
 public:
  KdTree(const FriendsOfFriendsPoints& points, double linking_length)
      : points_(points), linking_length2_(linking_length * linking_length), order_(points.x.size()) {
    std::iota(order_.begin(), order_.end(), std::int64_t{0});
    nodes_.reserve(2 * points.x.size() / static_cast<std::size_t>(kLeafSize) + 2);
    build(0, static_cast<std::int64_t>(order_.size()));
  }

  // Joins the points of each compact node (a leaf: no compact node lies inside another).
  void join_compact_nodes(ConcurrentUnionFind& sets) const {
    for (const Node& node : nodes_)
      if (node.compact)
        for (std::int64_t k = node.begin + 1; k < node.end; ++k) sets.unite(at(node.begin), at(k));
  }

  // Joins point `position` (tree order) with its friends later in the tree order, and with the
  // compact nodes it touches.
  void search(std::int64_t position, ConcurrentUnionFind& sets) const {
    const std::size_t i = static_cast<std::size_t>(at(position));
    const std::array<double, 3> p = {points_.x[i], points_.y[i], points_.z[i]};
    std::int64_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
      double near2 = 0.0, far2 = 0.0;
      for (std::size_t d = 0; d < 3; ++d) {
        const double separation = axis_separation(p[d], node.centre[d], points_.box_size, points_.periodic);
        const double near = std::max(0.0, separation - node.half[d]);
        near2 += near * near;
        far2 += (separation + node.half[d]) * (separation + node.half[d]);
      }
      if (near2 > linking_length2_ * (1.0 + kMargin)) continue;
      if (node.compact) {
        if (node.end <= position) continue;  // its points search for this one themselves
        const std::int64_t first = at(node.begin);
        if (sets.find(first) == sets.find(static_cast<std::int64_t>(i))) continue;
        if (far2 <= linking_length2_ * (1.0 - kMargin)) {
          sets.unite(first, static_cast<std::int64_t>(i));
          continue;
        }
        for (std::int64_t k = node.begin; k < node.end; ++k)
          if (squared_separation(points_, i, static_cast<std::size_t>(at(k))) <= linking_length2_) {
            sets.unite(at(k), static_cast<std::int64_t>(i));
            break;
          }
      } else if (node.left < 0) {
        for (std::int64_t k = std::max(node.begin, position + 1); k < node.end; ++k)
          if (squared_separation(points_, i, static_cast<std::size_t>(at(k))) <= linking_length2_)
            sets.unite(at(k), static_cast<std::int64_t>(i));
      } else {
        if (node.end <= position + 1) continue;  // every pair with these points is tested from their side
        stack[top++] = node.left;
        stack[top++] = node.right;
      }
    }
  }

  std::int64_t at(std::int64_t position) const { return order_[static_cast<std::size_t>(position)]; }

 private:
  double coordinate(std::int64_t point, std::size_t d) const {
    const std::span<const double>& axis = d == 0 ? points_.x : (d == 1 ? points_.y : points_.z);
    return axis[static_cast<std::size_t>(point)];
  }

  std::int64_t build(std::int64_t begin, std::int64_t end) {
    const auto index = static_cast<std::int64_t>(nodes_.size());
    nodes_.push_back({});
    std::array<double, 3> low, high;
    low.fill(std::numeric_limits<double>::max());
    high.fill(std::numeric_limits<double>::lowest());
    for (std::int64_t k = begin; k < end; ++k)
      for (std::size_t d = 0; d < 3; ++d) {
        low[d] = std::min(low[d], coordinate(at(k), d));
        high[d] = std::max(high[d], coordinate(at(k), d));
      }
    double diagonal2 = 0.0;
    std::size_t widest = 0;
    Node node;
    node.begin = begin;
    node.end = end;
    for (std::size_t d = 0; d < 3; ++d) {
      node.centre[d] = 0.5 * (low[d] + high[d]);
      node.half[d] = 0.5 * (high[d] - low[d]) * (1.0 + kMargin);
      diagonal2 += (high[d] - low[d]) * (high[d] - low[d]);
      if (high[d] - low[d] > high[widest] - low[widest]) widest = d;
    }
    node.compact = diagonal2 <= linking_length2_ * (1.0 - kMargin);
    if (!node.compact && end - begin > kLeafSize) {  // a compact node is a leaf: it is searched as a whole
      const std::int64_t middle = begin + (end - begin) / 2;
      std::nth_element(order_.begin() + begin, order_.begin() + middle, order_.begin() + end,
                       [&](std::int64_t a, std::int64_t b) { return coordinate(a, widest) < coordinate(b, widest); });
      node.left = build(begin, middle);
      node.right = build(middle, end);
    }
    nodes_[static_cast<std::size_t>(index)] = node;
    return index;
  }

  const FriendsOfFriendsPoints& points_;
  double linking_length2_;
  std::vector<std::int64_t> order_;
  std::vector<Node> nodes_;
};

}  // namespace

std::vector<std::int64_t> tree_groups(const FriendsOfFriendsPoints& points, double linking_length) {
  const auto n = static_cast<std::int64_t>(points.x.size());
  ConcurrentUnionFind sets(n);
  if (n == 0) return {};
  const KdTree tree(points, linking_length);
  tree.join_compact_nodes(sets);
#pragma omp parallel for schedule(dynamic, 256) if (n > kParallelThreshold)
  for (std::int64_t position = 0; position < n; ++position) tree.search(position, sets);
  return labels_from_roots(sets);
}

}  // namespace kosmo::sinks::detail
