// The base-level FFT Poisson solver on the distributed mesh (src/gravity/base_level_fft.hpp,
// seeds/000 §5.2) on a fully refined 32^3 level, in both regimes: gathered to every rank with one
// Allreduce (§5.2.1) and on FFTW-MPI slabs with the sparse point-to-point redistribution of §5.2.3
// (forced by a slab threshold of 1 cell).
//  - periodic: both equal the exact discrete solution of the single-mode source to 1e-10, agree with
//    each other to 1e-12 on owned and ghost cells, and the gather mode is the same bits as the
//    serial PeriodicFftPoisson;
//  - isolated: gather and slabs agree to 1e-12, the gather mode is the same bits as the serial
//    IsolatedFftPoisson, and a Gaussian's potential is -M erf(r / (sqrt2 s)) / r;
//  - each slab solve sends messages only to the precomputed partners, whose number the test
//    derives independently from the slab ranges and every rank's cells.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "gravity/base_level_fft.hpp"
#include "gravity/fft_poisson.hpp"
#include "gravity/isolated_fft_poisson.hpp"
#include "parallel/uniform_level.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kLevel = 5;  // 32^3 cells, distributed by the k-section decomposition
using Tree = core::OctTree<3, core::MortonKey>;

std::string namelist() {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=5\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
         "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n/\n";
}

// Calls f(cell) on every owned cell of the level, then (with_ghosts) on every ghost cell.
template <class F>
void for_cells(const Tree& tree, bool with_ghosts, F&& f) {
  for (const auto* octs : {&tree.octs_at_level(kLevel), &tree.ghost_octs_at_level(kLevel)}) {
    for (core::OctIndex o : *octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) f(Tree::cell_index(o, c));
    if (!with_ghosts) break;
  }
}

double all_max(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}
long long all_sum(long long value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return value;
}

// max over owned and ghost cells of all ranks of |a - b|, and of |b|.
std::pair<double, double> field_difference(const Tree& tree, int a, int b) {
  double worst = 0.0, scale = 0.0;
  for_cells(tree, true, [&](core::CellIndex cell) {
    worst = std::max(worst, std::fabs(tree.field(a)[cell] - tree.field(b)[cell]));
    scale = std::max(scale, std::fabs(tree.field(b)[cell]));
  });
  return {all_max(worst), all_max(scale)};
}

// Cells of owned and ghost cells whose field differs in any bit from the dense array.
long long differing_from_dense(const Tree& tree, int field, const std::vector<double>& dense, long long n) {
  long long differing = 0;
  for_cells(tree, true, [&](core::CellIndex cell) {
    differing += tree.field(field)[cell] == dense[parallel::dense_index<3>(tree.cell_coordinates(cell), n)] ? 0 : 1;
  });
  return all_sum(differing);
}

// The partners a slab solve must send to, derived from the slab ranges and every rank's z planes
// (independently of the solver's own lists): forward, the other slab owners of this rank's owned
// cells; reverse, the other ranks whose owned or ghost cells lie in this rank's slab.
std::pair<std::set<int>, std::set<int>> expected_partners(const Tree& tree, const gravity::BaseLevelFft<3>& solver) {
  const int ranks = world_size(), me = world_rank();
  const auto& slabs = solver.slab_planes();
  EXPECT_EQ(static_cast<int>(slabs.size()), ranks);
  auto slab_of = [&](long long z) {
    for (int r = 0; r < ranks; ++r)
      if (z >= slabs[static_cast<std::size_t>(r)].first && z < slabs[static_cast<std::size_t>(r)].first + slabs[static_cast<std::size_t>(r)].second)
        return r;
    return -1;
  };
  std::set<int> forward, reverse;
  for_cells(tree, false, [&](core::CellIndex cell) {
    const int owner = slab_of(tree.cell_coordinates(cell)[2]);
    if (owner != me) forward.insert(owner);
  });
  const long long n = solver.cells_per_axis();
  std::vector<int> planes(static_cast<std::size_t>(n), 0), all_planes(static_cast<std::size_t>(n * ranks));
  for_cells(tree, true, [&](core::CellIndex cell) { planes[static_cast<std::size_t>(tree.cell_coordinates(cell)[2])] = 1; });
  MPI_Allgather(planes.data(), static_cast<int>(n), MPI_INT, all_planes.data(), static_cast<int>(n), MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < ranks; ++r)
    for (long long z = 0; z < n; ++z)
      if (r != me && all_planes[static_cast<std::size_t>(r * n + z)] != 0 && slab_of(z) == me) reverse.insert(r);
  return {forward, reverse};
}

// One slab solve's messages: exactly one per expected partner and direction.
void check_slab_messages(Tree& tree, gravity::BaseLevelFft<3>& solver, int source, int potential, const char* what) {
  const auto [forward, reverse] = expected_partners(tree, solver);
  EXPECT_EQ(std::vector<int>(forward.begin(), forward.end()), solver.forward_destinations()) << what;
  EXPECT_EQ(std::vector<int>(reverse.begin(), reverse.end()), solver.reverse_destinations()) << what;
  const long long before = solver.exchange_statistics().messages_sent;
  solver.solve(tree, source, potential);
  const long long sent = solver.exchange_statistics().messages_sent - before;
  EXPECT_EQ(sent, static_cast<long long>(forward.size() + reverse.size())) << what;
  // Never more than one message per other rank and direction, and only to ranks that share slab planes.
  EXPECT_LE(sent, 2LL * (world_size() - 1)) << what;
  std::printf("  rank %d (%s): slab planes %lld+%lld, %lld messages per solve (forward to %zu, reverse to %zu ranks)\n", world_rank(),
              what, solver.slab_planes()[static_cast<std::size_t>(world_rank())].first,
              solver.slab_planes()[static_cast<std::size_t>(world_rank())].second, sent, forward.size(), reverse.size());
}

TEST(BaseLevelFft, PeriodicGatherAndSlabsEqualTheExactDiscreteSolution) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist(), "poisson.nml"), MPI_COMM_WORLD);
  sim.initialise();
  auto& tree = sim.tree();
  const int source = tree.add_field(core::scalar_field("poisson_source", "code_density"));
  const int gathered = tree.add_field(core::scalar_field("potential_gather", "code_potential"));
  const int slabbed = tree.add_field(core::scalar_field("potential_slab", "code_potential"));
  const int exact = tree.add_field(core::scalar_field("potential_exact", "code_potential"));
  const double h = tree.cell_size(kLevel);
  // The discrete Laplacian's eigenvalue of the mode sin(2 pi x) sin(2 pi y) sin(2 pi z):
  // 3 (2 cos(2 pi h) - 2) / h^2 = -12 sin^2(pi h) / h^2, so the exact discrete solution is f / lambda.
  const double lambda = -12.0 * std::pow(std::sin(kPi * h), 2) / (h * h);
  for_cells(tree, true, [&](core::CellIndex cell) {
    const auto x = tree.cell_centre(cell);
    tree.field(exact)[cell] = -12.0 * kPi * kPi * std::sin(2 * kPi * x[0]) * std::sin(2 * kPi * x[1]) * std::sin(2 * kPi * x[2]) / lambda;
    // Ghost sources are garbage the solver must not read; the potentials must all be overwritten.
    tree.field(source)[cell] = tree.field(gathered)[cell] = tree.field(slabbed)[cell] = 1e30;
  });
  // f = -12 pi^2 sin(2 pi x) sin(2 pi y) sin(2 pi z) + a constant, on the owned cells only: the
  // solver removes the mean (the k = 0 mode), so the constant must not change phi.
  for_cells(tree, false, [&](core::CellIndex cell) {
    const auto x = tree.cell_centre(cell);
    tree.field(source)[cell] = 5.0 - 12.0 * kPi * kPi * std::sin(2 * kPi * x[0]) * std::sin(2 * kPi * x[1]) * std::sin(2 * kPi * x[2]);
  });

  gravity::BaseLevelFft<3> gather(MPI_COMM_WORLD, tree, kLevel, {});
  gravity::BaseLevelFft<3> slabs(MPI_COMM_WORLD, tree, kLevel, {.isolated = false, .slab_threshold_cells = 1});
  EXPECT_FALSE(gather.uses_slabs());
  EXPECT_TRUE(slabs.uses_slabs());
  gather.solve(tree, source, gathered);
  slabs.solve(tree, source, slabbed);

  const auto [gather_error, scale] = field_difference(tree, gathered, exact);
  const auto [slab_error, scale_slab] = field_difference(tree, slabbed, exact);
  const auto [slab_gather, scale_gather] = field_difference(tree, slabbed, gathered);
  EXPECT_LE(gather_error, 1e-10 * scale);
  EXPECT_LE(slab_error, 1e-10 * scale_slab);
  EXPECT_LE(slab_gather, 1e-12 * scale_gather);

  // The gather mode is the serial solver on the gathered source, bit for bit, on every rank count.
  const long long n = gather.cells_per_axis();
  const std::vector<double> dense_source = parallel::gather_uniform_level(tree, kLevel, source, MPI_COMM_WORLD);
  std::vector<double> dense_potential(dense_source.size());
  gravity::PeriodicFftPoisson<3>(static_cast<int>(n), h).solve(dense_source.data(), dense_potential.data());
  EXPECT_EQ(differing_from_dense(tree, gathered, dense_potential, n), 0);

  check_slab_messages(tree, slabs, source, slabbed, "periodic");
  // A repeated solve gives the same answer (the buffers are reset).
  const auto [repeat, unused] = field_difference(tree, slabbed, gathered);
  EXPECT_LE(repeat, 1e-12 * scale_gather);

  // A source with no symmetry (every mode, every cell distinct), so that any misplaced cell in the
  // redistribution to the slabs or back shows: the same pseudo-random value per cell on any rank count.
  for_cells(tree, false, [&](core::CellIndex cell) {
    std::uint64_t state = parallel::dense_index<3>(tree.cell_coordinates(cell), n) * 0x9E3779B97F4A7C15ULL + 12345;
    state = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9ULL;
    state = (state ^ (state >> 27)) * 0x94D049BB133111EBULL;
    state ^= state >> 31;
    tree.field(source)[cell] = static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
  });
  gather.solve(tree, source, gathered);
  slabs.solve(tree, source, slabbed);
  const auto [random_difference, random_scale] = field_difference(tree, slabbed, gathered);
  EXPECT_LE(random_difference, 1e-12 * random_scale);
  if (world_rank() == 0)
    std::printf("  %d ranks, %lld^3 cells: max |phi - exact discrete| / max |phi|: gather %.2e, slabs %.2e; slabs vs gather %.2e, "
                "on a random source %.2e\n",
                world_size(), n, gather_error / scale, slab_error / scale_slab, slab_gather / scale_gather, random_difference / random_scale);
}

TEST(BaseLevelFft, IsolatedGatherAndSlabsAgreeAndMatchTheFreeSpacePotential) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist(), "poisson.nml"), MPI_COMM_WORLD);
  sim.initialise();
  auto& tree = sim.tree();
  const int source = tree.add_field(core::scalar_field("poisson_source", "code_density"));
  const int gathered = tree.add_field(core::scalar_field("potential_gather", "code_potential"));
  const int slabbed = tree.add_field(core::scalar_field("potential_slab", "code_potential"));
  const int exact = tree.add_field(core::scalar_field("potential_exact", "code_potential"));
  const double h = tree.cell_size(kLevel);
  // A Gaussian of mass 1 and width s = 0.1 (3.2 cells), off-centre: rhs = 4 pi rho (G = 1).
  const double width = 0.1, centre[3] = {0.46, 0.53, 0.5};
  for_cells(tree, true, [&](core::CellIndex cell) {
    const auto x = tree.cell_centre(cell);
    const double r = std::hypot(x[0] - centre[0], x[1] - centre[1], x[2] - centre[2]);
    tree.field(exact)[cell] = r > 0 ? -std::erf(r / (std::numbers::sqrt2 * width)) / r : -std::sqrt(2 / kPi) / width;
    tree.field(source)[cell] = 1e30;  // ghosts: must not be read
    tree.field(gathered)[cell] = tree.field(slabbed)[cell] = 1e30;
  });
  for_cells(tree, false, [&](core::CellIndex cell) {
    const auto x = tree.cell_centre(cell);
    const double r = std::hypot(x[0] - centre[0], x[1] - centre[1], x[2] - centre[2]);
    tree.field(source)[cell] = 4 * kPi * std::exp(-0.5 * r * r / (width * width)) / std::pow(2 * kPi * width * width, 1.5);
  });

  const gravity::BaseLevelFftSettings isolated{.isolated = true};
  gravity::BaseLevelFft<3> gather(MPI_COMM_WORLD, tree, kLevel, isolated);
  gravity::BaseLevelFft<3> slabs(MPI_COMM_WORLD, tree, kLevel, {.isolated = true, .slab_threshold_cells = 1});
  EXPECT_FALSE(gather.uses_slabs());
  EXPECT_TRUE(slabs.uses_slabs());
  EXPECT_TRUE(slabs.isolated());
  gather.solve(tree, source, gathered);
  slabs.solve(tree, source, slabbed);
  // The padded grid: FFTW's slabs cover 2n planes.
  long long planes = 0;
  for (const auto& slab : slabs.slab_planes()) planes += slab.second;
  EXPECT_EQ(planes, 2 * slabs.cells_per_axis());

  const auto [slab_gather, scale] = field_difference(tree, slabbed, gathered);
  const auto [analytic_error, analytic_scale] = field_difference(tree, gathered, exact);
  EXPECT_LE(slab_gather, 1e-12 * scale);
  // Second-order discretisation error at h/s = 0.31 (the unit test measures the order).
  EXPECT_LE(analytic_error, 1e-2 * analytic_scale);

  const long long n = gather.cells_per_axis();
  const std::vector<double> dense_source = parallel::gather_uniform_level(tree, kLevel, source, MPI_COMM_WORLD);
  std::vector<double> dense_potential(dense_source.size());
  gravity::IsolatedFftPoisson(static_cast<int>(n), h).solve(dense_source.data(), dense_potential.data());
  EXPECT_EQ(differing_from_dense(tree, gathered, dense_potential, n), 0);

  check_slab_messages(tree, slabs, source, slabbed, "isolated");
  if (world_rank() == 0)
    std::printf("  %d ranks, isolated %lld^3 (padded %lld^3): slabs vs gather %.2e, gather vs -M erf(r/sqrt2 s)/r %.2e\n", world_size(),
                n, 2 * n, slab_gather / scale, analytic_error / analytic_scale);
}

TEST(BaseLevelFft, RefusesALevelThatIsNotFullyRefined) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist(), "poisson.nml"), MPI_COMM_WORLD);
  sim.initialise();
  // Level 5 is the finest; a level beyond it does not exist.
  EXPECT_THROW(gravity::BaseLevelFft<3>(MPI_COMM_WORLD, sim.tree(), kLevel + 1, {}), kosmo::Error);
}

}  // namespace
