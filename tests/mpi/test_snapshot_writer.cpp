// The snapshot writer on 1..4 ranks: every rank writes a different number of octs (some none),
// rank 0 reads the file back with the plain HDF5 C API and checks that every value sits at its
// global position; failures must reach every rank and leave an existing output untouched.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/info_file.hpp"
#include "io/snapshot_reader.hpp"
#include "io/snapshot_writer.hpp"
#include "shared_temporary_directory.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;

constexpr int kLevelmax = 4;  // level 4 is empty on every rank
constexpr int kNx = 16;       // wide enough for every oct coordinate below

int mpi_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int mpi_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// Octs that rank r writes at level l: uneven, and zero for some (rank, level) pairs.
long long octs_of(int rank, int level) { return level == kLevelmax ? 0 : (3 * rank + level) % 4; }
long long offset_of(int rank, int level) {
  long long offset = 0;
  for (int r = 0; r < rank; ++r) offset += octs_of(r, level);
  return offset;
}
long long total_of(int level) { return offset_of(mpi_size(), level); }

// Every stored value encodes where it belongs: level, global oct index g, cell c, field f.
std::int64_t coordinate_value(int level, long long g, int axis) { return axis == 0 ? g : (axis == 1 ? level : g % 2); }
std::uint8_t son_value(long long g, int c) { return static_cast<std::uint8_t>((g + c) % 2); }
double field_value(int level, long long g, int c, int f) { return level * 1e6 + g * 1e3 + c * 10.0 + f; }

SnapshotMeta make_meta(int ndim, int output_number) {
  SnapshotMeta meta;
  meta.output_number = output_number;
  meta.ndim = ndim;
  meta.levelmin = 2;
  meta.levelmax = kLevelmax;
  meta.nx = kNx;
  meta.ny = ndim > 1 ? kNx : 1;
  meta.nz = ndim > 2 ? kNx : 1;
  meta.boxlen = 4.0;
  meta.time = 1.25;
  meta.step = 17;
  meta.ncpu = mpi_size();
  meta.unit_l = 3.0856776e21;
  meta.unit_d = 1.6726e-24;
  meta.unit_t = 3.15576e13;
  meta.ordering = "ksection";
  meta.fields = {{"density", "code_density", -3}, {"pressure", "code_pressure", -5}};
  meta.restart_fields = {{"total_energy", "code_energy_density", -5}};
  meta.ksection_walls = {0.0, 0.5, 4.0, 0.0, 1.25, 0.5};
  meta.hilbert_bounds = {0, 7, 1ULL << 57};
  meta.parameters = {{"RUN_PARAMS", "hydro", ".true.", true},
                     {"AMR_PARAMS", "levelmax", "4", false},
                     {"OUTPUT_PARAMS", "tout", "0.5d0,1.0d0,2.5d0", true}};
  return meta;
}

std::vector<SnapshotLevel> make_levels(int ndim) {
  const int rank = mpi_rank();
  const int cells = 1 << ndim;
  std::vector<SnapshotLevel> levels(kLevelmax);
  for (int l = 1; l <= kLevelmax; ++l) {
    SnapshotLevel& level = levels[static_cast<std::size_t>(l - 1)];
    level.level = l;
    level.fields.resize(2);
    level.restart_fields.resize(1);
    for (long long o = 0; o < octs_of(rank, l); ++o) {
      const long long g = offset_of(rank, l) + o;
      for (int d = 0; d < ndim; ++d) level.oct_coordinates.push_back(coordinate_value(l, g, d));
      for (int c = 0; c < cells; ++c) {
        level.son_flags.push_back(son_value(g, c));
        for (int f = 0; f < 2; ++f) level.fields[static_cast<std::size_t>(f)].push_back(field_value(l, g, c, f));
        level.restart_fields[0].push_back(field_value(l, g, c, 7));
      }
    }
  }
  return levels;
}

// ---- reading back with the plain HDF5 C API (rank 0 only) ------------------------------------

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("reading back: " + what);
}

struct File {
  explicit File(const fs::path& path) : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {
    require(id >= 0, "open " + path.string());
  }
  ~File() { H5Fclose(id); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  hid_t id;
};

template <class T>
T scalar_attribute(hid_t object, const char* name, hid_t memory_type) {
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  require(attribute >= 0, std::string("attribute ") + name);
  T value{};
  const herr_t status = H5Aread(attribute, memory_type, &value);
  H5Aclose(attribute);
  require(status >= 0, std::string("read attribute ") + name);
  return value;
}

std::string string_attribute(hid_t object, const char* name) {
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  require(attribute >= 0, std::string("attribute ") + name);
  const hid_t stored = H5Aget_type(attribute);
  require(H5Tis_variable_str(stored) > 0, std::string(name) + " is a variable-length string");
  H5Tclose(stored);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  char* text = nullptr;
  const herr_t status = H5Aread(attribute, type, &text);
  std::string value = status >= 0 && text ? text : "";
  if (text) H5free_memory(text);
  H5Tclose(type);
  H5Aclose(attribute);
  require(status >= 0, std::string("read attribute ") + name);
  return value;
}

template <class T>
std::vector<T> read_dataset(hid_t file, const std::string& path, hid_t memory_type, std::vector<hsize_t>& dims) {
  const hid_t dataset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  require(dataset >= 0, "open " + path);
  const hid_t space = H5Dget_space(dataset);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  std::vector<T> values(count);
  herr_t status = 0;
  if (count > 0) status = H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(dataset);
  require(status >= 0, "read " + path);
  return values;
}

std::vector<std::string> string_column(hid_t file, const std::string& path) {
  const hid_t dataset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  require(dataset >= 0, "open " + path);
  const hid_t type = H5Dget_type(dataset);
  const std::size_t width = H5Tget_size(type);
  const hid_t space = H5Dget_space(dataset);
  const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  std::vector<char> packed(rows * width + 1, '\0');
  const herr_t status = rows ? H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()) : 0;
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(dataset);
  require(status >= 0, "read " + path);
  std::vector<std::string> values;
  for (std::size_t row = 0; row < rows; ++row) {
    std::string value(&packed[row * width], width);
    value.resize(value.find('\0') == std::string::npos ? width : value.find('\0'));
    values.push_back(value);
  }
  return values;
}

std::string file_contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- fixture: a fresh directory shared by all ranks --------------------------------------------

class SnapshotWriter : public ::testing::Test {
 protected:
  void SetUp() override { directory_ = test::make_shared_temporary_directory("kosmo_snapshot"); }
  void TearDown() override { test::remove_shared_temporary_directory(directory_); }
  fs::path directory_;
};

// Checks every attribute, table and value of one written snapshot (rank 0).
void check_snapshot(const fs::path& output, const SnapshotMeta& meta) {
  const int ndim = meta.ndim;
  const int cells = 1 << ndim;
  char number[8];
  std::snprintf(number, sizeof number, "%05d", meta.output_number);
  File file(output / ("kosmo_" + std::string(number) + ".h5"));
  const hid_t root = file.id;
  EXPECT_EQ(string_attribute(root, "format"), "kosmo");
  EXPECT_EQ(scalar_attribute<int>(root, "format_version", H5T_NATIVE_INT), 1);
  EXPECT_EQ(string_attribute(root, "kosmo_version"), "0.1.0");
  EXPECT_EQ(scalar_attribute<int>(root, "ndim", H5T_NATIVE_INT), ndim);
  EXPECT_EQ(scalar_attribute<int>(root, "levelmin", H5T_NATIVE_INT), meta.levelmin);
  EXPECT_EQ(scalar_attribute<int>(root, "levelmax", H5T_NATIVE_INT), kLevelmax);
  EXPECT_EQ(scalar_attribute<int>(root, "nx", H5T_NATIVE_INT), meta.nx);
  EXPECT_EQ(scalar_attribute<int>(root, "ny", H5T_NATIVE_INT), meta.ny);
  EXPECT_EQ(scalar_attribute<int>(root, "nz", H5T_NATIVE_INT), meta.nz);
  EXPECT_EQ(scalar_attribute<double>(root, "boxlen", H5T_NATIVE_DOUBLE), meta.boxlen);
  EXPECT_EQ(scalar_attribute<double>(root, "time", H5T_NATIVE_DOUBLE), meta.time);
  EXPECT_EQ(scalar_attribute<double>(root, "aexp", H5T_NATIVE_DOUBLE), meta.aexp);
  EXPECT_EQ(scalar_attribute<long long>(root, "step", H5T_NATIVE_LLONG), meta.step);
  EXPECT_EQ(scalar_attribute<int>(root, "ncpu", H5T_NATIVE_INT), mpi_size());
  EXPECT_EQ(scalar_attribute<double>(root, "unit_l", H5T_NATIVE_DOUBLE), meta.unit_l);
  EXPECT_EQ(scalar_attribute<double>(root, "unit_d", H5T_NATIVE_DOUBLE), meta.unit_d);
  EXPECT_EQ(scalar_attribute<double>(root, "unit_t", H5T_NATIVE_DOUBLE), meta.unit_t);
  EXPECT_EQ(string_attribute(root, "ordering"), "ksection");

  std::vector<hsize_t> dims;
  EXPECT_EQ(string_column(root, "/fields/name"), (std::vector<std::string>{"density", "pressure"}));
  EXPECT_EQ(string_column(root, "/fields/units"), (std::vector<std::string>{"code_density", "code_pressure"}));
  EXPECT_EQ(read_dataset<int>(root, "/fields/comoving_exponent", H5T_NATIVE_INT, dims), (std::vector<int>{-3, -5}));
  EXPECT_EQ(string_column(root, "/parameters/block"),
            (std::vector<std::string>{"RUN_PARAMS", "AMR_PARAMS", "OUTPUT_PARAMS"}));
  EXPECT_EQ(string_column(root, "/parameters/name"), (std::vector<std::string>{"hydro", "levelmax", "tout"}));
  EXPECT_EQ(string_column(root, "/parameters/value"),
            (std::vector<std::string>{".true.", "4", "0.5d0,1.0d0,2.5d0"}));
  EXPECT_EQ(read_dataset<std::uint8_t>(root, "/parameters/from_file", H5T_NATIVE_UINT8, dims),
            (std::vector<std::uint8_t>{1, 0, 1}));
  EXPECT_EQ(string_column(root, "/restart_fields/name"), (std::vector<std::string>{"total_energy"}));
  EXPECT_EQ(read_dataset<double>(root, "/decomposition/ksection_walls", H5T_NATIVE_DOUBLE, dims), meta.ksection_walls);
  EXPECT_EQ(read_dataset<std::uint64_t>(root, "/decomposition/hilbert_bounds", H5T_NATIVE_UINT64, dims), meta.hilbert_bounds);

  for (int l = 1; l <= kLevelmax; ++l) {
    char group[16];
    std::snprintf(group, sizeof group, "/level_%02d", l);
    const long long total = total_of(l);
    const hid_t level_group = H5Gopen2(root, group, H5P_DEFAULT);
    require(level_group >= 0, std::string("open ") + group);
    EXPECT_EQ(scalar_attribute<long long>(level_group, "noct", H5T_NATIVE_LLONG), total) << group;
    H5Gclose(level_group);

    const auto coordinates =
        read_dataset<std::int64_t>(root, std::string(group) + "/oct_coordinates", H5T_NATIVE_INT64, dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(ndim)})) << group;
    const auto sons = read_dataset<std::uint8_t>(root, std::string(group) + "/son_flags", H5T_NATIVE_UINT8, dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(cells)})) << group;
    std::vector<std::vector<double>> fields;
    for (const char* name : {"density", "pressure"}) {
      fields.push_back(read_dataset<double>(root, std::string(group) + "/fields/" + name, H5T_NATIVE_DOUBLE, dims));
      ASSERT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(cells)})) << group;
    }
    const auto restart = read_dataset<double>(root, std::string(group) + "/restart/total_energy", H5T_NATIVE_DOUBLE, dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(total), static_cast<hsize_t>(cells)})) << group;
    long long mismatches = 0;
    for (long long g = 0; g < total; ++g) {
      for (int d = 0; d < ndim; ++d) mismatches += coordinates[g * ndim + d] != coordinate_value(l, g, d);
      for (int c = 0; c < cells; ++c) {
        mismatches += sons[g * cells + c] != son_value(g, c);
        for (int f = 0; f < 2; ++f) mismatches += fields[f][g * cells + c] != field_value(l, g, c, f);
        mismatches += restart[g * cells + c] != field_value(l, g, c, 7);
      }
    }
    EXPECT_EQ(mismatches, 0) << group << ": values away from their global position";
  }
}

long long total_octs() {
  long long total = 0;
  for (int l = 1; l <= kLevelmax; ++l) total += total_of(l);
  return total;
}

TEST_F(SnapshotWriter, EveryValueLandsAtItsGlobalPosition) {
  for (int ndim = 1; ndim <= 3; ++ndim) {
    const SnapshotMeta meta = make_meta(ndim, 40 + ndim);
    write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(ndim));
    if (mpi_rank() != 0) continue;
    const fs::path output = directory_ / output_directory_name(meta.output_number);
    SCOPED_TRACE("ndim = " + std::to_string(ndim));
    EXPECT_TRUE(fs::is_directory(output));
    EXPECT_FALSE(fs::exists(directory_ / (output_directory_name(meta.output_number) + ".tmp")));
    check_snapshot(output, meta);
    char number[8];
    std::snprintf(number, sizeof number, "%05d", meta.output_number);
    EXPECT_EQ(file_contents(output / ("info_" + std::string(number) + ".txt")), format_info_file(meta, total_octs()));
  }
}

// The other half of the round trip: kosmo's restart reader gives every rank a share of the rows,
// and together the shares are the written values bit for bit, whatever rank wrote what.
TEST_F(SnapshotWriter, RestartReaderReadsBackWhatWasWritten) {
  for (int ndim = 1; ndim <= 3; ++ndim) {
    const SnapshotMeta meta = make_meta(ndim, 50 + ndim);
    write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(ndim));
    const kosmo::io::RestartShare share = kosmo::io::read_restart_share(MPI_COMM_WORLD, directory_.string(), meta.output_number);
    SCOPED_TRACE("ndim = " + std::to_string(ndim));
    EXPECT_EQ(share.meta.ndim, ndim);
    EXPECT_EQ(share.meta.time, meta.time);
    EXPECT_EQ(share.meta.step, meta.step);
    EXPECT_EQ(share.meta.ordering, meta.ordering);
    EXPECT_EQ(share.meta.ksection_walls, meta.ksection_walls);
    EXPECT_EQ(share.meta.hilbert_bounds, meta.hilbert_bounds);
    EXPECT_EQ(share.restart_field_names, (std::vector<std::string>{"total_energy"}));
    const int cells = 1 << ndim;
    long long mismatches = 0, rows = 0;
    for (int l = 1; l <= kLevelmax; ++l) {
      const auto& level = share.levels[static_cast<std::size_t>(l - 1)];
      const long long n = static_cast<long long>(level.oct_coordinates.size()) / ndim;
      // This rank's share: rows [total r / P, total (r + 1) / P).
      const long long first = total_of(l) * mpi_rank() / mpi_size();
      for (long long i = 0; i < n; ++i) {
        const long long g = first + i;
        for (int d = 0; d < ndim; ++d) mismatches += level.oct_coordinates[static_cast<std::size_t>(i * ndim + d)] != coordinate_value(l, g, d);
        for (int c = 0; c < cells; ++c) mismatches += level.restart_fields[0][static_cast<std::size_t>(i * cells + c)] != field_value(l, g, c, 7);
      }
      rows += n;
    }
    EXPECT_EQ(mismatches, 0);
    long long all_rows = 0;
    MPI_Allreduce(&rows, &all_rows, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all_rows, total_octs());
  }
}

TEST_F(SnapshotWriter, ReplacesAnExistingOutputAndCleansStaleTemporaries) {
  SnapshotMeta meta = make_meta(3, 7);
  const fs::path output = directory_ / "output_00007";
  const fs::path temporary = directory_ / "output_00007.tmp";
  if (mpi_rank() == 0) {
    // Leftovers of an interrupted run: a stale temporary and an older output.
    fs::create_directories(temporary);
    std::ofstream(temporary / "junk") << "junk";
    fs::create_directories(output);
    std::ofstream(output / "old_file") << "old";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  meta.time = 3.5;
  write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(3));
  if (mpi_rank() != 0) return;
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_FALSE(fs::exists(directory_ / "output_00007.old"));
  EXPECT_FALSE(fs::exists(output / "old_file"));
  EXPECT_FALSE(fs::exists(output / "junk"));
  check_snapshot(output, meta);
}

TEST_F(SnapshotWriter, InconsistentLevelOnOneRankThrowsEverywhereAndKeepsTheOldOutput) {
  const SnapshotMeta meta = make_meta(3, 3);
  write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(3));
  const fs::path output = directory_ / "output_00003";
  std::string info_before, h5_before;
  if (mpi_rank() == 0) {
    info_before = file_contents(output / "info_00003.txt");
    h5_before = file_contents(output / "kosmo_00003.h5");
  }

  // Only the last rank hands over a broken level: every rank must still throw.
  SnapshotMeta newer = meta;
  newer.time = 99.0;
  std::vector<SnapshotLevel> levels = make_levels(3);
  if (mpi_rank() == mpi_size() - 1) levels[1].son_flags.push_back(0);
  std::string message;
  try {
    write_snapshot(MPI_COMM_WORLD, directory_.string(), newer, levels);
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("son_flags"), std::string::npos) << "message: " << message;
  EXPECT_NE(message.find("rank " + std::to_string(mpi_size() - 1)), std::string::npos) << "message: " << message;

  if (mpi_rank() != 0) return;
  EXPECT_EQ(file_contents(output / "info_00003.txt"), info_before);
  EXPECT_EQ(file_contents(output / "kosmo_00003.h5"), h5_before);
  EXPECT_FALSE(fs::exists(directory_ / "output_00003.tmp"));
  check_snapshot(output, meta);
}

TEST_F(SnapshotWriter, FieldArrayOfWrongSizeIsRefused) {
  std::vector<SnapshotLevel> levels = make_levels(2);
  levels[0].fields[1].push_back(1.0);  // every rank, so the level-1 list is wrong everywhere
  EXPECT_THROW(write_snapshot(MPI_COMM_WORLD, directory_.string(), make_meta(2, 5), levels), Error);
  if (mpi_rank() == 0) {
    EXPECT_FALSE(fs::exists(directory_ / "output_00005.tmp"));
  }
}

TEST_F(SnapshotWriter, DirectoryFailureOnRankZeroReachesEveryRank) {
  // The parent "directory" is a regular file, so rank 0 cannot create output_00001.tmp in it.
  const fs::path blocker = directory_ / "not_a_directory";
  if (mpi_rank() == 0) std::ofstream(blocker) << "x";
  MPI_Barrier(MPI_COMM_WORLD);
  std::string message;
  try {
    write_snapshot(MPI_COMM_WORLD, blocker.string(), make_meta(3, 1), make_levels(3));
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("output_00001.tmp"), std::string::npos) << "message: " << message;
}

TEST_F(SnapshotWriter, MetaThatDiffersBetweenRanksIsRefused) {
  if (mpi_size() < 2) GTEST_SKIP() << "needs two ranks";
  SnapshotMeta meta = make_meta(3, 2);
  meta.time += mpi_rank();
  EXPECT_THROW(write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(3)), Error);
  if (mpi_rank() == 0) {
    EXPECT_FALSE(fs::exists(directory_ / "output_00002"));
  }
}

}  // namespace
}  // namespace kosmo::io
