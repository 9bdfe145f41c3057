// The Layzer-Irvine accumulator (cosmology/layzer_irvine.hpp) on energies that satisfy
// d/da [a (K + U + W)] = -(K + (3 gamma - 4) U) exactly, given in super-comoving code units
// (proper energy times a^2).
#include <gtest/gtest.h>

#include <cmath>

#include "cosmology/layzer_irvine.hpp"

namespace {

using kosmo::cosmology::EnergySample;
using kosmo::cosmology::LayzerIrvine;

// Proper K = k a, U = u a: a (K + U + W) = C - (k + w u) a^2 / 2, so W = C / a - (k + w u) a / 2 - (k + u) a,
// w = 3 gamma - 4.
EnergySample exact_sample(double a, double gamma, double k, double u, double c) {
  const double w = 3.0 * gamma - 4.0;
  const double kinetic = k * a, thermal = u * a;
  const double potential = c / a - 0.5 * (k + w * u) * a - kinetic - thermal;
  const double to_code = a * a;
  return {a, kinetic * to_code, thermal * to_code, potential * to_code};
}

// Residual after integrating from a = 0.1 to 1 in n steps of equal d ln a.
LayzerIrvine integrate(int n, double gamma, double k, double u) {
  LayzerIrvine li(gamma);
  for (int i = 0; i <= n; ++i) li.add(exact_sample(0.1 * std::pow(10.0, static_cast<double>(i) / n), gamma, k, u, -2.0));
  return li;
}

TEST(LayzerIrvine, ExactEnergiesLeaveOnlyTheTrapezoidError) {
  // The source K + U is linear in a here: the trapezoid rule is exact, the residual round-off.
  const LayzerIrvine li = integrate(30, 5.0 / 3.0, 1.0, 0.5);
  EXPECT_LT(std::fabs(li.relative_residual()), 1e-13);
  // Without the integral the residual is of order one: the diagnostic sees a missing term.
  EXPECT_GT(std::fabs(li.relative_residual_without_integral()), 0.1);
}

TEST(LayzerIrvine, ThermalEnergyCarriesTheWeightThreeGammaMinusFour) {
  // gamma = 2 weights U by 2: the same energies read with gamma = 5/3 (weight 1) miss half of it.
  const LayzerIrvine right = integrate(30, 2.0, 0.0, 1.0);
  EXPECT_LT(std::fabs(right.relative_residual()), 1e-13);
  LayzerIrvine wrong(5.0 / 3.0);
  for (int i = 0; i <= 30; ++i) wrong.add(exact_sample(0.1 * std::pow(10.0, i / 30.0), 2.0, 0.0, 1.0, -2.0));
  EXPECT_GT(std::fabs(wrong.relative_residual()), 0.1);
}

TEST(LayzerIrvine, TrapezoidErrorIsSecondOrderInTheStep) {
  // K = k a^3 (proper): the source is not linear and the rule's error falls as the step squared.
  auto run = [](int n) {
    LayzerIrvine li(5.0 / 3.0);
    for (int i = 0; i <= n; ++i) {
      const double a = 0.1 * std::pow(10.0, static_cast<double>(i) / n);
      const double kinetic = a * a * a;
      const double potential = -2.0 / a - 0.25 * a * a * a - kinetic;  // a (K + W) = -2 - a^4 / 4
      li.add({a, kinetic * a * a, 0.0, potential * a * a});
    }
    return li;
  };
  const LayzerIrvine coarse = run(20), fine = run(40);
  EXPECT_GT(std::fabs(coarse.relative_residual()), 1e-6);
  EXPECT_NEAR(coarse.relative_residual() / fine.relative_residual(), 4.0, 0.2);
  // Both well inside the bound the run reports, max(da / a).
  EXPECT_LT(std::fabs(coarse.relative_residual()), coarse.bound());
  EXPECT_NEAR(coarse.largest_step(), std::pow(10.0, 1.0 / 20.0) - 1.0, 1e-12);
}

// Gas heated by the modules at a proper rate q per unit a (gamma = 5/3, no K or W):
// d/da [a U] = -U + a q is solved by U = (c + q a^3 / 3) / a^2, so the code thermal energy is
// c + q a^3 / 3 and the modules' cumulative code energy q (a^3 - a0^3) / 3.
TEST(LayzerIrvine, CountsTheEnergyTheModulesAdd) {
  const double c = 1.0, q = 2.0, a0 = 0.1;
  auto run = [&](int n, bool with_added) {
    LayzerIrvine li(5.0 / 3.0);
    for (int i = 0; i <= n; ++i) {
      const double a = a0 * std::pow(10.0, static_cast<double>(i) / n);
      li.add({a, 0.0, c + q * a * a * a / 3.0, 0.0}, with_added ? q * (a * a * a - a0 * a0 * a0) / 3.0 : 0.0);
    }
    return li.relative_residual();  // absolute here: W = 0 normalises by 1
  };
  // Without the modules' energy the residual is the heating's a dQ integral, q (1 - a0^2) / 2...
  EXPECT_NEAR(run(100, false), q * (1.0 - a0 * a0) / 2.0, 1e-2);
  // ...with it only the rules' second-order error remains: four times smaller for twice the steps.
  const double coarse = run(100, true), fine = run(200, true);
  EXPECT_LT(std::fabs(coarse), 5e-3);  // 2.3e-3, against 0.99 without
  EXPECT_NEAR(coarse / fine, 4.0, 0.1);
}

TEST(LayzerIrvine, RefusesSamplesOutOfOrder) {
  LayzerIrvine li(5.0 / 3.0);
  li.add({0.5, 1.0, 0.0, -1.0});
  EXPECT_THROW(li.add({0.4, 1.0, 0.0, -1.0}), std::exception);
}

}  // namespace
