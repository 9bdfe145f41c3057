// Star formation (star_formation/star_formation_module.hpp, docs/galaxy.md "Star formation"), 3-D,
// on 1..P ranks:
//  * the star mass a uniform dense box forms equals the Schmidt law's expectation within the
//    Poisson error, and the gas plus the stars keep the box's mass;
//  * the stars (identities, masses, positions, velocities, birth times, metallicities) are
//    bit-identical to those of the same run on one rank with two threads;
//  * a restart from the HDF5 snapshot continues bit for bit, on the rank count that wrote it and on
//    one rank, and the RAMSES part_ files hold the stars (family star, birth times, metallicities);
//  * the stars older than t_sne give one supernova event each to the run's SupernovaSink, with
//    eta_sn of their mass and 10^51 erg per 10 solar masses ejected, and star + ejecta keep the
//    star's mass exactly.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/particle_snapshot.hpp"
#include "driver/simulation.hpp"
#include "driver/simulation_start.hpp"
#include "feedback/supernova_event.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/snapshot_reader.hpp"
#include "restart_test_support.hpp"
#include "star_formation/physical_units.hpp"
#include "star_formation/star_formation_module.hpp"

using namespace kosmo;
using test::world_rank;

namespace {

using Sim = driver::Simulation<3>;
using Module = star_formation::StarFormationModule<3>;
// id -> x, y, z, vx, vy, vz, mass, birth_time, birth_time_proper, initial_mass, metallicity, exploded.
using Stars = std::map<long long, std::vector<double>>;
constexpr std::size_t kWidth = 13;

// A box of gas at rest and density 1 above the threshold (units_density = mH / X: scale_nH = 1 and
// rho_0 = n_star = 0.5), cold
// (T/mu ~ 1e-11 K in these cgs-like units). Star mass m_star mass_sph = 1 % of a cell's gas; with
// eps_star = 0.01, t_ff = 0.5427 and dt = 0.1 each cell expects 0.184 star masses a step.
// units_time = 1 Myr so that t_sne is a few steps.
std::string uniform_box(const std::string& extra = "") {
  return "&RUN_PARAMS\nhydro=.true.\npic=.true.\nndim=3\nnremap=2\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=3\n/\n"
         "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
         "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1e-3\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\n/\n&REFINE_PARAMS\nmass_sph=0.001953125\n/\n"
         "&UNITS_PARAMS\nunits_density=2.1849197e-24\nunits_time=3.15576e13\nunits_length=1.0\n/\n"
         "&SF_PARAMS\neps_star=0.01\nn_star=0.5\nm_star=0.01\n/\n" + extra;
}

// A dense off-centre blob (density 4) in gas of density 0.3, below the threshold, with a shear
// flow, refined on the density gradient to level 5: stars form in the blob only, move and cross
// domain walls. Stars of 2 % of a level-3 cell's gas.
std::string blob(const std::string& extra = "") {
  return "&RUN_PARAMS\nhydro=.true.\npic=.true.\nndim=3\nnremap=2\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
         "x_center=0.5,0.4\ny_center=0.5,0.55\nz_center=0.5,0.45\nlength_x=10.0,0.3\nlength_y=10.0,0.3\nlength_z=10.0,0.3\n"
         "exp_region=10.0,2.0\nd_region=0.3,4.0\nu_region=0.2,0.0\nv_region=0.0,-0.1\np_region=1e-2,1e-2\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_d=0.2\nmass_sph=0.001953125\ninterpol_type=2\n/\n"
         "&UNITS_PARAMS\nunits_density=2.1849197e-24\nunits_time=3.15576e13\nunits_length=1.0\n/\n"
         "&SF_PARAMS\neps_star=0.05\nn_star=0.5\nm_star=0.02\n/\n" + extra;
}

Module& module_of(const Sim& sim) {
  Module* module = sim.find_module<Module>();
  if (!module) throw std::runtime_error("no star formation module");
  return *module;
}

Stars gather_stars(const Sim& sim, MPI_Comm comm) {
  const auto& set = sim.particles()->set();
  std::vector<double> local;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.family()[i] != particles::Family::star) continue;
    local.push_back(static_cast<double>(set.id()[i]));
    for (int d = 0; d < 3; ++d) local.push_back(set.position(d)[i]);
    for (int d = 0; d < 3; ++d) local.push_back(set.velocity(d)[i]);
    local.push_back(set.mass()[i]);
    for (const char* name : {"birth_time", "birth_time_proper", "initial_mass", "metallicity"}) local.push_back(set.values<double>(name)[i]);
    local.push_back(static_cast<double>(set.values<std::int8_t>("exploded")[i]));
  }
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  int count = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(nrank)), offsets(static_cast<std::size_t>(nrank), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < nrank; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, comm);
  Stars stars;
  for (std::size_t at = 0; at + kWidth <= all.size(); at += kWidth) {
    const auto id = static_cast<long long>(all[at]);
    EXPECT_EQ(stars.count(id), 0u) << "star " << id << " held twice";
    stars[id] = std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(at) + 1, all.begin() + static_cast<std::ptrdiff_t>(at + kWidth));
  }
  return stars;
}

void start(Sim& sim, const core::ParameterSet& params) {
  driver::prepare_start(sim, params, false);
  sim.initialise();
}

// Gas mass over the owned leaf cells, over all ranks.
double gas_mass(const Sim& sim, MPI_Comm comm) {
  const auto& tree = sim.tree();
  const int density = tree.fields().find("density");
  double mass = 0.0;
  for (int level = 1; level <= tree.levelmax(); ++level) {
    const double h = tree.cell_size(level);
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < 8; ++c) {
        const core::CellIndex cell = Sim::Tree::cell_index(o, c);
        if (tree.is_leaf(cell)) mass += tree.field(density)[cell] * h * h * h;
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, &mass, 1, MPI_DOUBLE, MPI_SUM, comm);
  return mass;
}

double star_mass(const Stars& stars) {
  double mass = 0.0;
  for (const auto& [id, v] : stars) mass += v[6];
  return mass;
}

// Largest |a - b| over every value of every star; both must hold the same identities.
double largest_difference(const Stars& a, const Stars& b) {
  EXPECT_EQ(a.size(), b.size());
  double largest = 0.0;
  for (const auto& [id, values] : a) {
    const auto it = b.find(id);
    if (it == b.end()) {
      ADD_FAILURE() << "star " << id << " missing";
      return 1.0;
    }
    for (std::size_t k = 0; k < values.size(); ++k) largest = std::max(largest, std::fabs(values[k] - it->second[k]));
  }
  return largest;
}

constexpr double kStep = 0.1;
constexpr int kSteps = 4;

TEST(StarFormation, UniformBoxFollowsTheSchmidtLaw) {
  const core::ParameterSet params = core::ParameterSet::from_text(uniform_box(), "box.nml");
  Sim sim(params, MPI_COMM_WORLD);
  start(sim, params);
  const double initial_gas = gas_mass(sim, MPI_COMM_WORLD);
  const star_formation::SchmidtLaw law = module_of(sim).law_at(0.0);
  ASSERT_NEAR(law.threshold_density, 0.5, 1e-6);
  ASSERT_NEAR(law.star_mass, 0.01 * 0.001953125, 1e-18);
  // The expectation over the states the steps start from (the gas the stars leave behind).
  const auto& tree = sim.tree();
  const int density = tree.fields().find("density");
  const double volume = std::pow(tree.cell_size(3), 3);
  double expected = 0.0;
  for (int s = 0; s < kSteps; ++s) {
    double local = 0.0;
    for (core::OctIndex o : tree.octs_at_level(3))
      for (int c = 0; c < 8; ++c) local += law.expected_stars(tree.field(density)[Sim::Tree::cell_index(o, c)], volume, kStep);
    MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    expected += local;
    sim.advance(kStep);
  }
  const Stars stars = gather_stars(sim, MPI_COMM_WORLD);
  const double formed = star_mass(stars) / law.star_mass;
  const double gas = gas_mass(sim, MPI_COMM_WORLD);
  if (world_rank() == 0)
    std::printf("uniform box, %d ranks: %zu star particles, %.0f star masses formed, Schmidt law expects %.2f +- %.2f; gas + "
                "stars - initial gas = %.3e\n",
                test::world_size(), stars.size(), formed, expected, std::sqrt(expected), gas + star_mass(stars) - initial_gas);
  EXPECT_GT(expected, 300.0);
  EXPECT_LT(std::fabs(formed - expected), 2.0 * std::sqrt(expected)) << "outside the Poisson error";
  EXPECT_NEAR(formed, std::round(formed), 1e-9) << "whole star masses";
  EXPECT_NEAR(gas + star_mass(stars), initial_gas, 1e-14 * initial_gas);
  for (const auto& [id, v] : stars) {
    EXPECT_EQ(v[7], std::round(v[7] / kStep) * kStep) << "born at the end of a step";
    EXPECT_GT(v[7], 0.0);
    EXPECT_EQ(v[7], v[8]) << "proper and code birth times agree without cosmology";
    EXPECT_EQ(v[9], v[6]) << "no supernova yet: the mass is the initial mass";
    EXPECT_EQ(v[10], 0.0) << "no metals in the gas, z_ave = 0";
    EXPECT_LT(std::fabs(v[3]), 1e-3) << "the gas is at rest but for the pressure differences star formation leaves";
  }
}

// Stars of the blob: the same on this rank count (one thread a rank) as on one rank with two threads.
TEST(StarFormation, StarsDoNotDependOnRanksOrThreads) {
  const core::ParameterSet params = core::ParameterSet::from_text(blob(), "blob.nml");
  Stars many, one;
  {
    Sim sim(params, MPI_COMM_WORLD);
    start(sim, params);
    for (int s = 0; s < 6; ++s) sim.advance(sim.courant_time_step());
    many = gather_stars(sim, MPI_COMM_WORLD);
  }
  if (world_rank() == 0) {
    const int threads = omp_get_max_threads();
    omp_set_num_threads(2);
    Sim sim(params, MPI_COMM_SELF);
    start(sim, params);
    for (int s = 0; s < 6; ++s) sim.advance(sim.courant_time_step());
    one = gather_stars(sim, MPI_COMM_SELF);
    omp_set_num_threads(threads);
    std::printf("blob, %d ranks: %zu stars, largest difference from one rank with two threads %.3e\n", test::world_size(), many.size(),
                largest_difference(many, one));
    EXPECT_GT(many.size(), 20u);
    EXPECT_EQ(largest_difference(many, one), 0.0);
    long long moving = 0;
    for (const auto& [id, v] : many) moving += v[4] != 0.0 ? 1 : 0;
    EXPECT_GT(moving, 0) << "the blob's stars are born with its velocity";
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

using StarRestart = test::FreshWorkingDirectory;

// 3 steps, a snapshot in both formats, 3 more; a restart from the HDF5 file gives the same stars
// after its 3 steps, bit for bit, on this rank count and on one rank; the RAMSES part_ files give
// back the stars of the snapshot with their attributes.
TEST_F(StarRestart, ContinuesBitForBitAndRamsesFilesHoldThem) {
  const core::ParameterSet params = core::ParameterSet::from_text(blob("&OUTPUT_PARAMS\noutformat='both'\n/\n"), "blob.nml");
  Stars written, uninterrupted, restarted, on_one_rank, from_ramses;
  {
    Sim sim(params, MPI_COMM_WORLD);
    start(sim, params);
    for (int s = 0; s < 3; ++s) sim.advance(sim.courant_time_step());
    written = gather_stars(sim, MPI_COMM_WORLD);
    const io::SnapshotParticles particles = driver::snapshot_particles(sim.particles()->set());
    driver::SnapshotExtras extras;
    extras.particles = &particles;
    driver::write_mesh_snapshot(MPI_COMM_WORLD, sim.tree(), params, 1, sim.time(), sim.step(), sim.outputs(), sim.mesh().ordering_name(),
                                sim.mesh().ksection_walls(), sim.mesh().hilbert_bounds(), extras);
    for (int s = 0; s < 3; ++s) sim.advance(sim.courant_time_step());
    uninterrupted = gather_stars(sim, MPI_COMM_WORLD);
  }
  {
    Sim sim(params, MPI_COMM_WORLD);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 1));
    for (int s = 0; s < 3; ++s) sim.advance(sim.courant_time_step());
    restarted = gather_stars(sim, MPI_COMM_WORLD);
  }
  if (world_rank() == 0) {  // another rank count
    Sim sim(params, MPI_COMM_SELF);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_restart_share(MPI_COMM_SELF, ".", 1));
    for (int s = 0; s < 3; ++s) sim.advance(sim.courant_time_step());
    on_one_rank = gather_stars(sim, MPI_COMM_SELF);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    Sim sim(params, MPI_COMM_WORLD);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 1, hydro::ramses_restart_conversion<3>(0)));
    from_ramses = gather_stars(sim, MPI_COMM_WORLD);
  }
  if (world_rank() != 0) return;
  std::printf("restart on %d ranks: %zu stars written, %zu after 3 more steps; differences after the restart %.3e (on 1 rank "
              "%.3e); RAMSES part_ files against the written stars %.3e\n",
              test::world_size(), written.size(), uninterrupted.size(), largest_difference(restarted, uninterrupted),
              largest_difference(on_one_rank, uninterrupted), largest_difference(from_ramses, written));
  EXPECT_GT(written.size(), 5u);
  EXPECT_GT(uninterrupted.size(), written.size()) << "stars keep forming after the snapshot";
  EXPECT_EQ(largest_difference(restarted, uninterrupted), 0.0);
  EXPECT_EQ(largest_difference(on_one_rank, uninterrupted), 0.0);
  EXPECT_EQ(largest_difference(from_ramses, written), 0.0);
}

// The feedback side of feedback/supernova_event.hpp, for the test: keeps the events it is given.
class RecordingSink final : public core::PhysicsModule<3>, public feedback::SupernovaSink {
 public:
  std::string name() const override { return "recording_sink"; }
  void add_supernova_events(int /*level*/, std::span<const feedback::SupernovaEvent> events) override {
    recorded.insert(recorded.end(), events.begin(), events.end());
  }
  std::vector<feedback::SupernovaEvent> recorded;
};

// Stars born at t = 0.1 .. 0.4 Myr with t_sne = 0.15 Myr: after 4 steps those born at 0.1 and 0.2
// have exploded, once each.
TEST(StarFormation, StarsPastTsneGiveOneSupernovaEventEach) {
  const core::ParameterSet params =
      core::ParameterSet::from_text(uniform_box("&FEEDBACK_PARAMS\neta_sn=0.1\nyield=0.1\nt_sne=0.15\n/\n"), "box.nml");
  Sim sim(params, MPI_COMM_WORLD);
  sim.add_module(std::make_unique<RecordingSink>());
  start(sim, params);
  const double initial_gas = gas_mass(sim, MPI_COMM_WORLD);
  for (int s = 0; s < kSteps; ++s) sim.advance(kStep);
  const auto& events = sim.find_module<RecordingSink>()->recorded;
  const Stars stars = gather_stars(sim, MPI_COMM_WORLD);
  // Every rank's events: identity, ejected mass, energy, metals.
  std::vector<double> local;
  for (const auto& e : events) local.insert(local.end(), {static_cast<double>(e.identity), e.ejected_mass, e.energy, e.ejected_metal_mass});
  int count = static_cast<int>(local.size()), nrank = test::world_size();
  std::vector<int> counts(static_cast<std::size_t>(nrank)), offsets(static_cast<std::size_t>(nrank), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < nrank; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  const double gas = gas_mass(sim, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const double velocity_unit = 1.0 / 3.15576e13;  // units_length / units_time
  const double energy_per_mass = 1.0e51 / (10.0 * star_formation::solar_mass_g) / (velocity_unit * velocity_unit);
  std::map<long long, std::vector<double>> by_star;
  double ejected = 0.0, energy = 0.0;
  for (std::size_t at = 0; at + 4 <= all.size(); at += 4) {
    const auto id = static_cast<long long>(all[at]);
    EXPECT_EQ(by_star.count(id), 0u) << "star " << id << " exploded twice";
    by_star[id] = {all[at + 1], all[at + 2], all[at + 3]};
    ejected += all[at + 1];
    energy += all[at + 2];
  }
  long long old_enough = 0;
  for (const auto& [id, v] : stars) {
    const bool past = v[7] < 0.4 - 0.15;
    old_enough += past ? 1 : 0;
    EXPECT_EQ(v[11], past ? 1.0 : 0.0) << "exploded flag of star " << id << " born at " << v[7];
    const auto it = by_star.find(id);
    ASSERT_EQ(it != by_star.end(), past) << "event of star " << id;
    if (!past) continue;
    EXPECT_EQ(v[6] + it->second[0], v[9]) << "star + ejecta = the star's mass, exactly";
    EXPECT_NEAR(it->second[0], 0.1 * v[9], 1e-15 * v[9]);
    EXPECT_NEAR(it->second[1], it->second[0] * energy_per_mass, 1e-12 * it->second[1]);
    EXPECT_NEAR(it->second[2], 0.1 * it->second[0], 1e-15 * v[9]) << "yield 0.1 of the ejecta, no metals in the star";
  }
  std::printf("supernovae, %d ranks: %zu stars, %lld older than t_sne, %zu events, %.4e code energy in all (%.3e erg per "
              "solar mass ejected); gas + stars + ejecta - initial gas = %.3e\n",
              nrank, stars.size(), old_enough, by_star.size(), energy,
              energy_per_mass * velocity_unit * velocity_unit * star_formation::solar_mass_g, gas + star_mass(stars) + ejected - initial_gas);
  EXPECT_GT(old_enough, 50);
  EXPECT_EQ(static_cast<long long>(by_star.size()), old_enough);
  EXPECT_NEAR(gas + star_mass(stars) + ejected, initial_gas, 1e-14 * initial_gas);
}

}  // namespace
