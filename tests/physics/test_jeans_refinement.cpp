// Jeans-length refinement (&REFINE_PARAMS jeans_refine; RAMSES jeans_length_refine in
// hydro/hydro_flag.f90; docs/hydro.md "Refinement criteria"):
//  - the per-cell test: lambda_J = sqrt(pi c^2 / (G rho)) with c^2 = p / rho floored at smallc^2 and
//    G from the Poisson factor (4 pi G = 4 pi, or 1.5 omega_m aexp in a cosmological run); a cell
//    refines when jeans_refine * dx >= lambda_J, so one just below / above the threshold differs;
//  - a self-gravitating isothermal overdensity in a periodic 2-D box refines exactly where
//    lambda_J / dx <= N_J: after the initial refinement no leaf cell below levelmax has
//    lambda_J / dx <= N_J, and the peak reaches levelmax while the background stays at levelmin;
//  - with an isothermal equation of state c^2 is the barotrope's, not the state's p / rho;
//  - without gravity (poisson=.false.) jeans_refine does nothing, as in RAMSES.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <string>

#include "hydro/barotropic_eos.hpp"
#include "hydro/jeans_refinement.hpp"
#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kFourPi = 4.0 * std::numbers::pi;

TEST(JeansRefinement, JeansLengthIsSqrtPiCSquaredOverGRho) {
  // G = 1: lambda_J^2 = pi c^2 / rho.
  EXPECT_NEAR(hydro::jeans_length(1.0, kPi, kFourPi), 1.0, 1e-15);
  EXPECT_NEAR(hydro::jeans_length(0.03, 101.0, kFourPi), std::sqrt(kPi * 0.03 / 101.0), 1e-16);
  // Cosmological run: RAMSES factG = 3 omega_m aexp / (8 pi), the Poisson factor 1.5 omega_m aexp.
  const double omega_m = 0.3, aexp = 0.2;
  const double factor_g = 3.0 / 8.0 / kPi * omega_m * aexp;
  EXPECT_NEAR(hydro::jeans_length(0.5, 2.0, 1.5 * omega_m * aexp), std::sqrt(0.5 * kPi / 2.0 / factor_g), 1e-12);
}

TEST(JeansRefinement, CellJustAboveOrBelowTheThresholdDiffers) {
  const double rho = 50.0, c2 = 0.02, n_jeans = 4.0;
  const double lambda = std::sqrt(kPi * c2 / rho);
  const double dx_threshold = lambda / n_jeans;
  EXPECT_TRUE(hydro::jeans_refine_cell(dx_threshold * (1.0 + 1e-9), rho, c2, n_jeans, kFourPi));
  EXPECT_FALSE(hydro::jeans_refine_cell(dx_threshold * (1.0 - 1e-9), rho, c2, n_jeans, kFourPi));
  // A denser cell of the same size has a shorter Jeans length and refines; a hotter one does not.
  EXPECT_TRUE(hydro::jeans_refine_cell(dx_threshold * 0.99, rho * 1.1, c2, n_jeans, kFourPi));
  EXPECT_FALSE(hydro::jeans_refine_cell(dx_threshold * 1.01, rho, c2 * 1.1, n_jeans, kFourPi));
  // A weaker gravitational constant lengthens lambda_J by sqrt(4 pi / factor).
  EXPECT_FALSE(hydro::jeans_refine_cell(dx_threshold * 1.5, rho, c2, n_jeans, kFourPi / 4.0));
  EXPECT_TRUE(hydro::jeans_refine_cell(dx_threshold * 2.01, rho, c2, n_jeans, kFourPi / 4.0));
}

TEST(JeansRefinement, SoundSpeedFromTheConservativeStateAsRamses) {
  // 2-D: rho = 2, v = (1, 3), p = 0.4, gamma = 5/3: E = p / (gamma - 1) + rho |v|^2 / 2.
  const double gamma = 5.0 / 3.0, rho = 2.0, p = 0.4;
  const double u[4] = {rho, rho * 1.0, rho * 3.0, p / (gamma - 1.0) + 0.5 * rho * 10.0};
  EXPECT_NEAR(hydro::jeans_sound_speed_squared<2>(u, gamma, 1e-10, 1e-10), p / rho, 1e-14);
  // A cold cell takes smallc^2.
  const double cold[4] = {rho, rho * 1.0, rho * 3.0, 0.5 * rho * 10.0};
  EXPECT_DOUBLE_EQ(hydro::jeans_sound_speed_squared<2>(cold, gamma, 1e-10, 0.01), 1e-4);
}

TEST(JeansRefinement, LevelsStartAtLevelminAndNeedGravity) {
  hydro::JeansCriterion c;
  c.n_jeans = {4.0, 8.0, -1.0};
  c.levelmin = 3;
  EXPECT_FALSE(c.on(3));  // no gravity in the run
  c.gravity = true;
  EXPECT_FALSE(c.on(2));
  EXPECT_TRUE(c.on(3));
  EXPECT_DOUBLE_EQ(c.at_level(3), 4.0);
  EXPECT_DOUBLE_EQ(c.at_level(4), 8.0);
  EXPECT_FALSE(c.on(5));
  EXPECT_FALSE(c.on(6));  // beyond the array: off
}

// A periodic 2-D box, levelmin 4 (16^2) to levelmax 7, uniform c^2 = p / rho = 0.03 and a Gaussian
// overdensity of peak 101: lambda_J = sqrt(pi 0.03 / rho) is 0.31 in the background (5 levelmin
// cells of N_J = 4 would need 0.25) and 0.031 at the peak (4 cells of level 7).
constexpr double kSoundSpeedSquared = 0.03;
constexpr int kNJeans = 4;
constexpr int kLevelmin = 4, kLevelmax = 7;

std::string overdensity_namelist(bool gravity, const std::string& extra) {
  return std::string("&RUN_PARAMS\nhydro=.true.\npoisson=") + (gravity ? ".true." : ".false.") +
         "\nndim=2\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=7\nnexpand=1\n/\n&REFINE_PARAMS\njeans_refine=10*4\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666667\n/\n" + extra;
}

double overdensity(const std::array<double, 2>& x) {
  const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5);
  return 1.0 + 100.0 * std::exp(-r2 / (0.05 * 0.05));
}

std::map<int, int> leaves_per_level(const driver::Simulation<2>& sim) {
  std::map<int, int> count;
  for (const auto& cell : test::leaf_cells(sim)) ++count[cell.level];
  return count;
}

void set_overdensity(driver::Simulation<2>& sim, double pressure_per_density) {
  sim.set_initial_condition([pressure_per_density](const std::array<double, 2>& x, double, double* q) {
    q[0] = overdensity(x);
    q[1] = q[2] = 0.0;
    q[3] = pressure_per_density * q[0];
  });
}

TEST(JeansRefinement, OverdensityRefinesWhereTheJeansLengthIsUnresolved) {
  driver::Simulation<2> sim(core::ParameterSet::from_text(overdensity_namelist(true, ""), "jeans.nml"));
  set_overdensity(sim, kSoundSpeedSquared);
  sim.initialise();
  int checked = 0;
  for (const auto& cell : test::leaf_cells(sim)) {
    const double lambda = std::sqrt(kPi * (cell.q[3] / cell.q[0]) / cell.q[0]);
    // A leaf that could refine must resolve its Jeans length by more than N_J cells.
    if (cell.level < kLevelmax) {
      EXPECT_GT(lambda / cell.dx, kNJeans) << "leaf at level " << cell.level;
    }
    ++checked;
  }
  const auto count = leaves_per_level(sim);
  std::printf("[ jeans ] leaves per level:");
  for (const auto& [level, n] : count) std::printf(" %d:%d", level, n);
  std::printf("\n");
  EXPECT_GT(checked, 0);
  EXPECT_GT(count.count(kLevelmax) ? count.at(kLevelmax) : 0, 0);  // the peak reaches levelmax
  // The background stays coarse: the refined region (lambda_J / dx_4 <= 4 within r = 0.115, grown
  // by nexpand and the grading of the finer levels) covers 64 of the 256 levelmin cells.
  EXPECT_GE(count.count(kLevelmin) ? count.at(kLevelmin) : 0, 160);
  // The refined region is the unresolved one: at the peak lambda_J / dx_6 = 0.031 * 64 < 4.
  const double peak_lambda = std::sqrt(kPi * kSoundSpeedSquared / overdensity({0.5, 0.5}));
  EXPECT_LT(peak_lambda / (1.0 / 64.0), kNJeans);
}

TEST(JeansRefinement, WithoutGravityJeansRefineDoesNothing) {
  driver::Simulation<2> sim(core::ParameterSet::from_text(overdensity_namelist(false, ""), "jeans_no_gravity.nml"));
  set_overdensity(sim, kSoundSpeedSquared);
  sim.initialise();
  const auto count = leaves_per_level(sim);
  ASSERT_EQ(count.size(), 1u);
  EXPECT_EQ(count.begin()->first, kLevelmin);
}

TEST(JeansRefinement, IsothermalGasUsesTheBarotropeSoundSpeed) {
  // The state is 100 times hotter than the barotrope: by its own p / rho nothing would refine
  // (lambda_J 10 times longer), by the barotrope's the peak refines as in the adiabatic case.
  const double units_length = 1.0e5, units_time = 1.0, mu_gas = 1.0;
  const double t_eos = kSoundSpeedSquared * hydro::temperature_scale(units_length, units_time) * mu_gas;
  char cooling[256];
  std::snprintf(cooling, sizeof cooling,
                "&COOLING_PARAMS\nisothermal=.true.\nbarotropic_eos_form='isothermal'\nT_eos=%.17g\nmu_gas=%.17g\n/\n"
                "&UNITS_PARAMS\nunits_length=%.17g\nunits_time=%.17g\n/\n",
                t_eos, mu_gas, units_length, units_time);
  driver::Simulation<2> sim(core::ParameterSet::from_text(overdensity_namelist(true, cooling), "jeans_isothermal.nml"));
  set_overdensity(sim, 100.0 * kSoundSpeedSquared);
  sim.initialise();
  const auto count = leaves_per_level(sim);
  EXPECT_GT(count.count(kLevelmax) ? count.at(kLevelmax) : 0, 0);
  for (const auto& cell : test::leaf_cells(sim)) {
    if (cell.level < kLevelmax) {
      EXPECT_GT(std::sqrt(kPi * kSoundSpeedSquared / cell.q[0]) / cell.dx, kNJeans);
    }
  }
}

}  // namespace
