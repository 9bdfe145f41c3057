#include "driver/bench_gravity.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <random>
#include <vector>

#include "gravity/fft_poisson.hpp"
#include "gravity/multigrid_periodic.hpp"

namespace kosmo::driver {
namespace {

// A multigrid variant: the defaults ("all" optimisations of seeds/000 §5.1 / App. D.2 on), none of
// them, or all but one, so each optimisation's effect is the difference between two lines.
struct Variant {
  const char* name;
  gravity::MultigridSettings settings;
};

std::vector<Variant> variants(bool ablations) {
  std::vector<Variant> list{{"all", {}}};
  gravity::MultigridSettings none;
  none.merged_red_black = none.fused_residual_norm = none.precomputed_reciprocal = false;
  list.push_back({"none", none});
  if (!ablations) return list;
  gravity::MultigridSettings s;
  s.merged_red_black = false;
  list.push_back({"all_but_merged_red_black", s});
  s = {};
  s.fused_residual_norm = false;
  list.push_back({"all_but_fused_residual_norm", s});
  s = {};
  s.precomputed_reciprocal = false;
  list.push_back({"all_but_precomputed_reciprocal", s});
  return list;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best of `repeats` rounds after one untimed warm-up (first touch of the buffers). Each round solves
// once with every solver, so a load that comes and goes on a shared machine hits all of them alike.
// Solver set-up (FFTW planning, multigrid level allocation) is outside the timing: a run does it once.
void run_size(std::ostream& out, int nrank, int n, int repeats, bool ablations) {
  const double h = 1.0 / n;
  const auto cells = static_cast<std::size_t>(n) * n * n;
  std::vector<double> f(cells), phi(cells);
  std::mt19937_64 rng(20260407u + static_cast<unsigned>(n));
  std::uniform_real_distribution<double> uniform(0.0, 2.0);
  for (double& x : f) x = uniform(rng);  // a positive density; both solvers remove its mean
  const int threads = omp_get_max_threads();

  gravity::PeriodicFftPoisson<3> fft(n, h);
  const std::vector<Variant> list = variants(ablations);
  std::vector<gravity::PeriodicMultigrid<3>> mg;
  for (const Variant& variant : list) mg.emplace_back(n, h, variant.settings);
  double fft_seconds = 1e300;
  std::vector<double> mg_seconds(list.size(), 1e300);
  std::vector<gravity::MultigridReport> reports(list.size());
  std::vector<double> residuals(list.size());
  for (int round = -1; round < repeats; ++round) {
    auto start = std::chrono::steady_clock::now();
    fft.solve(f.data(), phi.data());
    if (round >= 0) fft_seconds = std::min(fft_seconds, seconds_since(start));
    for (std::size_t v = 0; v < list.size(); ++v) {
      start = std::chrono::steady_clock::now();
      reports[v] = mg[v].solve(f.data(), phi.data());
      if (round >= 0) mg_seconds[v] = std::min(mg_seconds[v], seconds_since(start));
      residuals[v] = gravity::periodic_relative_residual<3>(n, h, f.data(), phi.data());
    }
  }
  fft.solve(f.data(), phi.data());
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"solver\": \"fft\", \"n\": %d, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, \"vcycles\": 0, "
                "\"seconds_per_cell_per_vcycle\": null, \"residual\": %.3e}\n",
                n, nrank, threads, fft_seconds, gravity::periodic_relative_residual<3>(n, h, f.data(), phi.data()));
  out << line;
  for (std::size_t v = 0; v < list.size(); ++v) {
    const gravity::MultigridReport& report = reports[v];
    std::snprintf(
        line, sizeof line,
        "{\"solver\": \"mg\", \"n\": %d, \"ranks\": %d, \"threads\": %d, \"seconds\": %.4f, \"vcycles\": %d, "
        "\"seconds_per_cell_per_vcycle\": %.3e, \"residual\": %.3e, \"optimisations\": \"%s\", \"epsilon\": %.0e, "
        "\"reduction_per_vcycle\": %.2f, \"ghost_refreshes_per_vcycle\": %lld}\n",
        n, nrank, threads, mg_seconds[v], report.vcycles,
        mg_seconds[v] / (static_cast<double>(cells) * std::max(report.vcycles, 1)), residuals[v], list[v].name,
        list[v].settings.epsilon, report.reduction_per_vcycle, mg[v].ghost_refreshes_per_vcycle());
    out << line;
  }
  // How many times faster the direct FFT solve is than the V-cycles to RAMSES' epsilon (list[0] = "all").
  std::snprintf(line, sizeof line, "{\"speedup\": {\"n\": %d, \"fft_over_mg\": %.2f}}\n", n,
                mg_seconds[0] / fft_seconds);
  out << line << std::flush;
}

}  // namespace

void bench_gravity(MPI_Comm comm, std::ostream& out) {
  int nrank = 1;
  MPI_Comm_size(comm, &nrank);
  run_size(out, nrank, 64, 5, false);
  run_size(out, nrank, 128, 3, true);
  run_size(out, nrank, 256, 2, false);
}

}  // namespace kosmo::driver
