// Rank-count independence of the distributed hydro (docs/parallel.md, "The distributed mesh in runs"). Rank 0
// runs the problem alone on MPI_COMM_SELF; then all ranks run it on MPI_COMM_WORLD with the mesh
// distributed, for both orderings (k-section tree, Hilbert key ranges), once per exchange backend
// and once auto-tuned. The leaf cells of both
// runs, sorted by level and position, must be the same cells with the same conservative values
// (max relative difference <= 1e-12; the scheme is built to give 0), and mass and energy are
// conserved to 1e-12 on every rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"
#include "distributed_test_support.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

// Off-centre Sedov blast in a box with six reflecting walls: the shock reaches two walls within
// the run, so wall ghosts are filled across rank boundaries too.
std::string sedov_walls(const std::string& method, const std::string& ordering) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\nnremap=3\nordering='" + ordering + "'\nexchange_method='" + method +
         "'\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
         "x_center=0.5,0.3\ny_center=0.5,0.45\nz_center=0.5,0.6\nlength_x=10.0,0.1\nlength_y=10.0,0.1\nlength_z=10.0,0.1\n"
         "exp_region=10.0,2.0\nd_region=1.0,1.0\np_region=1e-5,50.0\n/\n"
         "&BOUNDARY_PARAMS\nnboundary=6\nibound_min=-1,+1,-1,-1,-1,-1\nibound_max=-1,+1,+1,+1,+1,+1\n"
         "jbound_min=0,0,-1,+1,-1,-1\njbound_max=0,0,-1,+1,+1,+1\nkbound_min=0,0,0,0,-1,+1\nkbound_max=0,0,0,0,-1,+1\n"
         "bound_type=1,1,1,1,1,1\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_p=0.1\ninterpol_type=2\n/\n";
}

// A dense blob crossing a periodic box of 2 x 1 x 1 coarse cells diagonally, refined on density:
// refinement follows it across rank walls and across the periodic faces.
std::string periodic_blob(const std::string& method, const std::string& ordering) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\nnremap=2\nordering='" + ordering + "'\nexchange_method='" + method +
         "'\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\nnx=2\nny=1\nnz=1\nboxlen=1.0\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
         "x_center=0.5,0.85\ny_center=0.25,0.1\nz_center=0.25,0.4\nlength_x=10.0,0.2\nlength_y=10.0,0.2\nlength_z=10.0,0.2\n"
         "exp_region=10.0,2.0\nd_region=1.0,4.0\nu_region=1.0,1.0\nv_region=0.5,0.5\nw_region=-0.7,-0.7\np_region=1.0,1.0\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666667\ncourant_factor=0.6\nslope_type=1\nriemann='hll'\n/\n"
         "&REFINE_PARAMS\nerr_grad_d=0.05\ninterpol_type=1\n/\n";
}

struct RunResult {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> initial, final;
  long long steps = 0;
  long long owned_octs = 0, local_octs = 0;  // this rank's
};

RunResult run(const std::string& namelist, MPI_Comm comm, int coarse_steps) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "distributed.nml"), comm);
  sim.initialise();
  RunResult result;
  result.initial = sim.totals();
  for (int s = 0; s < coarse_steps; ++s) sim.advance(sim.courant_time_step());
  result.final = sim.totals();
  result.steps = sim.step();
  for (int l = 1; l <= sim.tree().levelmax(); ++l) {
    result.owned_octs += static_cast<long long>(sim.tree().octs_at_level(l).size());
    result.local_octs += static_cast<long long>(sim.tree().octs_at_level(l).size() + sim.tree().ghost_octs_at_level(l).size());
  }
  const int width = 4 + sim.hydro().nvar();
  result.cells = gather_sorted(owned_leaves(sim), width, comm);
  return result;
}

double relative_change(double now, double initial) { return std::fabs(now - initial) / std::fabs(initial); }

void check_problem(std::string (*namelist)(const std::string&, const std::string&), int coarse_steps) {
  RunResult reference;
  if (world_rank() == 0) reference = run(namelist("p2p", "ksection"), MPI_COMM_SELF, coarse_steps);
  for (const char* ordering : {"ksection", "hilbert"})
  for (const char* method : {"p2p", "ksection", "alltoall", "auto"}) {
    SCOPED_TRACE(std::string("ordering=") + ordering + ", exchange_method=" + method + ", ranks=" + std::to_string(world_size()));
    const RunResult distributed = run(namelist(method, ordering), MPI_COMM_WORLD, coarse_steps);
    // Conservation on every rank count: reflecting walls and periodic faces conserve mass and energy.
    EXPECT_LE(relative_change(distributed.final[0], distributed.initial[0]), 1e-12);
    EXPECT_LE(relative_change(distributed.final[4], distributed.initial[4]), 1e-12);
    // The mesh is spread, not replicated: every oct is owned once, and no rank holds all of them.
    long long total_owned = 0, largest_local = 0;
    MPI_Allreduce(&distributed.owned_octs, &total_owned, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&distributed.local_octs, &largest_local, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank() != 0) continue;
    EXPECT_EQ(total_owned, reference.owned_octs);
    if (world_size() > 2) {
      EXPECT_LT(largest_local, total_owned) << "a rank holds the whole mesh";
    }
    ASSERT_EQ(distributed.cells.size(), reference.cells.size()) << "the distributed mesh differs from the one-rank mesh";
    // Relative in the max norm over cells, variable by variable.
    const std::size_t width = reference.cells.front().size();
    std::vector<double> norm(width, 1e-300), difference(width, 0.0);
    std::size_t mismatched_cells = 0;
    for (std::size_t i = 0; i < reference.cells.size(); ++i) {
      const Cell& a = reference.cells[i];
      const Cell& b = distributed.cells[i];
      if (!std::equal(a.begin(), a.begin() + 4, b.begin())) ++mismatched_cells;
      for (std::size_t v = 4; v < width; ++v) {
        norm[v] = std::max(norm[v], std::fabs(a[v]));
        difference[v] = std::max(difference[v], std::fabs(a[v] - b[v]));
      }
    }
    double worst = 0.0;
    for (std::size_t v = 4; v < width; ++v) worst = std::max(worst, difference[v] / norm[v]);
    EXPECT_EQ(mismatched_cells, 0u) << "leaf cells at different places";
    EXPECT_LE(worst, 1e-12);
    ::testing::Test::RecordProperty(std::string("max_relative_difference_") + ordering + "_" + method, std::to_string(worst));
    std::printf("  %s/%s on %d ranks: %zu leaf cells, %lld octs (largest rank holds %lld with ghosts), %lld coarse steps, max relative "
                "difference %.3e, mass change %.3e, energy change %.3e\n",
                ordering, method, world_size(), reference.cells.size(), total_owned, largest_local, distributed.steps, worst,
                relative_change(distributed.final[0], distributed.initial[0]),
                relative_change(distributed.final[4], distributed.initial[4]));
  }
}

TEST(DistributedHydro, SedovWithReflectingWallsEqualsTheOneRankRun) { check_problem(sedov_walls, 6); }

TEST(DistributedHydro, PeriodicAdvectedBlobEqualsTheOneRankRun) { check_problem(periodic_blob, 6); }

}  // namespace
