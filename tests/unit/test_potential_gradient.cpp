// RAMSES' five-point gradient (gravity/potential_gradient.hpp): fourth-order convergent on a
// smooth periodic potential, and the acceleration points down the potential, across the periodic
// seam too.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "gravity/potential_gradient.hpp"

namespace kosmo::gravity {
namespace {

constexpr double kPi = std::numbers::pi;

// Max error of g_x for phi = sin(2 pi x) sin(2 pi y) sin(2 pi z) on n^3 cells.
double max_error(long long n) {
  const double h = 1.0 / static_cast<double>(n);
  std::vector<double> phi(static_cast<std::size_t>(n * n * n));
  for (long long k = 0; k < n; ++k)
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < n; ++i)
        phi[static_cast<std::size_t>((k * n + j) * n + i)] =
            std::sin(2 * kPi * (i + 0.5) * h) * std::sin(2 * kPi * (j + 0.5) * h) * std::sin(2 * kPi * (k + 0.5) * h);
  double worst = 0.0;
  for (long long k = 0; k < n; ++k)
    for (long long j = 0; j < n; ++j)
      for (long long i = 0; i < n; ++i) {
        const double x = (i + 0.5) * h, y = (j + 0.5) * h, z = (k + 0.5) * h;
        const double exact = -2 * kPi * std::cos(2 * kPi * x) * std::sin(2 * kPi * y) * std::sin(2 * kPi * z);
        worst = std::max(worst, std::fabs(acceleration<3>(phi, n, h, {i, j, k}, 0) - exact));
      }
  return worst;
}

TEST(PotentialGradient, FourthOrderOnASmoothPeriodicPotential) {
  const double e16 = max_error(16), e32 = max_error(32), e64 = max_error(64);
  RecordProperty("ratio_16_32", std::to_string(e16 / e32));
  RecordProperty("ratio_32_64", std::to_string(e32 / e64));
  // Fourth order: the error falls by 16 per halving of h.
  EXPECT_NEAR(e16 / e32, 16.0, 1.0);
  EXPECT_NEAR(e32 / e64, 16.0, 1.0);
  EXPECT_LT(e64, 1e-4);
}

TEST(PotentialGradient, PointsDownThePotentialAcrossThePeriodicSeam) {
  // phi = cos(2 pi x) in 1-D: g = -(d phi / dx) = 2 pi sin(2 pi x), checked at every cell including
  // the two on each side of the periodic seam (the fourth-order error here is below 2e-5).
  const long long n = 64;
  const double h = 1.0 / n;
  std::vector<double> phi(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) phi[static_cast<std::size_t>(i)] = std::cos(2 * kPi * (i + 0.5) * h);
  for (long long i = 0; i < n; ++i) {
    const double exact = 2 * kPi * std::sin(2 * kPi * (i + 0.5) * h);
    const double g = acceleration<1>(phi, n, h, {i}, 0);
    EXPECT_NEAR(g, exact, 2e-5) << "cell " << i;
    EXPECT_EQ(g > 0.0, exact > 0.0) << "cell " << i;
  }
}

}  // namespace
}  // namespace kosmo::gravity
