// Particles in snapshots (io/snapshot_writer.hpp, io/ramses_writer.hpp, io/ramses_particles.hpp): P
// ranks write different numbers of particles (rank 1 none), and the restart readers give them back
// bit for bit on 1..min(P, 4) ranks, through the HDF5 file and through RAMSES' part_ files; a
// missing or truncated part file stops the read with a message naming it.
//
// For tests/python/test_particle_output.py: with KOSMO_PARTICLE_SNAPSHOT_DIR=<dir>, the test
// ParticleSnapshotForPython.WritesBothFormats leaves <dir>/output_00005/ (HDF5 and RAMSES files of
// the particles below, 3-D); without it that test is skipped. The particle formulas below are
// repeated there, so both sides must change together.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/ramses_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "io/snapshot_writer.hpp"
#include "shared_temporary_directory.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;

constexpr double kBoxlen = 2.0;
constexpr std::int64_t kSmallIdBase = 100, kLargeIdBase = 5'000'000'000;  // the latter needs int64

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

// Particles of rank r: uneven, none on rank 1.
long long particles_of(int rank) { return rank == 1 ? 0 : 5 + 3 * rank; }
long long particle_offset(int rank) {
  long long offset = 0;
  for (int r = 0; r < rank; ++r) offset += particles_of(r);
  return offset;
}
long long particle_total() { return particle_offset(mpi_size()); }

// Every value follows from the particle's global index g with exactly representable inputs, so numpy
// reproduces it bit for bit (tests/python/test_particle_output.py).
double position_of(long long g, int axis) {
  return static_cast<double>((g * (17 + 6 * axis) + 5 + axis) % 97) / 97.0 * kBoxlen;
}
double velocity_of(long long g, int axis) { return (static_cast<double>(g % 13) - 6.0) / 8.0 + axis; }
double mass_of(long long g) { return 1.0 / static_cast<double>(g + 3); }
std::int64_t id_of(long long g, std::int64_t base) { return base + 3 * g; }
std::int8_t level_of(long long g) { return static_cast<std::int8_t>(2 + g % 5); }
std::int8_t family_of(long long g) { return static_cast<std::int8_t>(g % 5 - 1); }  // -1 .. 3
// Restart-only state the driver names (SnapshotParticles::restart_fields).
const char* const kRestartNames[2] = {"pending_kick_x", "pending_half_dt"};
double restart_of(long long g, int field) { return field == 0 ? 0.25 * static_cast<double>(g) - 1.0 : 1.0 / static_cast<double>(g + 7); }

SnapshotParticles make_particles(int ndim, std::int64_t id_base) {
  SnapshotParticles particles;
  for (const char* name : kRestartNames) particles.restart_fields.push_back({name, {}});
  for (long long i = 0; i < particles_of(mpi_rank()); ++i) {
    const long long g = particle_offset(mpi_rank()) + i;
    for (int d = 0; d < ndim; ++d) {
      particles.position[static_cast<std::size_t>(d)].push_back(position_of(g, d));
      particles.velocity[static_cast<std::size_t>(d)].push_back(velocity_of(g, d));
    }
    particles.mass.push_back(mass_of(g));
    particles.id.push_back(id_of(g, id_base));
    particles.level.push_back(level_of(g));
    particles.family.push_back(family_of(g));
    for (int f = 0; f < 2; ++f) particles.restart_fields[static_cast<std::size_t>(f)].values.push_back(restart_of(g, f));
  }
  return particles;
}

// Mismatches between particle i of `p` and the formulas at global index g.
// restart_state: whether the format keeps SnapshotParticles::restart_fields (HDF5 does; RAMSES files
// hold analysis quantities only, docs/outputs.md).
long long mismatches_at(const SnapshotParticles& p, std::size_t i, long long g, int ndim, std::int64_t id_base,
                        bool restart_state = true) {
  long long bad = 0;
  for (int d = 0; d < ndim; ++d) {
    bad += p.position[static_cast<std::size_t>(d)][i] != position_of(g, d);
    bad += p.velocity[static_cast<std::size_t>(d)][i] != velocity_of(g, d);
  }
  bad += p.mass[i] != mass_of(g);
  bad += p.id[i] != id_of(g, id_base);
  bad += p.level[i] != level_of(g);
  bad += p.family[i] != family_of(g);
  if (!restart_state) return bad + (p.restart_fields.empty() ? 0 : 1);
  if (p.restart_fields.size() != 2) return bad + 1;
  for (int f = 0; f < 2; ++f) {
    const auto& field = p.restart_fields[static_cast<std::size_t>(f)];
    bad += field.name != kRestartNames[f] || field.values.size() != p.size() || field.values[i] != restart_of(g, f);
  }
  return bad;
}

// A valid two-level mesh: the root oct (rank 0) refined into 2^ndim level-2 octs, oct k on rank
// k % P; fields density, velocity_<axis>, pressure as a hydro run writes them, restart field density.
SnapshotMeta make_meta(int ndim, int output_number) {
  SnapshotMeta meta;
  meta.output_number = output_number;
  meta.ndim = ndim;
  meta.levelmin = 2;
  meta.levelmax = 2;
  meta.boxlen = kBoxlen;
  meta.time = 0.75;
  meta.ncpu = mpi_size();
  meta.ordering = "ksection";
  meta.fields.push_back({"density", "code_density", 0});
  for (int d = 0; d < ndim; ++d) meta.fields.push_back({std::string("velocity_") + "xyz"[d], "code_velocity", 0});
  meta.fields.push_back({"pressure", "code_pressure", 0});
  meta.restart_fields = {{"density", "code_density", 0}};
  return meta;
}

// How the gas module reads make_meta's 3-D hydro files (density, velocity_*, pressure) back.
CellVariableConversion gas_conversion() { return hydro::ramses_restart_conversion<3>(0); }

std::vector<SnapshotLevel> make_levels(const SnapshotMeta& meta) {
  const int ndim = meta.ndim, nchild = 1 << ndim;
  std::vector<SnapshotLevel> levels(2);
  for (int l = 1; l <= 2; ++l) {
    levels[static_cast<std::size_t>(l - 1)].level = l;
    levels[static_cast<std::size_t>(l - 1)].fields.assign(meta.fields.size(), {});
    levels[static_cast<std::size_t>(l - 1)].restart_fields.assign(1, {});
  }
  const auto add_oct = [&](SnapshotLevel& level, int k, bool refined) {
    for (int d = 0; d < ndim; ++d) level.oct_coordinates.push_back(refined ? 0 : (k >> d) & 1);
    for (int c = 0; c < nchild; ++c) {
      const double density = 1.0 + 0.125 * k + 0.015625 * c;
      level.son_flags.push_back(refined ? 1 : 0);
      level.fields[0].push_back(density);
      for (std::size_t f = 1; f + 1 < meta.fields.size(); ++f) level.fields[f].push_back(0.0);
      level.fields.back().push_back(1.0);
      level.restart_fields[0].push_back(density);
    }
  };
  if (mpi_rank() == 0) add_oct(levels[0], 0, true);
  for (int k = 0; k < nchild; ++k)
    if (k % mpi_size() == mpi_rank()) add_oct(levels[1], k, false);
  return levels;
}

std::string file_contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A communicator of the first `size` ranks of MPI_COMM_WORLD (MPI_COMM_NULL on the others).
MPI_Comm first_ranks(int size) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, mpi_rank() < size ? 0 : MPI_UNDEFINED, mpi_rank(), &comm);
  return comm;
}

// Over `comm`: the shares together hold every written particle exactly once, each bit for bit.
void expect_all_particles_once(MPI_Comm comm, const SnapshotParticles& share, int ndim, std::int64_t id_base,
                               bool restart_state = true) {
  long long bad = 0;
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < share.size(); ++i) {
    const std::int64_t id = share.id[i];
    if ((id - id_base) % 3 != 0 || id < id_base) {
      ++bad;
      continue;
    }
    bad += mismatches_at(share, i, (id - id_base) / 3, ndim, id_base, restart_state);
    ids.push_back(id);
  }
  EXPECT_EQ(bad, 0) << "particles whose values differ from what was written";
  int count = static_cast<int>(ids.size()), size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<std::int64_t> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(ids.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T, comm);
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> expected;
  for (long long g = 0; g < particle_total(); ++g) expected.push_back(id_of(g, id_base));
  EXPECT_EQ(all, expected) << "the union of the shares is not the written set of ids";
}

class ParticleSnapshot : public ::testing::Test {
 protected:
  void SetUp() override { directory_ = test::make_shared_temporary_directory("kosmo_particles"); }
  void TearDown() override { test::remove_shared_temporary_directory(directory_); }
  fs::path directory_;
};

// ---- HDF5 ------------------------------------------------------------------------------------

// Rank 0 reads /particles with the plain HDF5 C API: rank order, count, types, datasets per ndim.
void check_hdf5_layout(const fs::path& file_path, int ndim) {
  const hid_t file = H5Fopen(file_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << file_path;
  const hid_t group = H5Gopen2(file, "particles", H5P_DEFAULT);
  ASSERT_GE(group, 0) << "no /particles group";
  long long count = -1;
  const hid_t attribute = H5Aopen(group, "count", H5P_DEFAULT);
  H5Aread(attribute, H5T_NATIVE_LLONG, &count);
  H5Aclose(attribute);
  EXPECT_EQ(count, particle_total());
  const auto read = [&](const char* name, hid_t memory_type, void* out, std::size_t stored_size) {
    const hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);
    ASSERT_GE(dataset, 0) << name;
    const hid_t type = H5Dget_type(dataset);
    EXPECT_EQ(H5Tget_size(type), stored_size) << name;
    H5Tclose(type);
    const hid_t space = H5Dget_space(dataset);
    EXPECT_EQ(H5Sget_simple_extent_npoints(space), count) << name;
    H5Sclose(space);
    if (count > 0) {
      EXPECT_GE(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out), 0) << name;
    }
    H5Dclose(dataset);
  };
  SnapshotParticles stored;
  const auto n = static_cast<std::size_t>(particle_total());
  for (int d = 0; d < ndim; ++d) {
    stored.position[static_cast<std::size_t>(d)].resize(n);
    stored.velocity[static_cast<std::size_t>(d)].resize(n);
    read((std::string("position_") + "xyz"[d]).c_str(), H5T_NATIVE_DOUBLE, stored.position[static_cast<std::size_t>(d)].data(), 8);
    read((std::string("velocity_") + "xyz"[d]).c_str(), H5T_NATIVE_DOUBLE, stored.velocity[static_cast<std::size_t>(d)].data(), 8);
  }
  for (int d = ndim; d < 3; ++d)
    EXPECT_LE(H5Lexists(group, (std::string("position_") + "xyz"[d]).c_str(), H5P_DEFAULT), 0) << "axis beyond ndim";
  stored.mass.resize(n);
  stored.id.resize(n);
  stored.level.resize(n);
  stored.family.resize(n);
  read("mass", H5T_NATIVE_DOUBLE, stored.mass.data(), 8);
  read("identity", H5T_NATIVE_INT64, stored.id.data(), 8);
  read("level", H5T_NATIVE_INT8, stored.level.data(), 4);
  read("family", H5T_NATIVE_INT8, stored.family.data(), 1);
  for (const char* name : kRestartNames) {
    stored.restart_fields.push_back({name, std::vector<double>(n)});
    read((std::string("restart/") + name).c_str(), H5T_NATIVE_DOUBLE, stored.restart_fields.back().values.data(), 8);
  }
  long long bad = 0;
  for (std::size_t g = 0; g < n; ++g) bad += mismatches_at(stored, g, static_cast<long long>(g), ndim, kLargeIdBase);
  EXPECT_EQ(bad, 0) << "/particles rows are not all ranks' particles in rank order";
  H5Gclose(group);
  H5Fclose(file);
}

TEST_F(ParticleSnapshot, Hdf5RoundTripOnEveryRankCount) {
  for (int ndim = 1; ndim <= 3; ++ndim) {
    SCOPED_TRACE("ndim = " + std::to_string(ndim));
    const SnapshotMeta meta = make_meta(ndim, 10 + ndim);
    const SnapshotParticles mine = make_particles(ndim, kLargeIdBase);
    write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta), &mine);
    if (mpi_rank() == 0) check_hdf5_layout(directory_ / output_directory_name(meta.output_number) / ("kosmo_000" + std::to_string(10 + ndim) + ".h5"), ndim);
    for (int readers = 1; readers <= std::min(mpi_size(), 4); ++readers) {
      SCOPED_TRACE("read on " + std::to_string(readers) + " ranks");
      MPI_Comm comm = first_ranks(readers);
      if (comm == MPI_COMM_NULL) continue;
      const RestartShare share = read_restart_share(comm, directory_.string(), meta.output_number);
      // Rank r of R holds rows [n r / R, n (r + 1) / R), in the file's (rank) order.
      const long long first = particle_total() * mpi_rank() / readers;
      const long long last = particle_total() * (mpi_rank() + 1) / readers;
      ASSERT_EQ(static_cast<long long>(share.particles.size()), last - first);
      long long bad = 0;
      for (std::size_t i = 0; i < share.particles.size(); ++i)
        bad += mismatches_at(share.particles, i, first + static_cast<long long>(i), ndim, kLargeIdBase);
      EXPECT_EQ(bad, 0);
      for (int d = ndim; d < 3; ++d) EXPECT_TRUE(share.particles.position[static_cast<std::size_t>(d)].empty());
      expect_all_particles_once(comm, share.particles, ndim, kLargeIdBase);
      EXPECT_EQ(share.levels.size(), 2u);  // the mesh is still read
      MPI_Comm_free(&comm);
    }
  }
}

TEST_F(ParticleSnapshot, Hdf5WithoutParticlesAndFromBeforeParticles) {
  const SnapshotMeta meta = make_meta(3, 21);
  write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta));  // no particles
  const fs::path file = directory_ / "output_00021" / "kosmo_00021.h5";
  if (mpi_rank() == 0) {  // an empty group, present all the same
    const hid_t id = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(id, 0);
    long long count = -1;
    const hid_t attribute = H5Aopen_by_name(id, "particles", "count", H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(attribute, 0) << "no /particles:count in a snapshot without particles";
    H5Aread(attribute, H5T_NATIVE_LLONG, &count);
    H5Aclose(attribute);
    EXPECT_EQ(count, 0);
    EXPECT_EQ(H5Lexists(id, "particles/mass", H5P_DEFAULT), 1);
    H5Fclose(id);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(read_restart_share(MPI_COMM_WORLD, directory_.string(), 21).particles.size(), 0u);

  // A file written before kosmo stored particles has no /particles group at all.
  if (mpi_rank() == 0) {
    const hid_t id = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(id, 0);
    EXPECT_GE(H5Ldelete(id, "particles", H5P_DEFAULT), 0);
    H5Fclose(id);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const RestartShare old = read_restart_share(MPI_COMM_WORLD, directory_.string(), 21);
  EXPECT_EQ(old.particles.size(), 0u);
  long long octs = static_cast<long long>(old.levels[1].oct_coordinates.size()) / 3, all = 0;
  MPI_Allreduce(&octs, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all, 8);
}

TEST_F(ParticleSnapshot, RestartFieldNamesThatDifferBetweenRanksAreRefused) {
  if (mpi_size() < 2) GTEST_SKIP() << "needs two ranks";
  const SnapshotMeta meta = make_meta(3, 23);
  SnapshotParticles mine = make_particles(3, kSmallIdBase);
  if (mpi_rank() == 0) mine.restart_fields.pop_back();
  EXPECT_THROW(write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta), &mine), Error);
  EXPECT_THROW(write_ramses_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta),
                                     RamsesDirectoryMode::create_new, &mine),
               Error);
}

TEST_F(ParticleSnapshot, InconsistentParticleArraysOnOneRankAreRefusedEverywhere) {
  const SnapshotMeta meta = make_meta(2, 22);
  SnapshotParticles mine = make_particles(2, kSmallIdBase);
  if (mpi_rank() == mpi_size() - 1) mine.family.push_back(1);  // one family too many
  std::string message;
  try {
    write_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta), &mine);
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("families"), std::string::npos) << "message: " << message;
  if (mpi_rank() == 0) {
    EXPECT_FALSE(fs::exists(directory_ / "output_00022"));
  }
}

// ---- RAMSES ------------------------------------------------------------------------------------

std::string expected_descriptor(bool identity_int64) {
  return std::string("# version:  1\n# ivar, variable_name, variable_type\n") +
         " 1, position_x, d\n 2, position_y, d\n 3, position_z, d\n 4, velocity_x, d\n 5, velocity_y, d\n"
         " 6, velocity_z, d\n 7, mass, d\n 8, identity, " + (identity_int64 ? "q" : "i") +
         "\n 9, levelp, i\n10, family, b\n11, tag, b\n";  // no restart-only state
}

// RAMSES' header_NNNNN.txt for the formulas' families (-1 .. 3).
std::string expected_header() {
  long long count[11] = {};
  for (long long g = 0; g < particle_total(); ++g) ++count[family_of(g) + 5];
  const char* keys[11] = {" other_tracer", "debris_tracer", " cloud_tracer", "  star_tracer", " other_tracer",
                          "   gas_tracer", "           DM", "         star", "        cloud", "       debris",
                          "        other"};
  std::string text = "#      Family     Count\n";
  for (int f = 0; f < 11; ++f) {
    const std::string number = std::to_string(count[f]);
    text += std::string(keys[f]) + std::string(10 - number.size(), ' ') + number + "\n";
  }
  return text + "    undefined         0\n Particle fields\npos vel mass iord level family tag \n";
}

TEST_F(ParticleSnapshot, RamsesRoundTripOnEveryRankCount) {
  for (const std::int64_t base : {kSmallIdBase, kLargeIdBase}) {
    SCOPED_TRACE(base == kSmallIdBase ? "int32 identity" : "int64 identity");
    const SnapshotMeta meta = make_meta(3, base == kSmallIdBase ? 31 : 32);
    const SnapshotParticles mine = make_particles(3, base);
    write_ramses_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta), RamsesDirectoryMode::create_new, &mine);
    const fs::path output = directory_ / output_directory_name(meta.output_number);
    const std::string number = output_directory_name(meta.output_number).substr(7);
    if (mpi_rank() == 0) {
      for (int cpu = 1; cpu <= mpi_size(); ++cpu) {  // every rank's file, the empty one of rank 1 too
        char name[32];
        std::snprintf(name, sizeof name, "part_%s.out%05d", number.c_str(), cpu);
        EXPECT_TRUE(fs::is_regular_file(output / name)) << name;
      }
      EXPECT_EQ(file_contents(output / "part_file_descriptor.txt"), expected_descriptor(base == kLargeIdBase));
      EXPECT_EQ(file_contents(output / ("header_" + number + ".txt")), expected_header());
    }
    for (int readers = 1; readers <= std::min(mpi_size(), 4); ++readers) {
      SCOPED_TRACE("read on " + std::to_string(readers) + " ranks");
      MPI_Comm comm = first_ranks(readers);
      if (comm == MPI_COMM_NULL) continue;
      const RestartShare share = read_ramses_restart_share(comm, directory_.string(), meta.output_number, gas_conversion());
      expect_all_particles_once(comm, share.particles, 3, base, false);
      MPI_Comm_free(&comm);
    }
  }
}

TEST_F(ParticleSnapshot, RamsesOutputWithoutParticlesHasNoPartFiles) {
  const SnapshotMeta meta = make_meta(3, 33);
  write_ramses_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta));
  if (mpi_rank() == 0) {
    EXPECT_FALSE(fs::exists(directory_ / "output_00033" / "part_00033.out00001"));
    EXPECT_FALSE(fs::exists(directory_ / "output_00033" / "part_file_descriptor.txt"));
  }
  EXPECT_EQ(read_ramses_restart_share(MPI_COMM_WORLD, directory_.string(), 33, gas_conversion()).particles.size(), 0u);
}

// The message every rank gets from reading output `number`, or "" when the read succeeds.
std::string ramses_read_error(const fs::path& directory, int number) {
  try {
    read_ramses_restart_share(MPI_COMM_WORLD, directory.string(), number, gas_conversion());
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST_F(ParticleSnapshot, MissingOrTruncatedPartFileIsAnErrorNamingIt) {
  const SnapshotParticles mine = make_particles(3, kSmallIdBase);
  for (int number : {34, 35}) {
    const SnapshotMeta meta = make_meta(3, number);
    write_ramses_snapshot(MPI_COMM_WORLD, directory_.string(), meta, make_levels(meta), RamsesDirectoryMode::create_new, &mine);
  }
  char missing[32], truncated[32];
  std::snprintf(missing, sizeof missing, "part_00034.out%05d", mpi_size());  // the last rank's file
  std::snprintf(truncated, sizeof truncated, "part_00035.out%05d", 1);
  if (mpi_rank() == 0) {
    fs::remove(directory_ / "output_00034" / missing);
    const fs::path cut = directory_ / "output_00035" / truncated;
    fs::resize_file(cut, fs::file_size(cut) - 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string missing_message = ramses_read_error(directory_, 34);
  EXPECT_NE(missing_message.find(missing), std::string::npos) << "message: " << missing_message;
  EXPECT_NE(missing_message.find("missing"), std::string::npos) << "message: " << missing_message;
  const std::string truncated_message = ramses_read_error(directory_, 35);
  EXPECT_NE(truncated_message.find(truncated), std::string::npos) << "message: " << truncated_message;
  EXPECT_NE(truncated_message.find("truncated"), std::string::npos) << "message: " << truncated_message;
}

// Leaves a 3-D snapshot with particles in both formats for the Python reader and yt
// (tests/python/test_particle_output.py runs this test with the variable set).
TEST(ParticleSnapshotForPython, WritesBothFormats) {
  const char* directory = std::getenv("KOSMO_PARTICLE_SNAPSHOT_DIR");
  if (directory == nullptr || *directory == '\0') GTEST_SKIP() << "KOSMO_PARTICLE_SNAPSHOT_DIR is not set";
  const SnapshotMeta meta = make_meta(3, 5);
  const SnapshotParticles mine = make_particles(3, kSmallIdBase);
  const auto levels = make_levels(meta);
  write_snapshot(MPI_COMM_WORLD, directory, meta, levels, &mine);
  write_ramses_snapshot(MPI_COMM_WORLD, directory, meta, levels, RamsesDirectoryMode::add_to_existing, &mine);
}

}  // namespace
}  // namespace kosmo::io
