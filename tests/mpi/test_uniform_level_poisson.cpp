// The base-level Poisson solve of seeds/000 §5.2.1 on the distributed mesh: the fully refined level
// is gathered to every rank with one MPI_Allreduce, solved by FFT, and written back into owned and
// ghost cells. On the single-mode source of §8.6.4 the potential equals the exact discrete
// solution to 1e-10 and is the same bits on every rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "gravity/fft_poisson.hpp"
#include "parallel/uniform_level.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

constexpr double kPi = std::numbers::pi;

TEST(UniformLevelPoisson, SingleModeEqualsTheExactDiscreteSolutionOnAnyRankCount) {
  constexpr int level = 5;  // 32^3 cells, distributed by the k-section decomposition
  const std::string namelist = "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=5\nlevelmax=5\n/\n"
                               "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                               "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n/\n";
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "poisson.nml"), MPI_COMM_WORLD);
  sim.initialise();
  auto& tree = sim.tree();
  const int source = tree.add_field(core::scalar_field("poisson_source", "code_density"));
  const int potential = tree.add_field(core::scalar_field("potential", "code_potential"));
  // f = -12 pi^2 sin(2 pi x) sin(2 pi y) sin(2 pi z) on the owned cells only.
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = core::OctTree<3, core::MortonKey>::cell_index(o, c);
      const auto x = tree.cell_centre(cell);
      tree.field(source)[cell] = -12.0 * kPi * kPi * std::sin(2 * kPi * x[0]) * std::sin(2 * kPi * x[1]) * std::sin(2 * kPi * x[2]);
    }
  const std::vector<double> f = parallel::gather_uniform_level(tree, level, source, MPI_COMM_WORLD);
  const long long n = parallel::uniform_level_cells_per_axis(tree, level);
  const double h = tree.cell_size(level);
  gravity::PeriodicFftPoisson<3> solver(static_cast<int>(n), h);
  std::vector<double> phi(f.size());
  solver.solve(f.data(), phi.data());
  parallel::scatter_uniform_level(tree, level, potential, phi);

  // The discrete Laplacian's eigenvalue of the mode: the exact discrete solution is f / lambda.
  const double lambda = 3.0 * (2.0 * std::cos(2.0 * kPi * h) - 2.0) / (h * h);
  double worst = 0.0, scale = 0.0;
  long long checked = 0;
  for (const auto* octs : {&tree.octs_at_level(level), &tree.ghost_octs_at_level(level)})
    for (core::OctIndex o : *octs)
      for (int c = 0; c < 8; ++c) {
        const core::CellIndex cell = core::OctTree<3, core::MortonKey>::cell_index(o, c);
        const auto x = tree.cell_centre(cell);
        const double exact = -12.0 * kPi * kPi * std::sin(2 * kPi * x[0]) * std::sin(2 * kPi * x[1]) * std::sin(2 * kPi * x[2]) / lambda;
        worst = std::max(worst, std::fabs(tree.field(potential)[cell] - exact));
        scale = std::max(scale, std::fabs(exact));
        ++checked;
      }
  EXPECT_GT(checked, 0);
  EXPECT_LE(worst, 1e-10 * scale);

  // The same bits on every rank count: rank 0 solves the whole level alone and compares.
  std::vector<double> mine;
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < 8; ++c) {
      const core::CellIndex cell = core::OctTree<3, core::MortonKey>::cell_index(o, c);
      const auto i = tree.cell_coordinates(cell);
      mine.insert(mine.end(), {static_cast<double>(i[0]), static_cast<double>(i[1]), static_cast<double>(i[2]), tree.field(potential)[cell]});
    }
  int count = static_cast<int>(mine.size()), ranks = world_size();
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks), 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<double> all(world_rank() == 0 ? static_cast<std::size_t>(offsets.back() + counts.back()) : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  // One-rank reference: the dense source built directly, solved by the same solver.
  std::vector<double> reference_f(f.size()), reference_phi(f.size());
  for (long long k = 0; k < n; ++k)
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < n; ++i) {
        const double x = (i + 0.5) * h, y = (j + 0.5) * h, z = (k + 0.5) * h;
        reference_f[static_cast<std::size_t>((k * n + j) * n + i)] =
            -12.0 * kPi * kPi * std::sin(2 * kPi * x) * std::sin(2 * kPi * y) * std::sin(2 * kPi * z);
      }
  solver.solve(reference_f.data(), reference_phi.data());
  ASSERT_EQ(all.size(), reference_phi.size() * 4);
  std::size_t differing = 0;
  for (std::size_t at = 0; at < all.size(); at += 4) {
    const auto index = static_cast<std::size_t>((all[at + 2] * n + all[at + 1]) * n + all[at]);
    differing += all[at + 3] == reference_phi[index] ? 0 : 1;
  }
  EXPECT_EQ(differing, 0u) << "the potential depends on the rank count";
  std::printf("  %d ranks: %lld^3 cells, max |phi - exact discrete| / max |phi| = %.2e, %zu cells differ from the one-rank solve\n",
              world_size(), n, worst / scale, differing);
}

}  // namespace
