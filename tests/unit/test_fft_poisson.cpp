// Periodic FFT Poisson solver (src/gravity/fft_poisson.hpp): the solution satisfies the discrete
// (2D+1)-point equation to round-off, equals the exact discrete solution of the single-mode test of
// seeds/000 §8.6.4, converges at second order to the continuum solution, handles a random neutral
// source, and does not depend on the number of threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "gravity/fft_poisson.hpp"
#include "poisson_test_grids.hpp"

namespace kosmo::gravity {
namespace {

using namespace test;

// The periodic (2D+1)-point Laplacian, the operator the solver inverts.
template <int D>
std::vector<double> apply_laplacian(const std::vector<double>& phi, int n, double h) {
  std::vector<double> result(phi.size());
  for (std::size_t i = 0; i < phi.size(); ++i) {
    const auto c = cell_coordinates<D>(i, n);
    double sum = -2.0 * D * phi[i];
    std::size_t stride = 1;
    for (int d = 0; d < D; ++d) {
      const std::size_t up = c[d] + 1 < n ? i + stride : i - static_cast<std::size_t>(n - 1) * stride;
      const std::size_t down = c[d] > 0 ? i - stride : i + static_cast<std::size_t>(n - 1) * stride;
      sum += phi[up] + phi[down];
      stride *= static_cast<std::size_t>(n);
    }
    result[i] = sum / (h * h);
  }
  return result;
}

std::vector<double> minus_mean(std::vector<double> v) {
  double mean = 0.0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double& x : v) x -= mean;
  return v;
}

struct SineErrors {
  double residual;   // (a) max |L_h phi - (f - <f>)| / max |f - <f>|
  double discrete;   // (b) max |phi - f / lambda_1| / max |f / lambda_1|
  double continuum;  // (c) max |phi - sin...sin| / max |sin...sin|
};

template <int D>
SineErrors sine_test(int n) {
  const double h = 1.0 / n;
  const std::vector<double> exact = sine_product<D>(n);
  std::vector<double> f(exact.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = -4.0 * D * kPi * kPi * exact[i];

  PeriodicFftPoisson<D> solver(n, h);
  EXPECT_EQ(solver.n(), n);
  EXPECT_EQ(solver.h(), h);
  std::vector<double> phi(f.size());
  solver.solve(f.data(), phi.data());

  SineErrors e{};
  const std::vector<double> source = minus_mean(f);
  e.residual = max_abs_difference(apply_laplacian<D>(phi, n, h), source) / max_abs(source);
  // The single mode k = (1, ..., 1) has eigenvalue lambda_1 = D (2 cos(2 pi / n) - 2) / h^2.
  const double lambda_1 = D * (2.0 * std::cos(2.0 * kPi / n) - 2.0) / (h * h);
  std::vector<double> discrete(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) discrete[i] = f[i] / lambda_1;
  e.discrete = max_abs_difference(phi, discrete) / max_abs(discrete);
  e.continuum = max_abs_difference(phi, exact) / max_abs(exact);
  return e;
}

TEST(FftPoisson, PeriodicSine3DSatisfiesDiscreteEquationAndConvergesAtSecondOrder) {
  const std::array<int, 3> sizes{16, 32, 64};
  std::array<double, 3> continuum{};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const SineErrors e = sine_test<3>(sizes[i]);
    EXPECT_LE(e.residual, 1e-10) << "n = " << sizes[i];
    EXPECT_LE(e.discrete, 1e-10) << "n = " << sizes[i];
    continuum[i] = e.continuum;
  }
  // Measured max relative errors against sin(2 pi x) sin(2 pi y) sin(2 pi z) (Release, gcc):
  //   n = 16: 1.2951e-02, n = 32: 3.2190e-03, n = 64: 8.0358e-04 (orders 2.008, 2.002; overall 2.005),
  // i.e. pi^2 / (n^2 sin^2(pi / n)) - 1 ~ pi^2 / (3 n^2), the truncation error of the 7-point stencil.
  // The round-off errors of (a) and (b) were <= 6.8e-14 and <= 8.2e-15 respectively.
  const double order_overall = std::log2(continuum[0] / continuum[2]) / 2.0;
  EXPECT_GE(order_overall, 1.9);
  EXPECT_LE(order_overall, 2.1);
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const double order = std::log2(continuum[i] / continuum[i + 1]);
    EXPECT_GE(order, 1.9) << "n = " << sizes[i] << " -> " << sizes[i + 1];
    EXPECT_LE(order, 2.1) << "n = " << sizes[i] << " -> " << sizes[i + 1];
  }
  EXPECT_LT(continuum[2], 1e-3);
}

TEST(FftPoisson, PeriodicSine1DAnd2D) {
  for (int n : {16, 32, 64}) {
    const SineErrors e1 = sine_test<1>(n);
    EXPECT_LE(e1.residual, 1e-10) << "1-D, n = " << n;
    EXPECT_LE(e1.discrete, 1e-10) << "1-D, n = " << n;
    const SineErrors e2 = sine_test<2>(n);
    EXPECT_LE(e2.residual, 1e-10) << "2-D, n = " << n;
    EXPECT_LE(e2.discrete, 1e-10) << "2-D, n = " << n;
  }
}

template <int D>
std::vector<double> random_source(int n, unsigned seed) {
  return minus_mean(random_values<D>(n, seed));
}

template <int D>
double random_residual(int n, double h) {
  const std::vector<double> f = random_source<D>(n, 12345u + D);
  PeriodicFftPoisson<D> solver(n, h);
  std::vector<double> phi(f.size());
  solver.solve(f.data(), phi.data());
  return max_abs_difference(apply_laplacian<D>(phi, n, h), f) / max_abs(f);
}

TEST(FftPoisson, RandomNeutralSourceIsReproduced) {
  // Odd and even sizes (the Nyquist mode exists only for even n), and a non-unit spacing.
  EXPECT_LE(random_residual<3>(32, 1.0 / 32), 1e-10);
  EXPECT_LE(random_residual<3>(24, 0.37), 1e-10);
  EXPECT_LE(random_residual<3>(15, 1.0 / 15), 1e-10);
  EXPECT_LE(random_residual<2>(33, 2.5), 1e-10);
  EXPECT_LE(random_residual<1>(101, 1e-2), 1e-10);
}

TEST(FftPoisson, SolverIsReusableAndInPlace) {
  const int n = 16;
  PeriodicFftPoisson<3> solver(n, 1.0 / n);
  const std::vector<double> f = random_source<3>(n, 7u);
  std::vector<double> first(f.size());
  solver.solve(f.data(), first.data());
  std::vector<double> again = f;
  solver.solve(again.data(), again.data());  // f and phi alias
  EXPECT_EQ(first, again);
  PeriodicFftPoisson<3> moved = std::move(solver);
  std::vector<double> third(f.size());
  moved.solve(f.data(), third.data());
  EXPECT_EQ(first, third);
}

TEST(FftPoisson, ResultDoesNotDependOnThreadCount) {
  const int n = 64;
  const std::vector<double> f = random_source<3>(n, 99u);
  const int saved_threads = omp_get_max_threads();
  std::array<std::vector<double>, 2> phi;
  const std::array<int, 2> threads{1, 2};
  for (std::size_t t = 0; t < threads.size(); ++t) {
    omp_set_num_threads(threads[t]);
    PeriodicFftPoisson<3> solver(n, 1.0 / n);
    phi[t].resize(f.size());
    solver.solve(f.data(), phi[t].data());
  }
  omp_set_num_threads(saved_threads);
  EXPECT_LE(max_abs_difference(phi[0], phi[1]) / max_abs(phi[0]), 1e-14);
}

TEST(FftPoisson, RejectsBadArguments) {
  EXPECT_THROW(PeriodicFftPoisson<3>(0, 1.0), Error);
  EXPECT_THROW(PeriodicFftPoisson<2>(8, 0.0), Error);
  EXPECT_THROW(PeriodicFftPoisson<1>(8, -1.0), Error);
}

}  // namespace
}  // namespace kosmo::gravity
