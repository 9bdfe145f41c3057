// The module lifecycle with the worked example of docs/developing.md
// (examples/modules/constant_acceleration.hpp): a module that is not gravity provides the
// acceleration fields, and the gas and the particles kick themselves with them; its particle
// attribute follows the particles into a snapshot and back through a restart.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "core/parameters.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/simulation.hpp"
#include "examples/modules/constant_acceleration.hpp"
#include "io/snapshot_reader.hpp"

namespace kosmo {
namespace {

constexpr const char* kNamelist = R"(
&RUN_PARAMS
hydro=.true.
pic=.true.
poisson=.false.
/
&AMR_PARAMS
levelmin=3
levelmax=3
boxlen=1.0
/
&INIT_PARAMS
nregion=1
region_type(1)='square'
d_region=1.0
p_region=1.0
/
&HYDRO_PARAMS
gamma=1.4
courant_factor=0.8
/
)";

constexpr std::array<double, 3> kG{0.1, 0.0, -0.05};

std::unique_ptr<driver::Simulation<3>> make_run(const core::ParameterSet& params) {
  auto sim = std::make_unique<driver::Simulation<3>>(params);
  sim->add_module(std::make_unique<examples::ConstantAcceleration<3>>(sim->tree(), &sim->particles()->set(), kG));
  return sim;
}

particles::ParticleSet<3> initial_particles() {
  particles::ParticleSet<3> set;
  for (int i = 0; i < 5; ++i) {
    particles::ParticleSet<3>::Particle p;
    p.position = {0.1 + 0.17 * i, 0.3 + 0.05 * i, 0.9 - 0.11 * i};
    p.velocity = {0.0, 0.01 * i, 0.0};
    p.mass = 1e-3;
    p.id = i + 1;
    set.add(p);
  }
  return set;
}

void advance_to(driver::Simulation<3>& sim, double t_end) {
  while (sim.time() < t_end * (1 - 1e-14)) sim.advance(std::min(sim.courant_time_step(), t_end - sim.time()));
}

TEST(PhysicsModule, ConstantAccelerationKicksGasAndParticlesThroughTheRegistry) {
  const auto params = core::ParameterSet::from_text(kNamelist, "test_physics_module");
  auto sim = make_run(params);
  sim->set_initial_particles(initial_particles());
  sim->initialise();
  const double t = 0.5;
  advance_to(*sim, t);
  ASSERT_GT(sim->step(), 3);
  // Uniform gas of unit mass in a periodic box and the particles (mass 5e-3, initial momentum
  // 1e-4 along y): the momentum grows by M g t.
  const auto totals = sim->totals();
  const double particle_mass = 5e-3;
  const std::array<double, 3> initial_momentum{0.0, 1e-4, 0.0};
  for (int d = 0; d < 3; ++d)
    EXPECT_NEAR(totals[1 + static_cast<std::size_t>(d)],
                initial_momentum[static_cast<std::size_t>(d)] + (1.0 + particle_mass) * kG[static_cast<std::size_t>(d)] * t, 1e-13)
        << "axis " << d;
  EXPECT_NEAR(totals[0], 1.0 + particle_mass, 1e-14);
  // Each particle: v = v0 + g t, x = x0 + v0 t + g t^2 / 2 (the leapfrog is exact for constant g), and
  // the module's attribute holds the time spent in the field.
  const auto& set = sim->particles()->set();
  const auto start = initial_particles();
  ASSERT_EQ(set.size(), 5u);
  const auto time_in_field = set.values<double>("time_in_field");
  for (std::size_t i = 0; i < set.size(); ++i) {
    const auto k = static_cast<std::size_t>(set.id()[i] - 1);
    for (int d = 0; d < 3; ++d) {
      const double g = kG[static_cast<std::size_t>(d)];
      const double v0 = start.velocity(d)[k];
      EXPECT_NEAR(set.velocity(d)[i], v0 + g * t, 1e-14);
      const double x = start.position(d)[k] + v0 * t + 0.5 * g * t * t;
      EXPECT_NEAR(set.position(d)[i], x - std::floor(x), 1e-14);
    }
    EXPECT_NEAR(time_in_field[i], t, 1e-14);
  }
}

TEST(PhysicsModule, ModuleAttributeSurvivesSnapshotAndRestart) {
  const auto params = core::ParameterSet::from_text(kNamelist, "test_physics_module");
  const auto directory = std::filesystem::temp_directory_path() / ("kosmo_physics_module_" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(directory);
  auto sim = make_run(params);
  sim->set_initial_particles(initial_particles());
  sim->initialise();
  advance_to(*sim, 0.25);
  io::SnapshotParticles particles;
  ASSERT_TRUE(sim->snapshot_particles(particles));
  driver::SnapshotExtras extras;
  extras.particles = &particles;
  driver::write_mesh_snapshot(MPI_COMM_SELF, sim->tree(), params, 1, sim->time(), sim->step(), sim->outputs(), "", {}, {}, extras);
  auto again = make_run(params);
  again->restart(io::read_restart_share(MPI_COMM_SELF, ".", 1));
  std::filesystem::current_path(here);
  std::filesystem::remove_all(directory);
  const auto& before = sim->particles()->set();
  const auto& after = again->particles()->set();
  ASSERT_EQ(after.size(), before.size());
  std::size_t matched = 0;
  for (std::size_t i = 0; i < after.size(); ++i)
    for (std::size_t j = 0; j < before.size(); ++j)
      if (after.id()[i] == before.id()[j]) {
        ++matched;
        EXPECT_GT(after.values<double>("time_in_field")[i], 0.0);
        EXPECT_EQ(after.values<double>("time_in_field")[i], before.values<double>("time_in_field")[j]);
        EXPECT_EQ(after.velocity(0)[i], before.velocity(0)[j]);
      }
  EXPECT_EQ(matched, before.size());
  // Both runs continue identically: the attribute and the fields came back bit for bit.
  advance_to(*sim, 0.5);
  advance_to(*again, 0.5);
  EXPECT_EQ(sim->totals(), again->totals());
}

}  // namespace
}  // namespace kosmo
