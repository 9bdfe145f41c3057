// Particle attributes a module registers (particles/particle_attributes.hpp) reach every output with
// no edit outside the module: a test module registers `test_tag` (float64, units code_mass, comoving
// exponent 2) and `test_serial` (int64), fills them from each particle's id, and finds them in the
// HDF5 snapshot (with their units), in the RAMSES part_ files and part_file_descriptor.txt, in a
// restart from either format on another rank count (written on min(P, 2) ranks, read back on every
// count 1..P: the np3 run reads a 2-rank output on 1 and 3 ranks), and after a migration. A restart
// into a run that lacks the module is refused, naming the attribute.
//
// tests/python/test_particle_attributes.py runs WrittenEverywhereAndRestartedOnOtherRankCounts with
// KOSMO_PARTICLE_ATTRIBUTE_DIR=<dir> to keep output_00007/ there and reads it with kosmo.load and
// yt; without the variable the output goes to a temporary directory removed afterwards. The formulas
// below are repeated there.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "driver/particle_snapshot.hpp"
#include "hydro/hydro_restart_conversion.hpp"
#include "io/ramses_reader.hpp"
#include "io/ramses_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "io/snapshot_writer.hpp"
#include "parallel/particle_migration.hpp"
#include "refined_mesh_support.hpp"
#include "shared_temporary_directory.hpp"

namespace kosmo {
namespace {

namespace fs = std::filesystem;
using particles::AttributeType;
using particles::ParticleSet;

constexpr int kOutput = 7;
constexpr int kMaxWriters = 2;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
int writers() { return std::min(world_size(), kMaxWriters); }

// Writer rank r holds particles [offset(r), offset(r) + count(r)) of the global index g.
long long count_of(int rank) { return 4 + 3 * rank; }
long long offset_of(int rank) {
  long long offset = 0;
  for (int r = 0; r < rank; ++r) offset += count_of(r);
  return offset;
}
long long total() { return offset_of(writers()); }

// Everything follows from g or the id with exactly representable results (numpy repeats them).
std::int64_t id_of(long long g) { return 1000 + 7 * g; }
double position_of(long long g, int axis) { return static_cast<double>((g * (11 + 4 * axis) + 3 + axis) % 61) / 61.0; }
double tag_of(std::int64_t id) { return 0.5 * static_cast<double>(id) + 0.25; }
std::int64_t serial_of(std::int64_t id) { return 3 * id + 5'000'000'000; }
double half_dt_of(std::int64_t id) { return 1.0 / static_cast<double>(id); }

// The test module: what a star-formation module does for its birth time, in two lines.
struct TestModule {
  int tag = -1, serial = -1;
  template <int D>
  explicit TestModule(ParticleSet<D>& set) {
    tag = set.add_attribute(particles::particle_attribute("test_tag", AttributeType::float64, "code_mass", "test_module", 2));
    serial = set.add_attribute(particles::particle_attribute("test_serial", AttributeType::int64, "", "test_module"));
  }
};

template <int D>
std::size_t add_particle(ParticleSet<D>& set, const TestModule& module, long long g, const std::array<double, 3>& box) {
  typename ParticleSet<D>::Particle p;
  p.id = id_of(g);
  for (int d = 0; d < D; ++d) {
    p.position[static_cast<std::size_t>(d)] = position_of(g, d) * box[static_cast<std::size_t>(d)];
    p.velocity[static_cast<std::size_t>(d)] = 0.125 * static_cast<double>(d + 1);
  }
  p.mass = 1.0 / 64.0;
  p.pending_half_dt = half_dt_of(p.id);
  const std::size_t i = set.add(p);
  set.template values<double>(module.tag)[i] = tag_of(p.id);
  set.template values<std::int64_t>(module.serial)[i] = serial_of(p.id);
  return i;
}

// Particles whose test attributes or leapfrog state do not follow their id.
template <int D>
long long mismatches(const ParticleSet<D>& set, const TestModule& module, bool restart_state = true) {
  long long bad = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::int64_t id = set.id()[i];
    bad += set.template values<double>("test_tag")[i] != tag_of(id);
    bad += set.template values<double>(module.tag)[i] != tag_of(id);
    bad += set.template values<std::int64_t>(module.serial)[i] != serial_of(id);
    // RAMSES files hold no restart-only state (docs/outputs.md): it starts at 0 there.
    bad += set.pending_half_dt()[i] != (restart_state ? half_dt_of(id) : 0.0);
    bad += (id - 1000) % 7 != 0;
  }
  return bad;
}

// Over `comm`: every written id exactly once.
template <int D>
void expect_every_id_once(MPI_Comm comm, const ParticleSet<D>& set) {
  int count = static_cast<int>(set.size()), size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<std::int64_t> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  const std::vector<std::int64_t> mine(set.id().begin(), set.id().end());
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T, comm);
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> expected;
  for (long long g = 0; g < total(); ++g) expected.push_back(id_of(g));
  EXPECT_EQ(all, expected);
}

MPI_Comm first_ranks(int size) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < size ? 0 : MPI_UNDEFINED, world_rank(), &comm);
  return comm;
}

// A valid two-level 3-D mesh in a unit box: the root oct (rank 0) refined into 8 level-2 octs, oct
// k on writer k % W; the fields of a hydro run at rest (a RAMSES restart reads density, velocity and
// pressure).
io::SnapshotMeta make_meta(int ncpu) {
  io::SnapshotMeta meta;
  meta.output_number = kOutput;
  meta.ndim = 3;
  meta.levelmin = 2;
  meta.levelmax = 2;
  meta.time = 0.5;
  meta.ncpu = ncpu;
  meta.ordering = "ksection";
  meta.fields.push_back({"density", "code_density", 0});
  for (const char* axis : {"x", "y", "z"}) meta.fields.push_back({std::string("velocity_") + axis, "code_velocity", 0});
  meta.fields.push_back({"pressure", "code_pressure", 0});
  meta.restart_fields = {{"density", "code_density", 0}};
  return meta;
}

std::vector<io::SnapshotLevel> make_levels(int rank, int ncpu) {
  std::vector<io::SnapshotLevel> levels(2);
  for (int l = 1; l <= 2; ++l) {
    levels[static_cast<std::size_t>(l - 1)].level = l;
    levels[static_cast<std::size_t>(l - 1)].fields.assign(5, {});
    levels[static_cast<std::size_t>(l - 1)].restart_fields.assign(1, {});
  }
  const auto add_oct = [&](io::SnapshotLevel& level, int k, bool refined) {
    for (int d = 0; d < 3; ++d) level.oct_coordinates.push_back(refined ? 0 : (k >> d) & 1);
    for (int c = 0; c < 8; ++c) {
      level.son_flags.push_back(refined ? 1 : 0);
      for (std::size_t f = 0; f < 5; ++f) level.fields[f].push_back(f == 0 || f == 4 ? 1.0 : 0.0);
      level.restart_fields[0].push_back(1.0);
    }
  };
  if (rank == 0) add_oct(levels[0], 0, true);
  for (int k = 0; k < 8; ++k)
    if (k % ncpu == rank) add_oct(levels[1], k, false);
  return levels;
}

std::string file_contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- what rank 0 finds in the files --------------------------------------------------------------

std::string string_attribute(hid_t object, const char* name) {
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  if (attribute < 0) return "<no attribute " + std::string(name) + ">";
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  char* text = nullptr;
  H5Aread(attribute, type, &text);
  std::string value = text ? text : "";
  H5free_memory(text);
  H5Tclose(type);
  H5Aclose(attribute);
  return value;
}

int int_attribute(hid_t object, const char* name) {
  int value = -999;
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  if (attribute < 0) return value;
  H5Aread(attribute, H5T_NATIVE_INT, &value);
  H5Aclose(attribute);
  return value;
}

template <class T>
std::vector<T> dataset_values(hid_t group, const char* name, hid_t memory_type) {
  std::vector<T> values(static_cast<std::size_t>(total()));
  const hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);
  if (dataset < 0 || H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) values.clear();
  if (dataset >= 0) H5Dclose(dataset);
  return values;
}

void check_hdf5_file(const fs::path& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  const hid_t group = H5Gopen2(file, "particles", H5P_DEFAULT);
  ASSERT_GE(group, 0);
  const auto ids = dataset_values<std::int64_t>(group, "identity", H5T_NATIVE_INT64);
  const auto tags = dataset_values<double>(group, "test_tag", H5T_NATIVE_DOUBLE);
  const auto serials = dataset_values<std::int64_t>(group, "test_serial", H5T_NATIVE_INT64);
  ASSERT_EQ(tags.size(), ids.size()) << "no /particles/test_tag";
  ASSERT_EQ(serials.size(), ids.size()) << "no /particles/test_serial";
  long long bad = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) bad += tags[i] != tag_of(ids[i]) || serials[i] != serial_of(ids[i]);
  EXPECT_EQ(bad, 0) << "/particles/test_tag or test_serial does not follow the ids";
  for (const auto& [name, units, exponent] : {std::tuple<const char*, const char*, int>{"test_tag", "code_mass", 2},
                                              {"test_serial", "", 0}, {"mass", "code_mass", 0},
                                              {"position_x", "code_length", 0}, {"restart/pending_half_dt", "code_time", 0}}) {
    const hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);
    ASSERT_GE(dataset, 0) << name;
    EXPECT_EQ(string_attribute(dataset, "units"), units) << name;
    EXPECT_EQ(int_attribute(dataset, "comoving_exponent"), exponent) << name;
    H5Dclose(dataset);
  }
  const hid_t tag = H5Dopen2(group, "test_tag", H5P_DEFAULT);
  EXPECT_EQ(int_attribute(tag, "in_restarts"), 1);
  H5Dclose(tag);
  // Restart-only state stays in the restart group, not among the snapshot's attributes.
  EXPECT_LE(H5Lexists(group, "pending_half_dt", H5P_DEFAULT), 0);
  H5Gclose(group);
  H5Fclose(file);
}

std::string expected_descriptor() {
  return "# version:  1\n# ivar, variable_name, variable_type\n"
         " 1, position_x, d\n 2, position_y, d\n 3, position_z, d\n 4, velocity_x, d\n 5, velocity_y, d\n"
         " 6, velocity_z, d\n 7, mass, d\n 8, identity, i\n 9, levelp, i\n10, family, b\n11, tag, b\n"
         "12, test_tag, d\n13, test_serial, q\n";  // no restart-only state
}

// ---- restarts ------------------------------------------------------------------------------------

// Reads the output back on the first `readers` ranks from `format`, into a set with the test module.
void check_restart(const fs::path& directory, int readers, bool ramses) {
  SCOPED_TRACE(std::string(ramses ? "RAMSES" : "HDF5") + " restart on " + std::to_string(readers) + " ranks");
  MPI_Comm comm = first_ranks(readers);
  if (comm == MPI_COMM_NULL) return;
  const io::RestartShare share = ramses ? io::read_ramses_restart_share(comm, directory.string(), kOutput, hydro::ramses_restart_conversion<3>(0))
                                        : io::read_restart_share(comm, directory.string(), kOutput);
  ParticleSet<3> set;
  const TestModule module(set);
  driver::particles_from_snapshot(share.particles, "output_00007", set);
  EXPECT_EQ(mismatches(set, module, !ramses), 0);
  expect_every_id_once(comm, set);
  // A run without the test module cannot carry test_tag forward: refused, naming it.
  std::string message;
  try {
    driver::particles_from_snapshot<3>(share.particles, "output_00007");
  } catch (const Error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("test_"), std::string::npos) << "message: " << message;
  MPI_Comm_free(&comm);
}

fs::path output_directory(bool& keep) {
  const char* kept = std::getenv("KOSMO_PARTICLE_ATTRIBUTE_DIR");
  keep = kept != nullptr && *kept != '\0';
  return keep ? fs::path(kept) : test::make_shared_temporary_directory("kosmo_particle_attributes");
}

TEST(ParticleAttributes, WrittenEverywhereAndRestartedOnOtherRankCounts) {
  bool keep = false;
  const fs::path directory = output_directory(keep);
  MPI_Comm comm = first_ranks(writers());
  if (comm != MPI_COMM_NULL) {
    ParticleSet<3> set;
    const TestModule module(set);
    const std::array<double, 3> unit_box = {1.0, 1.0, 1.0};
    for (long long i = 0; i < count_of(world_rank()); ++i) add_particle(set, module, offset_of(world_rank()) + i, unit_box);
    const io::SnapshotParticles mine = driver::snapshot_particles(set);
    ASSERT_EQ(mine.attributes.size(), 2u);
    EXPECT_EQ(mine.attributes[0].name, "test_tag");
    EXPECT_EQ(mine.attributes[0].units, "code_mass");
    EXPECT_EQ(mine.attributes[0].comoving_exponent, 2);
    const io::SnapshotMeta meta = make_meta(writers());
    const auto levels = make_levels(world_rank(), writers());
    io::write_snapshot(comm, directory.string(), meta, levels, &mine);
    io::write_ramses_snapshot(comm, directory.string(), meta, levels, io::RamsesDirectoryMode::add_to_existing, &mine);
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const fs::path output = directory / "output_00007";
  if (world_rank() == 0) {
    check_hdf5_file(output / "kosmo_00007.h5");
    EXPECT_EQ(file_contents(output / "part_file_descriptor.txt"), expected_descriptor());
  }
  for (int readers = 1; readers <= world_size(); ++readers)
    for (const bool ramses : {false, true}) check_restart(directory, readers, ramses);
  if (!keep) test::remove_shared_temporary_directory(directory);
}

TEST(ParticleAttributes, RegisteredOnlyBeforeParticlesAndTravelWithMigration) {
  using test::Mesh;
  using test::Tree;
  Tree<3> tree = test::refined_tree<3>();
  Mesh<3> mesh(MPI_COMM_WORLD, "auto", "ksection");
  test::distribute<3>(tree, mesh, true);
  const parallel::Box box = Mesh<3>::domain_box(tree);
  ParticleSet<3> set;
  const TestModule module(set);
  // Global indices round-robin over the ranks, positions over the whole box: most must move.
  const long long n = 200;
  for (long long g = world_rank(); g < n; g += world_size()) add_particle(set, module, g, {box.hi[0], box.hi[1], box.hi[2]});
  EXPECT_THROW(set.add_attribute(particles::particle_attribute("late", AttributeType::float64, "", "test_module")), Error);
  parallel::migrate_particles(mesh, set);
  EXPECT_EQ(mismatches(set, module), 0);
  long long misplaced = 0, count = static_cast<long long>(set.size()), all = 0;
  for (std::size_t i = 0; i < set.size(); ++i)
    misplaced += mesh.owner_of_position({set.position(0)[i], set.position(1)[i], set.position(2)[i]}) != world_rank();
  EXPECT_EQ(misplaced, 0);
  MPI_Allreduce(&count, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all, n);
}

}  // namespace
}  // namespace kosmo
