// Memory per oct (ARCHITECTURE §1, seeds/000 §4.2 and App. C): the hash costs at most the 28 bytes
// per oct of seeds/000 §4.2, and the pool costs exactly what its arrays say, for the 3-D mesh of
// the built-in demo carrying 5 hydro variables in two time levels.
#include <gtest/gtest.h>

#include <cmath>

#include "core/region_criterion.hpp"
#include "core/refinement.hpp"
#include "driver/mesh_report.hpp"

using namespace kosmo::core;

namespace {

using Tree = OctTree<3, MortonKey>;

Tree refined_sphere(int levelmax, int nfields) {
  Tree::Geometry g;
  g.levelmax = levelmax;
  g.coarse_cells = {1, 1, 1};
  g.periodic = {true, true, true};
  Tree tree(g);
  for (int f = 0; f < nfields; ++f) tree.add_field(scalar_field("field_" + std::to_string(f)));
  RefinementSettings settings;
  settings.levelmin = 3;
  const RefineRegion sphere{.x = 0.5, .y = 0.5, .z = 0.5, .r = 0.5};
  const auto criterion = region_criterion<3, MortonKey>({sphere});
  build_initial_mesh<3, MortonKey>(tree, settings, criterion, {});
  tree.compact();
  return tree;
}

TEST(Memory, HashCostsAtMost28BytesPerOctOnEveryLevel) {
  const Tree tree = refined_sphere(7, 1);
  std::size_t hash_bytes = 0;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const auto& h = tree.hash(l);
    ASSERT_EQ(h.size(), tree.octs_at_level(l).size());
    ASSERT_LE(h.fill(), 0.7);
    hash_bytes += h.bytes();
    // Levels big enough for the 16-slot minimum not to dominate.
    if (h.size() >= 64) {
      EXPECT_LE(static_cast<double>(h.bytes()) / static_cast<double>(h.size()), 28.0) << "level " << l;
    }
  }
  const double per_oct = static_cast<double>(hash_bytes) / static_cast<double>(tree.octs_in_use());
  RecordProperty("hash_bytes_per_oct", std::to_string(per_oct));
  EXPECT_LE(per_oct, 28.0);
  EXPECT_DOUBLE_EQ(tree.memory().hash, per_oct);
}

TEST(Memory, BytesPerOctWithFiveHydroVariablesInTwoTimeLevels) {
  const Tree tree = refined_sphere(7, 10);
  const OctMemory m = tree.memory();
  // After compaction the pool holds exactly the octs in use.
  EXPECT_EQ(m.keys, static_cast<double>(sizeof(MortonKey)));
  EXPECT_EQ(m.levels, 2.0);  // level and role (owned, ghost, idle), one byte each
  EXPECT_EQ(m.fathers, 4.0);
  EXPECT_EQ(m.sons, 8 * 4.0);
  EXPECT_EQ(m.fields, 10 * 8 * 8.0);
  EXPECT_EQ(m.level_lists, 4.0);
  EXPECT_LE(m.hash, 28.0);
  const double total = m.total();
  RecordProperty("bytes_per_oct", std::to_string(total));
  // 646 + 32 + 8 or 16 (key) bytes of pool, plus the hash: well under RAMSES' 48-byte nbor alone
  // on top of its own pool.
  EXPECT_LE(total, 640 + 32 + 4 + 2 + 4 + sizeof(MortonKey) + 28.0);
  // The start-up report prints the same figure.
  const std::string report = kosmo::driver::memory_summary(tree);
  char expected[64];
  std::snprintf(expected, sizeof expected, "%.1f bytes per oct in use", total);
  EXPECT_NE(report.find(expected), std::string::npos) << report;
}

// A scratch field's storage exists only while it is used (docs/performance.md, "Bytes per oct"):
// released, it costs nothing and the pool grows, shrinks and compacts without it; acquired again,
// it has a zero for every cell of the pool, as a new oct has.
TEST(Memory, ReleasedScratchFieldCostsNothingAndComesBackZeroed) {
  Tree tree = refined_sphere(6, 3);
  const std::size_t cells = tree.oct_capacity() * Tree::cells_per_oct;
  for (std::size_t c = 0; c < cells; ++c) tree.field(1)[c] = 1.0 + static_cast<double>(c);
  const double with_three = tree.memory().fields;
  tree.release_field(1);
  EXPECT_TRUE(tree.field_released(1));
  EXPECT_EQ(tree.field(1), nullptr);
  EXPECT_DOUBLE_EQ(tree.memory().fields, with_three * 2.0 / 3.0);
  EXPECT_NE(kosmo::driver::memory_summary(tree).find("field_1 0.0"), std::string::npos) << kosmo::driver::memory_summary(tree);
  // The pool changes while the field is released: a new oct, one destroyed, a compaction.
  CellIndex leaf = no_cell;
  for (OctIndex o : tree.octs_at_level(5))
    for (int c = 0; c < Tree::cells_per_oct && leaf == no_cell; ++c)
      if (tree.is_leaf(Tree::cell_index(o, c))) leaf = Tree::cell_index(o, c);
  ASSERT_NE(leaf, no_cell);
  const OctIndex son = tree.create_son(leaf);
  tree.field(0)[Tree::cell_index(son, 3)] = 7.0;
  tree.destroy_son(leaf);
  tree.create_son(leaf);
  tree.compact();
  EXPECT_EQ(tree.field(1), nullptr);
  tree.acquire_field(1);
  EXPECT_FALSE(tree.field_released(1));
  const std::size_t now = tree.oct_capacity() * Tree::cells_per_oct;
  for (std::size_t c = 0; c < now; ++c) ASSERT_EQ(tree.field(1)[c], 0.0) << "cell " << c;
  EXPECT_DOUBLE_EQ(tree.memory().fields, 3 * 8 * 8.0);  // compacted: exactly the octs in use
}

}  // namespace
