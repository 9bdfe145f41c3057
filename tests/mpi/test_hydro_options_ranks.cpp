// Rank-count independence of the hydro options of RAMSES namelists (docs/hydro.md): a passive scalar
// from var_region, the pressure fix with beta_fix > 0 (its face terms refluxed across rank
// boundaries) and an isothermal EOS, on an adaptive mesh. Rank 0 runs the problem alone on
// MPI_COMM_SELF, then all ranks run it together: the leaf cells must be the same cells with the same
// conservative values, bit for bit, and the scalar's mass is conserved to round-off.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

// A dense blob carrying scalar 1 is thrown diagonally through cold gas at rest, refined on density:
// the velocity jumps of its shocks make beta_fix = 0.5 replace the internal energy of many cells.
std::string blob(bool isothermal) {
  std::string namelist =
      "&RUN_PARAMS\nhydro=.true.\nndim=3\nnremap=2\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
      "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
      "x_center=0.5,0.3\ny_center=0.5,0.4\nz_center=0.5,0.6\nlength_x=10.0,0.25\nlength_y=10.0,0.25\nlength_z=10.0,0.25\n"
      "exp_region=10.0,2.0\nd_region=1.0,4.0\nu_region=0.0,2.0\nv_region=0.0,1.0\nw_region=0.0,-1.4\np_region=0.01,0.01\n"
      "var_region=0.0,1.0\n/\n"
      "&HYDRO_PARAMS\ngamma=1.6666667\ncourant_factor=0.6\nslope_type=1\nriemann='hllc'\npressure_fix=.true.\nbeta_fix=0.5\n/\n"
      "&REFINE_PARAMS\nerr_grad_d=0.05\ninterpol_type=1\n/\n";
  if (isothermal)
    namelist += "&UNITS_PARAMS\nunits_length=1e5\nunits_time=1.0\n/\n"
                "&COOLING_PARAMS\nbarotropic_eos=.true.\nbarotropic_eos_form='isothermal'\nT_eos=12.0\n/\n";
  return namelist;
}

struct RunResult {
  std::vector<Cell> cells;  // on rank 0
  std::vector<double> initial, final;
};

RunResult run(const std::string& namelist, MPI_Comm comm) {
  driver::Simulation<3> sim(core::ParameterSet::from_text(namelist, "blob.nml"), comm);
  sim.initialise();
  RunResult result;
  result.initial = sim.totals();
  for (int s = 0; s < 4; ++s) sim.advance(sim.courant_time_step());
  result.final = sim.totals();
  result.cells = gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
  return result;
}

void check(bool isothermal) {
  RunResult reference;
  if (world_rank() == 0) reference = run(blob(isothermal), MPI_COMM_SELF);
  const RunResult distributed = run(blob(isothermal), MPI_COMM_WORLD);
  // Scalar 1 is variable 5 (rho, 3 momenta, E): its mass is conserved on every rank count.
  ASSERT_EQ(distributed.initial.size(), 6u);
  EXPECT_NEAR(distributed.final[5], distributed.initial[5], 1e-13 * distributed.initial[5]);
  EXPECT_NEAR(distributed.final[0], distributed.initial[0], 1e-13 * distributed.initial[0]);
  if (world_rank() != 0) return;
  ASSERT_EQ(distributed.cells.size(), reference.cells.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < reference.cells.size(); ++i)
    if (reference.cells[i] != distributed.cells[i]) ++differing;
  EXPECT_EQ(differing, 0u) << "cells differ from the one-rank run";
  std::printf("  %d ranks: %zu leaf cells, %zu differ from one rank; scalar mass change %.3e\n", world_size(),
              reference.cells.size(), differing, std::fabs(distributed.final[5] - distributed.initial[5]) / distributed.initial[5]);
}

TEST(HydroOptionsRanks, ScalarAndPressureFixEqualTheOneRankRun) { check(false); }

TEST(HydroOptionsRanks, IsothermalScalarAndPressureFixEqualTheOneRankRun) { check(true); }

}  // namespace
