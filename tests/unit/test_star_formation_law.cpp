// The pure kernels of star formation (docs/galaxy.md "Star formation"): the counter-based random
// streams and their Poisson deviates (star_formation/counter_random.hpp), and the per-cell law
// (star_formation/schmidt_law.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "star_formation/counter_random.hpp"
#include "star_formation/schmidt_law.hpp"

using namespace kosmo::star_formation;

TEST(CounterRandom, AStreamIsAFunctionOfItsKeyAlone) {
  CounterRandom a({12345, 3, 7, 42}), b({12345, 3, 7, 42}), other_cell({12345, 4, 7, 42}), other_step({12345, 3, 7, 43});
  int same_as_other = 0;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next_word();
    EXPECT_EQ(x, b.next_word());
    same_as_other += x == other_cell.next_word() ? 1 : 0;
    same_as_other += x == other_step.next_word() ? 1 : 0;
  }
  EXPECT_EQ(same_as_other, 0);
}

TEST(CounterRandom, UniformsAreUniform) {
  CounterRandom random({1, 2, 3});
  constexpr int n = 100000;
  std::vector<int> bins(10, 0);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double u = random.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ++bins[static_cast<std::size_t>(u * 10.0)];
  }
  EXPECT_NEAR(sum / n, 0.5, 4.0 * std::sqrt(1.0 / 12.0 / n));
  for (int count : bins) EXPECT_NEAR(count, n / 10, 4.0 * std::sqrt(n * 0.1 * 0.9));
}

// Mean and variance of the deviates equal the mean within 4 standard errors, on both branches
// (inversion below 10, transformed rejection from 10 on), and P(0) = exp(-mean) for small means.
TEST(PoissonDeviate, MomentsMatchThePoissonDistribution) {
  constexpr int n = 40000;
  for (double mean : {0.05, 0.7, 4.0, 9.9, 10.0, 37.5, 600.0}) {
    double sum = 0.0, square = 0.0;
    int zeros = 0;
    for (int i = 0; i < n; ++i) {
      CounterRandom random({static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(mean * 1000)});
      const auto k = static_cast<double>(poisson_deviate(mean, random));
      ASSERT_GE(k, 0.0);
      sum += k;
      square += k * k;
      zeros += k == 0.0 ? 1 : 0;
    }
    const double average = sum / n, variance = square / n - average * average;
    std::printf("mean %7.2f: average %9.4f variance %9.4f P(0) %.4f (exp(-mean) %.4f)\n", mean, average, variance,
                static_cast<double>(zeros) / n, std::exp(-mean));
    EXPECT_NEAR(average, mean, 4.0 * std::sqrt(mean / n)) << mean;
    // The variance of the sample variance of a Poisson variable is about (mean + 2 mean^2) / n.
    EXPECT_NEAR(variance, mean, 4.0 * std::sqrt((mean + 2.0 * mean * mean) / n)) << mean;
    if (mean < 5.0) {
      EXPECT_NEAR(static_cast<double>(zeros) / n, std::exp(-mean), 4.0 * std::sqrt(std::exp(-mean) / n)) << mean;
    }
  }
  CounterRandom random({1});
  EXPECT_EQ(poisson_deviate(0.0, random), 0);
}

namespace {

SchmidtLaw law() {
  SchmidtLaw l;
  l.threshold_density = 0.5;
  l.threshold_hydrogen = 0.5;  // scale_nH = 1
  l.efficiency = 0.01;
  l.star_mass = 1e-3;
  l.polytrope_temperature = 1e4;
  l.polytrope_index = 2.0;
  l.temperature_scale = 1e4;  // a code p/rho of 1 is 1e4 K
  l.gamma = 5.0 / 3.0;
  return l;
}

}  // namespace

TEST(SchmidtLaw, ThresholdAndTemperatureAbovePolytrope) {
  const SchmidtLaw l = law();
  // Polytrope at rho = 2 (n_H = 2, 4 n_ISM): 1e4 K * 4 = 4e4 K.
  EXPECT_DOUBLE_EQ(l.polytrope(2.0), 4e4);
  // e_int for T/mu = T: rho T / scale_T2 / (gamma - 1).
  const auto internal = [&](double rho, double temperature) { return rho * temperature / l.temperature_scale / (l.gamma - 1.0); };
  EXPECT_FALSE(l.forms_stars(0.5, internal(0.5, 10.0))) << "at the threshold, not above it";
  EXPECT_TRUE(l.forms_stars(2.0, internal(2.0, 4e4 + 1.9e4))) << "1.9e4 K above the polytrope";
  EXPECT_FALSE(l.forms_stars(2.0, internal(2.0, 4e4 + 2.1e4))) << "2.1e4 K above the polytrope";
}

TEST(SchmidtLaw, ExpectedStarsAndTheNinetyPercentLimit) {
  SchmidtLaw l = law();
  // eps_star: t_sf = 0.5427 / sqrt(rho) / eps; lambda = dt / t_sf * rho V / m_*.
  const double rho = 4.0, volume = 0.01, dt = 0.2;
  EXPECT_NEAR(l.expected_stars(rho, volume, dt), dt * 0.01 * std::sqrt(rho) / 0.5427 * rho * volume / 1e-3, 1e-12);
  // t_star form: t_sf = t_star sqrt(rho_0 / rho).
  l.efficiency = 0.0;
  l.time_scale = 3.0;
  EXPECT_NEAR(l.expected_stars(rho, volume, dt), dt / (3.0 * std::sqrt(0.5 / rho)) * rho * volume / 1e-3, 1e-12);
  // 0.9 rho V / m_* = 36: 40 star masses are cut to 36, 30 kept.
  EXPECT_EQ(l.limited(40, rho, volume), 36);
  EXPECT_EQ(l.limited(30, rho, volume), 30);
}
