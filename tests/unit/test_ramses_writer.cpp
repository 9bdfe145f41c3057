// The RAMSES writer (io/ramses_writer.hpp) read back record by record with a tiny Fortran-record
// reader: markers, record counts and lengths, numbl, xg, son/father links and field values bit for
// bit (layouts: shared/reference/ramses-format.md). The collective test runs on every rank of
// MPI_COMM_WORLD (1 under ctest; `mpirun -np 2` exercises the ghost-oct exchange). With
// KOSMO_RAMSES_TEST_OUTPUT=<dir> its output_00007/ is left there for loading with yt.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/ramses_writer.hpp"

namespace {

namespace fs = std::filesystem;
using kosmo::io::RamsesDomain;
using kosmo::io::SnapshotLevel;
using kosmo::io::SnapshotMeta;

// Every record of a Fortran sequential file; fails the test on a bad marker pair.
std::vector<std::vector<char>> read_records(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::vector<char>> records;
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::int32_t head = 0, tail = 0;
    EXPECT_LE(at + 4, bytes.size());
    std::memcpy(&head, &bytes[at], 4);
    EXPECT_GE(head, 0);
    EXPECT_LE(at + 8 + static_cast<std::size_t>(head), bytes.size()) << path << ": record runs past the end";
    if (head < 0 || at + 8 + static_cast<std::size_t>(head) > bytes.size()) break;
    std::memcpy(&tail, &bytes[at + 4 + static_cast<std::size_t>(head)], 4);
    EXPECT_EQ(head, tail) << path << ": record markers differ at byte " << at;
    records.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(at + 4),
                         bytes.begin() + static_cast<std::ptrdiff_t>(at + 4 + static_cast<std::size_t>(head)));
    at += 8 + static_cast<std::size_t>(head);
  }
  return records;
}

template <class T>
std::vector<T> as(const std::vector<char>& record) {
  EXPECT_EQ(record.size() % sizeof(T), 0u);
  std::vector<T> values(record.size() / sizeof(T));
  std::memcpy(values.data(), record.data(), values.size() * sizeof(T));
  return values;
}

double density_at(const double* x) { return 1.0 + x[0] + 2.0 * x[1] + 3.0 * x[2] + 1.0 / 3.0; }

// A mesh refined everywhere below levelmin and, above it, in cells whose centre lies within 0.3 of
// (0.3, 0.4, 0.5) (box units, nx = ny = nz = 1); fields density and velocity_x = -x.
std::vector<SnapshotLevel> make_mesh(int ndim, int levelmin, int levelmax) {
  const int nchild = 1 << ndim;
  std::vector<SnapshotLevel> levels(static_cast<std::size_t>(levelmax));
  std::vector<std::int64_t> octs(static_cast<std::size_t>(ndim), 0);  // level 1: the root oct
  for (int l = 1; l <= levelmax; ++l) {
    SnapshotLevel& level = levels[static_cast<std::size_t>(l - 1)];
    level.level = l;
    level.oct_coordinates = octs;
    level.fields.assign(2, {});
    std::vector<std::int64_t> children;
    const double dx = std::ldexp(1.0, -l);
    for (std::size_t o = 0; o * static_cast<std::size_t>(ndim) < octs.size(); ++o) {
      for (int child = 0; child < nchild; ++child) {
        double x[3] = {0.5, 0.5, 0.5}, r2 = 0.0;
        const double centre[3] = {0.3, 0.4, 0.5};
        std::int64_t cell[3] = {0, 0, 0};
        for (int d = 0; d < ndim; ++d) {
          cell[d] = 2 * octs[o * static_cast<std::size_t>(ndim) + static_cast<std::size_t>(d)] + ((child >> d) & 1);
          x[d] = (static_cast<double>(cell[d]) + 0.5) * dx;
          r2 += (x[d] - centre[d]) * (x[d] - centre[d]);
        }
        const bool refined = l < levelmax && (l < levelmin || r2 < 0.09);
        level.son_flags.push_back(refined ? 1 : 0);
        if (refined) children.insert(children.end(), cell, cell + ndim);
        level.fields[0].push_back(density_at(x));
        level.fields[1].push_back(-x[0]);
      }
    }
    octs = children;
  }
  return levels;
}

SnapshotMeta make_meta(int ndim, int levelmin, int levelmax, int ncpu) {
  SnapshotMeta meta;
  meta.output_number = 7;
  meta.ndim = ndim;
  meta.levelmin = levelmin;
  meta.levelmax = levelmax;
  meta.time = 0.125;
  meta.step = 3;
  meta.ncpu = ncpu;
  meta.ordering = "ksection";
  meta.fields = {{"density", "code_density", 0}, {"velocity_x", "code_velocity", 0}};
  meta.parameters = {{"HYDRO_PARAMS", "gamma", "1.6666667d0", true}};
  return meta;
}

fs::path scratch(const std::string& name) {
  const fs::path path = fs::temp_directory_path() / ("kosmo_test_ramses_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

// Checks one cpu's amr and hydro files against the blocks they were written from.
void check_domain_files(const fs::path& directory, const SnapshotMeta& meta, const RamsesDomain& domain) {
  const int ndim = meta.ndim, nchild = 1 << ndim, ncpu = meta.ncpu, nlevel = meta.levelmax;
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "_%05d.out%05d", meta.output_number, domain.cpu);
  const auto amr = read_records(directory / ("amr" + std::string(suffix)));
  const auto hydro = read_records(directory / ("hydro" + std::string(suffix)));

  long long ngrid = 0;
  std::vector<std::int32_t> expected_numbl;
  for (int l = 0; l < nlevel; ++l)
    for (int c = 0; c < ncpu; ++c) {
      const auto n = static_cast<std::int32_t>(domain.blocks[l][c].oct_coordinates.size() / ndim);
      expected_numbl.push_back(n);
      ngrid += n;
    }
  std::size_t nonempty = 0;
  for (auto n : expected_numbl) nonempty += n > 0 ? 1 : 0;
  const std::size_t per_block = 3 + ndim + 1 + 2 * ndim + 3 * nchild;
  ASSERT_EQ(amr.size(), 29 + nonempty * per_block);  // header records 1-23, 27-32 (no boundaries)
  EXPECT_EQ(as<std::int32_t>(amr[0]), std::vector<std::int32_t>{ncpu});
  EXPECT_EQ(as<std::int32_t>(amr[1]), std::vector<std::int32_t>{ndim});
  EXPECT_EQ(as<std::int32_t>(amr[2]), (std::vector<std::int32_t>{1, 1, 1}));
  EXPECT_EQ(as<std::int32_t>(amr[3]), std::vector<std::int32_t>{nlevel});
  const std::int32_t ngridmax = as<std::int32_t>(amr[4])[0];
  EXPECT_EQ(ngridmax, domain.ngridmax);
  EXPECT_EQ(as<std::int32_t>(amr[6]), std::vector<std::int32_t>{static_cast<std::int32_t>(ngrid)});
  EXPECT_EQ(as<double>(amr[11]), std::vector<double>{meta.time});
  EXPECT_EQ(as<std::int32_t>(amr[21]), expected_numbl);
  EXPECT_EQ(amr[22].size(), 40u * nlevel);  // numbtot(1:10, 1:nlevelmax) as int32
  EXPECT_EQ(amr[23].size(), 20u);           // yt requires exactly 5 integers
  EXPECT_EQ(std::string(amr[24].begin(), amr[24].begin() + 7), "hilbert");
  EXPECT_EQ(amr[24].size(), 128u);
  EXPECT_EQ(amr[25].size(), 8u * (ncpu + 1));
  EXPECT_EQ(as<std::int32_t>(amr[26])[0], 1);  // the coarse cell's son: the root grid

  // Grids: position, father and sons, by grid index.
  struct Grid {
    int level;
    std::vector<double> xg;
    std::int32_t father;
    std::vector<std::int32_t> son, flag;
  };
  std::map<std::int32_t, Grid> grids;
  std::size_t r = 29, block_index = 0;
  for (int l = 1; l <= nlevel; ++l)
    for (int c = 1; c <= ncpu; ++c, ++block_index) {
      const auto n = static_cast<std::size_t>(expected_numbl[block_index]);
      if (n == 0) continue;
      const SnapshotLevel& block = domain.blocks[l - 1][c - 1];
      for (std::size_t k = 0; k < per_block; ++k) EXPECT_EQ(amr[r + k].size(), n * (k >= 3 && k < 3u + ndim ? 8 : 4));
      const auto index = as<std::int32_t>(amr[r]);
      for (std::size_t o = 0; o < n; ++o) {
        Grid grid{l, {}, as<std::int32_t>(amr[r + 3 + ndim])[o], {}, {}};
        for (int d = 0; d < ndim; ++d) {
          grid.xg.push_back(as<double>(amr[r + 3 + d])[o]);
          EXPECT_EQ(grid.xg.back(), (block.oct_coordinates[o * ndim + d] + 0.5) * std::ldexp(1.0, 1 - l));
        }
        for (int k = 0; k < nchild; ++k) {
          grid.son.push_back(as<std::int32_t>(amr[r + 4 + 3 * ndim + k])[o]);
          EXPECT_EQ(as<std::int32_t>(amr[r + 4 + 3 * ndim + nchild + k])[o], c);  // cpu_map
          grid.flag.push_back(as<std::int32_t>(amr[r + 4 + 3 * ndim + 2 * nchild + k])[o]);
          EXPECT_EQ(grid.flag.back(), block.son_flags[o * nchild + k]);
          if (c == domain.cpu) {
            EXPECT_EQ(grid.son.back() > 0, grid.flag.back() == 1);
          }
        }
        grids[index[o]] = grid;
      }
      r += per_block;
    }
  for (const auto& [index, grid] : grids)
    for (int k = 0; k < nchild; ++k) {
      if (grid.son[k] == 0) continue;
      ASSERT_TRUE(grids.count(grid.son[k])) << "son of grid " << index << " is not in the file";
      const Grid& child = grids.at(grid.son[k]);
      EXPECT_EQ(child.level, grid.level + 1);
      EXPECT_EQ(child.father, 1 + k * ngridmax + index);  // ncoarse + (ind-1) ngridmax + grid
      for (int d = 0; d < ndim; ++d)
        EXPECT_EQ(child.xg[d], grid.xg[d] + (((k >> d) & 1) - 0.5) * std::ldexp(1.0, -grid.level));
    }

  // Hydro: header, then (ilevel, ncache) for every block and 2^ndim * nvar records when ncache > 0.
  ASSERT_EQ(hydro.size(), 6 + 2 * nlevel * ncpu + nonempty * nchild * meta.fields.size());
  EXPECT_EQ(as<std::int32_t>(hydro[1]), std::vector<std::int32_t>{2});
  EXPECT_EQ(as<double>(hydro[5]), std::vector<double>{1.6666667});
  r = 6;
  block_index = 0;
  for (int l = 1; l <= nlevel; ++l)
    for (int c = 1; c <= ncpu; ++c, ++block_index) {
      EXPECT_EQ(as<std::int32_t>(hydro[r++]), std::vector<std::int32_t>{l});
      EXPECT_EQ(as<std::int32_t>(hydro[r++]), std::vector<std::int32_t>{expected_numbl[block_index]});
      const SnapshotLevel& block = domain.blocks[l - 1][c - 1];
      for (int k = 0; k < nchild && expected_numbl[block_index] > 0; ++k)
        for (std::size_t f = 0; f < meta.fields.size(); ++f) {
          const auto values = as<double>(hydro[r++]);
          for (std::size_t o = 0; o < values.size(); ++o)
            EXPECT_EQ(std::memcmp(&values[o], &block.fields[f][o * nchild + k], 8), 0)
                << "level " << l << " field " << f;
        }
    }
}

// One cpu: every oct in its own block; ngridmax = the number of octs.
RamsesDomain single_domain(const std::vector<SnapshotLevel>& levels, int ndim) {
  RamsesDomain domain;
  for (const auto& level : levels) {
    domain.blocks.push_back({level});
    domain.ngridmax += static_cast<long long>(level.oct_coordinates.size()) / ndim;
  }
  return domain;
}

TEST(RamsesWriter, ThreeDimensionalTwoLevelMeshReadsBack) {
  const SnapshotMeta meta = make_meta(3, 2, 4, 1);
  auto levels = make_mesh(3, 2, 4);
  ASSERT_GT(levels[3].oct_coordinates.size(), 0u);
  const RamsesDomain domain = single_domain(levels, 3);
  const fs::path directory = scratch("3d");
  kosmo::io::write_ramses_domain_files(directory, meta, domain, 1.6666667);
  check_domain_files(directory, meta, domain);
  for (const auto& entry : fs::directory_iterator(directory))
    EXPECT_EQ(entry.path().extension(), ".out00001") << "left behind: " << entry.path();
  fs::remove_all(directory);
}

TEST(RamsesWriter, TwoDimensionalMeshReadsBack) {
  SnapshotMeta meta = make_meta(2, 2, 3, 1);
  const auto levels = make_mesh(2, 2, 3);
  const RamsesDomain domain = single_domain(levels, 2);
  const fs::path directory = scratch("2d");
  kosmo::io::write_ramses_domain_files(directory, meta, domain, 1.6666667);
  check_domain_files(directory, meta, domain);
  fs::remove_all(directory);
}

TEST(RamsesWriter, RefinedCellWithoutChildIsAnErrorNamingTheFile) {
  const SnapshotMeta meta = make_meta(3, 1, 2, 1);
  auto levels = make_mesh(3, 1, 2);
  levels[1].oct_coordinates.resize(levels[1].oct_coordinates.size() - 3);  // drop one child oct
  for (auto* values : {&levels[1].son_flags}) values->resize(values->size() - 8);
  for (auto& field : levels[1].fields) field.resize(field.size() - 8);
  const RamsesDomain domain = single_domain(levels, 3);
  const fs::path directory = scratch("error");
  try {
    kosmo::io::write_ramses_domain_files(directory, meta, domain, 1.4);
    FAIL() << "no error";
  } catch (const kosmo::Error& error) {
    EXPECT_NE(std::string(error.what()).find("amr_00007.out00001"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(fs::is_empty(directory));
  fs::remove_all(directory);
}

TEST(RamsesWriter, DescriptorAndGamma) {
  const SnapshotMeta meta = make_meta(3, 1, 2, 1);
  EXPECT_EQ(kosmo::io::ramses_gamma(meta), 1.6666667);
  const fs::path directory = scratch("descriptor");
  kosmo::io::write_ramses_hydro_descriptor(directory, meta);
  std::ifstream in(directory / "hydro_file_descriptor.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "# version:  1\n# ivar, variable_name, variable_type\n 1, density, d\n 2, velocity_x, d\n");
  fs::remove_all(directory);
}

// Collective: every rank writes its Morton share of each level, as the driver does without a
// distributed tree; each rank then checks its own file, ghost blocks included.
TEST(RamsesWriter, CollectiveSnapshotOnEveryRank) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);
  const SnapshotMeta meta = make_meta(3, 3, 5, nrank);
  const auto mesh = make_mesh(3, 3, 5);
  std::vector<SnapshotLevel> mine;
  for (const auto& level : mesh) {
    const std::size_t n = level.oct_coordinates.size() / 3;
    const std::size_t first = n * rank / nrank, last = n * (rank + 1) / nrank;
    SnapshotLevel share;
    share.level = level.level;
    share.fields.assign(2, {});
    share.oct_coordinates.assign(level.oct_coordinates.begin() + 3 * first, level.oct_coordinates.begin() + 3 * last);
    share.son_flags.assign(level.son_flags.begin() + 8 * first, level.son_flags.begin() + 8 * last);
    for (int f = 0; f < 2; ++f)
      share.fields[f].assign(level.fields[f].begin() + 8 * first, level.fields[f].begin() + 8 * last);
    mine.push_back(share);
  }
  const char* keep = std::getenv("KOSMO_RAMSES_TEST_OUTPUT");
  std::string parent = keep ? std::string(keep) : std::string();
  if (parent.empty())
    parent = (fs::temp_directory_path() / ("kosmo_test_ramses_collective_" + std::to_string(::getpid()))).string();
  int length = static_cast<int>(parent.size());  // rank 0's name for all (pids differ)
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  parent.resize(static_cast<std::size_t>(length));
  MPI_Bcast(parent.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) fs::create_directories(parent);
  MPI_Barrier(MPI_COMM_WORLD);
  kosmo::io::write_ramses_snapshot(MPI_COMM_WORLD, parent, meta, mine);
  const fs::path output = fs::path(parent) / "output_00007";
  const RamsesDomain domain = kosmo::io::assemble_ramses_domain(MPI_COMM_WORLD, meta, mine);
  check_domain_files(output, meta, domain);
  EXPECT_TRUE(fs::exists(output / "info_00007.txt"));
  EXPECT_TRUE(fs::exists(output / "hydro_file_descriptor.txt"));
  EXPECT_FALSE(fs::exists(fs::path(parent) / "output_00007.ramses.tmp"));
  // Adding to an existing directory (outformat='both') rewrites the files in place.
  kosmo::io::write_ramses_snapshot(MPI_COMM_WORLD, parent, meta, mine, kosmo::io::RamsesDirectoryMode::add_to_existing);
  check_domain_files(output, meta, domain);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && !keep) fs::remove_all(parent);
}

}  // namespace

// MPI for the collective test: unit tests otherwise run without MPI (tests/unit/CMakeLists.txt).
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local_failed = RUN_ALL_TESTS();
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
