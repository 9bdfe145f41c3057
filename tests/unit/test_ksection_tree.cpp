// The k-section tree of seeds/000 §2: splitting sequence (eqs. 1-2), tree shape and node count
// (§2.1), exact tiling by the leaf boxes, owner(point) against brute-force containment, wall
// placement by cumulative cost (§2.2, eq. 3), and the memory-weighted cost of §2.3 (eqs. 4-5).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"
#include "parallel/cost_function.hpp"
#include "parallel/ksection_tree.hpp"
#include "parallel/prime_factors.hpp"
#include "parallel/synthetic_load.hpp"

using namespace kosmo;
using namespace kosmo::parallel;

namespace {

bool contains(const Box& box, const std::array<double, 3>& p) {
  for (int d = 0; d < 3; ++d)
    if (p[d] < box.lo[d] || p[d] >= box.hi[d]) return false;
  return true;
}

}  // namespace

TEST(SplittingSequence, LargestPrimeFactorsFirst) {
  EXPECT_EQ(splitting_sequence(12), (std::vector<int>{3, 2, 2}));  // the example of §2.1
  EXPECT_EQ(splitting_sequence(96), (std::vector<int>{3, 2, 2, 2, 2, 2}));
  EXPECT_EQ(splitting_sequence(100000), (std::vector<int>{5, 5, 5, 5, 5, 2, 2, 2, 2, 2}));
  EXPECT_EQ(splitting_sequence(1), std::vector<int>{});
  EXPECT_EQ(splitting_sequence(97), std::vector<int>{97});
  EXPECT_EQ(splitting_sequence(2147483647), std::vector<int>{2147483647});
  EXPECT_EQ(splitting_sequence(448), (std::vector<int>{7, 2, 2, 2, 2, 2, 2}));
  EXPECT_THROW(splitting_sequence(0), Error);
}

TEST(SplittingSequence, NodeCountAndMessages) {
  EXPECT_EQ(ksection_node_count({3, 2, 2}), 1 + 3 + 6 + 12);
  EXPECT_EQ(ksection_messages_per_exchange({3, 2, 2}), 4);  // §2.1 example: 4 messages per exchange
  EXPECT_EQ(ksection_node_count({}), 1);
}

TEST(KSectionTree, TwelveRanksShape) {
  UniformCostSource cost;
  const KSectionTree tree = KSectionTree::build(12, Box{}, cost);
  EXPECT_EQ(tree.tree_levels(), 3);
  EXPECT_EQ(tree.splits(), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(tree.node_count(), ksection_node_count(tree.splits()));
  EXPECT_EQ(tree.child_count(0), 3);
  EXPECT_EQ(tree.rank_min(0), 0);
  EXPECT_EQ(tree.rank_max(0), 11);
  // Root: three slabs along x; each slab bisected along y, then z (Fig. 1).
  EXPECT_EQ(tree.split_axis(0), 0);
  const int slab = tree.first_child(0);
  EXPECT_EQ(tree.split_axis(slab), 1);
  EXPECT_EQ(tree.split_axis(tree.first_child(slab)), 2);
  EXPECT_EQ(tree.rank_min(slab + 1), 4);
  EXPECT_EQ(tree.rank_max(slab + 1), 7);
  for (int node = 0; node < tree.node_count(); ++node) {
    if (tree.is_leaf(node)) {
      EXPECT_EQ(tree.level(node), 3);
      EXPECT_EQ(tree.rank_min(node), tree.rank_max(node));
      EXPECT_EQ(tree.leaf_of_rank(tree.leaf_rank(node)), node);
      continue;
    }
    // Children partition the parent's rank range in order.
    const int k = tree.child_count(node);
    EXPECT_EQ(static_cast<int>(tree.walls(node).size()), k + 1);
    EXPECT_EQ(tree.rank_min(tree.first_child(node)), tree.rank_min(node));
    EXPECT_EQ(tree.rank_max(tree.first_child(node) + k - 1), tree.rank_max(node));
  }
}

TEST(KSectionTree, SingleRankAndPrimeRanks) {
  UniformCostSource cost;
  const KSectionTree one = KSectionTree::build(1, Box{}, cost);
  EXPECT_EQ(one.tree_levels(), 0);
  EXPECT_EQ(one.node_count(), 1);
  EXPECT_EQ(one.owner({0.3, 0.7, 0.1}), 0);
  const KSectionTree prime = KSectionTree::build(13, Box{}, cost, {64, 0.05});
  EXPECT_EQ(prime.tree_levels(), 1);
  EXPECT_EQ(prime.node_count(), 14);
  EXPECT_THROW(KSectionTree::build(0, Box{}, cost), Error);
}

TEST(KSectionTree, HundredThousandRanks) {
  // 100000 = 5^5 2^5: ten levels, 1 + 5 + ... + 3125 + 6250 + ... + 100000 nodes (§2.1).
  UniformCostSource cost;
  const KSectionTree tree = KSectionTree::build(100000, Box{}, cost, {256, 0.05});
  EXPECT_EQ(tree.tree_levels(), 10);
  EXPECT_EQ(tree.node_count(), ksection_node_count(tree.splits()));
  EXPECT_EQ(tree.node_count(), 1 + 5 + 25 + 125 + 625 + 3125 + 6250 + 12500 + 25000 + 50000 + 100000);
  double volume = 0.0;
  for (int r = 0; r < tree.nrank(); ++r) {
    const Box& box = tree.box(tree.leaf_of_rank(r));
    volume += box.extent(0) * box.extent(1) * box.extent(2);
    EXPECT_EQ(tree.leaf_rank(tree.leaf_of_rank(r)), r);
  }
  EXPECT_NEAR(volume, 1.0, 1e-12);
  EXPECT_EQ(tree.owner({0.0, 0.0, 0.0}), 0);
  EXPECT_EQ(tree.owner({0.999999, 0.999999, 0.999999}), 99999);
}

TEST(KSectionTree, LeafBoxesTileTheDomainExactlyOnce) {
  for (int nrank : {12, 96, 97, 1000}) {
    UniformCostSource cost;
    Box domain;
    domain.lo = {-1.0, 0.0, 2.0};
    domain.hi = {1.0, 1.5, 3.0};
    const KSectionTree tree = KSectionTree::build(nrank, domain, cost, {256, 0.05});
    double volume = 0.0;
    for (int r = 0; r < nrank; ++r) {
      const Box& box = tree.box(tree.leaf_of_rank(r));
      double v = 1.0;
      for (int d = 0; d < 3; ++d) {
        EXPECT_GE(box.extent(d), 0.0);
        EXPECT_GE(box.lo[d], domain.lo[d]);
        EXPECT_LE(box.hi[d], domain.hi[d]);
        v *= box.extent(d);
      }
      volume += v;
    }
    EXPECT_NEAR(volume, 3.0, 1e-12) << nrank;
    // Every cell centre of a 32^3 lattice lies in exactly one leaf box, and the owner map agrees.
    const int g = 32;
    std::mt19937_64 engine(nrank);
    std::uniform_real_distribution<double> jitter(0.1, 0.9);
    for (int n = 0; n < 2000; ++n) {
      std::array<double, 3> p{};
      for (int d = 0; d < 3; ++d)
        p[d] = domain.lo[d] + domain.extent(d) * (static_cast<int>(engine() % g) + jitter(engine)) / g;
      int holders = 0;
      for (int r = 0; r < nrank; ++r) holders += contains(tree.box(tree.leaf_of_rank(r)), p);
      EXPECT_EQ(holders, 1);
    }
  }
}

TEST(KSectionTree, OwnerWalkMatchesBruteForceContainment) {
  // A non-uniform load, so the walls are not simply geometric.
  const int g = 48;
  const std::vector<double> weight = clustered_load(g, random_clusters(7));
  GridCostSource cost(weight, g);
  const KSectionTree tree = KSectionTree::build(60, Box{}, cost, {g, 0.05});
  std::mt19937_64 engine(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int n = 0; n < 20000; ++n) {
    const std::array<double, 3> p{unit(engine), unit(engine), unit(engine)};
    int expected = -1;
    for (int r = 0; r < tree.nrank(); ++r)
      if (contains(tree.box(tree.leaf_of_rank(r)), p)) expected = r;
    ASSERT_EQ(tree.owner(p), expected);
    // Periodic images have the same owner.
    ASSERT_EQ(tree.owner({p[0] + 1.0, p[1] - 2.0, p[2] + 3.0}), expected);
  }
  // Walls are exact lattice points: a point on a wall belongs to the upper slab.
  const std::vector<std::int32_t> owner = tree.owner_map(g);
  for (int k = 0; k < g; k += 5)
    for (int j = 0; j < g; j += 3)
      for (int i = 0; i < g; ++i)
        ASSERT_EQ(owner[(k * g + j) * g + i], tree.owner({(i + 0.5) / g, (j + 0.5) / g, (k + 0.5) / g}));
}

TEST(WallPlacement, WallsFollowTheCumulativeCost) {
  // Cost rising linearly along x: C(x) = x^2 over the unit box, so wall j of a k-way split sits at
  // x = sqrt(j / k) (eq. 3), to within one histogram bin.
  const int g = 200;
  std::vector<double> weight(static_cast<std::size_t>(g) * g * g);
  for (int k = 0; k < g; ++k)
    for (int j = 0; j < g; ++j)
      for (int i = 0; i < g; ++i) weight[(static_cast<std::size_t>(k) * g + j) * g + i] = (i + 0.5) / g;
  GridCostSource cost(weight, g);
  // Five ranks: a single level of five slabs along x (ties in extent go to x).
  const KSectionTree tree = KSectionTree::build(5, Box{}, cost, {g, 0.05});
  ASSERT_EQ(tree.split_axis(0), 0);
  const auto walls = tree.walls(0);
  for (int j = 1; j < 5; ++j) EXPECT_NEAR(walls[j], std::sqrt(j / 5.0), 1.0 / g) << j;
  EXPECT_EQ(tree.wall_report().walls, 4);
  EXPECT_EQ(tree.wall_report().unresolved_walls, 0);
}

TEST(WallPlacement, BinarySearchOnHistogram) {
  WallReport report;
  // Eq. 3 with k = 4 on a flat histogram of 8 bins: edges 0, 2, 4, 6, 8.
  EXPECT_EQ(place_walls(std::vector<double>(8, 1.0), 4, 0.05, report), (std::vector<int>{0, 2, 4, 6, 8}));
  // One heavy bin cannot be split: the walls cannot cross and the miss is reported as unresolved.
  report = {};
  const std::vector<int> edges = place_walls(std::vector<double>{1, 1, 100, 1, 1}, 2, 0.05, report);
  EXPECT_TRUE(edges[1] == 2 || edges[1] == 3);
  EXPECT_EQ(report.unresolved_walls, 1);
  // No cost: a geometric split.
  report = {};
  EXPECT_EQ(place_walls(std::vector<double>(9, 0.0), 3, 0.05, report), (std::vector<int>{0, 3, 6, 9}));
}

TEST(CostFunction, MemoryWeightsOfSection2_3) {
  // seeds/000 eq. 5: 1232 B for nvar = 6 and 2256 B for nvar = 14 in 3-D.
  EXPECT_EQ(grid_memory_weight(3, 6), 1232.0);
  EXPECT_EQ(grid_memory_weight(3, 14), 2256.0);
  const MemoryWeights weights = memory_weights(3, 14);
  EXPECT_EQ(weights.w_grid, 2256.0);
  EXPECT_EQ(weights.w_part, 12.0);
  EXPECT_EQ(weights.w_sink, 500.0);
  // Eq. 4: the oct's cost over its 8 cells.
  EXPECT_DOUBLE_EQ(cell_cost(3, weights, 0, 0), 2256.0 / 8);
  EXPECT_DOUBLE_EQ(cell_cost(3, weights, 10, 1), (2256.0 + 120.0 + 500.0) / 8);
  EXPECT_EQ(memory_weights(3, 6, 999.0).w_grid, 999.0);  // mem_weight_grid > 0 overrides eq. 5
  EXPECT_THROW(memory_weights(3, 0), Error);
  // Eq. 6: time blend clamped to [0.5, 2].
  EXPECT_DOUBLE_EQ(time_blend_factor(0.0, 5.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(time_blend_factor(0.5, 2.0, 1.0), 1.5);
  EXPECT_DOUBLE_EQ(time_blend_factor(1.0, 10.0, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(time_blend_factor(1.0, 0.0, 1.0), 0.5);
}

// ranks_overlapping() against brute force over every leaf box and every periodic image of the
// query, for geometric and cost-weighted trees and queries that wrap around the periodic box.
TEST(KSectionTreeQueries, RanksOverlappingABoxMatchBruteForce) {
  constexpr int grid = 32;
  const std::vector<double> weights = clustered_load(grid, random_clusters(11, 20));
  for (int nrank : {1, 7, 12, 64}) {
    GridCostSource cost(weights, grid);
    WallSettings settings;
    settings.bins_per_domain = grid;
    const KSectionTree tree = KSectionTree::build(nrank, Box{}, cost, settings);
    std::uint64_t state = 99;
    auto uniform = [&state]() {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    for (int trial = 0; trial < 300; ++trial) {
      Box query;
      for (int d = 0; d < 3; ++d) {
        query.lo[d] = 2.0 * uniform() - 0.5;
        query.hi[d] = query.lo[d] + 0.6 * uniform() + 1e-3;
      }
      std::vector<int> expected;
      for (int rank = 0; rank < nrank; ++rank) {
        const Box& leaf = tree.box(tree.leaf_of_rank(rank));
        bool any = false;
        for (int ix = -2; ix <= 2 && !any; ++ix)
          for (int iy = -2; iy <= 2 && !any; ++iy)
            for (int iz = -2; iz <= 2 && !any; ++iz) {
              const double shift[3] = {double(ix), double(iy), double(iz)};
              bool overlaps = true;
              for (int d = 0; d < 3; ++d)
                overlaps = overlaps && query.lo[d] < leaf.hi[d] + shift[d] && leaf.lo[d] + shift[d] < query.hi[d];
              any = overlaps;
            }
        if (any) expected.push_back(rank);
      }
      ASSERT_EQ(tree.ranks_overlapping(query), expected) << "nrank " << nrank << " trial " << trial;
    }
  }
}

TEST(KSectionTree, RebuiltFromItsWallsIsTheSameTree) {
  // What a checkpoint stores (all_walls) must give back the same decomposition on a restart.
  const int g = 48;
  const std::vector<double> weight = clustered_load(g, random_clusters(5));
  GridCostSource cost(weight, g);
  for (int nrank : {1, 7, 12, 60}) {
    const KSectionTree tree = KSectionTree::build(nrank, Box{}, cost, {g, 0.05});
    const KSectionTree again = KSectionTree::from_walls(nrank, Box{}, tree.all_walls());
    ASSERT_EQ(again.node_count(), tree.node_count());
    EXPECT_TRUE(std::equal(tree.all_walls().begin(), tree.all_walls().end(), again.all_walls().begin(), again.all_walls().end()));
    for (int r = 0; r < nrank; ++r) {
      const Box& a = tree.box(tree.leaf_of_rank(r));
      const Box& b = again.box(again.leaf_of_rank(r));
      for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(a.lo[d], b.lo[d]);
        EXPECT_EQ(a.hi[d], b.hi[d]);
      }
    }
  }
  // Walls of another rank count, or altered ends, are refused.
  const KSectionTree twelve = KSectionTree::build(12, Box{}, cost, {g, 0.05});
  EXPECT_THROW(KSectionTree::from_walls(8, Box{}, twelve.all_walls()), kosmo::Error);
  std::vector<double> broken(twelve.all_walls().begin(), twelve.all_walls().end());
  broken.front() = 0.25;
  EXPECT_THROW(KSectionTree::from_walls(12, Box{}, broken), kosmo::Error);
}
