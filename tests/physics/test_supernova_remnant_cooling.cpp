// A supernova remnant with radiative cooling (docs/galaxy.md "Supernova remnants with cooling"):
// one 10^51 erg supernova in uniform gas of n_H = 1 cm^-3 with the ISM cooling function
// (cooling_ism=.true.) against Kim & Ostriker (2015, ApJ 802, 99): shell formation at t_sf =
// 4.4e4 yr E51^0.22 n_H^-0.55 (eq. 7) with radius r_sf = 22.6 pc E51^0.29 n_H^-0.42 (eq. 8). t_sf is
// measured as the time at which the mass of hot gas (T > 2e4 K) is largest: until then the blast
// heats all the gas it sweeps up, afterwards the shell behind the shock cools faster than new gas is
// heated; the Kim-Ostriker group's own analysis also uses the time when 30 % of the energy has been
// radiated, measured here too. After t_sf the remnant radiates most of its energy, which a run
// without cooling (or with too little) does not.
//
// The remnant is followed in one octant: the box [0, 32 pc]^3 with reflecting faces and the
// supernova at the corner, so 1/8 of the energy goes into the box. The energy enters through the
// feedback module's thermal mode (f_w = 0, RAMSES' default: the event's energy as heat in the cell
// holding it), the path a RAMSES run with star formation takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cooling/cooling_module.hpp"
#include "cooling/ism_cooling.hpp"
#include "cooling/primordial_rates.hpp"
#include "feedback/feedback_module.hpp"
#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

constexpr double kParsecCm = 3.0856775814913673e18;
constexpr double kYearS = 3.15576e7;
constexpr double kSupernovaErg = 1e51;
constexpr double kHydrogenDensity = 1.0;  // n_H, cm^-3
// Kim & Ostriker's mean molecular weight of the neutral atomic gas (T = mu m_H P / (rho k_B)).
constexpr double kMu = 1.27;
constexpr double kHotTemperature = 2e4;  // K: Kim & Ostriker's lower bound of the hot phase

// Code units: length the octant's side (32 pc), time 1 kyr, density n_H = 1 cm^-3 (kosmo's hydrogen
// mass fraction 0.76, as RAMSES' scale_nH).
constexpr double kUnitLength = 32.0 * kParsecCm;
constexpr double kUnitTime = 1e3 * kYearS;
constexpr double kUnitDensity = cooling::hydrogen_mass_g / cooling::hydrogen_mass_fraction;

double unit_energy() {
  const double velocity = kUnitLength / kUnitTime;
  return kUnitDensity * kUnitLength * kUnitLength * kUnitLength * velocity * velocity;
}

// T [K] per unit of P / rho in code units.
double temperature_per_code() {
  const double velocity = kUnitLength / kUnitTime;
  return kMu * cooling::hydrogen_mass_g / cooling::boltzmann_cgs * velocity * velocity;
}

// The warm phase's thermal equilibrium at n_H (heating = cooling), by bisection between 3000 K and
// 10^4 K where the net cooling changes sign once.
double equilibrium_temperature(double n_h) {
  double lo = 3000.0, hi = 1e4;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cooling::ism_net_cooling(n_h, mid) > 0.0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

// levelmax > level refines the swept-up shell (density jumps, not the hot interior) for the
// convergence check of docs/galaxy.md.
std::string remnant_namelist(int level, int levelmax) {
  const std::string refine = levelmax > level ? "&REFINE_PARAMS\nerr_grad_d=0.4\nfloor_d=0.5\n/\n" : "";
  const double pressure = equilibrium_temperature(kHydrogenDensity) / temperature_per_code();
  char units[256];
  std::snprintf(units, sizeof units, "&UNITS_PARAMS\nunits_density=%.10e\nunits_length=%.10e\nunits_time=%.10e\n/\n",
                kUnitDensity, kUnitLength, kUnitTime);
  char init[512];
  std::snprintf(
      init, sizeof init,
      "&INIT_PARAMS\nnregion=1\nregion_type='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\nlength_x=10.0\n"
      "length_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=%.10e\np_region=%.10e\n/\n",
      kHydrogenDensity, pressure);
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(level) +
         "\nlevelmax=" + std::to_string(levelmax) + "\n/\n" + refine + init + units +
         "&HYDRO_PARAMS\ngamma=1.6666666666666667\ncourant_factor=0.8\nslope_type=1\nriemann='hllc'\n/\n"
         "&BOUNDARY_PARAMS\nnboundary=6\nbound_type=1,1,1,1,1,1\n"
         "ibound_min=-1,+1,-1,-1,-1,-1\nibound_max=-1,+1,+1,+1,+1,+1\n"
         "jbound_min= 0, 0,-1,+1,-1,-1\njbound_max= 0, 0,-1,+1,+1,+1\n"
         "kbound_min= 0, 0, 0, 0,-1,+1\nkbound_max= 0, 0, 0, 0,-1,+1\n/\n"
         "&COOLING_PARAMS\ncooling=.true.\ncooling_ism=.true.\nmu_gas=1.27\n/\n&FEEDBACK_PARAMS\nf_w=0.0\n/\n";
}

double hot_mass(const driver::Simulation<3>& sim) {
  double mass = 0.0;
  for (const auto& c : test::leaf_cells(sim))
    if (c.q[4] / c.q[0] * temperature_per_code() > kHotTemperature) mass += c.q[0] * c.dx * c.dx * c.dx;
  return mass;
}

// The radius [pc] of the densest spherical shell of the radial profile about the corner, in bins
// half a cell wide: the swept-up shell behind the shock.
double shell_radius(const driver::Simulation<3>& sim) {
  const double bin = 0.5 * sim.tree().cell_size(sim.tree().levelmax());
  const auto bins = static_cast<std::size_t>(std::sqrt(3.0) / bin) + 1;
  std::vector<double> mass(bins, 0.0), volume(bins, 0.0);
  for (const auto& c : test::leaf_cells(sim)) {
    const auto i = static_cast<std::size_t>(std::sqrt(c.x[0] * c.x[0] + c.x[1] * c.x[1] + c.x[2] * c.x[2]) / bin);
    mass[i] += c.q[0] * c.dx * c.dx * c.dx;
    volume[i] += c.dx * c.dx * c.dx;
  }
  std::size_t peak = 0;
  for (std::size_t i = 0; i < bins; ++i)
    if (volume[i] > 0.0 && mass[i] / volume[i] > mass[peak] / std::max(volume[peak], 1e-300)) peak = i;
  return (static_cast<double>(peak) + 0.5) * bin * kUnitLength / kParsecCm;
}

struct RemnantHistory {
  // kyr after the explosion; code mass; remnant energy / E_SN; pc
  std::vector<double> time, hot_mass, energy, shell_radius;
  std::size_t shell_formation() const {  // the step with the largest hot mass
    std::size_t peak = 0;
    for (std::size_t i = 0; i < hot_mass.size(); ++i)
      if (hot_mass[i] > hot_mass[peak]) peak = i;
    return peak;
  }
  double shell_formation_time() const { return time[shell_formation()]; }
  double shell_formation_radius() const { return shell_radius[shell_formation()]; }
  // The last time the remnant still held more than 1 - fraction of its energy.
  double energy_loss_time(double fraction) const {
    double t = 0.0;
    for (std::size_t i = 0; i < time.size(); ++i)
      if (energy[i] > 1.0 - fraction) t = time[i];
    return t;
  }
  double energy_at(double t) const {
    for (std::size_t i = 0; i < time.size(); ++i)
      if (time[i] >= t) return energy[i];
    return energy.back();
  }
};

// The remnant's history to t_end kyr: the octant's total energy above the ambient gas's, over the
// energy given to the octant.
RemnantHistory follow_remnant(int level, int levelmax, double t_end) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(remnant_namelist(level, levelmax), "remnant.nml"));
  sim.initialise();
  auto* feedback = sim.find_module<feedback::FeedbackModule<3>>();
  EXPECT_NE(feedback, nullptr);
  const double ambient_energy = sim.totals()[4];
  feedback::SupernovaEvent event;
  event.position = {1e-6, 1e-6, 1e-6};  // in the corner cell
  event.energy = kSupernovaErg / 8.0 / unit_energy();
  event.identity = 1;
  const std::vector<feedback::SupernovaEvent> events{event};
  feedback->add_supernova_events(level, events);
  sim.advance(1e-9);  // injected at the end of this coarse step
  EXPECT_EQ(feedback->last_injection().events, 1);
  const double t0 = sim.time();
  RemnantHistory history;
  while (sim.time() - t0 < t_end) {
    sim.advance(sim.courant_time_step());
    history.time.push_back(sim.time() - t0);
    history.hot_mass.push_back(hot_mass(sim));
    history.energy.push_back((sim.totals()[4] - ambient_energy) / event.energy);
    history.shell_radius.push_back(shell_radius(sim));
  }
  std::printf("level %d-%d: %lld steps to %.1f kyr, %zu leaf cells\n", level, sim.tree().levelmax(), sim.step(), t_end,
              test::leaf_cells(sim).size());
  return history;
}

TEST(SupernovaRemnant, ShellFormsNearTheKimOstrikerTimeAndRadiatesTheEnergy) {
  const double reference = 44.0 * std::pow(kHydrogenDensity, -0.55);  // kyr, Kim & Ostriker (2015) eq. 7, E51 = 1
  // The finest level: 4 (2 pc cells, the suite's run); KOSMO_REMNANT_LEVELMAX=5 or 6 refines the
  // shell to 1 or 0.5 pc (the convergence check of docs/galaxy.md; 25 and 100 s of CPU).
  const char* finest = std::getenv("KOSMO_REMNANT_LEVELMAX");
  const int levelmax = finest ? std::atoi(finest) : 4;
  const auto remnant = follow_remnant(4, levelmax, 1.6 * reference);
  const double t_sf = remnant.shell_formation_time(), r_sf = remnant.shell_formation_radius();
  const double t_radiated = remnant.energy_loss_time(0.3);
  const double reference_radius = 22.6 * std::pow(kHydrogenDensity, -0.42);  // pc, their eq. 8
  RecordProperty("shell_formation_kyr", std::to_string(t_sf));
  RecordProperty("shell_formation_pc", std::to_string(r_sf));
  std::printf("shell radius at t_sf %.1f pc, Kim & Ostriker %.1f pc (%+.1f %%)\n", r_sf, reference_radius,
              100.0 * (r_sf / reference_radius - 1.0));
  std::printf(
      "shell formation %.1f kyr, Kim & Ostriker %.1f kyr (%+.1f %%); remnant energy at t_sf / 2 %.3f, t_sf %.3f, 2 "
      "t_sf %.3f E_SN\n",
      t_sf, reference, 100.0 * (t_sf / reference - 1.0), remnant.energy_at(0.5 * t_sf), remnant.energy_at(t_sf),
      remnant.energy_at(2.0 * t_sf));
  std::printf("30 %% of the energy radiated at %.1f kyr (%+.1f %%)\n", t_radiated, 100.0 * (t_radiated / reference - 1.0));
  // The shell forms when the gas behind the shock cools within the remnant's age; a shock and shell
  // a few cells wide radiate early, so the time converges slowly with the cell size. The spherical
  // solution of the same physics (tests/physics/supernova_remnant_1d.py: this cooling function, mu
  // and injection) reaches 30 % radiated at 33.3, 35.5, 38.8, 41.8, 44.5, 44.5 kyr and its largest
  // hot mass at 20.6, 34.1, 34.4, 37.8, 41.5, 43.8 kyr with cells of 2, 1, 0.5, 0.25, 0.1, 0.05 pc:
  // converged, both are Kim & Ostriker's 44 kyr to 1 %. kosmo's remnant is that solution at its
  // own cell size: within 10 % (measured -6.3 % with 2 pc cells, 0.0 % at 1 pc, +2.1 % at 0.5 pc).
  // Cooling twice too strong or too weak, or none, fails this.
  const double spherical_at_this_cell_size = levelmax >= 6 ? 38.8 : levelmax == 5 ? 35.5 : 33.3;
  EXPECT_NEAR(t_radiated / spherical_at_this_cell_size, 1.0, 0.1);
  // Against Kim & Ostriker directly, the strongest bounds the 2 pc cells (r_sf / 11) allow: the
  // largest hot mass at 31.2 kyr (-29 %), 30 % radiated at 31.2 kyr (-29 %); 1 pc: -25 %, -19 %;
  // 0.5 pc: -20 %, -10 %. The 20 % of the comparison needs cells of 0.5 pc or less
  // (docs/galaxy.md "Supernova remnants with cooling").
  EXPECT_NEAR(t_sf / reference, 1.0, 0.32);
  EXPECT_NEAR(t_radiated / reference, 1.0, 0.32);
  // The shell's radius then, r_sf (eq. 8, the Sedov-Taylor radius at their t_sf): -14 % here.
  EXPECT_NEAR(r_sf / reference_radius, 1.0, 0.17);
  // Before the shell forms the remnant keeps nearly all its energy; afterwards it radiates most of it.
  EXPECT_GT(remnant.energy_at(0.5 * t_sf), 0.9);
  EXPECT_LT(remnant.energy_at(2.0 * t_sf), 0.5);
}

}  // namespace
