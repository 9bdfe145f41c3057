// The cooling module's rates, table and implicit solver (docs/galaxy.md, "Cooling"): a uniform cell
// cooling from 10^6 K at fixed density, with and without the UV background, integrated by the
// module's solver from its rate table must follow an independent high-accuracy integration of the
// same rates (adaptive Dormand-Prince with tight tolerances, evaluating the rates directly) to 1 %
// in T(t); and the temperatures of a mean-density cell at z = 3 under Haardt & Madau's background.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <utility>

#include "cooling/cooling_solver.hpp"
#include "cooling/cooling_table.hpp"
#include "cooling/ism_cooling.hpp"
#include "cooling/primordial_rates.hpp"

namespace kosmo::cooling {
namespace {

constexpr double gamma_gas = 5.0 / 3.0;

// dT2/dt of the rates themselves (no table).
double direct_rate(double n_h, double t2, double redshift, const UvBackground& uv) {
  const CoolingRates r = cooling_rates(n_h, t2, redshift, uv);
  const double net = r.cooling - r.heating + (r.compton_cooling - r.compton_heating) / n_h;
  return -(gamma_gas - 1.0) * hydrogen_mass_fraction * n_h * net / boltzmann_cgs;
}

// Adaptive Dormand-Prince 5(4) integration of dy/dt = f(y) from 0 to t_end (relative tolerance
// 1e-9), a method independent of the module's TR-BDF2.
double dormand_prince(const std::function<double(double)>& f, double y, double t_end) {
  constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
  constexpr double a21 = 1.0 / 5, a31 = 3.0 / 40, a32 = 9.0 / 40, a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
  constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
  constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
  constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
  constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;
  (void)c2, (void)c3, (void)c4, (void)c5;
  double t = 0.0, h = t_end * 1e-6;
  double k1 = f(y);
  while (t < t_end) {
    h = std::min(h, t_end - t);
    const double k2 = f(y + h * a21 * k1);
    const double k3 = f(y + h * (a31 * k1 + a32 * k2));
    const double k4 = f(y + h * (a41 * k1 + a42 * k2 + a43 * k3));
    const double k5 = f(y + h * (a51 * k1 + a52 * k2 + a53 * k3 + a54 * k4));
    const double k6 = f(y + h * (a61 * k1 + a62 * k2 + a63 * k3 + a64 * k4 + a65 * k5));
    const double next = y + h * (b1 * k1 + b3 * k3 + b4 * k4 + b5 * k5 + b6 * k6);
    const double k7 = f(next);
    const double error = std::fabs(h * (e1 * k1 + e3 * k3 + e4 * k4 + e5 * k5 + e6 * k6 + e7 * k7)) / (1e-9 * std::fabs(next));
    if (error <= 1.0) {
      t += h;
      y = next;
      k1 = k7;
    }
    h *= std::clamp(0.9 * std::pow(std::max(error, 1e-10), -0.2), 0.2, 5.0);
  }
  return y;
}

double temperature(double n_h, double t2, const UvBackground& uv) { return ionisation_equilibrium(n_h, t2, uv).mu * t2; }

// T2 of a gas at temperature T (T = mu(T2) T2, by fixed-point iteration).
double t2_of_temperature(double n_h, double t, const UvBackground& uv) {
  double t2 = t / 0.6;
  for (int i = 0; i < 50; ++i) t2 = t / ionisation_equilibrium(n_h, t2, uv).mu;
  return t2;
}

// A cell from 10^6 K over 30 initial cooling times, in 60 equal steps (as hydro steps would be), and
// in one step: the module's solver against Dormand-Prince, T(t) within 1 % at every step's end.
void expect_cooling_follows_reference(const UvBackground& uv, double redshift, double metallicity) {
  const double n_h = 0.0731;  // between the table's nodes
  const CoolingTable table(redshift, uv);
  const CoolingSolverSettings settings;
  auto tabulated = [&](double y) { return primordial_temperature_rate(table, gamma_gas, n_h, n_h, y, metallicity); };
  auto direct = [&](double y) {
    const CoolingRates r = cooling_rates(n_h, y, redshift, uv);
    const double net = r.cooling + metallicity * r.metal - r.heating + (r.compton_cooling - r.compton_heating) / n_h;
    return -(gamma_gas - 1.0) * hydrogen_mass_fraction * n_h * net / boltzmann_cgs;
  };
  const double t2_start = t2_of_temperature(n_h, 1e6, uv);
  ASSERT_NEAR(temperature(n_h, t2_start, uv), 1e6, 1.0);
  const double cooling_time = t2_start / std::fabs(direct(t2_start));
  const int steps = 60;
  const double dt = 30.0 * cooling_time / steps;
  double solver_t2 = t2_start, reference_t2 = t2_start, largest_error = 0.0;
  for (int step = 1; step <= steps; ++step) {
    solver_t2 = integrate_temperature(tabulated, settings, solver_t2, dt).t2;
    reference_t2 = dormand_prince(direct, reference_t2, dt);
    const double error = std::fabs(temperature(n_h, solver_t2, uv) / temperature(n_h, reference_t2, uv) - 1.0);
    largest_error = std::max(largest_error, error);
    EXPECT_LT(error, 0.01) << "step " << step << ": T2 " << solver_t2 << " vs " << reference_t2;
  }
  // The gas did cool: to the photoheated equilibrium near 10^4 K, or below it without the background.
  EXPECT_LT(temperature(n_h, reference_t2, uv), 2.5e4);
  const double one_step = integrate_temperature(tabulated, settings, t2_start, steps * dt).t2;
  EXPECT_LT(std::fabs(temperature(n_h, one_step, uv) / temperature(n_h, reference_t2, uv) - 1.0), 0.01);
  std::printf("z=%g Z=%g: T(end) = %.1f K, largest |T/T_ref - 1| = %.2e\n", redshift, metallicity, temperature(n_h, reference_t2, uv),
              largest_error);
}

UvBackground haardt_madau_at(double redshift) {
  UvSettings settings;
  settings.haardt_madau = true;
  return uv_background(settings, redshift);
}

TEST(CoolingSolver, FollowsReferenceWithUvBackground) { expect_cooling_follows_reference(haardt_madau_at(3.0), 3.0, 0.0); }

TEST(CoolingSolver, FollowsReferenceWithoutUvBackground) { expect_cooling_follows_reference(UvBackground{}, 3.0, 0.0); }

TEST(CoolingSolver, FollowsReferenceWithMetals) { expect_cooling_follows_reference(haardt_madau_at(0.0), 0.0, 0.3); }

// The table reproduces the rates between its nodes.
TEST(CoolingTable, MatchesDirectRates) {
  const UvBackground uv = haardt_madau_at(2.0);
  const CoolingTable table(2.0, uv);
  for (double n_h : {3.3e-6, 0.0731, 47.0})
    for (double t2 = 37.0; t2 < 3e8; t2 *= 1.7) {
      const CoolingRates r = cooling_rates(n_h, t2, 2.0, uv);
      const double cooling = r.cooling + r.compton_cooling / n_h, heating = r.heating + r.compton_heating / n_h;
      const NetCooling tabulated = table.net_cooling(n_h, n_h, t2, 0.0);
      EXPECT_NEAR(tabulated.net, cooling - heating, 2e-3 * (cooling + heating)) << "n_H " << n_h << " T2 " << t2;
    }
}

// Ionisation equilibrium: collisional ionisation equilibrium without a background (hydrogen half
// ionised near 1.5e4 K, Katz et al. 1996 Fig. 1) and nearly complete ionisation of the mean IGM.
TEST(PrimordialRates, IonisationEquilibrium) {
  const IonisationState cold = ionisation_equilibrium(1.0, 5e3, UvBackground{});
  EXPECT_LT(cold.hii, 1e-6);
  double t2 = 1e3;
  while (ionisation_equilibrium(1.0, t2, UvBackground{}).hii < 0.5) t2 *= 1.01;
  const double half = ionisation_equilibrium(1.0, t2, UvBackground{}).temperature;
  EXPECT_GT(half, 1.2e4);
  EXPECT_LT(half, 1.8e4);
  const IonisationState hot = ionisation_equilibrium(1.0, 1e8, UvBackground{});
  EXPECT_NEAR(hot.mu, 1.0 / (hydrogen_mass_fraction * (2.0 + 3.0 * helium_per_hydrogen)), 1e-6);
  const IonisationState igm = ionisation_equilibrium(1.2e-5, 2e4, haardt_madau_at(3.0));
  EXPECT_LT(igm.hi, 1e-4);
}

// docs/galaxy.md: a cell of the mean baryon density at z = 3 (Omega_b h^2 = 0.0224) under Haardt &
// Madau's background. Its thermal equilibrium (heating = cooling) lies near 2.6e4 K, but its cooling
// time exceeds the Hubble time there, so the IGM temperature is set by photoheating against the
// adiabatic cooling of the expansion (Hui & Gnedin 1997): integrating a mean-density cell from z = 6
// with both gives the ~1-2e4 K of the literature.
TEST(PrimordialRates, MeanDensityTemperatureAtRedshiftThree) {
  const double mean_n_h_today = 0.0224 * 1.88e-29 * hydrogen_mass_fraction / hydrogen_mass_g;
  const double n_h = mean_n_h_today * 64.0;
  const UvBackground uv = haardt_madau_at(3.0);
  double lo = 1e2, hi = 1e7;
  for (int i = 0; i < 80; ++i) {
    const double mid = std::sqrt(lo * hi);
    (direct_rate(n_h, mid, 3.0, uv) > 0.0 ? lo : hi) = mid;
  }
  const double equilibrium = temperature(n_h, lo, uv);
  EXPECT_GT(equilibrium, 2.0e4);
  EXPECT_LT(equilibrium, 3.5e4);
  // With the expansion (flat Omega_m = 0.3, h = 0.7): dT2/dln a = -2 T2 + (dT2/dt) / H, at the
  // mean density of each a, from z = 6 (T2 = 1e4 K just after reionisation) to z = 3.
  const double hubble_today = 70.0 * 1e5 / 3.0856776e24;
  double t2 = 1e4, log_a = std::log(1.0 / 7.0);
  const double log_a_end = std::log(0.25), step = (log_a_end - log_a) / 3000.0;
  auto slope = [&](double la, double y) {
    const double a = std::exp(la), z = 1.0 / a - 1.0;
    const double hubble = hubble_today * std::sqrt(0.3 / (a * a * a) + 0.7);
    return -2.0 * y + direct_rate(mean_n_h_today / (a * a * a), y, z, haardt_madau_at(z)) / hubble;
  };
  for (int i = 0; i < 3000; ++i, log_a += step) {  // classical RK4: smooth, non-stiff in ln a
    const double k1 = slope(log_a, t2), k2 = slope(log_a + step / 2, t2 + step / 2 * k1);
    const double k3 = slope(log_a + step / 2, t2 + step / 2 * k2), k4 = slope(log_a + step, t2 + step * k3);
    t2 += step / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  const double igm = temperature(n_h, t2, uv);
  std::printf("mean density at z = 3: thermal equilibrium T = %.0f K, with the expansion from z = 6: T = %.0f K\n", equilibrium, igm);
  EXPECT_GT(igm, 0.8e4);
  EXPECT_LT(igm, 2.5e4);
}

// The ISM function's two stable phases (Koyama & Inutsuka 2002 Fig. 1): warm near 8000 K at
// n = 0.1 cm^-3, cold below 100 K at n = 100 cm^-3; the solver settles on them from 1e4 K.
TEST(IsmCooling, TwoPhaseEquilibria) {
  const CoolingSolverSettings settings;
  for (auto [n_h, low, high] : {std::tuple{0.1, 5e3, 1e4}, std::tuple{100.0, 10.0, 100.0}}) {
    auto rate = [&, n = n_h](double y) { return ism_temperature_rate(gamma_gas, 1.4, n, y); };
    const double t2 = integrate_temperature(rate, settings, 1e4 / 1.4, 3e15).t2;  // 100 Myr
    EXPECT_GT(1.4 * t2, low) << n_h;
    EXPECT_LT(1.4 * t2, high) << n_h;
    EXPECT_NEAR(ism_net_cooling(n_h, 1.4 * t2), 0.0, 1e-3 * 2e-26);
  }
}

// Above 10^4.2 K the ISM function is Sutherland & Dopita's (1993, Table 6) solar CIE curve, not
// Koyama & Inutsuka's low-temperature fit extended (which gives ~1.8e-19 erg cm^3/s at 10^6 K).
TEST(IsmCooling, HotGasFollowsTheCollisionalEquilibriumCurve) {
  constexpr double heating = 2e-26;
  for (auto [log_t, log_lambda] : {std::pair{5.3, -20.84}, std::pair{6.0, -21.84}, std::pair{7.0, -22.45}})
    EXPECT_NEAR(ism_net_cooling(1.0, std::pow(10.0, log_t)) + heating, std::pow(10.0, log_lambda),
                1e-9 * std::pow(10.0, log_lambda))
        << log_t;
  // Halfway between two nodes: linear in log T - log Lambda.
  EXPECT_NEAR(std::log10(ism_net_cooling(1.0, std::pow(10.0, 6.325)) + heating), 0.5 * (-21.95 - 22.08), 1e-9);
  // Below 10^4.2 K, Koyama & Inutsuka's fit as before.
  const double t = 8000.0;
  EXPECT_DOUBLE_EQ(ism_net_cooling(1.0, t) + heating,
                   heating * (1e7 * std::exp(-118400.0 / (t + 1000.0)) + 1.4e-2 * std::sqrt(t) * std::exp(-92.0 / t)));
}

}  // namespace
}  // namespace kosmo::cooling
