#pragma once
// What the restart tests share: the off-centre 3-D AMR Sedov blast they run, stepping, gathering
// leaf cells, writing a snapshot, and a fresh working directory (snapshots go to the working
// directory, as in RAMSES).
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "driver/simulation.hpp"
#include "driver/mesh_snapshot.hpp"

namespace kosmo::test {

inline constexpr int kHalf = 3;  // N coarse steps before and after the restart

// `outformat`: '' for the default (HDF5), or 'both' for RAMSES files too.
inline std::string restart_sedov(const std::string& ordering, const std::string& outformat = "") {
  return "&RUN_PARAMS\nhydro=.true.\nndim=3\nnremap=2\nordering='" + ordering +
         "'\n/\n&AMR_PARAMS\nlevelmin=3\nlevelmax=5\n/\n"
         "&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\n"
         "x_center=0.5,0.3\ny_center=0.5,0.45\nz_center=0.5,0.6\nlength_x=10.0,0.1\nlength_y=10.0,0.1\nlength_z=10.0,0.1\n"
         "exp_region=10.0,2.0\nd_region=1.0,1.0\np_region=1e-5,50.0\n/\n"
         "&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n"
         "&REFINE_PARAMS\nerr_grad_p=0.1\ninterpol_type=2\n/\n" +
         (outformat.empty() ? std::string() : "&OUTPUT_PARAMS\noutformat='" + outformat + "'\n/\n");
}

using Sim = driver::Simulation<3>;

inline void steps(Sim& sim, int n) {
  for (int s = 0; s < n; ++s) sim.advance(sim.courant_time_step());
}

inline std::vector<Cell> leaves(const Sim& sim, MPI_Comm comm) {
  return gather_sorted(owned_leaves(sim), 4 + sim.hydro().nvar(), comm);
}

// Snapshot `number` of `sim`, written collectively on `comm` with `params`' output keys.
inline void write_snapshot_of(const Sim& sim, MPI_Comm comm, int number, const core::ParameterSet& params) {
  driver::write_mesh_snapshot(comm, sim.tree(), params, number, sim.time(), sim.step(), sim.outputs(), sim.mesh().ordering_name(),
                              sim.mesh().ksection_walls(), sim.mesh().hilbert_bounds());
}

// The first `count` ranks of MPI_COMM_WORLD as a communicator (MPI_COMM_NULL on the others; the
// caller frees it). Collective.
inline MPI_Comm first_ranks(int count) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < count ? 0 : MPI_UNDEFINED, world_rank(), &comm);
  return comm;
}

// The first `writers` ranks run `params` from the initial conditions for kHalf steps and write
// snapshot `number` with `write(sim, comm, number)`; the others wait. Collective over the world.
template <class Write>
void run_and_write_on_first_ranks(int writers, const core::ParameterSet& params, int number, Write write) {
  MPI_Comm comm = first_ranks(writers);
  if (comm != MPI_COMM_NULL) {
    Sim sim(params, comm);
    sim.initialise();
    steps(sim, kHalf);
    write(sim, comm, number);
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// All ranks work in one fresh directory, removed afterwards.
class FreshWorkingDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[64] = "/tmp/kosmo_restart_XXXXXX";
    if (world_rank() == 0) {
      ASSERT_NE(mkdtemp(name), nullptr);
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    directory_ = name;
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(directory_);
  }
  void TearDown() override {
    std::filesystem::current_path(previous_);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) std::filesystem::remove_all(directory_);
  }
  std::filesystem::path directory_, previous_;
};

}  // namespace kosmo::test
