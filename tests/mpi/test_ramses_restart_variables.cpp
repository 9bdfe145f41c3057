// The variables of a RAMSES hydro_ file as the gas module reads them back for a restart
// (hydro::ramses_restart_conversion, io/cell_variable_conversion.hpp): passive scalars under
// RAMSES' own names (metallicity, scalar_NN of any number) fill the run's scalars in file order,
// each cell becomes density, momentum_* = rho v, total_energy and scalar_NN_density = rho s, and a
// file whose variables the run cannot take, or that lacks one it needs, is an error naming it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/ramses_writer.hpp"
#include "shared_temporary_directory.hpp"

namespace kosmo::io {
namespace {

constexpr int kCoarse = 2;  // level-1 octs per axis of the 2-D coarse grid
constexpr int kCells = 4;   // cells per 2-D oct
constexpr double kGamma = 5.0 / 3.0;

int mpi_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int mpi_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// The primitive state of cell c of oct k: variables density, velocity_x, velocity_y, pressure and
// two passive scalars, all distinct and none a power of two, so that every product is checked.
std::vector<double> primitive_of(int k, int c) {
  const double x = 1.0 + 0.1 * k + 0.01 * c;
  return {1.3 * x, -0.7 * x, 0.3 * x, 2.9 * x, 0.11 * x, 0.37 * x};
}

SnapshotMeta make_meta() {
  SnapshotMeta meta;
  meta.output_number = 1;
  meta.ndim = 2;
  meta.levelmin = 1;
  meta.levelmax = 1;
  meta.nx = meta.ny = kCoarse;
  meta.ncpu = mpi_size();
  meta.ordering = "ksection";
  // RAMSES' names for the passive scalars of a run with metal=.true.: the first is the metallicity.
  for (const char* name : {"density", "velocity_x", "velocity_y", "pressure", "metallicity", "scalar_07"})
    meta.fields.push_back({name, "code_units", 0});
  meta.parameters.push_back({"HYDRO_PARAMS", "gamma", "1.6666666666666667d0", true});
  return meta;
}

// The coarse level's octs, oct k (of kCoarse^2) on rank k % P.
std::vector<SnapshotLevel> make_levels(const SnapshotMeta& meta) {
  std::vector<SnapshotLevel> levels(1);
  levels[0].level = 1;
  levels[0].fields.assign(meta.fields.size(), {});
  for (int k = 0; k < kCoarse * kCoarse; ++k) {
    if (k % mpi_size() != mpi_rank()) continue;
    levels[0].oct_coordinates.push_back(k % kCoarse);
    levels[0].oct_coordinates.push_back(k / kCoarse);
    for (int c = 0; c < kCells; ++c) {
      levels[0].son_flags.push_back(0);
      const std::vector<double> q = primitive_of(k, c);
      for (std::size_t v = 0; v < q.size(); ++v) levels[0].fields[v].push_back(q[v]);
    }
  }
  return levels;
}

class RamsesRestartVariables : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = test::make_shared_temporary_directory("kosmo_ramses_variables");
    const SnapshotMeta meta = make_meta();
    write_ramses_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta));
  }
  void TearDown() override { test::remove_shared_temporary_directory(directory_); }

  // The message every rank gets from reading the output with `npassive` scalars ("" on success).
  std::string read_error(int npassive) const {
    try {
      read_ramses_restart_share(MPI_COMM_WORLD, directory_.string(), 1, hydro::ramses_restart_conversion<2>(npassive));
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path directory_;
};

TEST_F(RamsesRestartVariables, RamsesScalarNamesFillTheRunsScalarsInFileOrder) {
  const RestartShare share =
      read_ramses_restart_share(MPI_COMM_WORLD, directory_.string(), 1, hydro::ramses_restart_conversion<2>(2));
  EXPECT_EQ(share.restart_field_names, (std::vector<std::string>{"density", "momentum_x", "momentum_y", "total_energy",
                                                                 "scalar_01_density", "scalar_02_density"}));
  ASSERT_EQ(share.levels.size(), 1u);
  const SnapshotLevel& level = share.levels[0];
  ASSERT_EQ(level.restart_fields.size(), 6u);
  hydro::SchemeSettings settings;
  settings.gamma = kGamma;
  settings.npassive = 2;
  long long octs = 0, wrong = 0;
  double worst_energy = 0.0;
  for (std::size_t o = 0; o < level.oct_coordinates.size() / 2; ++o, ++octs) {
    const int k = static_cast<int>(level.oct_coordinates[2 * o] + kCoarse * level.oct_coordinates[2 * o + 1]);
    for (int c = 0; c < kCells; ++c) {
      const std::vector<double> q = primitive_of(k, c);
      double u[6], back[6];
      for (std::size_t f = 0; f < 6; ++f) u[f] = level.restart_fields[f][o * kCells + static_cast<std::size_t>(c)];
      // Products of two file values are exact in the sense of one rounding: compared bit for bit.
      wrong += u[0] != q[0];
      wrong += u[1] != q[0] * q[1] || u[2] != q[0] * q[2];
      wrong += u[4] != q[0] * q[4] || u[5] != q[0] * q[5];
      // The energy, through the solver's inverse conversion: the file's pressure to round-off.
      hydro::conservative_to_primitive<2>(u, back, settings);
      worst_energy = std::max(worst_energy, std::fabs(back[3] - q[3]) / q[3]);
    }
  }
  long long total = 0;
  MPI_Allreduce(&octs, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, kCoarse * kCoarse);  // every oct read once, over all ranks
  EXPECT_EQ(wrong, 0);
  EXPECT_LE(worst_energy, 1e-15);
}

TEST_F(RamsesRestartVariables, VariablesTheRunCannotTakeOrLacksAreErrorsNamingThem) {
  // One passive scalar: the file's second (scalar_07) has nowhere to go.
  std::string error = read_error(1);
  EXPECT_NE(error.find("hydro_file_descriptor.txt' lists the variable 'scalar_07'"), std::string::npos) << error;
  EXPECT_NE(error.find("npassive"), std::string::npos) << error;
  // Three: the file lacks the third.
  error = read_error(3);
  EXPECT_NE(error.find("lacks scalar_03"), std::string::npos) << error;
  EXPECT_EQ(read_error(2), "");
}

}  // namespace
}  // namespace kosmo::io
