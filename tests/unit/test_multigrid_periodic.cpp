// Periodic multigrid Poisson solver (src/gravity/multigrid_periodic.hpp): converges on the residual to
// epsilon, reaches the same discrete solution as PeriodicFftPoisson, is second order against the
// continuum solution, reduces the residual by a large factor per V-cycle, gives the same answer with
// each optimisation of seeds/000 §5.1 / App. D.2 on or off, and does not depend on the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "gravity/fft_poisson.hpp"
#include "gravity/multigrid_periodic.hpp"
#include "poisson_test_grids.hpp"

namespace kosmo::gravity {
namespace {

using namespace test;

template <int D>
std::vector<double> fft_solution(int n, double h, const std::vector<double>& f) {
  PeriodicFftPoisson<D> solver(n, h);
  std::vector<double> phi(f.size());
  solver.solve(f.data(), phi.data());
  return phi;
}

template <int D>
MultigridReport mg_solve(int n, double h, const std::vector<double>& f, std::vector<double>& phi,
                         MultigridSettings settings = {}) {
  PeriodicMultigrid<D> solver(n, h, settings);
  phi.assign(f.size(), 0.0);
  return solver.solve(f.data(), phi.data());
}

MultigridSettings tight(double epsilon = 1e-10) {
  MultigridSettings settings;
  settings.epsilon = epsilon;
  return settings;
}

struct SineResult {
  MultigridReport report;
  double versus_fft;  // max |phi_mg - phi_fft| / max |phi_fft|
  double continuum;   // max |phi_mg - sin...sin| / max |sin...sin|
};

template <int D>
SineResult sine_test(int n) {
  const double h = 1.0 / n;
  const std::vector<double> exact = sine_product<D>(n);
  std::vector<double> f(exact.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = -4.0 * D * kPi * kPi * exact[i];
  std::vector<double> phi;
  SineResult result{mg_solve<D>(n, h, f, phi, tight()), 0.0, 0.0};
  result.versus_fft = relative_difference(phi, fft_solution<D>(n, h, f));
  result.continuum = relative_difference(phi, exact);
  EXPECT_LE(periodic_relative_residual<D>(n, h, f.data(), phi.data()), 1e-10) << D << "-D, n = " << n;
  return result;
}

// Checks (i)/(iv): convergence to epsilon, agreement with the FFT, and second order (error ratio per
// doubling between 3.5 and 4.5) for n = 16, 32, 64.
template <int D>
void check_sine_convergence() {
  const std::array<int, 3> sizes{16, 32, 64};
  std::array<double, 3> continuum{};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const SineResult r = sine_test<D>(sizes[i]);
    EXPECT_TRUE(r.report.converged) << D << "-D, n = " << sizes[i];
    EXPECT_LT(r.report.relative_residual, 1e-10) << D << "-D, n = " << sizes[i];
    EXPECT_LE(r.versus_fft, 1e-8) << D << "-D, n = " << sizes[i];
    continuum[i] = r.continuum;
    std::printf(
        "[ measured ] %d-D sine n = %d: %d V-cycles, residual %.3e, reduction %.1f per V-cycle, "
        "|mg - fft| %.2e, continuum error %.4e\n",
        D, sizes[i], r.report.vcycles, r.report.relative_residual, r.report.reduction_per_vcycle, r.versus_fft,
        r.continuum);
  }
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const double ratio = continuum[i] / continuum[i + 1];
    EXPECT_GE(ratio, 3.5) << D << "-D, n = " << sizes[i] << " -> " << sizes[i + 1];
    EXPECT_LE(ratio, 4.5) << D << "-D, n = " << sizes[i] << " -> " << sizes[i + 1];
  }
}

TEST(PeriodicMultigrid, Sine3DMatchesFftAndConvergesAtSecondOrder) { check_sine_convergence<3>(); }
TEST(PeriodicMultigrid, Sine2DMatchesFftAndConvergesAtSecondOrder) { check_sine_convergence<2>(); }
TEST(PeriodicMultigrid, Sine1DMatchesFftAndConvergesAtSecondOrder) { check_sine_convergence<1>(); }

// (ii) The V-cycle's worth: the residual falls by at least 6 per V-cycle (geometric mean).
TEST(PeriodicMultigrid, ResidualFallsBySixOrMorePerVcycle) {
  const int n = 64;
  const std::vector<double> f = random_values<3>(n, 2024u);
  std::vector<double> phi;
  const MultigridReport report = mg_solve<3>(n, 1.0 / n, f, phi, tight());
  std::printf(
      "[ measured ] 3-D random n = 64, 2+2 sweeps, linear prolongation: %d V-cycles to %.3e, "
      "reduction %.2f per V-cycle\n",
      report.vcycles, report.relative_residual, report.reduction_per_vcycle);
  EXPECT_TRUE(report.converged);
  EXPECT_GE(report.reduction_per_vcycle, 6.0);
  // Every single V-cycle contracts, not just the average.
  ASSERT_EQ(report.relative_residual_history.size(), static_cast<std::size_t>(report.vcycles));
  double previous = 1.0;
  for (double r : report.relative_residual_history) {
    EXPECT_LT(r, previous / 6.0);
    previous = r;
  }
}

// Why linear prolongation is the default: with averaging restriction, piecewise-constant prolongation
// violates the transfer-order rule (1 + 1 is not > 2) and its V-cycle is not robust. Measured here
// (reductions per V-cycle, 1+1 sweeps): linear 5.71 (11 V-cycles), constant 1.42 (53 V-cycles). On
// another random source constant fell further with n (1.72 at 16^3, 1.40 at 32^3, 1.17 at 64^3) while
// linear stayed at 5.2-5.5; with 2+2 sweeps constant did better in 3-D (18.8 vs 13.1 at 32^3) but in
// 1-D it is worse even then (1.9 vs 4.1).
TEST(PeriodicMultigrid, LinearProlongationIsRobustWhereConstantIsNot) {
  const int n = 32;
  const std::vector<double> f = random_values<3>(n, 2025u);
  std::vector<double> phi;
  MultigridSettings one_sweep = tight(1e-8);
  one_sweep.pre_smoothing_sweeps = 1;
  one_sweep.post_smoothing_sweeps = 1;
  one_sweep.max_vcycles = 300;
  const MultigridReport linear = mg_solve<3>(n, 1.0 / n, f, phi, one_sweep);
  one_sweep.prolongation = Prolongation::constant;
  const MultigridReport constant = mg_solve<3>(n, 1.0 / n, f, phi, one_sweep);
  std::printf("[ measured ] 3-D random n = 32, 1+1 sweeps: linear %.2f (%d V-cycles), constant %.2f (%d V-cycles)\n",
              linear.reduction_per_vcycle, linear.vcycles, constant.reduction_per_vcycle, constant.vcycles);
  EXPECT_TRUE(linear.converged);
  EXPECT_TRUE(constant.converged);
  EXPECT_GE(linear.reduction_per_vcycle, 4.0);
  EXPECT_LT(constant.reduction_per_vcycle, 0.5 * linear.reduction_per_vcycle);
  // Constant prolongation: ghost refreshes are the sweeps' only (its stencil is the parent alone).
  EXPECT_EQ(constant.ghost_refreshes, 2LL * 4 * constant.vcycles);  // levels 32, 16, 8, 4
}

// (iii) Merged red-black and the fused residual norm change the work, not the arithmetic; the
// reciprocal changes round-off only. The ghost-refresh count follows seeds/000 §5.1.1: 9 -> 5 per level.
TEST(PeriodicMultigrid, OptimisationsLeaveTheSolutionUnchanged) {
  const int n = 32;
  const std::vector<double> f = random_values<3>(n, 77u);
  std::vector<double> reference;
  const MultigridReport base = mg_solve<3>(n, 1.0 / n, f, reference, tight());
  EXPECT_EQ(base.ghost_refreshes, 5LL * 4 * base.vcycles);  // 4 levels above the 2^3 coarsest
  for (bool merged : {true, false}) {
    for (bool fused : {true, false}) {
      MultigridSettings settings = tight();
      settings.merged_red_black = merged;
      settings.fused_residual_norm = fused;
      std::vector<double> phi;
      const MultigridReport report = mg_solve<3>(n, 1.0 / n, f, phi, settings);
      EXPECT_EQ(report.vcycles, base.vcycles) << "merged " << merged << ", fused " << fused;
      EXPECT_LE(relative_difference(phi, reference), 1e-12) << "merged " << merged << ", fused " << fused;
      EXPECT_EQ(report.ghost_refreshes, (merged ? 5LL : 9LL) * 4 * report.vcycles);
      EXPECT_EQ(PeriodicMultigrid<3>(n, 1.0 / n, settings).ghost_refreshes_per_vcycle(), (merged ? 5LL : 9LL) * 4);
    }
  }
  MultigridSettings division = tight();
  division.precomputed_reciprocal = false;
  std::vector<double> phi;
  const MultigridReport report = mg_solve<3>(n, 1.0 / n, f, phi, division);
  EXPECT_EQ(report.vcycles, base.vcycles);
  EXPECT_LE(relative_difference(phi, reference), 1e-10);
  // A 2-D check of the merged sweep's block boundaries (slabs are rows there; 256^2 runs threaded).
  const std::vector<double> f2 = random_values<2>(256, 5u);
  std::vector<double> merged2, unmerged2;
  MultigridSettings unmerged = tight();
  unmerged.merged_red_black = false;
  mg_solve<2>(256, 1.0 / 256, f2, merged2, tight());
  mg_solve<2>(256, 1.0 / 256, f2, unmerged2, unmerged);
  EXPECT_LE(relative_difference(merged2, unmerged2), 1e-12);
}

// (v) A random source, with a non-zero mean that both solvers remove, on non-unit spacings.
template <int D>
void check_random_against_fft(int n, double h, unsigned seed) {
  const std::vector<double> f = random_values<D>(n, seed, 0.3);
  std::vector<double> phi;
  const MultigridReport report = mg_solve<D>(n, h, f, phi, tight());
  EXPECT_TRUE(report.converged) << D << "-D, n = " << n;
  const std::vector<double> fft = fft_solution<D>(n, h, f);
  EXPECT_LE(relative_difference(phi, fft), 1e-8) << D << "-D, n = " << n;
  EXPECT_LE(periodic_relative_residual<D>(n, h, f.data(), phi.data()), 1e-10) << D << "-D, n = " << n;
  EXPECT_LE(periodic_relative_residual<D>(n, h, f.data(), fft.data()), 1e-12) << D << "-D, n = " << n;
  double phi_sum = 0.0;
  for (double x : phi) phi_sum += x;
  EXPECT_LE(std::abs(phi_sum) / static_cast<double>(phi.size()), 1e-12 * max_abs(phi)) << "zero mean, " << D << "-D";
}

TEST(PeriodicMultigrid, RandomSourceMatchesFft) {
  check_random_against_fft<3>(32, 1.0 / 32, 11u);
  check_random_against_fft<3>(16, 0.37, 12u);
  check_random_against_fft<2>(64, 2.5, 13u);
  check_random_against_fft<1>(128, 1e-2, 14u);
}

// (vi) Same phi, bit for bit, on 1 and 2 threads, with the merged and the two-pass sweep.
TEST(PeriodicMultigrid, ResultDoesNotDependOnThreadCount) {
  const int n = 64;
  const std::vector<double> f = random_values<3>(n, 99u);
  const int saved_threads = omp_get_max_threads();
  for (bool merged : {true, false}) {
    MultigridSettings settings = tight(1e-8);
    settings.merged_red_black = merged;
    std::array<std::vector<double>, 2> phi;
    std::array<MultigridReport, 2> report;
    const std::array<int, 2> threads{1, 2};
    for (std::size_t t = 0; t < threads.size(); ++t) {
      omp_set_num_threads(threads[t]);
      report[t] = mg_solve<3>(n, 1.0 / n, f, phi[t], settings);
    }
    omp_set_num_threads(saved_threads);
    EXPECT_EQ(report[0].vcycles, report[1].vcycles);
    EXPECT_EQ(report[0].relative_residual, report[1].relative_residual);
    EXPECT_TRUE(phi[0] == phi[1]) << "merged " << merged << ": max relative difference "
                                  << relative_difference(phi[0], phi[1]);
  }
}

TEST(PeriodicMultigrid, StopsAtEpsilonOrMaxVcyclesAndSolvesInPlace) {
  const int n = 32;
  const std::vector<double> f = random_values<3>(n, 3u);
  std::vector<double> phi;
  const MultigridReport loose = mg_solve<3>(n, 1.0 / n, f, phi);  // RAMSES default epsilon = 1e-4
  EXPECT_TRUE(loose.converged);
  EXPECT_LT(loose.relative_residual, 1e-4);
  ASSERT_GE(loose.relative_residual_history.size(), 2u);
  EXPECT_GE(loose.relative_residual_history[loose.relative_residual_history.size() - 2], 1e-4);
  EXPECT_NEAR(periodic_relative_residual<3>(n, 1.0 / n, f.data(), phi.data()), loose.relative_residual,
              1e-6 * loose.relative_residual);

  MultigridSettings capped = tight(1e-14);
  capped.max_vcycles = 2;
  const MultigridReport two = mg_solve<3>(n, 1.0 / n, f, phi, capped);
  EXPECT_FALSE(two.converged);
  EXPECT_EQ(two.vcycles, 2);

  PeriodicMultigrid<3> solver(n, 1.0 / n, tight());
  std::vector<double> out(f.size());
  solver.solve(f.data(), out.data());
  std::vector<double> in_place = f;
  solver.solve(in_place.data(), in_place.data());
  EXPECT_TRUE(out == in_place);

  // Degenerate grids: n = 2 is the exact coarsest solve, n = 1 and uniform sources give phi = 0.
  check_random_against_fft<3>(2, 0.5, 4u);
  std::vector<double> uniform(cell_count(3, 8), 2.0);
  const MultigridReport flat = mg_solve<3>(8, 0.125, uniform, phi);
  EXPECT_TRUE(flat.converged);
  EXPECT_EQ(flat.vcycles, 0);
  EXPECT_EQ(max_abs(phi), 0.0);
  std::vector<double> one{5.0};
  mg_solve<3>(1, 1.0, one, phi);
  EXPECT_EQ(phi[0], 0.0);
}

TEST(PeriodicMultigrid, RejectsBadArguments) {
  EXPECT_THROW(PeriodicMultigrid<3>(12, 1.0), Error);
  EXPECT_THROW(PeriodicMultigrid<3>(0, 1.0), Error);
  EXPECT_THROW(PeriodicMultigrid<2>(8, 0.0), Error);
  MultigridSettings bad;
  bad.epsilon = 0.0;
  EXPECT_THROW(PeriodicMultigrid<1>(8, 1.0, bad), Error);
  bad = {};
  bad.pre_smoothing_sweeps = 0;
  bad.post_smoothing_sweeps = 0;
  EXPECT_THROW(PeriodicMultigrid<1>(8, 1.0, bad), Error);
}

}  // namespace
}  // namespace kosmo::gravity
