// The force stencil's own neighbour lookups answer as the general ones do, on randomly refined
// meshes, periodic and not: FaceNeighbours as OctStencilCache at the 2D face offsets (the octs and
// coarse cells the acceleration kernel reads), NeighbourhoodCells as OctTree::find_cell at every
// offset of the 3^D neighbourhood (the coarse cells the potential is interpolated from).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/oct_stencil_cache.hpp"
#include "core/refinement.hpp"
#include "gravity/coarse_interpolation.hpp"
#include "gravity/face_neighbours.hpp"
#include "mesh_test_types.hpp"

using namespace kosmo;
using namespace kosmo::core;

namespace {

template <class Case>
class GravityNeighboursTest : public ::testing::Test {};
using Cases = ::testing::Types<test::MeshCase<1, std::uint64_t>, test::MeshCase<2, std::uint64_t>, test::MeshCase<3, std::uint64_t>>;
TYPED_TEST_SUITE(GravityNeighboursTest, Cases);

template <int D, class Key>
typename OctTree<D, Key>::Geometry geometry(int levelmax, bool periodic) {
  typename OctTree<D, Key>::Geometry g;
  g.levelmax = levelmax;
  for (int d = 0; d < D; ++d) {
    g.coarse_cells[static_cast<std::size_t>(d)] = d == 0 ? 2 : 1;  // non-cubic: the wrap is by extent
    g.periodic[static_cast<std::size_t>(d)] = periodic;
  }
  g.boxlen = 2.0;
  return g;
}

template <int D, class Key>
void check_against_general_lookups(const OctTree<D, Key>& tree) {
  using Tree = OctTree<D, Key>;
  using Stencil = OctStencilCache<D, Key>;
  for (int level = 1; level <= tree.levelmax(); ++level) {
    Stencil stencil;
    stencil.update(tree, level);
    const gravity::FaceNeighbours<D, Key> faces(tree, level);
    ASSERT_EQ(faces.size(), stencil.size());
    for (std::size_t i = 0; i < faces.size(); ++i) {
      ASSERT_EQ(faces.oct(i), stencil.oct(i));
      for (int f = 0; f < 2 * D; ++f) {
        int step = 1;
        for (int axis = 0; axis < f / 2; ++axis) step *= 3;
        const int k = (Stencil::neighbours - 1) / 2 + (f % 2 ? step : -step);
        ASSERT_EQ(faces.neighbour_oct(i, f), stencil.neighbour_oct(i, k)) << "level " << level << " face " << f;
        ASSERT_EQ(faces.coarse_cell(i, f), stencil.coarse_cell(i, k)) << "level " << level << " face " << f;
      }
    }
    int stencil_size = 1;
    for (int d = 0; d < D; ++d) stencil_size *= 3;
    for (OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const auto centre = tree.cell_coordinates(Tree::cell_index(o, c));
        gravity::NeighbourhoodCells<D, Key> cells(tree, level, centre);
        // In a scrambled order, so that the octs are looked up in every order.
        for (int n = 0; n < stencil_size; ++n) {
          const int s = (n * 7 + c) % stencil_size;
          std::array<int, D> offset{};
          auto expected = centre;
          for (int d = 0, rest = s; d < D; ++d, rest /= 3) {
            offset[static_cast<std::size_t>(d)] = rest % 3 - 1;
            expected[static_cast<std::size_t>(d)] += rest % 3 - 1;
          }
          ASSERT_EQ(cells.cell(offset), tree.find_cell(level, expected)) << "level " << level << " offset index " << s;
        }
      }
  }
}

TYPED_TEST(GravityNeighboursTest, OwnLookupsMatchStencilCacheAndFindCellOnRandomMeshes) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Tree = OctTree<D, Key>;
  const int levelmax = D == 3 ? 5 : (D == 2 ? 6 : 8);
  for (bool periodic : {true, false}) {
    Tree tree(geometry<D, Key>(levelmax, periodic));
    tree.add_field(scalar_field("density"));
    RefinementSettings settings;
    settings.levelmin = 2;
    std::size_t finest = 0;
    for (int round = 0; round < 6; ++round) {
      RefinementCriterion<D, Key> random_flags = [round](const Tree& t, int level, std::vector<std::uint8_t>& flags) {
        for (OctIndex o : t.octs_at_level(level))
          for (int c = 0; c < Tree::cells_per_oct; ++c) {
            const auto h = test::splitmix64(static_cast<std::uint64_t>(t.key(o)) * 131 + static_cast<std::uint64_t>(c * 7 + level * 1000 + round * 100000));
            if (h % 100 < static_cast<std::uint64_t>(D == 3 ? 15 : 25)) flags[Tree::cell_index(o, c)] = 1;
          }
      };
      regrid(tree, settings, random_flags);
      check_against_general_lookups(tree);
      if (::testing::Test::HasFatalFailure()) return;
      finest = std::max(finest, tree.octs_at_level(levelmax - 1).size());
    }
    // The rounds made a mesh with coarse-fine faces several levels deep.
    EXPECT_GT(finest, 0u) << (periodic ? "periodic" : "walls");
  }
}

}  // namespace
