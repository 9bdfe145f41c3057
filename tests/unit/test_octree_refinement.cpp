// The octree under 50 rounds of random refinement and derefinement, for D = 1, 2, 3 and both key
// widths, checked against references that never touch the Morton hash: grading and neighbours
// from a map of cell-centre positions, conservation from sums over leaves.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/oct_stencil_cache.hpp"
#include "core/refinement.hpp"
#include "mesh_test_types.hpp"

using namespace kosmo;
using namespace kosmo::core;

namespace {

template <class Case>
class OctreeRefinementTest : public ::testing::Test {};
TYPED_TEST_SUITE(OctreeRefinementTest, test::MeshCases);

template <int D, class Key>
typename OctTree<D, Key>::Geometry test_geometry(int levelmax) {
  typename OctTree<D, Key>::Geometry g;
  g.levelmax = levelmax;
  for (int d = 0; d < D; ++d) {
    g.coarse_cells[d] = d == 0 ? 2 : 1;  // a non-cubic coarse grid exercises the wrap by extent
    g.periodic[d] = true;
  }
  g.boxlen = 2.0;
  return g;
}

// Geometric index of every alive oct: (level, centre position) -> oct. Independent of Morton keys.
template <int D, class Key>
std::map<std::pair<int, std::array<double, D>>, OctIndex> octs_by_position(const OctTree<D, Key>& tree) {
  std::map<std::pair<int, std::array<double, D>>, OctIndex> index;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    for (OctIndex o : tree.octs_at_level(l)) {
      // The oct centre is the upper corner of its first cell.
      auto x = tree.cell_centre(OctTree<D, Key>::cell_index(o, 0));
      for (int d = 0; d < D; ++d) x[d] += 0.5 * tree.cell_size(l);
      index.emplace(std::make_pair(l, x), o);
    }
  }
  return index;
}

template <int D, class Key>
void check_against_geometry(const OctTree<D, Key>& tree) {
  using Tree = OctTree<D, Key>;
  const auto index = octs_by_position(tree);
  std::size_t alive = 0;
  for (int l = 1; l <= tree.levelmax(); ++l) alive += tree.octs_at_level(l).size();
  ASSERT_EQ(alive, index.size());
  ASSERT_EQ(alive, tree.octs_in_use());
  std::array<double, D> box{};
  for (int d = 0; d < D; ++d) box[d] = tree.cell_size(0) * static_cast<double>(tree.geometry().coarse_cells[d]);
  auto wrap = [&](std::array<double, D> x) {
    for (int d = 0; d < D; ++d) x[d] = std::fmod(x[d] + box[d], box[d]);
    return x;
  };
  auto lookup = [&](int l, const std::array<double, D>& x) {
    const auto it = index.find({l, wrap(x)});
    return it == index.end() ? no_oct : it->second;
  };
  for (const auto& [where, o] : index) {
    const int l = where.first;
    const double oct_width = 2.0 * tree.cell_size(l);
    // Sons agree with the positions of the next level: a son oct is centred on its father cell.
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const auto x = tree.cell_centre(Tree::cell_index(o, c));
      const OctIndex expected_son = l < tree.levelmax() ? lookup(l + 1, x) : no_oct;
      ASSERT_EQ(tree.son(Tree::cell_index(o, c)), expected_son);
    }
    for (int dir = 0; dir < 2 * D; ++dir) {
      auto x = where.second;
      x[dir / 2] += (dir % 2 ? 1.0 : -1.0) * oct_width;
      ASSERT_EQ(tree.neighbour_oct(o, dir), lookup(l, x)) << "level " << l << " dir " << dir;
      const CellIndex nc = tree.neighbour_cell(o, dir);
      if (l == 1) {
        ASSERT_TRUE(is_coarse_cell(nc));
        continue;
      }
      // Brute force: the level l-1 oct whose box holds x, and the cell of it that does.
      const double coarse_width = 2.0 * tree.cell_size(l - 1);
      std::array<double, D> centre{}, xw = wrap(x);
      int child = 0;
      for (int d = 0; d < D; ++d) {
        centre[d] = (std::floor(xw[d] / coarse_width) + 0.5) * coarse_width;
        if (xw[d] > centre[d]) child |= 1 << d;
      }
      const OctIndex parent = lookup(l - 1, centre);
      ASSERT_NE(parent, no_oct) << "grading: the father level lacks a neighbour";
      ASSERT_EQ(nc, Tree::cell_index(parent, child));
    }
  }
  // 2:1 grading: every neighbour of every father cell exists (positions only).
  for (const auto& [where, o] : index) {
    const int l = where.first;
    if (l == 1) continue;
    const auto father_centre = tree.cell_centre(tree.father_cell(o));
    const double w = tree.cell_size(l - 1);
    int total = 1;
    for (int d = 0; d < D; ++d) total *= 3;
    for (int n = 0; n < total; ++n) {
      auto x = father_centre;
      int rest = n;
      for (int d = 0; d < D; ++d, rest /= 3) x[d] += (rest % 3 - 1) * w;
      // The neighbour cell exists iff the level l-1 oct holding it exists.
      std::array<double, D> oct_centre{};
      const auto xw = wrap(x);
      for (int d = 0; d < D; ++d) oct_centre[d] = (std::floor(xw[d] / (2 * w)) + 0.5) * 2 * w;
      ASSERT_NE(lookup(l - 1, oct_centre), no_oct) << "2:1 grading violated at level " << l;
    }
  }
  ASSERT_EQ(grading_violation(tree), "");
}

template <int D, class Key>
double leaf_sum(const OctTree<D, Key>& tree, int field) {
  double sum = 0.0;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const double volume = std::pow(tree.cell_size(l), D);
    for (OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < OctTree<D, Key>::cells_per_oct; ++c) {
        const CellIndex cell = OctTree<D, Key>::cell_index(o, c);
        if (tree.is_leaf(cell)) sum += tree.field(field)[cell] * volume;
      }
  }
  return sum;
}

TYPED_TEST(OctreeRefinementTest, FiftyRandomRoundsKeepGradingNeighboursAndConservation) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Tree = OctTree<D, Key>;
  const int levelmax = D == 3 ? 5 : (D == 2 ? 7 : 10);
  Tree tree(test_geometry<D, Key>(levelmax));
  const int mass = tree.add_field(scalar_field("density"));
  const int velocity = tree.add_field(velocity_field("velocity_x"));
  for (OctIndex o : tree.octs_at_level(1))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      tree.field(mass)[Tree::cell_index(o, c)] = 1.0 + 0.25 * c;
      tree.field(velocity)[Tree::cell_index(o, c)] = -0.5 * c;
    }
  RefinementSettings settings;
  settings.levelmin = 2;
  settings.nexpand = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
  const double initial_mass = leaf_sum(tree, mass);
  const double initial_momentum = leaf_sum(tree, velocity);
  std::size_t created = 0, destroyed = 0;
  for (int round = 0; round < 50; ++round) {
    settings.interpolation = static_cast<InterpolationType>(round % 5);
    RefinementCriterion<D, Key> random_flags = [round](const Tree& t, int level, std::vector<std::uint8_t>& flags) {
      for (OctIndex o : t.octs_at_level(level))
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const auto h = test::splitmix64(static_cast<std::uint64_t>(t.key(o)) * 131 + static_cast<std::uint64_t>(c * 7 + level * 1000 + round * 100000));
          if (h % 100 < static_cast<std::uint64_t>(D == 3 ? 6 : 12)) flags[Tree::cell_index(o, c)] = 1;
        }
    };
    // Every other round refines only from a deeper level, as a fine level step does.
    const int min_level = round % 2 ? 1 : 1 + (round / 2) % (levelmax - 1);
    std::vector<std::size_t> fixed_levels;
    for (int l = 1; l <= min_level; ++l) fixed_levels.push_back(tree.octs_at_level(l).size());
    const RegridCounts counts = regrid(tree, settings, random_flags, min_level);
    for (int l = 1; l <= min_level; ++l) ASSERT_EQ(tree.octs_at_level(l).size(), fixed_levels[static_cast<std::size_t>(l - 1)]);
    created += counts.created;
    destroyed += counts.destroyed;
    if (round % 10 == 9) tree.compact();
    check_against_geometry(tree);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_NEAR(leaf_sum(tree, mass), initial_mass, 1e-12 * std::fabs(initial_mass)) << "round " << round;
    EXPECT_NEAR(leaf_sum(tree, velocity), initial_momentum, 1e-12 * std::max(1.0, std::fabs(initial_momentum)));
    // The stencil cache of the hot loops answers as the direct lookups do at the face offsets.
    for (int l = 1; l <= levelmax; ++l) {
      OctStencilCache<D, Key> cache;
      cache.update(tree, l);
      ASSERT_EQ(cache.size(), tree.octs_at_level(l).size());
      for (std::size_t i = 0; i < cache.size(); ++i)
        for (int dir = 0; dir < 2 * D; ++dir) {
          int step = 1;
          for (int axis = 0; axis < dir / 2; ++axis) step *= 3;
          const int k = (OctStencilCache<D, Key>::neighbours - 1) / 2 + (dir % 2 ? step : -step);
          ASSERT_EQ(cache.neighbour_oct(i, k), tree.neighbour_oct(cache.oct(i), dir));
          if (l > 1) {
            ASSERT_EQ(cache.coarse_cell(i, k), tree.neighbour_cell(cache.oct(i), dir));
          }
        }
    }
  }
  // The rounds did refine and derefine, down to levelmax.
  EXPECT_GT(created, 100u);
  EXPECT_GT(destroyed, 100u);
  EXPECT_FALSE(tree.octs_at_level(levelmax).empty());
}

TYPED_TEST(OctreeRefinementTest, ProlongationThenRestrictionReturnsCoarseValuesExactly) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Tree = OctTree<D, Key>;
  for (int type = 0; type <= 4; ++type) {
    Tree tree(test_geometry<D, Key>(4));
    const int rho = tree.add_field(scalar_field("density"));
    const int vel = tree.add_field(velocity_field("velocity_x"));
    RefinementSettings settings;
    settings.levelmin = 3;
    settings.interpolation = InterpolationType::injection;
    RefinementCriterion<D, Key> none = [](const Tree&, int, std::vector<std::uint8_t>&) {};
    build_initial_mesh<D, Key>(tree, settings, none, {});
    // Dyadic values (multiples of 1/64 below 64): every slope and child value is exact.
    std::uint64_t state = 11 + static_cast<std::uint64_t>(type);
    std::vector<double> before(tree.oct_capacity() * Tree::cells_per_oct);
    for (OctIndex o : tree.octs_at_level(3))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        state = test::splitmix64(state);
        tree.field(rho)[cell] = static_cast<double>(state % 4096) / 64.0;
        tree.field(vel)[cell] = static_cast<double>(state % 977) / 64.0 - 7.0;
      }
    const std::vector<double> rho_before(tree.field(rho), tree.field(rho) + before.size());
    const std::vector<double> vel_before(tree.field(vel), tree.field(vel) + before.size());
    settings.interpolation = static_cast<InterpolationType>(type);
    RefinementCriterion<D, Key> all = [](const Tree& t, int level, std::vector<std::uint8_t>& flags) {
      for (OctIndex o : t.octs_at_level(level))
        for (int c = 0; c < Tree::cells_per_oct; ++c) flags[Tree::cell_index(o, c)] = 1;
    };
    regrid(tree, settings, all);
    ASSERT_EQ(tree.octs_at_level(4).size(), tree.octs_at_level(3).size() * Tree::cells_per_oct);
    // With a non-trivial slope the children differ from their father somewhere.
    bool any_slope = false;
    for (OctIndex o : tree.octs_at_level(4))
      any_slope = any_slope || tree.field(rho)[Tree::cell_index(o, 0)] != rho_before[tree.father_cell(o)];
    EXPECT_EQ(any_slope, type != 0) << "interpol_type " << type;
    regrid(tree, settings, none);
    ASSERT_TRUE(tree.octs_at_level(4).empty());
    for (OctIndex o : tree.octs_at_level(3))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        ASSERT_EQ(tree.field(rho)[cell], rho_before[cell]) << "interpol_type " << type;
        ASSERT_EQ(tree.field(vel)[cell], vel_before[cell]) << "interpol_type " << type;
      }
  }
}

TYPED_TEST(OctreeRefinementTest, CompactionKeepsTheMeshAndShrinksThePool) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Tree = OctTree<D, Key>;
  Tree tree(test_geometry<D, Key>(6));
  const int f = tree.add_field(scalar_field("density"));
  RefinementSettings settings;
  settings.levelmin = 2;
  // Refine a corner region deeply, then release most of it so the pool has holes.
  auto corner = [](double size) {
    return RefinementCriterion<D, Key>([size](const Tree& t, int level, std::vector<std::uint8_t>& flags) {
      for (OctIndex o : t.octs_at_level(level))
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const auto x = t.cell_centre(Tree::cell_index(o, c));
          bool inside = true;
          for (int d = 0; d < D; ++d) inside = inside && x[d] < size;
          if (inside) flags[Tree::cell_index(o, c)] = 1;
        }
    });
  };
  build_initial_mesh<D, Key>(tree, settings, corner(0.6), [f](Tree& t) {
    for (std::size_t cell = 0; cell < t.oct_capacity() * Tree::cells_per_oct; ++cell) t.field(f)[cell] = static_cast<double>(cell % 17);
  });
  regrid(tree, settings, corner(0.1));
  const std::size_t capacity_before = tree.oct_capacity();
  std::map<std::pair<int, std::uint64_t>, double> leaves_before;
  for (int l = 1; l <= 6; ++l)
    for (OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c)
        leaves_before[{l, static_cast<std::uint64_t>(tree.key(o)) * 8 + static_cast<std::uint64_t>(c)}] = tree.field(f)[Tree::cell_index(o, c)];
  tree.compact();
  EXPECT_LT(tree.oct_capacity(), capacity_before);
  EXPECT_EQ(tree.oct_capacity(), tree.octs_in_use());
  std::size_t n = 0;
  for (int l = 1; l <= 6; ++l)
    for (OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c, ++n)
        ASSERT_EQ((leaves_before[{l, static_cast<std::uint64_t>(tree.key(o)) * 8 + static_cast<std::uint64_t>(c)}]), tree.field(f)[Tree::cell_index(o, c)]);
  EXPECT_EQ(n, leaves_before.size());
  check_against_geometry(tree);
}

}  // namespace
