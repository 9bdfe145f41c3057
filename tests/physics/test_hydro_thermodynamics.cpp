// RAMSES' pressure fix and barotropic equations of state (docs/hydro.md, "Pressure fix" and
// "Isothermal and barotropic gas"), and passive scalars initialised by var_region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "hydro/barotropic_eos.hpp"
#include "hydro/riemann_exact.hpp"
#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Eight stripes of a cold (Mach ~ 10^4) stream, alternately 1 and 2 in density and 10 and 10.3 in
// velocity: the velocity steps make weak shocks and rarefactions whose kinetic-energy truncation
// errors exceed the internal energy p / (gamma - 1) = 2.5e-6.
std::string cold_stripes(bool pressure_fix) {
  return std::string("&RUN_PARAMS\nhydro=.true.\nndim=1\n/\n&AMR_PARAMS\nlevelmin=7\nlevelmax=7\n/\n"
                     "&INIT_PARAMS\nnregion=8\nregion_type=8*'square'\n"
                     "x_center=0.0625,0.1875,0.3125,0.4375,0.5625,0.6875,0.8125,0.9375\nlength_x=8*0.125\n"
                     "exp_region=8*10.0\nd_region=1.0,2.0,1.0,2.0,1.0,2.0,1.0,2.0\n"
                     "u_region=10.0,10.3,10.0,10.3,10.0,10.3,10.0,10.3\np_region=8*1e-6\n/\n"
                     "&HYDRO_PARAMS\ngamma=1.4\nriemann='hllc'\nslope_type=2\npressure_fix=") +
         (pressure_fix ? ".true." : ".false.") + "\n/\n";
}

struct StripesResult {
  double min_pressure = 1e300, min_entropy = 1e300;  // entropy: p / rho^gamma
  std::vector<double> initial, final;                // conserved totals
};

StripesResult run_stripes(bool pressure_fix) {
  driver::Simulation<1> sim(core::ParameterSet::from_text(cold_stripes(pressure_fix), "stripes.nml"));
  sim.initialise();
  StripesResult r;
  r.initial = sim.totals();
  test::advance_to(sim, 0.2);
  r.final = sim.totals();
  for (const auto& cell : test::leaf_cells(sim)) {
    r.min_pressure = std::min(r.min_pressure, cell.q[2]);
    r.min_entropy = std::min(r.min_entropy, cell.q[2] / std::pow(cell.q[0], 1.4));
  }
  return r;
}

// Without the fix the conservative internal energy of some cells goes negative (measured: minimum
// pressure -3.9e-7, four cells); with it the pressure stays positive and the entropy p / rho^gamma
// never falls below its smallest initial value, 1e-6 / 2^1.4 = 3.79e-7 (measured minimum 6.9e-7),
// as an adiabatic flow with shocks requires. Mass and momentum stay conserved to round-off; the
// energy changes only where the fix replaces a negative internal energy (measured 1.6e-7 of the
// total, the kinetic energy of the stream being 4e7 times its thermal energy).
TEST(PressureFix, KeepsTheColdStreamPressurePositive) {
  const StripesResult without = run_stripes(false);
  const StripesResult with = run_stripes(true);
  RecordProperty("min_pressure_without_fix", exact_text(without.min_pressure));
  RecordProperty("min_pressure_with_fix", exact_text(with.min_pressure));
  EXPECT_LT(without.min_pressure, 0.0) << "the set-up no longer needs the fix";
  EXPECT_GT(with.min_pressure, 0.0);
  EXPECT_GE(with.min_entropy, 1e-6 / std::pow(2.0, 1.4));
  for (int v : {0, 1}) EXPECT_NEAR(with.final[v], with.initial[v], 1e-13 * std::fabs(with.initial[v])) << "variable " << v;
  const double energy_change = std::fabs(with.final[2] - with.initial[2]) / with.initial[2];
  EXPECT_GT(energy_change, 0.0) << "the fix never acted";
  EXPECT_LT(energy_change, 1e-6);
  EXPECT_NEAR(without.final[2], without.initial[2], 1e-13 * without.initial[2]);
}

// Where the conservative internal energy never goes negative, the fix with beta_fix = 0 changes no
// bit: a Sod tube between walls, on an adaptive mesh (the extra face terms are refluxed too), ends
// identical with and without it, and its total energy is conserved to round-off.
TEST(PressureFix, WithBetaFixZeroLeavesAShockTubeUnchanged) {
  auto tube = [](bool pressure_fix) {
    const std::string namelist =
        std::string("&RUN_PARAMS\nhydro=.true.\nndim=1\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=7\n/\n"
                    "&BOUNDARY_PARAMS\nnboundary=2\nibound_min=-1,+1\nibound_max=-1,+1\nbound_type=1,1\n/\n"
                    "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\nx_center=0.25,0.75\n"
                    "length_x=0.5,0.5\nd_region=1.0,0.125\np_region=1.0,0.1\n/\n"
                    "&REFINE_PARAMS\nerr_grad_d=0.05\nerr_grad_p=0.05\n/\n"
                    "&HYDRO_PARAMS\ngamma=1.4\nriemann='hllc'\nslope_type=2\npressure_fix=") +
        (pressure_fix ? ".true." : ".false.") + "\nbeta_fix=0.0\n/\n";
    driver::Simulation<1> sim(core::ParameterSet::from_text(namelist, "tube.nml"));
    sim.initialise();
    const std::vector<double> initial = sim.totals();
    test::advance_to(sim, 0.2);
    EXPECT_NEAR(sim.totals()[2], initial[2], 1e-13 * initial[2]);
    return test::leaf_cells(sim);
  };
  const auto off = tube(false), on = tube(true);
  ASSERT_EQ(off.size(), on.size());
  for (std::size_t i = 0; i < off.size(); ++i) EXPECT_EQ(off[i].q, on[i].q) << "cell " << i;
}

// The dual internal energy itself (advection plus -p dV work): with a huge beta_fix every cell with a
// velocity jump takes E = e + kinetic after each step, so the Sod rarefaction is then computed from e
// alone. Its pressure must still follow the exact fan, as closely as the conservative scheme's: a
// missing or wrong-signed p dV term would leave the expanded gas at the wrong pressure. Measured L1
// pressure error over the fan (256 cells, t = 0.2): 4.96e-4 conservative, 5.05e-4 dual energy.
TEST(PressureFix, DualEnergyAloneFollowsTheSodRarefaction) {
  auto rarefaction_error = [](bool always_fix) {
    const std::string namelist =
        std::string("&RUN_PARAMS\nhydro=.true.\nndim=1\n/\n&AMR_PARAMS\nlevelmin=8\nlevelmax=8\n/\n"
                    "&BOUNDARY_PARAMS\nnboundary=2\nibound_min=-1,+1\nibound_max=-1,+1\nbound_type=1,1\n/\n"
                    "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\nx_center=0.25,0.75\n"
                    "length_x=0.5,0.5\nd_region=1.0,0.125\np_region=1.0,0.1\n/\n"
                    "&HYDRO_PARAMS\ngamma=1.4\nriemann='hllc'\nslope_type=2\n") +
        (always_fix ? "pressure_fix=.true.\nbeta_fix=1e30\n" : "") + "/\n";
    driver::Simulation<1> sim(core::ParameterSet::from_text(namelist, "tube.nml"));
    sim.initialise();
    const double initial_energy = sim.totals()[2];
    test::advance_to(sim, 0.2);
    if (always_fix) {
      EXPECT_GT(std::fabs(sim.totals()[2] - initial_energy), 1e-10) << "the fix never acted";
    }
    // Inside the fan, 0.5 - c_L t = 0.263 < x < 0.5 + (u* - c*) t = 0.486, away from its ends.
    double error = 0.0;
    for (const auto& cell : test::leaf_cells(sim)) {
      if (cell.x[0] < 0.28 || cell.x[0] > 0.47) continue;
      double rho, u, p;
      hydro::sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, (cell.x[0] - 0.5) / 0.2, rho, u, p);
      error += std::fabs(cell.q[2] - p) * cell.dx;
    }
    return error;
  };
  const double conservative = rarefaction_error(false), dual = rarefaction_error(true);
  RecordProperty("fan_pressure_l1_conservative", exact_text(conservative));
  RecordProperty("fan_pressure_l1_dual_energy", exact_text(dual));
  EXPECT_LT(dual, 1.25 * conservative);
}

// &UNITS_PARAMS with a code velocity of 1 km/s: scale_T2 = m_H / k_B (1e5 cm/s)^2 = 120.27 K, so
// T_eos = 120.27 K is an isothermal sound speed of 1 (code units).
const double kScaleT2 = hydro::temperature_scale(1e5, 1.0);

std::string barotropic_gas(const std::string& form, const std::string& regions) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=1\n/\n&AMR_PARAMS\nlevelmin=8\nlevelmax=8\n/\n" + regions +
         "&HYDRO_PARAMS\ngamma=1.6666667\nriemann='hllc'\nslope_type=1\ncourant_factor=0.8\n/\n"
         "&UNITS_PARAMS\nunits_length=1e5\nunits_time=1.0\nunits_density=1e-20\n/\n"
         "&COOLING_PARAMS\nbarotropic_eos=.true.\nbarotropic_eos_form='" + form + "'\nT_eos=" + exact_text(kScaleT2) +
         "\nmu_gas=1.0\npolytrope_rho=2e-20\npolytrope_index=1.4\n/\n";
}

// A small over-density at rest splits into two pulses travelling at the sound speed. With the
// isothermal EOS (RAMSES' isothermal=.true., the test-suite spelling) that is c_iso = 1; an adiabatic
// gas with gamma = 5/3 would give 1.29. The centre of the right-moving pulse (density excess
// weighted) is measured at t = 0.25: speed 1.00 within 3 %.
TEST(BarotropicEos, IsothermalPulsesTravelAtTheIsothermalSoundSpeed) {
  const std::string regions =
      "&INIT_PARAMS\nnregion=2\nregion_type=2*'square'\nx_center=0.5,0.5\nlength_x=10.0,0.04\n"
      "exp_region=2*10.0\nd_region=1.0,1.01\np_region=1.0,1.01\n/\n";
  std::string namelist = barotropic_gas("isothermal", regions);
  namelist.replace(namelist.find("barotropic_eos=.true."), 21, "isothermal=.true.");
  driver::Simulation<1> sim(core::ParameterSet::from_text(namelist, "pulse.nml"));
  sim.initialise();
  test::advance_to(sim, 0.25);
  double weight = 0.0, moment = 0.0;
  for (const auto& cell : test::leaf_cells(sim)) {
    EXPECT_NEAR(cell.q[2] / cell.q[0], 1.0, 1e-12) << "p / rho is c_iso^2 = 1 after every step";
    if (cell.x[0] < 0.5) continue;
    const double excess = std::max(cell.q[0] - 1.0, 0.0);
    weight += excess * cell.dx;
    moment += excess * cell.x[0] * cell.dx;
  }
  ASSERT_GT(weight, 0.0);
  const double speed = (moment / weight - 0.5) / 0.25;
  RecordProperty("pulse_speed", std::to_string(speed));
  EXPECT_NEAR(speed, 1.0, 0.03);
}

// After a step every leaf's pressure is the barotrope's: p = rho T2(rho) / scale_T2, with
// T2 = T_eos (rho / rho0)^(n - 1) ('polytrope'), T_eos (1 + (rho / rho0)^(n - 1)) ('double_polytrope'),
// and T_eos below rho0, the polytrope above ('custom'); rho0 = polytrope_rho / units_density = 2.
class BarotropicForms : public ::testing::TestWithParam<std::string> {};

TEST_P(BarotropicForms, PressureFollowsTheFormulaAfterAStep) {
  const std::string form = GetParam();
  const std::string regions =
      "&INIT_PARAMS\nnregion=2\nregion_type=2*'square'\nx_center=0.5,0.5\nlength_x=10.0,0.5\n"
      "exp_region=2*10.0\nd_region=1.0,4.0\nu_region=0.3,-0.2\np_region=1.0,3.0\n/\n";
  driver::Simulation<1> sim(core::ParameterSet::from_text(barotropic_gas(form, regions), "barotrope.nml"));
  sim.initialise();
  sim.advance(sim.courant_time_step());
  int above_knee = 0;
  for (const auto& cell : test::leaf_cells(sim)) {
    const double ratio = cell.q[0] / 2.0, n = 1.4;
    double t2 = 1.0;  // in units of T_eos
    if (form == "polytrope") t2 = std::pow(ratio, n - 1.0);
    if (form == "double_polytrope") t2 = 1.0 + std::pow(ratio, n - 1.0);
    if (form == "custom") t2 = ratio < 1.0 ? 1.0 : std::pow(ratio, n - 1.0);
    if (ratio > 1.0) ++above_knee;
    EXPECT_NEAR(cell.q[2], cell.q[0] * t2, 1e-12 * cell.q[0] * t2) << form << " at x = " << cell.x[0];
  }
  EXPECT_GT(above_knee, 0);
}

INSTANTIATE_TEST_SUITE_P(Forms, BarotropicForms, ::testing::Values("isothermal", "polytrope", "double_polytrope", "custom"));

// The 'legacy' form follows the star-formation polytrope, which kosmo does not have: the run stops.
TEST(BarotropicEos, LegacyFormIsNotImplementedYet) {
  const std::string namelist = barotropic_gas("legacy", "&INIT_PARAMS\nnregion=1\nd_region=1.0\np_region=1.0\n/\n");
  try {
    driver::Simulation<1> sim(core::ParameterSet::from_text(namelist, "legacy.nml"));
    FAIL() << "the legacy form was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not implemented yet"), std::string::npos) << e.what();
  }
}

}  // namespace
