// Velocity tracer particles (tracers/tracer_module.hpp, docs/tracers.md), 2-D, on 1..P ranks:
//  * in a uniform flow every tracer moves exactly with the gas (to round-off), keeps the identity of
//    its cell (the fixed cell order) and carries the flow velocity;
//  * tracers fed from an ascii file start at the file's positions (units of boxlen), numbered in
//    line order;
//  * in an AMR Sedov blast the tracers (identities, positions, velocities) are bit-identical to the
//    one-rank run, none is lost, all stay inside the box, and they are pushed outwards;
//  * a restart from the HDF5 snapshot continues bit for bit, on the rank count that wrote it and on
//    one rank, and the RAMSES-format part_ files give the tracers back (family 0, positions bit for bit).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/particle_snapshot.hpp"
#include "driver/simulation.hpp"
#include "driver/simulation_start.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/snapshot_reader.hpp"
#include "restart_test_support.hpp"

using namespace kosmo;
using test::world_rank;

namespace {

using Sim = driver::Simulation<2>;
// id -> x, y, vx, vy, family (rank 0 of the communicator only).
using Tracers = std::map<long long, std::vector<double>>;

constexpr double kFlowU = 0.5, kFlowV = 0.25;

const std::string kUniformFlow =
    "&RUN_PARAMS\nhydro=.true.\npic=.true.\ntracer=.true.\nndim=2\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"
    "&INIT_PARAMS\nnregion=1\nregion_type(1)='square'\nx_center=0.5\ny_center=0.5\nlength_x=10.0\nlength_y=10.0\n"
    "exp_region=10.0\nd_region=1.0\nu_region=0.5\nv_region=0.25\np_region=1.0\n/\n"
    "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\n/\n";

// One tracer per level-4 cell: gas mass 1/256 each, tracer_mass 1/256.
const std::string kInPlace = "&TRACER_PARAMS\ntracer_feed_fmt='inplace'\ntracer_mass=0.00390625\n/\n";

// An off-centre blast in a periodic box, refined on the pressure gradient up to level 6; about four
// tracers per level-4 cell (tracer_mass 1/1024), fewer in the blast's refined cells.
const std::string kSedov =
    "&RUN_PARAMS\nhydro=.true.\npic=.true.\ntracer=.true.\nndim=2\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=6\n/\n"
    "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\nx_center=0.5,0.45\ny_center=0.5,0.55\n"
    "length_x=10.0,0.1\nlength_y=10.0,0.1\nexp_region=10.0,2.0\nd_region=1.0,1.0\np_region=1e-5,10.0\n/\n"
    "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
    "&REFINE_PARAMS\nerr_grad_p=0.1\ninterpol_type=2\n/\n&OUTPUT_PARAMS\noutformat='both'\n/\n"
    "&TRACER_PARAMS\nMC_tracer=.false.\ntracer_feed_fmt='inplace'\ntracer_mass=0.0009765625\n/\n";

Tracers gather_tracers(const Sim& sim, MPI_Comm comm) {
  constexpr std::size_t width = 6;
  const auto& set = sim.particles()->set();
  std::vector<double> local;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.family()[i] != particles::Family::tracer) continue;
    local.push_back(static_cast<double>(set.id()[i]));
    for (int d = 0; d < 2; ++d) local.push_back(set.position(d)[i]);
    for (int d = 0; d < 2; ++d) local.push_back(set.velocity(d)[i]);
    local.push_back(static_cast<double>(static_cast<int>(set.family()[i])));
  }
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  int count = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(nrank)), offsets(static_cast<std::size_t>(nrank), 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int r = 1; r < nrank; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(offsets.back() + counts.back()) : 0);
  MPI_Gatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
  Tracers tracers;
  for (std::size_t at = 0; at + width <= all.size(); at += width) {
    const auto id = static_cast<long long>(all[at]);
    EXPECT_EQ(tracers.count(id), 0u) << "tracer " << id << " held twice";
    tracers[id] = std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(at) + 1, all.begin() + static_cast<std::ptrdiff_t>(at + width));
  }
  return tracers;
}

Sim& start(Sim& sim, const core::ParameterSet& params) {
  driver::prepare_start(sim, params, false);
  sim.initialise();
  return sim;
}

void steps(Sim& sim, int n) {
  for (int s = 0; s < n; ++s) sim.advance(sim.courant_time_step());
}

// Largest |a - b| over the tracers' positions and velocities; both must hold the same identities.
double largest_difference(const Tracers& a, const Tracers& b) {
  EXPECT_EQ(a.size(), b.size());
  double largest = 0.0;
  for (const auto& [id, values] : a) {
    const auto it = b.find(id);
    if (it == b.end()) {
      ADD_FAILURE() << "tracer " << id << " missing";
      return 1.0;
    }
    for (std::size_t k = 0; k < values.size(); ++k) largest = std::max(largest, std::fabs(values[k] - it->second[k]));
  }
  return largest;
}

TEST(TracerParticles, UniformFlowCarriesThemExactly) {
  const core::ParameterSet params = core::ParameterSet::from_text(kUniformFlow + kInPlace, "flow.nml");
  Sim sim(params, MPI_COMM_WORLD);
  start(sim, params);
  steps(sim, 20);
  const double t = sim.time();
  const Tracers tracers = gather_tracers(sim, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ASSERT_EQ(tracers.size(), 256u);
  double position = 0.0, velocity = 0.0;
  for (const auto& [id, v] : tracers) {
    // Identities follow the cells in (y, x) order from 1: tracer id sits in cell (id - 1) % 16, (id - 1) / 16.
    const double x0 = (static_cast<double>((id - 1) % 16) + 0.5) / 16.0, y0 = (static_cast<double>((id - 1) / 16) + 0.5) / 16.0;
    double dx = v[0] - (x0 + kFlowU * t), dy = v[1] - (y0 + kFlowV * t);
    dx -= std::round(dx);  // periodic box of length 1
    dy -= std::round(dy);
    position = std::max({position, std::fabs(dx), std::fabs(dy)});
    velocity = std::max({velocity, std::fabs(v[2] - kFlowU), std::fabs(v[3] - kFlowV)});
    EXPECT_EQ(v[4], 0.0) << "family of tracer " << id;
  }
  std::printf("uniform flow, %d ranks, t = %.4f (%.2f cells crossed): max |x - x0 - u t| %.3e, max |v - u| %.3e\n",
              test::world_size(), t, kFlowU * t * 16.0, position, velocity);
  EXPECT_GT(kFlowU * t * 16.0, 1.0) << "the tracers should have crossed cells";
  EXPECT_LT(position, 1e-14);
  EXPECT_LT(velocity, 1e-14);
}

using TracerFeed = test::FreshWorkingDirectory;

TEST_F(TracerFeed, AsciiFilePlacesThemAtItsPositions) {
  const double positions[3][3] = {{0.1, 0.2, 0.0}, {0.75, 0.5, 0.0}, {0.03125, 0.96875, 0.0}};
  if (world_rank() == 0) {
    std::ofstream file("tracers.txt");
    for (const auto& p : positions) file << p[0] << " " << p[1] << " " << p[2] << "\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const core::ParameterSet params = core::ParameterSet::from_text(
      kUniformFlow + "&TRACER_PARAMS\ntracer_feed='tracers.txt'\ntracer_feed_fmt='ascii'\n/\n", "feed.nml");
  Sim sim(params, MPI_COMM_WORLD);
  start(sim, params);
  const Tracers tracers = gather_tracers(sim, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ASSERT_EQ(tracers.size(), 3u);
  for (long long id = 1; id <= 3; ++id) {
    ASSERT_EQ(tracers.count(id), 1u);
    EXPECT_EQ(tracers.at(id)[0], positions[id - 1][0]);
    EXPECT_EQ(tracers.at(id)[1], positions[id - 1][1]);
  }
}

TEST(TracerParticles, SedovBlastIsRankCountIndependentAndStaysInTheBox) {
  const core::ParameterSet params = core::ParameterSet::from_text(kSedov, "sedov.nml");
  constexpr int kSteps = 8;
  Tracers initial, reference;
  if (world_rank() == 0) {
    Sim one(params, MPI_COMM_SELF);
    start(one, params);
    initial = gather_tracers(one, MPI_COMM_SELF);
    steps(one, kSteps);
    reference = gather_tracers(one, MPI_COMM_SELF);
  }
  Sim sim(params, MPI_COMM_WORLD);
  start(sim, params);
  steps(sim, kSteps);
  const Tracers tracers = gather_tracers(sim, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  EXPECT_GT(initial.size(), 1000u);
  ASSERT_EQ(tracers.size(), initial.size()) << "tracers were lost or created";
  const double difference = largest_difference(tracers, reference);
  // The blast pushes the gas, and its tracers, away from its centre (0.45, 0.55).
  double farthest = 0.0, inwards = 0.0;
  for (const auto& [id, v] : tracers) {
    const std::vector<double>& x0 = initial.at(id);
    EXPECT_TRUE(v[0] >= 0.0 && v[0] < 1.0 && v[1] >= 0.0 && v[1] < 1.0) << "tracer " << id << " left the box";
    const double r0 = std::hypot(x0[0] - 0.45, x0[1] - 0.55), r = std::hypot(v[0] - 0.45, v[1] - 0.55);
    farthest = std::max(farthest, std::hypot(v[0] - x0[0], v[1] - x0[1]));
    inwards = std::max(inwards, r0 - r);
  }
  std::printf("Sedov blast, %d ranks against 1: %zu tracers, max difference %.3e; largest displacement %.4f (%.2f level-6 "
              "cells), largest inward motion %.3e\n",
              test::world_size(), tracers.size(), difference, farthest, farthest * 64.0, inwards);
  EXPECT_EQ(difference, 0.0);
  EXPECT_GT(farthest * 64.0, 1.0) << "the blast should have moved some tracers by more than a fine cell";
  EXPECT_LT(inwards, 1e-3 * farthest) << "a tracer moved towards the blast's centre";
}

using TracerRestart = test::FreshWorkingDirectory;

// 3 steps, a snapshot in both formats, 3 more; a restart from the HDF5 file gives the same tracers
// after its 3 steps, bit for bit; the RAMSES part_ files give back the tracers of the snapshot.
TEST_F(TracerRestart, ContinuesBitForBitAndRamsesFilesHoldThem) {
  const core::ParameterSet params = core::ParameterSet::from_text(kSedov, "sedov.nml");
  Tracers written, uninterrupted, restarted, on_one_rank, from_ramses;
  {
    Sim sim(params, MPI_COMM_WORLD);
    start(sim, params);
    steps(sim, 3);
    written = gather_tracers(sim, MPI_COMM_WORLD);
    const io::SnapshotParticles particles = driver::snapshot_particles(sim.particles()->set());
    driver::SnapshotExtras extras;
    extras.particles = &particles;
    driver::write_mesh_snapshot(MPI_COMM_WORLD, sim.tree(), params, 1, sim.time(), sim.step(), sim.outputs(),
                                sim.mesh().ordering_name(), sim.mesh().ksection_walls(), sim.mesh().hilbert_bounds(), extras);
    steps(sim, 3);
    uninterrupted = gather_tracers(sim, MPI_COMM_WORLD);
  }
  {
    Sim sim(params, MPI_COMM_WORLD);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 1));
    steps(sim, 3);
    restarted = gather_tracers(sim, MPI_COMM_WORLD);
  }
  if (world_rank() == 0) {  // the same snapshot on one rank: the tracers do not depend on the rank count
    Sim sim(params, MPI_COMM_SELF);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_restart_share(MPI_COMM_SELF, ".", 1));
    steps(sim, 3);
    on_one_rank = gather_tracers(sim, MPI_COMM_SELF);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    Sim sim(params, MPI_COMM_WORLD);
    driver::prepare_start(sim, params, true);
    sim.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 1, hydro::ramses_restart_conversion<2>(0)));
    from_ramses = gather_tracers(sim, MPI_COMM_WORLD);
  }
  if (world_rank() != 0) return;
  const double after_restart = largest_difference(restarted, uninterrupted);
  const double one_rank = largest_difference(on_one_rank, uninterrupted);
  const double ramses = largest_difference(from_ramses, written);
  std::printf("restart on %d ranks: %zu tracers, max difference after 3 steps %.3e (restarted on 1 rank: %.3e); RAMSES "
              "part_ files against the written tracers %.3e\n",
              test::world_size(), restarted.size(), after_restart, one_rank, ramses);
  EXPECT_EQ(after_restart, 0.0);
  EXPECT_EQ(one_rank, 0.0);
  EXPECT_EQ(ramses, 0.0);
}

}  // namespace
