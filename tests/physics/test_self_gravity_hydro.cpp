// Self-gravitating gas (poisson=.true., G = 1) in an isolated box:
//  - an n = 1 polytrope (P = K rho^2) in hydrostatic balance stays in balance for five sound
//    crossings: central density and velocities bounded by the discretisation error of a star
//    resolved by ~13 finest cells per radius;
//  - a cold uniform sphere collapses: total energy (kinetic + thermal + potential) drift until half
//    the free-fall time is reported and bounded;
//  - a standing sound wave in a periodic self-gravitating gas oscillates at the Jeans frequency
//    omega^2 = c^2 k^2 - 4 pi G rho0, with the FFT and with the multigrid base level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

constexpr double kPi = std::numbers::pi;

std::string isolated_box(const std::string& extra) {
  return "&RUN_PARAMS\nhydro=.true.\npoisson=.true.\nndim=3\n/\n" + extra +
         "&BOUNDARY_PARAMS\nnboundary=6\nbound_type=2,2,2,2,2,2\n"
         "ibound_min=-1,+1,-1,-1,-1,-1\nibound_max=-1,+1,+1,+1,+1,+1\n"
         "jbound_min= 0, 0,-1,+1,-1,-1\njbound_max= 0, 0,-1,+1,+1,+1\n"
         "kbound_min= 0, 0, 0, 0,-1,+1\nkbound_max= 0, 0, 0, 0,-1,+1\n/\n";
}

double distance_from_centre(const std::array<double, 3>& x) {
  return std::sqrt((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5) + (x[2] - 0.5) * (x[2] - 0.5));
}

// Lane-Emden n = 1: rho = rho_c sin(k r) / (k r), k^2 = 2 pi G / K, radius pi / k.
constexpr double kRadius = 0.2;
constexpr double kBackground = 1e-3;  // density outside the star (cold, P = K rho^2)

TEST(SelfGravityHydro, PolytropeStaysInHydrostaticBalance) {
  const double k = kPi / kRadius;
  const double K = 2.0 * kPi / (k * k);
  const std::string namelist = isolated_box(
      "&AMR_PARAMS\nlevelmin=5\nlevelmax=6\n/\n&HYDRO_PARAMS\ngamma=2.0\ncourant_factor=0.5\n/\n"
      "&REFINE_PARAMS\nm_refine=20*1.0e-6\nmass_sph=1.0\n/\n&POISSON_PARAMS\nepsilon=1e-6\n/\n");
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "polytrope.nml"));
  sim.set_initial_condition([&](const std::array<double, 3>& x, double, double* q) {
    const double r = distance_from_centre(x);
    const double rho = r < kRadius ? std::max(kBackground, (r > 0 ? std::sin(k * r) / (k * r) : 1.0)) : kBackground;
    q[0] = rho;
    q[1] = q[2] = q[3] = 0.0;
    q[4] = K * rho * rho;
  });
  sim.initialise();
  const double sound_speed = std::sqrt(2.0 * K);  // at the centre: sqrt(gamma P / rho)
  const double crossing = kRadius / sound_speed;
  auto central_density = [&] {
    double best = 0.0;
    for (const auto& cell : test::leaf_cells(sim)) best = std::max(best, cell.q[0]);
    return best;
  };
  const double rho_c0 = central_density();
  double worst_density = 0.0, worst_velocity = 0.0;
  for (int crossing_number = 1; crossing_number <= 5; ++crossing_number) {
    test::advance_to(sim, crossing_number * crossing);
    double mass = 0.0, momentum2 = 0.0;
    for (const auto& cell : test::leaf_cells(sim)) {
      if (cell.q[0] < 0.1) continue;  // the star, not its cold envelope
      const double m = cell.q[0] * cell.dx * cell.dx * cell.dx;
      mass += m;
      momentum2 += m * (cell.q[1] * cell.q[1] + cell.q[2] * cell.q[2] + cell.q[3] * cell.q[3]);
    }
    const double rms_mach = std::sqrt(momentum2 / mass) / sound_speed;
    const double density_change = std::fabs(central_density() / rho_c0 - 1.0);
    std::printf("[ polytrope ] t = %.2f crossings (%lld steps): central density change %.3e, mass-weighted rms Mach %.3e\n",
                sim.time() / crossing, sim.step(), density_change, rms_mach);
    worst_density = std::max(worst_density, density_change);
    worst_velocity = std::max(worst_velocity, rms_mach);
  }
  // With 13 cells per radius at the finest level the discrete star is not the analytic one: it
  // settles into its own balance and oscillates about it at the truncation error's size (measured:
  // central density within 4.1 %, rms Mach <= 0.023 over five crossings; on a uniform 64^3 grid
  // 4.6 % and 0.024). With half the gravity (a wrong kick order this test caught) the central
  // density fell by 65 % in one crossing and the run blew up.
  EXPECT_LT(worst_density, 0.08);
  EXPECT_LT(worst_velocity, 0.05);
}

TEST(SelfGravityHydro, ColdCollapseConservesTotalEnergy) {
  const double rho = 1.0, radius = 0.2;
  const std::string namelist = isolated_box(
      "&AMR_PARAMS\nlevelmin=6\nlevelmax=6\n/\n&HYDRO_PARAMS\ngamma=1.6666666667\ncourant_factor=0.2\n/\n"
      "&POISSON_PARAMS\nepsilon=1e-6\n/\n");
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "collapse.nml"));
  sim.set_initial_condition([&](const std::array<double, 3>& x, double, double* q) {
    q[0] = distance_from_centre(x) < radius ? rho : kBackground;
    q[1] = q[2] = q[3] = 0.0;
    q[4] = 1e-6;
  });
  sim.initialise();
  const double free_fall = std::sqrt(3.0 * kPi / (32.0 * rho));
  auto total_energy = [&] { return sim.totals()[4] + sim.potential_energy(); };
  const double w0 = sim.potential_energy();
  const double e0 = total_energy();
  double worst = 0.0;
  for (int i = 1; i <= 5; ++i) {
    test::advance_to(sim, 0.1 * i * free_fall);
    const double drift = std::fabs(total_energy() - e0) / std::fabs(w0);
    std::printf("[ collapse  ] t = %.1f t_ff (%lld steps): potential energy %.4e (initial %.4e), |E - E0| / |W0| = %.3e\n",
                sim.time() / free_fall, sim.step(), sim.potential_energy(), w0, drift);
    worst = std::max(worst, drift);
  }
  // The collapse must have happened (|W| grows as the sphere contracts: by 17 % at 0.5 t_ff) ...
  EXPECT_LT(sim.potential_energy(), 1.1 * w0);
  // ... while the total energy stays within a few per cent. The gravity kicks (RAMSES
  // synchro_hydro_fine) are not in conservative form: the kinetic energy gains sum rho v.g dV, the
  // potential energy loses sum phi div(rho v) dV, and the two agree only to the truncation error,
  // first order at the sphere's sharp edge. Measured |E - E0| / |W0| at 0.5 t_ff: 2.9e-2 on 32^3,
  // 1.5e-2 on this 64^3 grid (the time step changes it little: 3.3e-2 -> 2.9e-2 on 32^3 for a
  // Courant factor 0.5 -> 0.2).
  EXPECT_LT(worst, 0.03);
}

// Jeans test: a standing sound wave in a periodic self-gravitating gas oscillates at
// omega^2 = c^2 k^2 - 4 pi G rho0 (Jeans 1902; the standard test of the gravity-hydro coupling).
TEST(SelfGravityHydro, JeansOscillationFrequency) {
  const double amplitude = 1e-4, gamma = 5.0 / 3.0, sound_speed = 1.0;
  const double kwave = 2 * kPi;
  const double omega = std::sqrt(sound_speed * sound_speed * kwave * kwave - 4 * kPi);
  for (const char* solver : {"use_fftw=.true.", "use_fftw=.false."}) {
    const std::string namelist = std::string("&RUN_PARAMS\nhydro=.true.\npoisson=.true.\nndim=1\n") + solver +
                                 "\n/\n&AMR_PARAMS\nlevelmin=7\nlevelmax=7\n/\n&HYDRO_PARAMS\ngamma=1.6666666667\ncourant_factor=0.5\n"
                                 "slope_type=2\n/\n&POISSON_PARAMS\nepsilon=1e-10\n/\n";
    driver::Simulation<1> sim(core::ParameterSet::from_text(namelist, "jeans.nml"));
    sim.set_initial_condition([&](const std::array<double, 1>& x, double, double* q) {
      q[0] = 1.0 + amplitude * std::cos(kwave * x[0]);
      q[1] = 0.0;
      q[2] = sound_speed * sound_speed / gamma * std::pow(q[0], gamma);
    });
    sim.initialise();
    for (int i = 1; i <= 4; ++i) {
      const double t = i * 0.25 * kPi / omega;
      test::advance_to(sim, t);
      double projection = 0.0, norm = 0.0;
      for (const auto& cell : test::leaf_cells(sim)) {
        projection += (cell.q[0] - 1.0) * std::cos(kwave * cell.x[0]);
        norm += std::cos(kwave * cell.x[0]) * std::cos(kwave * cell.x[0]);
      }
      const double measured = projection / norm / amplitude;
      std::printf("[ jeans ] %s t=%.3f: amplitude %.4f, expected cos(omega t) %.4f (sound wave alone %.4f)\n", solver, t, measured,
                  std::cos(omega * t), std::cos(sound_speed * kwave * t));
      // Without gravity the amplitude is off by 0.13 to 0.33 at these samples, with half of it by 0.05 to 0.17.
      EXPECT_NEAR(measured, std::cos(omega * t), 0.01) << solver << " at t = " << t;
    }
  }
}
}  // namespace
