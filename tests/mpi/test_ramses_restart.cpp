// Restarts from RAMSES binary outputs (informat='ramses'; docs/outputs.md, seeds/000 §7.2): a 3-D
// AMR Sedov blast written in both formats after N coarse steps and restarted from the RAMSES files
// (on all ranks, on rank 0 alone, and written on 4 / restarted on 3 from 4 ranks on) continues like
// the uninterrupted 2N-step run to <= 1e-12 relative. The RAMSES files hold primitive variables, so
// the restart state equals the HDF5 restart's only to round-off (<= 1e-14 relative is required).
// Missing, truncated and inconsistent files are clear errors naming the file.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "distributed_test_support.hpp"
#include "restart_test_support.hpp"
#include "driver/simulation.hpp"
#include "driver/mesh_snapshot.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/snapshot_reader.hpp"

using namespace kosmo;
using namespace kosmo::test;

namespace {

void write(const Sim& sim, MPI_Comm comm, int number) {
  write_snapshot_of(sim, comm, number, core::ParameterSet::from_text(restart_sedov("ksection", "both"), "ramses_restart.nml"));
}

class RamsesRestartTest : public FreshWorkingDirectory {};

// The gas module's reading of the hydro files of this file's 3-D Sedov runs (no passive scalar).
io::CellVariableConversion gas_conversion() { return hydro::ramses_restart_conversion<3>(0); }

// Same leaf cells (level and position), and per conservative variable the max-norm difference over
// the cells relative to the variable's max norm at most `tolerance`. Returns the largest ratio.
double expect_close(const std::vector<Cell>& a, const std::vector<Cell>& b, double tolerance, const char* what) {
  EXPECT_EQ(a.size(), b.size()) << what << ": different numbers of leaf cells";
  if (a.size() != b.size() || a.empty()) return 1.0;
  std::size_t moved = 0;
  for (std::size_t i = 0; i < a.size(); ++i) moved += std::equal(a[i].begin(), a[i].begin() + 4, b[i].begin()) ? 0 : 1;
  EXPECT_EQ(moved, 0u) << what << ": the leaf cells differ";
  double worst = 0.0;
  std::ostringstream line;
  for (std::size_t v = 4; v < a[0].size(); ++v) {
    double difference = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      difference = std::max(difference, std::fabs(a[i][v] - b[i][v]));
      scale = std::max(scale, std::fabs(a[i][v]));
    }
    const double relative = scale > 0.0 ? difference / scale : difference;
    EXPECT_LE(relative, tolerance) << what << ": variable " << v - 4;
    worst = std::max(worst, relative);
    line << ' ' << relative;
  }
  std::printf("  %s: %zu leaf cells, max relative difference per variable:%s\n", what, a.size(), line.str().c_str());
  return worst;
}

TEST_F(RamsesRestartTest, ContinuesLikeTheUninterruptedRunOnAnyRankCount) {
  const int p = world_size();
  const auto params = core::ParameterSet::from_text(restart_sedov("ksection", "both"), "ramses_restart.nml");
  const auto other = core::ParameterSet::from_text(restart_sedov("hilbert", "both"), "ramses_restart.nml");
  Sim whole(params, MPI_COMM_WORLD);
  whole.initialise();
  steps(whole, 2 * kHalf);
  const auto reference = leaves(whole, MPI_COMM_WORLD);

  // N steps on all ranks, snapshot 1 in both formats (P RAMSES files).
  {
    Sim first(params, MPI_COMM_WORLD);
    first.initialise();
    steps(first, kHalf);
    write(first, MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // The restart state from the RAMSES files against the HDF5 restart's: round-off only.
  {
    Sim from_hdf5(params, MPI_COMM_WORLD);
    const io::RestartShare hdf5 = io::read_restart_share(MPI_COMM_WORLD, ".", 1);
    from_hdf5.restart(hdf5);
    Sim from_ramses(params, MPI_COMM_WORLD);
    const io::RestartShare share = io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 1, gas_conversion());
    EXPECT_EQ(share.meta.step, kHalf);
    EXPECT_EQ(share.meta.ncpu, p);
    // The header, as the HDF5 file has it.
    EXPECT_EQ(share.meta.ordering, p == 1 ? "morton" : "ksection");  // a one-rank mesh is not distributed
    EXPECT_EQ(share.meta.ordering, hdf5.meta.ordering);
    EXPECT_EQ(share.meta.ndim, hdf5.meta.ndim);
    EXPECT_EQ(share.meta.levelmin, hdf5.meta.levelmin);
    EXPECT_EQ(share.meta.levelmax, hdf5.meta.levelmax);
    EXPECT_EQ(share.meta.nx, hdf5.meta.nx);
    EXPECT_EQ(share.meta.nz, hdf5.meta.nz);
    EXPECT_EQ(share.meta.boxlen, hdf5.meta.boxlen);
    EXPECT_EQ(share.meta.time, hdf5.meta.time);
    EXPECT_EQ(share.restart_field_names, hdf5.restart_field_names);
    from_ramses.restart(share);
    EXPECT_EQ(from_ramses.step(), from_hdf5.step());
    EXPECT_EQ(from_ramses.time(), from_hdf5.time());  // the AMR header's float64 t, exact
    const auto hdf5_cells = leaves(from_hdf5, MPI_COMM_WORLD);
    const auto ramses_cells = leaves(from_ramses, MPI_COMM_WORLD);
    if (world_rank() == 0) expect_close(hdf5_cells, ramses_cells, 1e-14, "restart state, RAMSES vs HDF5 files");
  }
  // Written on P, restarted on P from the RAMSES files.
  {
    Sim again(params, MPI_COMM_WORLD);
    again.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 1, gas_conversion()));
    EXPECT_EQ(again.step(), kHalf);
    steps(again, kHalf);
    const auto cells = leaves(again, MPI_COMM_WORLD);
    if (world_rank() == 0) expect_close(reference, cells, 1e-12, "RAMSES files written on P, restarted on P");
  }
  // Written on P, restarted on rank 0 alone (the other ordering in the run).
  if (world_rank() == 0) {
    Sim one(other, MPI_COMM_SELF);
    one.restart(io::read_ramses_restart_share(MPI_COMM_SELF, ".", 1, gas_conversion()));
    steps(one, kHalf);
    expect_close(reference, leaves(one, MPI_COMM_SELF), 1e-12, "RAMSES files written on P, restarted on 1");
  }
  // Written on rank 0 alone (one file), restarted on P: ranks beyond the file count read nothing.
  if (world_rank() == 0) {
    Sim alone(params, MPI_COMM_SELF);
    alone.initialise();
    steps(alone, kHalf);
    write(alone, MPI_COMM_SELF, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    Sim many(other, MPI_COMM_WORLD);
    many.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 2, gas_conversion()));
    steps(many, kHalf);
    const auto cells = leaves(many, MPI_COMM_WORLD);
    if (world_rank() == 0) expect_close(reference, cells, 1e-12, "RAMSES files written on 1, restarted on P");
  }
  // Written on P by a run with the Hilbert ordering, restarted on P with either ordering.
  {
    Sim hilbert(other, MPI_COMM_WORLD);
    hilbert.initialise();
    steps(hilbert, kHalf);
    write(hilbert, MPI_COMM_WORLD, 5);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const auto* run : {&params, &other}) {
    Sim again(*run, MPI_COMM_WORLD);
    again.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 5, gas_conversion()));
    steps(again, kHalf);
    const auto cells = leaves(again, MPI_COMM_WORLD);
    if (world_rank() == 0)
      expect_close(reference, cells, 1e-12,
                   run == &params ? "RAMSES files of a Hilbert run, restarted with k-section" : "RAMSES files of a Hilbert run, restarted with Hilbert");
  }
  // Written on 4 ranks, restarted on 3 (a rank count that does not divide the writer's).
  if (p >= 4) {
    run_and_write_on_first_ranks(4, params, 4, write);
    MPI_Comm three = first_ranks(3);
    if (three != MPI_COMM_NULL) {
      Sim on_three(params, three);
      const io::RestartShare share = io::read_ramses_restart_share(three, ".", 4, gas_conversion());
      EXPECT_EQ(share.meta.ncpu, 4);
      on_three.restart(share);
      steps(on_three, kHalf);
      const auto cells = leaves(on_three, three);
      if (world_rank() == 0) expect_close(reference, cells, 1e-12, "RAMSES files written on 4, restarted on 3");
      MPI_Comm_free(&three);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    // And on all P ranks (8 in the np8 run): more ranks than files.
    Sim on_all(params, MPI_COMM_WORLD);
    on_all.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", 4, gas_conversion()));
    steps(on_all, kHalf);
    const auto cells = leaves(on_all, MPI_COMM_WORLD);
    if (world_rank() == 0) expect_close(reference, cells, 1e-12, "RAMSES files written on 4, restarted on P");
  }
}

// The error message of reading output `number`'s RAMSES files on every rank ("" when none).
std::string restart_error(const core::ParameterSet& params, int number) {
  try {
    Sim sim(params, MPI_COMM_WORLD);
    sim.restart(io::read_ramses_restart_share(MPI_COMM_WORLD, ".", number, gas_conversion()));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(RamsesRestartTest, MissingTruncatedOrInconsistentFilesAreClearErrors) {
  const int p = world_size();
  const auto params = core::ParameterSet::from_text(restart_sedov("ksection", "both"), "ramses_restart.nml");
  {
    Sim sim(params, MPI_COMM_WORLD);
    sim.initialise();
    for (int number : {3, 5, 6, 8}) write(sim, MPI_COMM_WORLD, number);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char last[16];
  std::snprintf(last, sizeof last, "%05d", p);
  if (world_rank() == 0) {
    // 3: the last cpu's amr file deleted (the second of two or more files from 2 ranks on).
    std::filesystem::remove(std::string("output_00003/amr_00003.out") + last);
    // 5: a hydro file cut short.
    const auto hydro = std::filesystem::path("output_00005") / "hydro_00005.out00001";
    std::filesystem::resize_file(hydro, std::filesystem::file_size(hydro) * 2 / 3);
    // 6: the info file claims ndim=2.
    std::ifstream in("output_00006/info_00006.txt");
    std::stringstream text;
    text << in.rdbuf();
    std::string info = text.str();
    const auto at = info.find("ndim        =          3");
    ASSERT_NE(at, std::string::npos);
    info.replace(at, 24, "ndim        =          2");
    std::ofstream("output_00006/info_00006.txt") << info;
    // 8: the trailing marker of the amr file's first record (ncpu) overwritten.
    std::fstream amr("output_00008/amr_00008.out00001", std::ios::in | std::ios::out | std::ios::binary);
    const std::int32_t wrong = 5;
    amr.seekp(8);
    amr.write(reinterpret_cast<const char*>(&wrong), sizeof wrong);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  std::string error = restart_error(params, 3);
  if (world_rank() == 0) std::printf("  errors: %s\n", error.c_str());
  EXPECT_NE(error.find(std::string("output_00003/amr_00003.out") + last + " is missing: the info file says ncpu=" +
                       std::to_string(p)),
            std::string::npos)
      << error;
  error = restart_error(params, 5);
  if (world_rank() == 0) std::printf("  errors: %s\n", error.c_str());
  EXPECT_NE(error.find("output_00005/hydro_00005.out00001"), std::string::npos) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  error = restart_error(params, 6);
  EXPECT_NE(error.find("output_00006/amr_00006.out00001"), std::string::npos) << error;
  EXPECT_NE(error.find("ndim=2"), std::string::npos) << error;
  if (world_rank() == 0) std::printf("  errors: %s\n", error.c_str());
  error = restart_error(params, 8);
  EXPECT_NE(error.find("output_00008/amr_00008.out00001"), std::string::npos) << error;
  EXPECT_NE(error.find("record marker mismatch"), std::string::npos) << error;
  if (world_rank() == 0) std::printf("  errors: %s\n", error.c_str());
  // No output_00007 at all.
  error = restart_error(params, 7);
  EXPECT_NE(error.find("output_00007/info_00007.txt' does not exist"), std::string::npos) << error;
}

}  // namespace
