// Sink particles (sinks/sink_module.hpp, docs/galaxy.md "Sink particles"), 3-D, on 1..P ranks:
//  * Bondi accretion onto a sink at rest in a uniform isothermal medium: once steady, the mass the
//    sink gains per unit time matches the analytic Bondi rate 4 pi rho_inf (G M)^2 / c_inf^3 within
//    10 % in two successive windows, and the same fraction of it in both (steady), the zone's extrapolated rate equals
//    the one the sink reports, and gas + sink keep the box's mass and momentum to round-off;
//  * the sink (mass, position, velocity, accreted mass) is bit-identical to that of the same run on
//    one rank, whatever the rank count;
//  * the sink's mass enters the Poisson source through its cloud: the source density summed over the
//    owned cells of the level times the cell volume is the sink's mass;
//  * a binary closer than r_merge dx_min merges in the run's step into one sink with the pair's mass
//    and momentum, at its centre of mass, and gas + sinks keep their totals;
//  * sink_refine refines the cells around a sink to levelmax, and only there;
//  * with self-gravity, a light sink near a heavy one is kicked towards it with about G M / r^2;
//  * threshold accretion takes c_acc of the gas above d_sink from each zone cell;
//  * with eddington_limit the rate is the Eddington rate when that is the smaller;
//  * create_sinks makes one sink at the density peak above the threshold, which takes
//    mass_sink_seed from its zone, the same on any rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "driver/simulation_start.hpp"
#include "sinks/sink_bondi.hpp"
#include "sinks/sink_module.hpp"

using namespace kosmo;
using test::world_rank;

namespace {

using Sim = driver::Simulation<3>;
using Module = sinks::SinkModule<3>;
constexpr double pi = 3.14159265358979323846;

// Uniform gas of density 1 at rest in a periodic unit box of 16^3 cells, isothermal with c^2 =
// P / rho = 1 in code units: T/mu = scale_T2 = m_H / k_B (code velocity 1 cm/s) = 1.2027e-8 K.
// Accretion radius ir_cloud dx = 4 dx = 0.25; the Bondi extrapolation radius r_acc / 2 = 0.125.
std::string uniform_isothermal_box() {
  return "&RUN_PARAMS\nhydro=.true.\nsink=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"
         "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
         "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666667\ncourant_factor=0.8\n/\n"
         "&COOLING_PARAMS\nbarotropic_eos=.true.\nbarotropic_eos_form='isothermal'\nt_eos=1.20272e-8\nmu_gas=1.0\n/\n"
         "&SINK_PARAMS\naccretion_scheme='bondi'\nir_cloud=4\n/\n";
}

struct SinkState {
  std::vector<double> values;  // mass, x, y, z, vx, vy, vz, accreted mass, accretion rate
};

SinkState sink_state(const Sim& sim) {
  const Module* module = sim.find_module<Module>();
  const auto& set = module->sinks();
  SinkState state;
  state.values.push_back(set.mass()[0]);
  for (int d = 0; d < 3; ++d) state.values.push_back(set.position(d)[0]);
  for (int d = 0; d < 3; ++d) state.values.push_back(set.velocity(d)[0]);
  state.values.push_back(set.values<double>("accreted_mass")[0]);
  state.values.push_back(set.values<double>("accretion_rate")[0]);
  return state;
}

struct BondiRun {
  double c_squared = 0.0;     // P / rho of the initial gas
  double rate_early = 0.0;    // measured dM/dt over [t1, t2]
  double rate_late = 0.0;     // over [t2, t3]
  double mass_mid = 0.0;      // sink mass at t2
  double mass_end = 0.0;
  double reported = 0.0;      // the sink's accretion_rate attribute at the end
  std::vector<double> totals_start, totals_end;
  SinkState final_state;
};

constexpr double kSinkMass = 0.00375;  // r_Bondi = G M / c^2 = 0.03 r_acc / 2

BondiRun run_bondi(MPI_Comm comm) {
  const core::ParameterSet params = core::ParameterSet::from_text(uniform_isothermal_box(), "bondi.nml");
  Sim sim(params, comm);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  Module* module = sim.find_module<Module>();
  module->add_sink({0.5, 0.5, 0.5}, {0.0, 0.0, 0.0}, kSinkMass, sim.time());
  BondiRun run;
  {
    const auto& tree = sim.tree();
    const int density = tree.fields().find("density"), energy = tree.fields().find("total_energy");
    // Pressure over density of the isothermal gas: (gamma - 1) e / rho, the same in every cell.
    double local = 0.0;
    if (!tree.octs_at_level(4).empty()) {
      const core::CellIndex cell = Sim::Tree::cell_index(tree.octs_at_level(4).front(), 0);
      local = (1.6666667 - 1.0) * tree.field(energy)[cell] / tree.field(density)[cell];
    }
    MPI_Allreduce(&local, &run.c_squared, 1, MPI_DOUBLE, MPI_MAX, comm);
  }
  run.totals_start = sim.totals();
  // t1 = 0.4 (three sound-crossing times of the zone: the depletion around the sink is steady),
  // t2 = 0.9, t3 = 1.4.
  auto advance_to = [&](double t) {
    while (sim.time() < t - 1e-12) sim.advance(std::min(sim.courant_time_step(), t - sim.time()));
  };
  advance_to(0.4);
  const double m1 = module->sinks().mass()[0];
  advance_to(0.9);
  run.mass_mid = module->sinks().mass()[0];
  advance_to(1.4);
  run.mass_end = module->sinks().mass()[0];
  run.rate_early = (run.mass_mid - m1) / 0.5;
  run.rate_late = (run.mass_end - run.mass_mid) / 0.5;
  run.reported = module->sinks().values<double>("accretion_rate")[0];
  run.totals_end = sim.totals();
  run.final_state = sink_state(sim);
  return run;
}

// The run on every rank, done once for the tests below.
const BondiRun& world_run() {
  static const BondiRun run = run_bondi(MPI_COMM_WORLD);
  return run;
}

TEST(SinkParticles, BondiAccretionInAUniformIsothermalMediumMatchesTheAnalyticRate) {
  const BondiRun& run = world_run();
  const double c = std::sqrt(run.c_squared);
  // The analytic rate at the window's mid-point mass (the sink grows by ~1 % over the run).
  auto analytic = [&](double mass) { return 4.0 * pi * 1.0 * mass * mass / (c * c * c); };
  const double expected_early = analytic(0.5 * (kSinkMass + run.mass_mid));
  const double expected_late = analytic(0.5 * (run.mass_mid + run.mass_end));
  if (world_rank() == 0)
    std::printf("Bondi, %d ranks: c^2 = %.6f, measured dM/dt = %.6e (t 0.4-0.9), %.6e (t 0.9-1.4), analytic %.6e, %.6e: "
                "ratios %.4f, %.4f; reported rate %.6e; mass change %.2e, momentum %.2e %.2e %.2e\n",
                test::world_size(), run.c_squared, run.rate_early, run.rate_late, expected_early, expected_late,
                run.rate_early / expected_early, run.rate_late / expected_late, run.reported,
                run.totals_end[0] - run.totals_start[0], run.totals_end[1], run.totals_end[2], run.totals_end[3]);
  EXPECT_NEAR(run.c_squared, 1.0, 1e-4) << "the isothermal gas is set up with c^2 = 1";
  EXPECT_NEAR(run.rate_early / expected_early, 1.0, 0.10);
  EXPECT_NEAR(run.rate_late / expected_late, 1.0, 0.10);
  // Steady: the same fraction of the analytic rate in both windows (the rate itself grows as M^2).
  EXPECT_NEAR((run.rate_late / expected_late) / (run.rate_early / expected_early), 1.0, 0.03) << "steady accretion";
  EXPECT_NEAR(run.reported / expected_late, 1.0, 0.10) << "the sink reports the rate it accretes at";
  EXPECT_GT(run.mass_end - kSinkMass, 1e-4) << "the sink grew";
  // Gas + sink: mass and momentum to round-off.
  EXPECT_NEAR(run.totals_end[0], run.totals_start[0], 1e-14 * run.totals_start[0]);
  for (int d = 1; d <= 3; ++d) EXPECT_NEAR(run.totals_end[static_cast<std::size_t>(d)], run.totals_start[static_cast<std::size_t>(d)], 1e-15);
}

TEST(SinkParticles, TheSinkIsTheSameOnAnyRankCount) {
  const BondiRun& here = world_run();
  if (world_rank() != 0) return;
  const BondiRun alone = run_bondi(MPI_COMM_SELF);
  ASSERT_EQ(here.final_state.values.size(), alone.final_state.values.size());
  for (std::size_t k = 0; k < here.final_state.values.size(); ++k)
    EXPECT_EQ(here.final_state.values[k], alone.final_state.values[k]) << "value " << k << " differs from the one-rank run";
}

TEST(SinkParticles, TheSinkMassEntersThePoissonSourceByCloudInCell) {
  const core::ParameterSet params = core::ParameterSet::from_text(uniform_isothermal_box(), "bondi.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  Module* module = sim.find_module<Module>();
  module->add_sink({0.23, 0.61, 0.97}, {0.0, 0.0, 0.0}, 0.5, 0.0);  // a cloud across the periodic wall
  const auto& tree = sim.tree();
  std::vector<double> density(tree.oct_capacity() * Sim::Tree::cells_per_oct, 0.0);
  module->add_source_density(4, density.data());
  double mass = 0.0;
  const double volume = std::pow(tree.cell_size(4), 3);
  for (core::OctIndex o : tree.octs_at_level(4))
    for (int c = 0; c < 8; ++c) mass += density[Sim::Tree::cell_index(o, c)] * volume;
  MPI_Allreduce(MPI_IN_PLACE, &mass, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_NEAR(mass, 0.5, 1e-14);
  EXPECT_EQ(module->total_mass(), 0.5);
}

std::string box_with(const std::string& amr, const std::string& sink_params, const std::string& refine = "") {
  std::string text = uniform_isothermal_box();
  text.replace(text.find("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"), 35, amr);
  text.replace(text.find("&SINK_PARAMS\naccretion_scheme='bondi'\nir_cloud=4\n/\n"), 51, sink_params);
  return text + refine;
}

TEST(SinkParticles, ABinaryCloserThanRMergeMergesInTheStep) {
  const std::string text = box_with("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n", "&SINK_PARAMS\naccretion_scheme='none'\nr_merge=2.0\n/\n");
  const core::ParameterSet params = core::ParameterSet::from_text(text, "binary.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  Module* module = sim.find_module<Module>();
  const double dx = sim.tree().cell_size(4);
  EXPECT_EQ(module->merging_length(), 2.0 * dx);
  module->add_sink({0.5, 0.5, 0.5}, {0.01, 0.02, 0.0}, 0.2, 0.0);
  module->add_sink({0.5 + 1.2 * dx, 0.5, 0.5}, {-0.03, 0.0, 0.04}, 0.1, 0.0);
  module->add_sink({0.1, 0.2, 0.3}, {0.0, 0.0, 0.0}, 0.05, 0.0);  // alone
  const std::vector<double> before = sim.totals();
  sim.advance(0.5 * sim.courant_time_step());
  const auto& set = module->sinks();
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.mass()[0], 0.2 + 0.1);
  EXPECT_EQ(set.id()[0], 1);
  EXPECT_EQ(set.mass()[1], 0.05);
  EXPECT_NEAR(set.mass()[0] * set.velocity(0)[0], 0.2 * 0.01 + 0.1 * -0.03, 1e-17);
  EXPECT_NEAR(set.mass()[0] * set.velocity(1)[0], 0.2 * 0.02, 1e-17);
  EXPECT_NEAR(set.mass()[0] * set.velocity(2)[0], 0.1 * 0.04, 1e-17);
  const std::vector<double> after = sim.totals();
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(after[k], before[k], 1e-15) << "total " << k;
  // The sinks' speed limits the step: courant_factor dx / |v| of the fastest (the merged sink; the
  // other is at rest).
  EXPECT_NEAR(module->time_step_limit(4), 0.8 * dx / std::hypot(set.velocity(0)[0], set.velocity(1)[0], set.velocity(2)[0]), 1e-12);
}

TEST(SinkParticles, SinkRefineRefinesAroundTheSinkToLevelmax) {
  const std::string text = box_with("&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n", "&SINK_PARAMS\naccretion_scheme='bondi'\nir_cloud=2\n/\n",
                                    "&REFINE_PARAMS\nsink_refine=.true.\n/\n");
  const core::ParameterSet params = core::ParameterSet::from_text(text, "refine.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  sim.find_module<Module>()->add_sink({0.3, 0.6, 0.45}, {0.0, 0.0, 0.0}, 1e-3, 0.0);
  sim.initialise();
  const auto& tree = sim.tree();
  const double radius = sim.find_module<Module>()->accretion_radius();
  const std::array<double, 3> sink{0.3, 0.6, 0.45};
  long long near_levelmax = 0;
  double farthest_levelmax = 0.0, farthest_level4 = 0.0;
  for (int level = 3; level <= 5; ++level)
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < 8; ++c) {
        const core::CellIndex cell = Sim::Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        const auto x = tree.cell_centre(cell);
        double r2 = 0.0;
        for (int d = 0; d < 3; ++d) {
          const double dx = x[static_cast<std::size_t>(d)] - sink[static_cast<std::size_t>(d)];
          r2 += (dx - std::round(dx)) * (dx - std::round(dx));  // nearest image in the unit box
        }
        if (std::sqrt(r2) <= radius) near_levelmax += level == 5 ? 1 : -1000000;
        if (level == 5) farthest_levelmax = std::max(farthest_levelmax, std::sqrt(r2));
        if (level == 4) farthest_level4 = std::max(farthest_level4, std::sqrt(r2));
      }
  MPI_Allreduce(MPI_IN_PLACE, &near_levelmax, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &farthest_levelmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &farthest_level4, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_GT(near_levelmax, 8) << "every leaf within the accretion radius is at levelmax";
  if (world_rank() == 0)
    std::printf("sink_refine: leaves at levelmax out to %.3f, at level 4 out to %.3f from the sink (r_acc = %.4f)\n",
                farthest_levelmax, farthest_level4, radius);
  // Level-5 leaves: the level-4 cells meeting the sphere (centres within r_acc + 0.054) and the
  // nexpand buffer (RAMSES smooth_fine: faces, then edges and the concave corners between flagged
  // cells, so up to two level-4 diagonals of 0.108 on the sphere's staircase) hold them. Level 4
  // follows from the level-3 cells that hold level-4 flags (centres within 0.2245 + 0.108) plus two
  // level-3 buffers of 0.2165 (RAMSES flag_fine: one around cells with flagged sons, nexpand after
  // the criterion) and a child's offset of 0.054: 0.82. Measured: 0.262 and 0.740 (0.2545 and 0.7
  // held with kosmo's former single buffer). Farther, the uniform gas stays at levelmin.
  EXPECT_LT(farthest_levelmax, radius + 0.054 + 2 * 0.108 + 0.03);
  EXPECT_LT(farthest_level4, 0.82);
}

TEST(SinkParticles, ALightSinkFallsTowardsAHeavyOne) {
  std::string text = box_with("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n", "&SINK_PARAMS\naccretion_scheme='none'\nir_cloud=1\n/\n");
  text.replace(text.find("sink=.true.\n"), 12, "sink=.true.\npoisson=.true.\n");
  // Light gas (rho = 1e-3) so that the sinks dominate the force.
  text.replace(text.find("d_region=1.0"), 12, "d_region=1e-3");
  const core::ParameterSet params = core::ParameterSet::from_text(text, "fall.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  Module* module = sim.find_module<Module>();
  const double heavy = 1.0, separation = 0.25;
  module->add_sink({0.5, 0.5, 0.5}, {0.0, 0.0, 0.0}, heavy, 0.0);
  module->add_sink({0.5 + separation, 0.5, 0.5}, {0.0, 0.0, 0.0}, 1e-6, 0.0);
  sim.initialise();
  const double dt = 1e-3;
  sim.advance(dt);
  const auto& set = module->sinks();
  const double expected = heavy / (separation * separation) * dt;  // G = 1, the nearest image only
  if (world_rank() == 0)
    std::printf("fall: light sink v = %.4e %.2e %.2e, G M / r^2 dt = %.4e; heavy sink v = %.2e\n", set.velocity(0)[1],
                set.velocity(1)[1], set.velocity(2)[1], expected, set.velocity(0)[0]);
  EXPECT_LT(set.velocity(0)[1], 0.0) << "towards the heavy sink";
  // The periodic images and the smoothing by the clouds (radius ir_cloud dx = 1 cell) and the
  // cloud-in-cell kernel at 4 cells change the force by tens of per cent.
  EXPECT_NEAR(-set.velocity(0)[1] / expected, 1.0, 0.4);
  EXPECT_NEAR(set.velocity(1)[1], 0.0, 1e-3 * expected);
  EXPECT_NEAR(set.velocity(2)[1], 0.0, 1e-3 * expected);
  // The pair's momentum: the heavy sink takes the light one's opposite (the gas is uniform).
  EXPECT_NEAR(heavy * set.velocity(0)[0] + 1e-6 * set.velocity(0)[1], 0.0, 0.02 * 1e-6 * expected);
}

TEST(SinkParticles, ThresholdAccretionTakesCAccOfTheGasAboveDSink) {
  std::string text = box_with("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n", "&SINK_PARAMS\naccretion_scheme='threshold'\nd_sink=2.0\nc_acc=0.75\n/\n");
  text.replace(text.find("d_region=1.0"), 12, "d_region=3.0");
  const core::ParameterSet params = core::ParameterSet::from_text(text, "threshold.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  Module* module = sim.find_module<Module>();
  module->add_sink({0.5, 0.5, 0.5}, {0.0, 0.0, 0.0}, 0.1, 0.0);
  const std::vector<double> before = sim.totals();
  sim.advance(0.2 * sim.courant_time_step());
  // The zone of a sink at a cell corner: the cells whose centre is within r_acc = 4 dx.
  int cells = 0;
  for (int i = -4; i < 4; ++i)
    for (int j = -4; j < 4; ++j)
      for (int k = -4; k < 4; ++k) cells += (i + 0.5) * (i + 0.5) + (j + 0.5) * (j + 0.5) + (k + 0.5) * (k + 0.5) <= 16.0;
  const double volume = std::pow(sim.tree().cell_size(4), 3);
  const double gained = module->sinks().mass()[0] - 0.1;
  if (world_rank() == 0)
    std::printf("threshold: gained %.10e, 0.75 (3 - 2) %d dx^3 = %.10e\n", gained, cells, 0.75 * cells * volume);
  EXPECT_NEAR(gained, 0.75 * 1.0 * cells * volume, 1e-14);
  EXPECT_NEAR(sim.totals()[0], before[0], 1e-14);
}

// Code units of 1 s: the Eddington rate of the sink, 7e-16 M per s, is far below its Bondi rate.
TEST(SinkParticles, EddingtonLimitCapsTheBondiRate) {
  const std::string text = box_with("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n",
                                    "&SINK_PARAMS\naccretion_scheme='bondi'\neddington_limit=.true.\n/\n");
  const core::ParameterSet params = core::ParameterSet::from_text(text, "eddington.nml");
  Sim sim(params, MPI_COMM_WORLD);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  Module* module = sim.find_module<Module>();
  module->add_sink({0.5, 0.5, 0.5}, {0.0, 0.0, 0.0}, kSinkMass, 0.0);
  sim.advance(0.5 * sim.courant_time_step());
  const double rate = module->sinks().values<double>("accretion_rate")[0];
  EXPECT_EQ(rate, sinks::eddington_rate(module->sinks().mass()[0], 1.0));
  EXPECT_LT(rate, 1e-10 * 4.0 * pi * kSinkMass * kSinkMass);
}

// A peak of density 6 (a sphere of radius 0.04 around a cell centre) on a bump of 3 (radius 0.15)
// in gas of density 1, threshold d_sink = 2; one solar mass per code mass.
std::string peaked_box() {
  std::string text = box_with("&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n",
                              "&SINK_PARAMS\ncreate_sinks=.true.\nd_sink=2.0\nmass_sink_seed=0.01\n/\n"
                              "&UNITS_PARAMS\nunits_density=1.9891e33\n/\n");
  const std::string one = "nregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nz_center=0.5\n"
                          "length_x=10.0\nlength_y=10.0\nlength_z=10.0\nexp_region=10.0\nd_region=1.0\np_region=1.0\n";
  const std::string three = "nregion=3\nregion_type=3*'square'\nx_center=0.5,0.53125,0.53125\ny_center=0.5,0.46875,0.46875\n"
                            "z_center=0.5,0.59375,0.59375\nlength_x=10.0,0.3,0.08\nlength_y=10.0,0.3,0.08\nlength_z=10.0,0.3,0.08\n"
                            "exp_region=10.0,2.0,2.0\nd_region=1.0,3.0,6.0\np_region=1.0,3.0,6.0\n";
  text.replace(text.find(one), one.size(), three);
  return text;
}

std::vector<double> run_creation(MPI_Comm comm, double& mass_change) {
  const core::ParameterSet params = core::ParameterSet::from_text(peaked_box(), "create.nml");
  Sim sim(params, comm);
  driver::prepare_start(sim, params, false);
  sim.initialise();
  const std::vector<double> before = sim.totals();
  for (int step = 0; step < 3; ++step) sim.advance(0.5 * sim.courant_time_step());
  mass_change = sim.totals()[0] - before[0];
  const auto& set = sim.find_module<Module>()->sinks();
  std::vector<double> values;
  for (std::size_t s = 0; s < set.size(); ++s) {
    values.insert(values.end(), {set.mass()[s], static_cast<double>(set.id()[s])});
    for (int d = 0; d < 3; ++d) values.insert(values.end(), {set.position(d)[s], set.velocity(d)[s]});
  }
  return values;
}

TEST(SinkParticles, CreateSinksMakesOneSinkAtTheDensityPeak) {
  double mass_change = 0.0;
  const std::vector<double> sinks = run_creation(MPI_COMM_WORLD, mass_change);
  ASSERT_EQ(sinks.size(), 8u) << "one sink";
  if (world_rank() == 0)
    std::printf("created: mass %.6e at %.5f %.5f %.5f, gas + sink mass change %.2e\n", sinks[0], sinks[2], sinks[4], sinks[6], mass_change);
  EXPECT_NEAR(sinks[0], 0.01, 1e-15) << "mass_sink_seed, in code masses of one solar mass";
  EXPECT_EQ(sinks[1], 1.0);
  // At the peak cell's centre, moved towards the centre of mass of the gas it took (< dx / 2).
  EXPECT_NEAR(sinks[2], 0.53125, 0.03);
  EXPECT_NEAR(sinks[4], 0.46875, 0.03);
  EXPECT_NEAR(sinks[6], 0.59375, 0.03);
  EXPECT_NEAR(mass_change, 0.0, 1e-14);
  if (world_rank() != 0) return;
  double alone_change = 0.0;
  const std::vector<double> alone = run_creation(MPI_COMM_SELF, alone_change);
  ASSERT_EQ(alone.size(), sinks.size());
  for (std::size_t k = 0; k < sinks.size(); ++k) EXPECT_EQ(sinks[k], alone[k]) << "value " << k << " differs from the one-rank run";
}

}  // namespace
