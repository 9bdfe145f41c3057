// Rank-count independence and conservation of the cooling module (docs/galaxy.md, "Cooling"): a
// hot, metal-rich blob thrown through warm gas, refined on density, cooling under the Haardt &
// Madau background with self-shielding and metal lines. Rank 0 runs it alone on MPI_COMM_SELF,
// then all ranks together: the leaf cells must be the same with the same conservative values, bit
// for bit; gas and metal mass are conserved exactly; the change of total energy is the module's
// heating minus its radiated energy.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "cooling/cooling_module.hpp"
#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

// Code units: density 1 = n_H 1 cm^-3, length 100 pc, velocity 100 km/s (time ~ 1 Myr), so that
// p / rho = 1 is T2 = 1.2e6 K: the blob starts near 3e5 K and cools within the run, the background
// near 1.2e4 K sits near its photoheated equilibrium.
std::string blob() {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\nnremap=2\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
         "x_center=0.5,0.3\ny_center=0.5,0.4\nz_center=0.5,0.6\nlength_x=10.0,0.25\nlength_y=10.0,0.25\nlength_z=10.0,0.25\n"
         "exp_region=10.0,2.0\nd_region=1.0,4.0\nu_region=0.0,1.0\nv_region=0.0,0.5\nw_region=0.0,-0.7\np_region=0.01,1.0\n"
         "var_region=0.002,0.02\n/\n"
         "&HYDRO_PARAMS\ngamma=1.6666667\ncourant_factor=0.6\nslope_type=1\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_d=0.05\ninterpol_type=1\n/\n"
         "&UNITS_PARAMS\nunits_density=2.1842105e-24\nunits_length=3.0857e20\nunits_time=3.0857e13\n/\n"
         "&COOLING_PARAMS\ncooling=.true.\nmetal=.true.\nhaardt_madau=.true.\nself_shielding=.true.\nz_ave=0.01\n/\n";
}

struct RunResult {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> initial, final;
  double radiated = 0.0, heated = 0.0;
};

RunResult run(MPI_Comm comm) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(blob(), "cooling_blob.nml"), comm);
  sim.initialise();
  RunResult result;
  result.initial = sim.totals();
  for (int s = 0; s < 4; ++s) sim.advance(sim.courant_time_step());
  result.final = sim.totals();
  const auto* cooling = sim.find_module<cooling::CoolingModule<3>>();
  result.radiated = cooling->radiated_energy();
  result.heated = cooling->heating_energy();
  result.cells = gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
  return result;
}

TEST(CoolingRanks, BlobEqualsTheOneRankRunAndConserves) {
  RunResult reference;
  if (world_rank() == 0) reference = run(MPI_COMM_SELF);
  const RunResult distributed = run(MPI_COMM_WORLD);
  // totals: mass, 3 momenta, energy, then the metallicity scalar's mass.
  ASSERT_EQ(distributed.initial.size(), 6u);
  EXPECT_NEAR(distributed.final[0], distributed.initial[0], 1e-13 * distributed.initial[0]);
  // The scalar's total is a plain floating-point sum over ~9000 cells (the gas mass an exact one).
  EXPECT_NEAR(distributed.final[5], distributed.initial[5], 1e-12 * distributed.initial[5]);
  // The blob radiated a good part of its energy, and the books balance.
  const double energy_change = distributed.final[4] - distributed.initial[4];
  EXPECT_GT(distributed.radiated, 0.05 * distributed.initial[4]);
  EXPECT_NEAR(energy_change, distributed.heated - distributed.radiated, 1e-9 * distributed.initial[4]);
  if (world_rank() != 0) return;
  ASSERT_EQ(distributed.cells.size(), reference.cells.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < reference.cells.size(); ++i)
    if (reference.cells[i] != distributed.cells[i]) ++differing;
  EXPECT_EQ(differing, 0u) << "cells differ from the one-rank run";
  std::printf("  %d ranks: %zu leaf cells, %zu differ from one rank; radiated %.4e, heated %.4e of initial energy %.4e\n", world_size(),
              reference.cells.size(), differing, distributed.radiated, distributed.heated, distributed.initial[4]);
}

}  // namespace
