// Speed of the MUSCL-Hancock oct kernel alone (no mesh gather): muscl_hancock_fluxes<3> on random
// smooth 6^3 blocks, for each Riemann solver with RAMSES' default slope_type 1, then the other slope
// types with HLLC. One JSON object per line (ARCHITECTURE §8); 8 cell updates per oct.
//   usage: bench_muscl_kernel [seconds per measurement, default 1]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#include "hydro/equation_of_state.hpp"
#include "hydro/hydro_settings.hpp"
#include "hydro/muscl_hancock.hpp"

namespace {

using kosmo::hydro::OctBlock;
using kosmo::hydro::RiemannSolver;
using kosmo::hydro::SchemeSettings;
using kosmo::hydro::SlopeType;

constexpr int D = 3;
constexpr int kBatches = 7;  // timed batches; the best is reported
constexpr int kBlocks = 64;  // distinct blocks cycled through, 64 x 216 x 5 doubles = 553 kB

std::vector<double> make_blocks(const SchemeSettings& s) {
  constexpr int C = OctBlock<D>::cells;
  const int nv = kosmo::hydro::nvar(D, s.npassive);
  const kosmo::hydro::GasConstants g(s);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> blocks(static_cast<std::size_t>(kBlocks * nv * C));
  std::vector<double> q(static_cast<std::size_t>(nv));
  for (int b = 0; b < kBlocks; ++b) {
    double k[D], phase[4];
    for (double& x : k) x = 0.2 + 0.8 * unit(rng);
    for (double& x : phase) x = 6.283 * unit(rng);
    double* u = blocks.data() + static_cast<std::size_t>(b * nv * C);
    for (int index = 0; index < C; ++index) {
      double arg = 0.0;
      for (int d = 0, i = index; d < D; ++d, i /= OctBlock<D>::width) arg += k[d] * (i % OctBlock<D>::width);
      q[0] = 1.0 + 0.3 * std::sin(arg + phase[0]);
      for (int d = 0; d < D; ++d) q[static_cast<std::size_t>(1 + d)] = 0.3 * std::sin(arg + phase[1] + d);
      q[D + 1] = 1.0 + 0.3 * std::cos(arg + phase[2]);
      for (int n = 0; n < s.npassive; ++n)
        q[static_cast<std::size_t>(D + 2 + n)] = 0.5 + 0.5 * std::sin(arg + phase[3]);
      kosmo::hydro::primitive_to_conservative<D>(q.data(), 1, u + index, C, s.npassive, g);
    }
  }
  return blocks;
}

void measure(const SchemeSettings& s, double seconds) {
  constexpr int C = OctBlock<D>::cells;
  const int nv = kosmo::hydro::nvar(D, s.npassive);
  const std::vector<double> blocks = make_blocks(s);
  kosmo::hydro::MusclScratch<D> scratch(nv);
  std::vector<double> flux(static_cast<std::size_t>(OctBlock<D>::flux_slots * nv));
  const double dtdx = 0.1;
  double checksum = 0.0;
  auto run = [&](long octs) {
    for (long i = 0; i < octs; ++i) {
      const double* u = blocks.data() + static_cast<std::size_t>((i % kBlocks) * nv * C);
      kosmo::hydro::muscl_hancock_fluxes<D>(s, dtdx, u, scratch, flux.data());
      checksum += flux[0];
    }
  };
  // Thread CPU time, best of several batches: on a shared node this measures the kernel's cost per
  // core rather than the neighbours' load.
  auto cpu_seconds = [] {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  };
  run(2000);  // warm-up
  long octs = 4096;
  for (;;) {  // size one batch to about seconds / kBatches
    const double t0 = cpu_seconds();
    run(octs);
    const double elapsed = cpu_seconds() - t0;
    if (elapsed >= seconds / kBatches) break;
    octs = static_cast<long>(static_cast<double>(octs) *
                             std::fmin(8.0, 1.2 * seconds / kBatches / std::fmax(elapsed, 1e-6)));
  }
  double best = 1e300;
  for (int b = 0; b < kBatches; ++b) {
    const double t0 = cpu_seconds();
    run(octs);
    best = std::fmin(best, cpu_seconds() - t0);
  }
  const double elapsed = best;
  const double ns_per_oct = 1e9 * elapsed / static_cast<double>(octs);
  std::printf(
      "{\"benchmark\":\"muscl_kernel\",\"dim\":%d,\"riemann\":\"%s\",\"slope_type\":%d,\"nvar\":%d,"
      "\"octs\":%ld,\"ns_per_oct\":%.1f,\"cell_updates_per_second\":%.4g,\"checksum\":%.6g}\n",
      D, kosmo::hydro::riemann_solver_name(s.riemann), static_cast<int>(s.slope_type), nv, octs, ns_per_oct,
      8.0e9 / ns_per_oct, checksum);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  for (RiemannSolver r : {RiemannSolver::llf, RiemannSolver::hll, RiemannSolver::hllc, RiemannSolver::exact}) {
    SchemeSettings s;
    s.riemann = r;
    s.slope_type = SlopeType::minmod;
    measure(s, seconds);
  }
  for (SlopeType st : {SlopeType::first_order, SlopeType::moncen, SlopeType::positivity}) {
    SchemeSettings s;
    s.riemann = RiemannSolver::hllc;
    s.slope_type = st;
    measure(s, seconds);
  }
  return 0;
}
