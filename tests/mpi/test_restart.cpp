// Restarts (docs/outputs.md, "Restarts"; seeds/000 §7.1): a 3-D
// AMR Sedov blast run for 2N coarse steps equals N steps + snapshot + restart + N steps, bit for
// bit, when the restart runs on the same number of ranks, on one rank after writing on P, and on
// P ranks after writing on one, with either ordering in the file and in the run.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "restart_test_support.hpp"
#include "driver/simulation.hpp"
#include "driver/mesh_snapshot.hpp"
#include "io/snapshot_reader.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

void write(const Sim& sim, MPI_Comm comm, int number) {
  write_snapshot_of(sim, comm, number, core::ParameterSet::from_text(restart_sedov("ksection"), "restart.nml"));
}

class RestartTest : public FreshWorkingDirectory {};

void expect_identical(const std::vector<Cell>& a, const std::vector<Cell>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what << ": different numbers of leaf cells";
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] == b[i] ? 0 : 1;
  EXPECT_EQ(differing, 0u) << what << ": leaf cells differ from the uninterrupted run";
  std::printf("  %s: %zu leaf cells, %zu differ\n", what, a.size(), differing);
}

TEST_F(RestartTest, ContinuesBitForBitOnAnyRankCount) {
  const int p = world_size();
  for (const char* ordering : {"ksection", "hilbert"}) {
    SCOPED_TRACE(std::string("ordering=") + ordering + ", ranks=" + std::to_string(p));
    const auto params = core::ParameterSet::from_text(restart_sedov(ordering), "restart.nml");
    // The snapshot's ordering need not be the run's (seeds/000 Table 2): restart with the other.
    const auto other = core::ParameterSet::from_text(restart_sedov(std::string(ordering) == "ksection" ? "hilbert" : "ksection"), "restart.nml");
    // The uninterrupted run, on all ranks.
    Sim whole(params, MPI_COMM_WORLD);
    whole.initialise();
    steps(whole, 2 * kHalf);
    const auto reference = leaves(whole, MPI_COMM_WORLD);

    // N steps on all ranks, snapshot 1; N steps on rank 0 alone, snapshot 2.
    {
      Sim first(params, MPI_COMM_WORLD);
      first.initialise();
      steps(first, kHalf);
      write(first, MPI_COMM_WORLD, 1);
    }
    if (world_rank() == 0) {
      Sim alone(params, MPI_COMM_SELF);
      alone.initialise();
      steps(alone, kHalf);
      write(alone, MPI_COMM_SELF, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    // Written on P, restarted on P.
    {
      Sim again(params, MPI_COMM_WORLD);
      const io::RestartShare share = io::read_restart_share(MPI_COMM_WORLD, ".", 1);
      // The header comes back as written (the ordering is a variable-length string attribute).
      const std::string written = p == 1 ? "morton" : (std::string(ordering) == "hilbert" ? "hilbert_skilling" : "ksection");
      EXPECT_EQ(share.meta.ordering, written);
      EXPECT_EQ(share.meta.ncpu, p);
      EXPECT_EQ(share.meta.step, kHalf);
      again.restart(share);
      // Same rank count and ordering: the stored walls are kept and no balance follows (§7.1).
      EXPECT_EQ(again.restarted_in_place(), p > 1);
      if (p > 1) {
        EXPECT_EQ(again.mesh().ksection_walls(), share.meta.ksection_walls);
        EXPECT_EQ(again.mesh().hilbert_bounds(), share.meta.hilbert_bounds);
        EXPECT_EQ(again.mesh().stats().redistributions, 1);  // the scatter, and nothing more
      }
      EXPECT_EQ(again.step(), kHalf);
      steps(again, kHalf);
      const auto cells = leaves(again, MPI_COMM_WORLD);
      if (world_rank() == 0) expect_identical(reference, cells, "written on P, restarted on P");
    }
    // Written on P, restarted on P with the other ordering: new walls, same results.
    {
      Sim cross(other, MPI_COMM_WORLD);
      cross.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 1));
      EXPECT_FALSE(cross.restarted_in_place());
      steps(cross, kHalf);
      const auto cells = leaves(cross, MPI_COMM_WORLD);
      if (world_rank() == 0) expect_identical(reference, cells, "written on P, restarted on P, other ordering");
    }
    // Written on P, restarted on 1.
    if (world_rank() == 0) {
      Sim one(other, MPI_COMM_SELF);
      one.restart(io::read_restart_share(MPI_COMM_SELF, ".", 1));
      steps(one, kHalf);
      expect_identical(reference, leaves(one, MPI_COMM_SELF), "written on P, restarted on 1");
    }
    // Written on 1, restarted on P.
    {
      Sim many(other, MPI_COMM_WORLD);
      many.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 2));
      EXPECT_FALSE(many.restarted_in_place());
      steps(many, kHalf);
      const auto cells = leaves(many, MPI_COMM_WORLD);
      if (world_rank() == 0) expect_identical(reference, cells, "written on 1, restarted on P");
    }
    // From 4 ranks on: written on 4, restarted on 3 and on all P (written on 4 and
    // restarted on 1, 3 and 8 in the np8 run, with "on 1" above).
    if (p >= 4) {
      run_and_write_on_first_ranks(4, params, 4, write);
      MPI_Comm three = first_ranks(3);
      if (three != MPI_COMM_NULL) {
        Sim on_three(other, three);
        on_three.restart(io::read_restart_share(three, ".", 4));
        steps(on_three, kHalf);
        const auto cells = leaves(on_three, three);
        if (world_rank() == 0) expect_identical(reference, cells, "written on 4, restarted on 3");
        MPI_Comm_free(&three);
      }
      Sim on_all(params, MPI_COMM_WORLD);
      on_all.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 4));
      steps(on_all, kHalf);
      const auto cells = leaves(on_all, MPI_COMM_WORLD);
      if (world_rank() == 0) expect_identical(reference, cells, "written on 4, restarted on P");
    }
  }
}

TEST_F(RestartTest, MissingOrTruncatedSnapshotIsAClearError) {
  const auto params = core::ParameterSet::from_text(restart_sedov("ksection"), "restart.nml");
  // No output_00007 here.
  try {
    io::read_restart_share(MPI_COMM_WORLD, ".", 7);
    ADD_FAILURE() << "a missing snapshot was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("output_00007/kosmo_00007.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  // A snapshot cut in half.
  {
    Sim sim(params, MPI_COMM_WORLD);
    sim.initialise();
    write(sim, MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    const auto h5 = std::filesystem::path("output_00003") / "kosmo_00003.h5";
    std::filesystem::resize_file(h5, std::filesystem::file_size(h5) / 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    Sim sim(params, MPI_COMM_WORLD);
    sim.restart(io::read_restart_share(MPI_COMM_WORLD, ".", 3));
    ADD_FAILURE() << "a truncated snapshot was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kosmo_00003.h5"), std::string::npos) << e.what();
  }
}

}  // namespace
