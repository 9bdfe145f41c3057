// `kosmo bench gravity [--np N]`: the base-level Poisson solve of a run, with each solver the run
// can use, on the distributed mesh (docs/gravity.md):
//   fft  mode 'gather': the level gathered to every rank with one Allreduce, threaded FFTW (§5.2.1);
//   fft  mode 'slabs':  FFTW-MPI slabs fed by point-to-point messages (§5.2.2-5.2.3);
//   plain_fftw  a plain threaded FFTW r2c + c2r pair on a contiguous n^3 array of the same grid,
//        planned with FFTW_MEASURE: what the gathered mode is compared with (§5.2.4);
//   mg   the octree multigrid V-cycle to epsilon = 1e-4 (RAMSES multigrid_fine, §5.1), with all the
//        §5.1.1 optimisations ('all'), all but the merged red-black sweep ('unmerged': RAMSES'
//        exchange after each colour, rank-independent) and with none of them ('none').
// Each solver solves the same random positive density (mean removed by all) at 64^3, 128^3, 256^3;
// the time is the slowest rank's, best of a few rounds after an untimed warm-up, as wall seconds and
// as CPU seconds of the process (all its threads; on a shared machine the CPU time is the one to
// compare).
#include "driver/bench_gravity.hpp"

#include <fftw3.h>
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"
#include "gravity/base_level_fft.hpp"
#include "gravity/fftw_support.hpp"
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

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Best wall and CPU seconds of `repeats` rounds after an untimed warm-up (slowest rank each round).
struct Timing {
  double seconds = 1e300, cpu_seconds = 1e300;
};
template <class Prepare, class Run>
Timing time_rounds(MPI_Comm comm, int repeats, Prepare&& prepare, Run&& run) {
  Timing best;
  for (int round = -1; round < repeats; ++round) {
    prepare();
    MPI_Barrier(comm);
    const double cpu_start = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    run();
    const double seconds = slowest(comm, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const double cpu_seconds = slowest(comm, process_cpu_seconds() - cpu_start);
    if (round >= 0) {
      best.seconds = std::min(best.seconds, seconds);
      best.cpu_seconds = std::min(best.cpu_seconds, cpu_seconds);
    }
  }
  return best;
}

// A plain threaded FFTW r2c + c2r pair on a contiguous n^3 array (FFTW_MEASURE, as a user planning
// for speed would), on every rank at once as the gathered mode runs: the reference of seeds/000 §5.2.4.
Timing plain_fftw_pair(MPI_Comm comm, long long n, int repeats) {
  const auto un = static_cast<std::size_t>(n);
  const std::size_t reals = un * un * un, modes = un * un * (un / 2 + 1);
  double* real = fftw_alloc_real(reals);
  fftw_complex* spectrum = fftw_alloc_complex(modes);
  gravity::fftw_support::initialise_threads();
  fftw_plan forward = nullptr, backward = nullptr;
  {
    std::lock_guard<std::mutex> lock(gravity::fftw_support::planner_mutex());
    fftw_plan_with_nthreads(omp_get_max_threads());
    const int m = static_cast<int>(n);
    forward = fftw_plan_dft_r2c_3d(m, m, m, real, spectrum, FFTW_MEASURE);
    backward = fftw_plan_dft_c2r_3d(m, m, m, spectrum, real, FFTW_MEASURE);
  }
  const Timing timing = time_rounds(
      comm, repeats,
      [&] {
        for (std::size_t i = 0; i < reals; ++i) real[i] = static_cast<double>(i % 1000) / 1000.0;
      },
      [&] {
        fftw_execute(forward);
        fftw_execute(backward);
      });
  {
    std::lock_guard<std::mutex> lock(gravity::fftw_support::planner_mutex());
    fftw_destroy_plan(forward);
    fftw_destroy_plan(backward);
    // FFTW_ESTIMATE planners use wisdom when there is some: without this the solvers planned after
    // it would get sub-plans measured here, which a run (planning with FFTW_ESTIMATE only) never has.
    fftw_forget_wisdom();
  }
  fftw_free(real);
  fftw_free(spectrum);
  return timing;
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
  char line[768];
  auto time_solve = [&](auto&& solve) { return time_rounds(comm, repeats, clear_phi, solve); };

  const Timing plain = plain_fftw_pair(comm, n, repeats);
  std::snprintf(line, sizeof line,
                "{\"solver\": \"plain_fftw\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, \"cpu_seconds\": %.4f}\n", n,
                nrank, threads, plain.seconds, plain.cpu_seconds);
  if (rank == 0) out << line << std::flush;

  Timing fft_best;  // the faster mode
  for (const char* mode : {"gather", "slabs"}) {
    gravity::BaseLevelFftSettings settings;
    settings.slab_threshold_cells = std::string(mode) == "slabs" ? 1 : static_cast<long long>(cells);
    gravity::BaseLevelFft<3> fft(comm, tree, level, settings);
    const Timing timing = time_solve([&] { fft.solve(tree, rhs, phi); });
    if (timing.seconds < fft_best.seconds) fft_best = timing;
    std::snprintf(line, sizeof line,
                  "{\"solver\": \"fft\", \"mode\": \"%s\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, \"cpu_seconds\": %.4f, "
                  "\"vcycles\": 0, \"seconds_per_cell_per_vcycle\": null, \"residual\": %.3e, \"over_plain_fftw\": %.2f, "
                  "\"cpu_over_plain_fftw\": %.2f}\n",
                  mode, n, nrank, threads, timing.seconds, timing.cpu_seconds, residual(), timing.seconds / plain.seconds,
                  timing.cpu_seconds / plain.cpu_seconds);
    if (rank == 0) out << line << std::flush;
  }

  Timing mg_all;
  for (const char* variant : {"all", "unmerged", "none"}) {
    gravity::OctreeMultigridSettings settings;
    settings.pre_smoothing_sweeps = settings.post_smoothing_sweeps = 2;  // as runs use it (RAMSES ngs_fine)
    settings.merged_red_black = std::string(variant) == "all";
    if (std::string(variant) == "none") settings.fused_residual_norm = settings.precomputed_reciprocal = false;
    gravity::MultigridCommunication communication;
    communication.refresh_ghosts = [&](int l, std::span<const int> fields) {
      if (mesh.distributed()) mesh.exchange_fields(tree, l, fields);
    };
    communication.sum = [&](std::span<double> values) {
      MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm);
    };
    gravity::OctreeMultigrid<3> multigrid(tree, settings, communication);
    gravity::OctreeMultigridReport report;
    const Timing timing = time_solve([&] { report = multigrid.solve(level, phi, rhs); });
    if (std::string(variant) == "all") mg_all = timing;
    const long long exchanges = report.exchanges_per_vcycle_by_level.empty() ? 0 : report.exchanges_per_vcycle_by_level.back();
    const double cell_cycles = cells * std::max(report.vcycles, 1);
    std::snprintf(line, sizeof line,
                  "{\"solver\": \"mg\", \"optimisations\": \"%s\", \"n\": %lld, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, "
                  "\"cpu_seconds\": %.4f, \"vcycles\": %d, \"seconds_per_cell_per_vcycle\": %.3e, \"cpu_ns_per_cell_per_vcycle\": %.1f, "
                  "\"residual\": %.3e, \"epsilon\": %.0e, \"reduction_per_vcycle\": %.2f, \"exchanges_per_vcycle_at_level\": %lld}\n",
                  variant, n, nrank, threads, timing.seconds, timing.cpu_seconds, report.vcycles, timing.seconds / cell_cycles,
                  1e9 * timing.cpu_seconds / cell_cycles, residual(), settings.epsilon, report.reduction_per_vcycle, exchanges);
    if (rank == 0) out << line << std::flush;
  }
  // fft_over_mg keeps its old (inverted) name for existing readers: it is mg time over FFT time.
  std::snprintf(line, sizeof line,
                "{\"speedup\": {\"n\": %lld, \"ranks\": %d, \"fft_over_mg\": %.2f, \"mg_over_fft\": %.2f, \"cpu_mg_over_fft\": %.2f, "
                "\"fft_over_plain_fftw\": %.2f, \"cpu_fft_over_plain_fftw\": %.2f}}\n",
                n, nrank, mg_all.seconds / fft_best.seconds, mg_all.seconds / fft_best.seconds, mg_all.cpu_seconds / fft_best.cpu_seconds,
                fft_best.seconds / plain.seconds, fft_best.cpu_seconds / plain.cpu_seconds);
  if (rank == 0) out << line << std::flush;
}

}  // namespace

void bench_gravity(MPI_Comm comm, std::ostream& out) {
  run_size(comm, out, 6, 5);
  run_size(comm, out, 7, 3);
  run_size(comm, out, 8, 2);
}

}  // namespace kosmo::driver
