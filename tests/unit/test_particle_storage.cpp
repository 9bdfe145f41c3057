// Particle storage, location on the octree and per-oct ranges (docs/cosmology.md, "Particles and cosmological runs").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "core/oct_tree.hpp"
#include "particles/particle_locate.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::particles {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
double uniform(std::uint64_t seed) { return static_cast<double>(splitmix64(seed) >> 11) * 0x1.0p-53; }

using Tree3 = core::OctTree<3, std::uint64_t>;

// nx = 2, uniform to level 2, level 3 in [0.25, 0.75)^3, level 4 in [0.375, 0.625)^3 (graded).
Tree3 nested_tree() {
  Tree3::Geometry geometry;
  geometry.levelmax = 4;
  geometry.coarse_cells = {2, 2, 2};
  geometry.periodic = {true, true, true};
  Tree3 tree(geometry);
  auto refine_inside = [&](int level, double low, double high) {
    const std::vector<core::OctIndex> octs = tree.octs_at_level(level);
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree3::cells_per_oct; ++c) {
        const auto x = tree.cell_centre(Tree3::cell_index(o, c));
        if (std::all_of(x.begin(), x.end(), [&](double v) { return v > low && v < high; }))
          tree.create_son(Tree3::cell_index(o, c));
      }
  };
  refine_inside(1, 0.0, 1.0);
  refine_inside(2, 0.25, 0.75);
  refine_inside(3, 0.375, 0.625);
  tree.rebuild_level_lists();
  return tree;
}

ParticleSet<3> random_particles(std::size_t count, std::uint64_t seed) {
  ParticleSet<3> particles;
  for (std::size_t i = 0; i < count; ++i) {
    ParticleSet<3>::Particle p;
    for (int d = 0; d < 3; ++d)
      p.position[static_cast<std::size_t>(d)] = uniform(seed + 7 * i + static_cast<std::uint64_t>(d));
    p.mass = 0.5 + uniform(seed + 7 * i + 5);
    p.id = static_cast<std::int64_t>(i);
    particles.add(p);
  }
  return particles;
}

TEST(ParticleSet, AddRemoveAndCompaction) {
  ParticleSet<2> particles;
  for (int i = 0; i < 5; ++i) {
    ParticleSet<2>::Particle p;
    p.position = {0.1 * i, 0.2};
    p.velocity = {1.0, -1.0 * i};
    p.mass = 1.0 + i;
    p.id = 100 + i;
    p.family = i == 3 ? Family::star : Family::dark_matter;
    EXPECT_EQ(particles.add(p), static_cast<std::size_t>(i));
  }
  particles.remove(1);  // swap-remove: the last (id 104) moves into slot 1
  ASSERT_EQ(particles.size(), 4u);
  EXPECT_EQ(particles.id()[1], 104);
  EXPECT_DOUBLE_EQ(particles.position(0)[1], 0.4);
  EXPECT_DOUBLE_EQ(particles.velocity(1)[1], -4.0);
  EXPECT_DOUBLE_EQ(particles.mass()[1], 5.0);
  const std::vector<std::uint8_t> flags = {0, 1, 0, 0};  // ids 100 104 102 103 -> remove 104
  EXPECT_EQ(particles.remove_flagged(flags), 1u);
  ASSERT_EQ(particles.size(), 3u);
  EXPECT_EQ(particles.id()[0], 100);
  EXPECT_EQ(particles.id()[1], 102);
  EXPECT_EQ(particles.id()[2], 103);
  EXPECT_EQ(particles.family()[2], Family::star);
  EXPECT_EQ(particles.get(1).mass, 3.0);
  EXPECT_EQ(static_cast<int>(Family::dark_matter), 1);  // RAMSES FAM_DM
  EXPECT_EQ(static_cast<int>(Family::star), 2);         // RAMSES FAM_STAR
}

TEST(ParticleSet, WrapPositionsIntoTheBox) {
  ParticleSet<2> particles;
  ParticleSet<2>::Particle p;
  p.position = {-0.25, 1.75};
  particles.add(p);
  p.position = {-1e-17, 2.0};
  particles.add(p);
  particles.wrap_positions(1.0, {true, false});
  EXPECT_DOUBLE_EQ(particles.position(0)[0], 0.75);
  EXPECT_DOUBLE_EQ(particles.position(1)[0], 1.75);  // non-periodic axis untouched
  EXPECT_GE(particles.position(0)[1], 0.0);
  EXPECT_LT(particles.position(0)[1], 1.0);  // -1e-17 + 1 rounds to 1: must not stay at boxlen
}

TEST(ParticleLocate, FinestOctContainsEachParticle) {
  Tree3 tree = nested_tree();
  ParticleSet<3> particles = random_particles(3000, 11);
  locate_particles(tree, particles);
  std::map<int, int> per_level;
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const core::OctIndex o = particles.oct()[i];
    ASSERT_NE(o, core::no_oct);
    const int l = tree.level(o);
    EXPECT_EQ(particles.level()[i], l);
    ++per_level[l];
    // Geometric check: the particle lies inside the oct, in a cell that is a leaf.
    const double h = tree.cell_size(l);
    const auto oct_coordinates = tree.coordinates(o);
    int child = 0;
    for (int d = 0; d < 3; ++d) {
      const double x = particles.position(d)[i];
      const double low = 2.0 * h * static_cast<double>(oct_coordinates[static_cast<std::size_t>(d)]);
      EXPECT_GE(x, low);
      EXPECT_LT(x, low + 2.0 * h);
      child |= (x >= low + h ? 1 : 0) << d;
    }
    EXPECT_TRUE(tree.is_leaf(Tree3::cell_index(o, child)));
  }
  EXPECT_GT(per_level[2], 0);
  EXPECT_GT(per_level[3], 0);
  EXPECT_GT(per_level[4], 0);
}

// After the particles of one level drift, relocating only those that left their located cell gives
// what a full locate gives, and leaves the others alone (it locates fewer than all).
TEST(ParticleLocate, RelocatingMovedParticlesMatchesAFullLocate) {
  Tree3 tree = nested_tree();
  ParticleSet<3> particles = random_particles(3000, 17);
  locate_particles(tree, particles);
  const int level = 3;
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> step(-0.05, 0.05);  // up to 1.6 level-3 cells
  std::size_t moved = 0;
  for (std::size_t i = 0; i < particles.size(); ++i) {
    if (particles.level()[i] != level) continue;
    ++moved;
    for (int d = 0; d < 3; ++d) particles.position(d)[i] = std::clamp(particles.position(d)[i] + step(random), 0.0, 0.999999);
  }
  // Two unlocated arrivals, as a migration appends them.
  ParticleSet<3>::Particle arrival;
  arrival.position = {0.5, 0.5, 0.5};
  arrival.id = 100000;
  particles.add(arrival);
  arrival.position = {0.1, 0.9, 0.3};
  arrival.id = 100001;
  particles.add(arrival);
  ParticleSet<3> reference = particles;
  locate_particles(tree, reference);
  const std::size_t relocated = relocate_moved_particles(tree, particles, level);
  EXPECT_GT(relocated, 2u);
  EXPECT_LT(relocated, moved + 2);  // some stayed in their cell and were not looked up again
  for (std::size_t i = 0; i < particles.size(); ++i) {
    EXPECT_EQ(particles.oct()[i], reference.oct()[i]) << "particle " << i;
    EXPECT_EQ(particles.level()[i], reference.level()[i]) << "particle " << i;
  }
}

TEST(ParticleSet, SortByOctGivesContiguousRanges) {
  Tree3 tree = nested_tree();
  ParticleSet<3> particles = random_particles(2000, 29);
  locate_particles(tree, particles);
  // Remember each id's oct and position to check that every array moved together.
  std::map<std::int64_t, std::pair<core::OctIndex, double>> before;
  for (std::size_t i = 0; i < particles.size(); ++i)
    before[particles.id()[i]] = {particles.oct()[i], particles.position(2)[i]};
  particles.sort_by_oct(tree);
  ASSERT_TRUE(particles.sorted_by_oct());
  ASSERT_EQ(particles.size(), 2000u);
  std::size_t covered = 0;
  std::size_t expected_begin = 0;
  for (std::size_t o = 0; o < tree.oct_capacity(); ++o) {
    const auto oct = static_cast<core::OctIndex>(o);
    EXPECT_EQ(particles.oct_begin(oct), expected_begin);
    for (std::size_t i = particles.oct_begin(oct); i < particles.oct_end(oct); ++i) EXPECT_EQ(particles.oct()[i], oct);
    // Stable: ids (assigned in creation order) increase inside a range.
    for (std::size_t i = particles.oct_begin(oct) + 1; i < particles.oct_end(oct); ++i)
      EXPECT_LT(particles.id()[i - 1], particles.id()[i]);
    covered += particles.oct_end(oct) - particles.oct_begin(oct);
    expected_begin = particles.oct_end(oct);
  }
  EXPECT_EQ(covered, particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const auto& [oct, z] = before.at(particles.id()[i]);
    EXPECT_EQ(particles.oct()[i], oct);
    EXPECT_EQ(particles.position(2)[i], z);
  }
  ParticleSet<3>::Particle extra;
  particles.add(extra);
  EXPECT_FALSE(particles.sorted_by_oct());
}

}  // namespace
}  // namespace kosmo::particles
