// Collisionless particles under their own gravity (pic=.true., hydro=.false., G = 1):
//  - two equal masses on a circular Kepler orbit in an isolated box, resolved by refinement around
//    them: energy and separation over ten orbits, without and with subcycling (nsubcycle=2, where
//    the refined level's second substep takes the coarse potential extrapolated in time, RAMSES
//    interpol_phi; without the extrapolation the orbit decays);
//  - particle-mesh gravity in a periodic box conserves the total momentum to round-off, because
//    the cloud-in-cell deposit and interpolation share one kernel and the Green's function and the
//    centred gradient are symmetric (Hockney & Eastwood §5-5).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"
#include "physics/particle_test_support.hpp"

using namespace kosmo;

namespace {

constexpr double kPi = std::numbers::pi;

std::string isolated_particles(const std::string& extra, const std::string& run_extra = "") {
  return "&RUN_PARAMS\npic=.true.\npoisson=.true.\nndim=3\n" + run_extra + "/\n" + extra +
         "&BOUNDARY_PARAMS\nnboundary=6\nbound_type=2,2,2,2,2,2\n"
         "ibound_min=-1,+1,-1,-1,-1,-1\nibound_max=-1,+1,+1,+1,+1,+1\n"
         "jbound_min= 0, 0,-1,+1,-1,-1\njbound_max= 0, 0,-1,+1,+1,+1\n"
         "kbound_min= 0, 0, 0, 0,-1,+1\nkbound_max= 0, 0, 0, 0,-1,+1\n/\n";
}

particles::ParticleSet<3>::Particle particle(double x, double y, double z, double vx, double vy, double vz, double m, std::int64_t id) {
  particles::ParticleSet<3>::Particle p;
  p.position = {x, y, z};
  p.velocity = {vx, vy, vz};
  p.mass = m;
  p.id = id;
  return p;
}

struct KeplerOrbits {
  double max_energy_error = 0.0;    // max |E - E0| / |E0| of the Newtonian pair energy
  double first_orbit_error = 0.0;   // the same over the first orbit
  double min_r = 0.0, max_r = 0.0;  // separation
};

constexpr double kSeparation = 0.2;

// Two unit masses kSeparation apart on a circular orbit about the centre of an isolated 16^3 box,
// inside a sphere (diameter 0.35) refined to level 5, or with levelmax=6 also a sphere of diameter
// 0.3 refined to level 6 (m_refine=0: every cell of the regions); `nsubcycle` for every level.
KeplerOrbits kepler_orbits(int levelmax, int nsubcycle, bool time_extrapolation, int orbits) {
  const double m = 1.0;
  const double speed = std::sqrt(m / (2.0 * kSeparation));  // each body: v^2 / (d/2) = m / d^2
  const double period = kPi * kSeparation / speed;
  const std::string refined = levelmax == 5 ? "" : "2*";
  const std::string namelist = isolated_particles(
      "&AMR_PARAMS\nlevelmin=4\nlevelmax=" + std::to_string(levelmax) + "\n/\n&HYDRO_PARAMS\ncourant_factor=0.5\n/\n" +
          "&REFINE_PARAMS\nm_refine=" + refined + "0.0\nmass_sph=1.0\nx_refine=" + refined + "0.5\ny_refine=" + refined +
          "0.5\nz_refine=" + refined + "0.5\nr_refine=" + (levelmax == 5 ? "0.35" : "0.35,0.3") + "\n/\n" +
          "&POISSON_PARAMS\nepsilon=1e-8\n/\n",
      "nsubcycle=6*" + std::to_string(nsubcycle) + "\n");
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "kepler.nml"));
  sim.gravity()->set_time_extrapolation(time_extrapolation);
  particles::ParticleSet<3> bodies;
  bodies.add(particle(0.5 - kSeparation / 2, 0.5, 0.5, 0.0, -speed, 0.0, m, 1));
  bodies.add(particle(0.5 + kSeparation / 2, 0.5, 0.5, 0.0, +speed, 0.0, m, 2));
  sim.set_initial_particles(std::move(bodies));
  sim.initialise();
  auto state = [&] {
    const auto& set = sim.particles()->set();
    double kinetic = 0.0, r2 = 0.0;
    for (std::size_t i = 0; i < set.size(); ++i)
      for (int d = 0; d < 3; ++d) kinetic += 0.5 * set.mass()[i] * set.velocity(d)[i] * set.velocity(d)[i];
    for (int d = 0; d < 3; ++d) r2 += (set.position(d)[1] - set.position(d)[0]) * (set.position(d)[1] - set.position(d)[0]);
    const double r = std::sqrt(r2);
    return std::array<double, 2>{kinetic - m * m / r, r};  // Newtonian pair energy, separation
  };
  EXPECT_EQ(sim.particles()->set().size(), 2u);
  const double e0 = state()[0];
  KeplerOrbits out;
  out.min_r = out.max_r = kSeparation;
  for (int orbit = 1; orbit <= orbits; ++orbit) {
    while (sim.time() < orbit * period) {
      sim.advance(std::min(sim.courant_time_step(), orbit * period - sim.time()));
      const auto s = state();
      out.max_energy_error = std::max(out.max_energy_error, std::fabs(s[0] - e0) / std::fabs(e0));
      out.min_r = std::min(out.min_r, s[1]);
      out.max_r = std::max(out.max_r, s[1]);
    }
    std::printf("levelmax %d, nsubcycle %d, time extrapolation %s: orbit %2d: step %lld, energy error %.3e, separation %.5f .. %.5f\n",
                levelmax, nsubcycle, time_extrapolation ? "on" : "off", orbit, sim.step(), out.max_energy_error, out.min_r, out.max_r);
    if (orbit == 1) out.first_orbit_error = out.max_energy_error;
  }
  return out;
}

TEST(ParticleDynamics, KeplerOrbitConservesEnergyOverTenOrbits) {
  // 6.4 cells of the finest level 5 between the bodies (32 cells across, over a 16^3 base), no
  // subcycling. (Levels 5 and 6, 13 cells apart: energy error 1.9 %, separation 0.2000-0.2024, but
  // 100 s alone and 450 s in the suite.)
  const KeplerOrbits run = kepler_orbits(5, 1, true, 10);
  // The pair energy with the Newtonian potential oscillates by 1.24 % (the mesh force at 6.4 cells'
  // separation is not 1/r^2 exactly, so the orbit is not exactly circular: separation 0.1937 to
  // 0.2005), and does not drift from the first orbit to the tenth.
  EXPECT_LT(run.max_energy_error, 0.02);
  EXPECT_LT(run.max_energy_error, 1.05 * run.first_orbit_error);
  EXPECT_GT(run.min_r, 0.96 * kSeparation);
  EXPECT_LT(run.max_r, 1.03 * kSeparation);
  // (Momentum is not asserted here: forces across coarse-fine boundaries, from a fine solve with
  // Dirichlet values of the coarse potential, are not antisymmetric, as in RAMSES; the pair gains a
  // momentum of 1 % of m v over ten orbits. The periodic uniform test below checks the PM kernel.)
}

// With nsubcycle=2 level 5 takes two substeps per step of level 4; at the second, its Dirichlet
// values and its force stencil's missing neighbours come from level 4's potential, solved at the
// first. RAMSES interpol_phi extrapolates that potential linearly in time, by the change over level
// 4's previous step. Measured (OMP_NUM_THREADS=2, 67 coarse steps per orbit; 13 s):
//   extrapolated: energy error 1.63e-2 after one orbit, 2.74e-2 after ten; separation 0.1909-0.2000;
//   lagging (the coarse potential of level 4's step start): 7.67e-2 after one orbit, 0.615 after
//   ten; separation down to 0.123: the lag gives the pair a secular torque.
// What drifts with the extrapolation (0.12 % of the energy per orbit) is the linear extrapolation's
// own error in the rotating potential, of higher order in the step: with courant_factor=0.25 (a
// temporary change) it is 0.019 % per orbit (1.43e-2 after one orbit, 1.51e-2 after five).
constexpr double kSubcycledEnergyBound = 0.035;
constexpr double kSubcycledSeparationBound = 0.94;

TEST(ParticleDynamics, KeplerOrbitWithSubcyclingConservesEnergyOverTenOrbits) {
  const KeplerOrbits run = kepler_orbits(5, 2, true, 10);
  EXPECT_LT(run.max_energy_error, kSubcycledEnergyBound);
  EXPECT_GT(run.min_r, kSubcycledSeparationBound * kSeparation);
  EXPECT_LT(run.max_r, 1.03 * kSeparation);
}

// The reference path (LevelGravity::set_time_extrapolation(false)) fails the bounds above within two
// orbits (measured: energy error 0.139, separation down to 0.176): they tell the two apart.
TEST(ParticleDynamics, KeplerOrbitWithSubcyclingDecaysWithoutTimeExtrapolation) {
  const KeplerOrbits run = kepler_orbits(5, 2, false, 2);
  EXPECT_GT(run.max_energy_error, kSubcycledEnergyBound);
  EXPECT_LT(run.min_r, kSubcycledSeparationBound * kSeparation);
}

// Not in the suite (4 minutes): kepler_orbits(6, 2, true/false, 10), levels 5 and 6 (13 finest
// cells between the bodies), both subcycled, level 6's second substep extrapolating level 5, itself
// solved with extrapolated values of level 4. Measured: extrapolated, energy error 1.03e-2 after
// one orbit and 2.05e-2 after ten, separation 0.1962-0.2001; lagging, 0.133 and 0.872, separation
// down to 0.103 (docs/cosmology.md).

TEST(ParticleDynamics, PeriodicParticleMeshConservesMomentumToRoundOff) {
  const std::string namelist =
      "&RUN_PARAMS\npic=.true.\npoisson=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=5\nlevelmax=5\n/\n"
      "&HYDRO_PARAMS\ncourant_factor=0.5\n/\n";
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "momentum.nml"));
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  particles::ParticleSet<3> set;
  for (int i = 0; i < 2000; ++i)
    set.add(particle(unit(random), unit(random), unit(random), 0.1 * (unit(random) - 0.5), 0.1 * (unit(random) - 0.5),
                     0.1 * (unit(random) - 0.5), 0.01 * (0.5 + unit(random)), i + 1));
  sim.set_initial_particles(std::move(set));
  sim.initialise();
  auto totals = [&] {
    const auto& s = sim.particles()->set();
    std::array<double, 4> out{};  // momentum, sum m |v|
    for (std::size_t i = 0; i < s.size(); ++i) {
      double speed2 = 0.0;
      for (int d = 0; d < 3; ++d) {
        out[static_cast<std::size_t>(d)] += s.mass()[i] * s.velocity(d)[i];
        speed2 += s.velocity(d)[i] * s.velocity(d)[i];
      }
      out[3] += s.mass()[i] * std::sqrt(speed2);
    }
    return out;
  };
  const auto before = totals();
  for (int step = 0; step < 10; ++step) sim.advance(sim.courant_time_step());
  const auto after = totals();
  double change = 0.0;
  for (int d = 0; d < 3; ++d) change = std::max(change, std::fabs(after[static_cast<std::size_t>(d)] - before[static_cast<std::size_t>(d)]));
  std::printf("momentum change %.3e of sum m|v| = %.3e (now %.3e)\n", change, before[3], after[3]);
  // The forces did work: the velocities changed by far more than round-off ...
  EXPECT_GT(std::fabs(after[3] - before[3]), 1e-6 * before[3]);
  // ... but their sum did not.
  EXPECT_LT(change, 1e-13 * after[3]);
  EXPECT_EQ(sim.particles()->count(), 2000);
}

}  // namespace
