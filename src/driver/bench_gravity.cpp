// `kosmo bench gravity [--np N]`: the base-level Poisson solve of a run, with each solver the run
// can use, on the distributed mesh (docs/gravity.md):
//   fft  mode 'gather': the level gathered to every rank with one Allreduce, threaded FFTW (§5.2.1);
//   fft  mode 'slabs':  FFTW-MPI slabs fed by point-to-point messages (§5.2.2-5.2.3);
//   mg   the octree multigrid V-cycle to epsilon = 1e-4 (RAMSES multigrid_fine, §5.1), with all the
//        §5.1.1 optimisations ('all') and with none of them ('none').
// Each solver solves the same random positive density (mean removed by all) at 64^3, 128^3, 256^3;
// the time is the slowest rank's, best of a few rounds after an untimed warm-up.
#include "driver/bench_gravity.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"
#include "gravity/base_level_fft.hpp"
#include "gravity/multigrid_periodic.hpp"
#include "gravity/octree_multigrid.hpp"
#include "parallel/uniform_level.hpp"

namespace kosmo::driver {
namespace {

using Tree = core::OctTree<3, core::MortonKey>;

// A density in [0, 2) from the cell's coordinates alone (splitmix64), so every rank count solves
// the same problem.
double random_density(const Tree::Coordinates& c) {
  std::uint64_t z = (static_cast<std::uint64_t>(c[0]) << 42) ^ (static_cast<std::uint64_t>(c[1]) << 21) ^ static_cast<std::uint64_t>(c[2]);
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 2.0 * static_cast<double>(z >> 11) / 9007199254740992.0;
}

double slowest(MPI_Comm comm, double seconds) {
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

void run_size(MPI_Comm comm, std::ostream& out, int level, int repeats) {
  int nrank = 1, rank = 0;
  MPI_Comm_size(comm, &nrank);
  MPI_Comm_rank(comm, &rank);
  const std::string namelist = "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(level) +
                               "\nlevelmax=" + std::to_string(level) +
                               "\n/\n&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                               "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n/\n";
  Simulation<3> sim(core::ParameterSet::from_text(namelist, "bench_gravity"), comm);
  sim.initialise();
  Tree& tree = sim.tree();
  auto& mesh = sim.mesh();
  const int rhs = tree.add_field(core::scalar_field("bench_rhs"));
  const int phi = tree.add_field(core::scalar_field("bench_phi"));
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      tree.field(rhs)[cell] = random_density(tree.cell_coordinates(cell));
    }
  const long long n = parallel::uniform_level_cells_per_axis(tree, level);
  const double cells = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const double h = tree.cell_size(level);
  const int threads = omp_get_max_threads();

  // The residual of phi, measured the same way for every solver on the gathered level.
  const std::vector<double> dense_rhs = parallel::gather_uniform_level(tree, level, rhs, comm);
  auto residual = [&]() {
    const std::vector<double> dense_phi = parallel::gather_uniform_level(tree, level, phi, comm);
    return gravity::periodic_relative_residual<3>(static_cast<int>(n), h, dense_rhs.data(), dense_phi.data());
  };
  auto clear_phi = [&]() {
    for (const auto* octs : {&tree.octs_at_level(level), &tree.ghost_octs_at_level(level)})
      for (core::OctIndex o : *octs) std::fill_n(tree.field(phi) + Tree::cell_index(o, 0), Tree::cells_per_oct, 0.0);
  };
  char line[640];
  auto time_solve = [&](auto&& solve) {
    double best = 1e300;
    for (int round = -1; round < repeats; ++round) {
      clear_phi();
      MPI_Barrier(comm);
      const auto start = std::chrono::steady_clock::now();
      solve();
      const double seconds = slowest(comm, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (round >= 0) best = std::min(best, seconds);
    }
    return best;
  };

  double fft_seconds = 1e300;  // the faster mode
  for (const char* mode : {"gather", "slabs"}) {
    gravity::BaseLevelFftSettings settings;
    settings.slab_threshold_cells = std::string(mode) == "slabs" ? 1 : static_cast<long long>(cells);
    gravity::BaseLevelFft<3> fft(comm, tree, level, settings);
    const double seconds = time_solve([&] { fft.solve(tree, rhs, phi); });
    fft_seconds = std::min(fft_seconds, seconds);
    std::snprintf(line, sizeof line,
                  "{\"solver\": \"fft\", \"mode\": \"%s\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, \"vcycles\": 0, "
                  "\"seconds_per_cell_per_vcycle\": null, \"residual\": %.3e}\n",
                  mode, n, nrank, threads, seconds, residual());
    if (rank == 0) out << line << std::flush;
  }

  double mg_seconds = 0.0;
  for (const char* variant : {"all", "none"}) {
    gravity::OctreeMultigridSettings settings;
    settings.pre_smoothing_sweeps = settings.post_smoothing_sweeps = 2;  // as runs use it (RAMSES ngs_fine)
    if (std::string(variant) == "none") settings.merged_red_black = settings.fused_residual_norm = settings.precomputed_reciprocal = false;
    gravity::MultigridCommunication communication;
    communication.refresh_ghosts = [&](int l, std::span<const int> fields) {
      if (mesh.distributed()) mesh.exchange_fields(tree, l, fields);
    };
    communication.sum = [&](std::span<double> values) {
      MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm);
    };
    gravity::OctreeMultigrid<3> multigrid(tree, settings, communication);
    gravity::OctreeMultigridReport report;
    const double seconds = time_solve([&] { report = multigrid.solve(level, phi, rhs); });
    if (std::string(variant) == "all") mg_seconds = seconds;
    const long long exchanges = report.exchanges_per_vcycle_by_level.empty() ? 0 : report.exchanges_per_vcycle_by_level.back();
    std::snprintf(line, sizeof line,
                  "{\"solver\": \"mg\", \"optimisations\": \"%s\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, "
                  "\"vcycles\": %d, \"seconds_per_cell_per_vcycle\": %.3e, \"residual\": %.3e, \"epsilon\": %.0e, "
                  "\"reduction_per_vcycle\": %.2f, \"exchanges_per_vcycle_at_level\": %lld}\n",
                  variant, n, nrank, threads, seconds, report.vcycles, seconds / (cells * std::max(report.vcycles, 1)), residual(),
                  settings.epsilon, report.reduction_per_vcycle, exchanges);
    if (rank == 0) out << line << std::flush;
  }
  std::snprintf(line, sizeof line, "{\"speedup\": {\"n\": %lld, \"ranks\": %d, \"fft_over_mg\": %.2f}}\n", n, nrank, mg_seconds / fft_seconds);
  if (rank == 0) out << line << std::flush;
}

}  // namespace

void bench_gravity(MPI_Comm comm, std::ostream& out) {
  run_size(comm, out, 6, 5);
  run_size(comm, out, 7, 3);
  run_size(comm, out, 8, 2);
}

}  // namespace kosmo::driver
