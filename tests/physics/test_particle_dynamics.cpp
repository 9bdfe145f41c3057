// Collisionless particles under their own gravity (pic=.true., hydro=.false., G = 1):
//  - two equal masses on a circular Kepler orbit in an isolated box, resolved by refinement around
//    them (m_refine on the particle mass): energy and separation over ten orbits;
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
#include "driver/hydro_simulation.hpp"
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

TEST(ParticleDynamics, KeplerOrbitConservesEnergyOverTenOrbits) {
  // Two unit masses 0.2 apart, 6.4 cells of the finest level 5 (32 cells across, over a 16^3 base),
  // inside a sphere refined to level 5 around the centre. (Levels 5 and 6, 13 cells apart: energy
  // error 1.9 %, separation 0.2000-0.2024, but 100 s alone and 450 s in the suite.)
  const double m = 1.0, separation = 0.2;
  const double speed = std::sqrt(m / (2.0 * separation));  // each body: v^2 / (d/2) = m / d^2
  const double period = kPi * separation / speed;
  const std::string namelist = isolated_particles(
      "&AMR_PARAMS\nlevelmin=4\nlevelmax=5\n/\n&HYDRO_PARAMS\ncourant_factor=0.5\n/\n"
      "&REFINE_PARAMS\nm_refine=0.0\nmass_sph=1.0\nx_refine=0.5\ny_refine=0.5\nz_refine=0.5\nr_refine=0.35\n/\n"
      "&POISSON_PARAMS\nepsilon=1e-8\n/\n",
      // Without subcycling: a subcycled level takes its Dirichlet values from the coarser level's
      // potential of that level's step start (as RAMSES), which lags behind two bodies whose own
      // mass makes it: the orbit then decays (energy error 0.27 after one orbit, separation 0.15
      // with nsubcycle=2; docs/cosmology.md).
      "nsubcycle=1,1,1,1,1,1\n");
  driver::HydroSimulation<3> sim(core::ParameterSet::from_text(namelist, "kepler.nml"));
  particles::ParticleSet<3> bodies;
  bodies.add(particle(0.5 - separation / 2, 0.5, 0.5, 0.0, -speed, 0.0, m, 1));
  bodies.add(particle(0.5 + separation / 2, 0.5, 0.5, 0.0, +speed, 0.0, m, 2));
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
  ASSERT_EQ(sim.particles()->set().size(), 2u);
  const double e0 = state()[0];
  double max_energy_error = 0.0, min_r = separation, max_r = separation, first_orbit_error = 0.0;
  for (int orbit = 1; orbit <= 10; ++orbit) {
    while (sim.time() < orbit * period) {
      sim.advance(std::min(sim.courant_time_step(), orbit * period - sim.time()));
      const auto s = state();
      max_energy_error = std::max(max_energy_error, std::fabs(s[0] - e0) / std::fabs(e0));
      min_r = std::min(min_r, s[1]);
      max_r = std::max(max_r, s[1]);
    }
    std::printf("orbit %2d: step %lld, energy error %.3e, separation %.5f .. %.5f\n", orbit, sim.step(), max_energy_error, min_r,
                max_r);
    if (orbit == 1) first_orbit_error = max_energy_error;
  }
  // The pair energy with the Newtonian potential oscillates by 1.24 % (the mesh force at 6.4 cells'
  // separation is not 1/r^2 exactly, so the orbit is not exactly circular: separation 0.1937 to
  // 0.2005), and does not drift from the first orbit to the tenth.
  EXPECT_LT(max_energy_error, 0.02);
  EXPECT_LT(max_energy_error, 1.05 * first_orbit_error);
  EXPECT_GT(min_r, 0.96 * separation);
  EXPECT_LT(max_r, 1.03 * separation);
  // (Momentum is not asserted here: forces across coarse-fine boundaries, from a fine solve with
  // Dirichlet values of the coarse potential, are not antisymmetric, as in RAMSES; the pair gains a
  // momentum of 1 % of m v over ten orbits. The periodic uniform test below checks the PM kernel.)
}

TEST(ParticleDynamics, PeriodicParticleMeshConservesMomentumToRoundOff) {
  const std::string namelist =
      "&RUN_PARAMS\npic=.true.\npoisson=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=5\nlevelmax=5\n/\n"
      "&HYDRO_PARAMS\ncourant_factor=0.5\n/\n";
  driver::HydroSimulation<3> sim(core::ParameterSet::from_text(namelist, "momentum.nml"));
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
