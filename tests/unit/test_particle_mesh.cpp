// CIC deposit and interpolation on the octree (docs/cosmology.md): mass conservation on uniform and
// AMR levels, exact single-cell and lattice cases, exact interpolation of linear fields, momentum
// conservation of PM with the FFT Poisson solver, and thread-count independence.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/oct_tree.hpp"
#include "gravity/fft_poisson.hpp"
#include "gravity/potential_gradient.hpp"
#include "particles/particle_locate.hpp"
#include "particles/particle_mesh.hpp"
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

template <int D>
using Tree = core::OctTree<D, std::uint64_t>;

// Refines every level-`level` cell whose centre lies in (low, high)^D.
template <int D>
void refine_inside(Tree<D>& tree, int level, double low, double high) {
  const std::vector<core::OctIndex> octs = tree.octs_at_level(level);
  for (core::OctIndex o : octs)
    for (int c = 0; c < Tree<D>::cells_per_oct; ++c) {
      const auto x = tree.cell_centre(Tree<D>::cell_index(o, c));
      if (std::all_of(x.begin(), x.end(), [&](double v) { return v > low && v < high; }))
        tree.create_son(Tree<D>::cell_index(o, c));
    }
}

template <int D>
Tree<D> uniform_tree(int level, std::int64_t nx = 2, bool periodic = true) {
  typename Tree<D>::Geometry geometry;
  geometry.levelmax = level;
  geometry.coarse_cells.fill(nx);
  geometry.periodic.fill(periodic);
  Tree<D> tree(geometry);
  for (int l = 1; l < level; ++l) refine_inside(tree, l, -1.0, 2.0);
  tree.rebuild_level_lists();
  return tree;
}

// nx = 2, uniform to level 2, level 3 in (0.25, 0.75)^D, level 4 in (0.375, 0.625)^D: graded.
template <int D>
Tree<D> nested_tree() {
  Tree<D> tree = uniform_tree<D>(2);
  typename Tree<D>::Geometry geometry = tree.geometry();
  geometry.levelmax = 4;
  Tree<D> deep(geometry);
  refine_inside(deep, 1, -1.0, 2.0);
  refine_inside(deep, 2, 0.25, 0.75);
  refine_inside(deep, 3, 0.375, 0.625);
  deep.rebuild_level_lists();
  return deep;
}

template <int D>
ParticleSet<D> random_particles(std::size_t count, std::uint64_t seed, double low = 0.0, double high = 1.0) {
  ParticleSet<D> particles;
  for (std::size_t i = 0; i < count; ++i) {
    typename ParticleSet<D>::Particle p;
    for (int d = 0; d < D; ++d)
      p.position[static_cast<std::size_t>(d)] =
          low + (high - low) * uniform(seed + 7 * i + static_cast<std::uint64_t>(d));
    p.mass = 0.5 + uniform(seed + 7 * i + 5);
    p.id = static_cast<std::int64_t>(i);
    particles.add(p);
  }
  return particles;
}

// Sum over every alive cell of rho * V(level of the cell), in long double.
template <int D>
long double deposited_mass(const Tree<D>& tree, int field) {
  long double total = 0.0L;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    const double volume = std::pow(tree.cell_size(l), D);
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree<D>::cells_per_oct; ++c)
        total += static_cast<long double>(tree.field(field)[Tree<D>::cell_index(o, c)]) * volume;
  }
  return total;
}

template <int D>
long double particle_mass(const ParticleSet<D>& particles, int level, LevelSelection selection, const Tree<D>& tree) {
  long double total = 0.0L;
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const int l = tree.level(particles.oct()[i]);
    if (selection == LevelSelection::finest_level ? l == level : l >= level) total += particles.mass()[i];
  }
  return total;
}

template <int D>
void mass_conserved_on_uniform_level() {
  Tree<D> tree = uniform_tree<D>(D == 3 ? 4 : 5);
  const int rho = tree.add_field(core::scalar_field("density"));
  ParticleSet<D> particles = random_particles<D>(5000, 3 + D);
  locate_particles(tree, particles);
  const int level = tree.levelmax();
  EXPECT_EQ(deposit_density(tree, particles, level, rho, LevelSelection::finest_level), particles.size());
  const long double expected = particle_mass(particles, level, LevelSelection::finest_level, tree);
  EXPECT_NEAR(static_cast<double>(deposited_mass(tree, rho) / expected), 1.0, 1e-14);
}

TEST(ParticleDeposit, ConservesMassOnAUniformLevel) {
  mass_conserved_on_uniform_level<1>();
  mass_conserved_on_uniform_level<2>();
  mass_conserved_on_uniform_level<3>();
}

template <int D>
void mass_conserved_on_amr_levels() {
  Tree<D> tree = nested_tree<D>();
  const int rho = tree.add_field(core::scalar_field("density"));
  ParticleSet<D> particles = random_particles<D>(6000, 17 + D);
  locate_particles(tree, particles);
  // Level pair 3/2: the level-3 deposit of the particles of level >= 3 lands on level-3 cells and,
  // where clouds stick out of the level-3 region, on level-2 cells.
  deposit_density(tree, particles, 3, rho, LevelSelection::level_and_finer);
  const long double level3 = particle_mass(particles, 3, LevelSelection::level_and_finer, tree);
  ASSERT_GT(level3, 0.0L);
  EXPECT_NEAR(static_cast<double>(deposited_mass(tree, rho) / level3), 1.0, 1e-14);
  double on_level2 = 0.0;
  for (core::OctIndex o : tree.octs_at_level(2))
    for (int c = 0; c < Tree<D>::cells_per_oct; ++c) on_level2 += tree.field(rho)[Tree<D>::cell_index(o, c)];
  EXPECT_GT(on_level2, 0.0) << "no cloud crossed the coarse-fine boundary: the fallback was not exercised";

  // Every particle once, at its finest level, over all levels: the whole mass.
  std::fill_n(tree.field(rho), tree.oct_capacity() * Tree<D>::cells_per_oct, 0.0);
  std::size_t deposited = 0;
  for (int l = 1; l <= tree.levelmax(); ++l)
    deposited += deposit_density(tree, particles, l, rho, LevelSelection::finest_level);
  EXPECT_EQ(deposited, particles.size());
  long double total = 0.0L;
  for (double m : particles.mass()) total += m;
  EXPECT_NEAR(static_cast<double>(deposited_mass(tree, rho) / total), 1.0, 1e-14);
}

TEST(ParticleDeposit, ConservesMassAcrossACoarseFineBoundary) {
  mass_conserved_on_amr_levels<1>();
  mass_conserved_on_amr_levels<2>();
  mass_conserved_on_amr_levels<3>();
}

TEST(ParticleDeposit, ParticleAtACellCentreFillsThatCellOnly) {
  Tree<3> tree = nested_tree<3>();
  const int rho = tree.add_field(core::scalar_field("density"));
  // Level-4 cells are 1/32 wide; (0.375 + 1.5/32) is the centre of a level-4 cell at the edge of
  // the level-4 region, whose left neighbours do not exist at level 4.
  ParticleSet<3> particles;
  ParticleSet<3>::Particle p;
  p.position = {0.375 + 1.5 / 32.0, 0.375 + 0.5 / 32.0, 0.5 + 0.5 / 32.0};
  p.mass = 3.0;
  particles.add(p);
  locate_particles(tree, particles);
  ASSERT_EQ(particles.level()[0], 4);
  deposit_density(tree, particles, 4, rho, LevelSelection::finest_level);
  const double volume = std::pow(1.0 / 32.0, 3);
  int nonzero = 0;
  for (std::size_t cell = 0; cell < tree.oct_capacity() * 8; ++cell) {
    if (tree.field(rho)[cell] == 0.0) continue;
    ++nonzero;
    EXPECT_EQ(tree.field(rho)[cell], 3.0 / volume);
    const auto centre = tree.cell_centre(static_cast<core::CellIndex>(cell));
    for (int d = 0; d < 3; ++d) EXPECT_EQ(centre[static_cast<std::size_t>(d)], p.position[static_cast<std::size_t>(d)]);
  }
  EXPECT_EQ(nonzero, 1);
}

template <int D>
void lattice_gives_uniform_density() {
  const int level = D == 3 ? 4 : 5;
  Tree<D> tree = uniform_tree<D>(level);
  const int rho = tree.add_field(core::scalar_field("density"));
  const double h = tree.cell_size(level);
  const auto n = static_cast<std::int64_t>(std::llround(1.0 / h));
  std::int64_t cells = 1;
  for (int d = 0; d < D; ++d) cells *= n;
  // One particle per cell, the whole lattice shifted by an irregular fraction of a cell.
  const std::array<double, 3> shift = {0.3, 0.71, 0.137};
  ParticleSet<D> particles;
  for (std::int64_t linear = 0; linear < cells; ++linear) {
    typename ParticleSet<D>::Particle p;
    std::int64_t rest = linear;
    for (int d = 0; d < D; ++d) {
      p.position[static_cast<std::size_t>(d)] =
          (static_cast<double>(rest % n) + shift[static_cast<std::size_t>(d)]) * h;
      rest /= n;
    }
    p.mass = 2.0;
    particles.add(p);
  }
  locate_particles(tree, particles);
  deposit_density(tree, particles, level, rho, LevelSelection::finest_level);
  const double expected = 2.0 / std::pow(h, D);
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree<D>::cells_per_oct; ++c)
      EXPECT_NEAR(tree.field(rho)[Tree<D>::cell_index(o, c)] / expected, 1.0, 1e-13);
}

TEST(ParticleDeposit, UniformLatticeGivesUniformDensity) {
  lattice_gives_uniform_density<1>();
  lattice_gives_uniform_density<2>();
  lattice_gives_uniform_density<3>();
}

TEST(ParticleInterpolation, LinearFieldIsExact) {
  Tree<3> tree = uniform_tree<3>(4);
  std::array<int, 3> g{};
  for (int d = 0; d < 3; ++d)
    g[static_cast<std::size_t>(d)] = tree.add_field(core::scalar_field(std::array<const char*, 3>{"g_x", "g_y", "g_z"}[static_cast<std::size_t>(d)]));
  const std::array<std::array<double, 4>, 3> coefficients = {
      {{1.0, 2.0, -3.0, 0.5}, {-2.0, 0.25, 1.0, 4.0}, {0.0, 1.0, 1.0, 1.0}}};
  auto linear = [&](int d, const std::array<double, 3>& x) {
    const auto& a = coefficients[static_cast<std::size_t>(d)];
    return a[0] + a[1] * x[0] + a[2] * x[1] + a[3] * x[2];
  };
  for (core::OctIndex o : tree.octs_at_level(4))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = Tree<3>::cell_index(o, c);
      for (int d = 0; d < 3; ++d) tree.field(g[static_cast<std::size_t>(d)])[cell] = linear(d, tree.cell_centre(cell));
    }
  // Away from the periodic seam, where a linear field is not periodic: at least one cell inside.
  ParticleSet<3> particles = random_particles<3>(500, 41, 1.0 / 16.0, 1.0 - 1.0 / 16.0);
  locate_particles(tree, particles);
  EXPECT_EQ(interpolate_acceleration(tree, particles, 4, g, LevelSelection::finest_level), particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const std::array<double, 3> x = {particles.position(0)[i], particles.position(1)[i], particles.position(2)[i]};
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(particles.acceleration(d)[i], linear(d, x), 1e-13);
  }
}

// Deposit -> FFT Poisson on the dense level -> five-point gradient (RAMSES force_fine) -> CIC
// interpolation. The CIC weights are the same in both directions and the gradient is antisymmetric
// against a symmetric Green's function, so sum_i m_i g_i = -rho^T (grad G) rho V = 0.
TEST(ParticleMesh, PmForceConservesMomentum) {
  constexpr int level = 4;
  Tree<3> tree = uniform_tree<3>(level);
  const int rho = tree.add_field(core::scalar_field("density"));
  std::array<int, 3> g{};
  for (int d = 0; d < 3; ++d)
    g[static_cast<std::size_t>(d)] = tree.add_field(core::scalar_field(std::array<const char*, 3>{"g_x", "g_y", "g_z"}[static_cast<std::size_t>(d)]));
  ParticleSet<3> particles = random_particles<3>(3000, 97);
  locate_particles(tree, particles);
  deposit_density(tree, particles, level, rho, LevelSelection::finest_level);

  const double h = tree.cell_size(level);
  const long long n = std::llround(1.0 / h);
  auto dense_index = [&](const auto& c) { return static_cast<std::size_t>(c[0] + n * (c[1] + n * c[2])); };
  std::vector<double> source(static_cast<std::size_t>(n * n * n)), phi(source.size());
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = Tree<3>::cell_index(o, c);
      source[dense_index(tree.cell_coordinates(cell))] = 4.0 * M_PI * tree.field(rho)[cell];
    }
  gravity::PeriodicFftPoisson<3> poisson(static_cast<int>(n), h);
  poisson.solve(source.data(), phi.data());
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = Tree<3>::cell_index(o, c);
      const auto coordinates = tree.cell_coordinates(cell);
      const std::array<long long, 3> at = {coordinates[0], coordinates[1], coordinates[2]};
      for (int d = 0; d < 3; ++d)
        tree.field(g[static_cast<std::size_t>(d)])[cell] = gravity::acceleration<3>(phi, n, h, at, d);
    }
  interpolate_acceleration(tree, particles, level, g, LevelSelection::finest_level);
  for (int d = 0; d < 3; ++d) {
    long double total = 0.0L, magnitude = 0.0L;
    for (std::size_t i = 0; i < particles.size(); ++i) {
      total += static_cast<long double>(particles.mass()[i]) * particles.acceleration(d)[i];
      magnitude += std::abs(static_cast<long double>(particles.mass()[i]) * particles.acceleration(d)[i]);
    }
    ASSERT_GT(magnitude, 0.0L);
    EXPECT_LT(static_cast<double>(std::abs(total) / magnitude), 1e-13) << "axis " << d;
  }
}

TEST(ParticleMesh, ResultsAreIndependentOfTheThreadCount) {
  const int threads = omp_get_max_threads();
  std::vector<double> density[2];
  std::vector<double> acceleration[2];
  for (int run = 0; run < 2; ++run) {
    omp_set_num_threads(run == 0 ? 1 : 2);
    Tree<3> tree = nested_tree<3>();
    const int rho = tree.add_field(core::scalar_field("density"));
    ParticleSet<3> particles = random_particles<3>(20000, 5);
    locate_particles(tree, particles);
    for (int l = 1; l <= tree.levelmax(); ++l)
      deposit_density(tree, particles, l, rho, LevelSelection::level_and_finer);
    density[run].assign(tree.field(rho), tree.field(rho) + tree.oct_capacity() * 8);
    // Interpolate the density itself as a stand-in field, at level 3 with its level-2 fallback.
    interpolate_acceleration(tree, particles, 3, {rho, rho, rho}, LevelSelection::level_and_finer);
    acceleration[run].assign(particles.acceleration(0).begin(), particles.acceleration(0).end());
  }
  omp_set_num_threads(threads);
  ASSERT_EQ(density[0].size(), density[1].size());
  EXPECT_EQ(std::memcmp(density[0].data(), density[1].data(), density[0].size() * sizeof(double)), 0);
  ASSERT_EQ(acceleration[0].size(), acceleration[1].size());
  EXPECT_EQ(std::memcmp(acceleration[0].data(), acceleration[1].data(), acceleration[0].size() * sizeof(double)), 0);
}

TEST(ParticleDeposit, NonPeriodicWallKeepsTheMass) {
  Tree<2> tree = uniform_tree<2>(4, 2, false);
  const int rho = tree.add_field(core::scalar_field("density"));
  ParticleSet<2> particles = random_particles<2>(2000, 77);
  locate_particles(tree, particles);
  deposit_density(tree, particles, 4, rho, LevelSelection::finest_level);
  long double total = 0.0L;
  for (double m : particles.mass()) total += m;
  EXPECT_NEAR(static_cast<double>(deposited_mass(tree, rho) / total), 1.0, 1e-14);
}

}  // namespace
}  // namespace kosmo::particles
