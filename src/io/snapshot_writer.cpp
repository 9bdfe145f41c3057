#include "io/snapshot_writer.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "io/hdf5_handle.hpp"
#include "io/info_file.hpp"
#include "io/ramses_particles.hpp"
#include "io/snapshot_particles.hpp"
#include "io/snapshot_sink_group.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::io {
namespace {

namespace fs = std::filesystem;

// Every step that can fail on one rank is followed by an agreement (parallel/collective_check):
// a rank that fails alone must not leave the others waiting in the next collective call.
using parallel::require_on_all_ranks;
using parallel::run_collectively;

// One snapshot file being written collectively; every error names the file and the object.
class Hdf5SnapshotFile {
 public:
  Hdf5SnapshotFile(MPI_Comm comm, std::string path) : comm_(comm), path_(std::move(path)) {
    MPI_Comm_rank(comm_, &rank_);
  }

  void check(herr_t status, const std::string& what) const {
    if (status < 0) KOSMO_FAIL("snapshot: cannot " << what << " in '" << path_ << "'" << hdf5_error_detail());
  }
  H5Handle make(hid_t id, H5Handle::Closer closer, const std::string& what) const {
    if (id < 0) KOSMO_FAIL("snapshot: cannot " << what << " in '" << path_ << "'" << hdf5_error_detail());
    return H5Handle(id, closer);
  }

  void create() {
    run_collectively(comm_, [&] {
      H5Handle fapl = make(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a file access property list");
      check(H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL), "select the MPI-IO driver");
      // Metadata reads and writes collective: one rank touches the disk instead of all.
      check(H5Pset_all_coll_metadata_ops(fapl.get(), true), "request collective metadata reads");
      check(H5Pset_coll_metadata_write(fapl.get(), true), "request collective metadata writes");
      file_ = make(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose, "create the file");
      transfer_ = make(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create a transfer property list");
      check(H5Pset_dxpl_mpio(transfer_.get(), H5FD_MPIO_COLLECTIVE), "select collective transfers");
      // Parallel HDF5 allocates contiguous datasets at creation; writing fill values there
      // would double the I/O of data we overwrite completely anyway.
      creation_ = make(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create a dataset creation property list");
      check(H5Pset_fill_time(creation_.get(), H5D_FILL_TIME_NEVER), "disable fill values");
    });
  }

  // Closing flushes the metadata, so it can fail and is checked.
  void close() {
    run_collectively(comm_, [&] {
      transfer_.close();
      creation_.close();
      check(file_.close(), "close (flush) the file");
    });
  }

  hid_t root() const { return file_.get(); }

  H5Handle create_group(hid_t parent, const std::string& name, const std::string& where) {
    H5Handle group;
    run_collectively(comm_, [&] {
      group = make(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                   "create group " + where);
    });
    return group;
  }

  // Closing is checked for groups, datasets, attributes and the file; types and property lists
  // are plain memory and close with their handles.
  void close_group(H5Handle& group, const std::string& where) {
    run_collectively(comm_, [&] { check(group.close(), "close group " + where); });
  }

  // Attributes: every rank calls with the same value (HDF5 metadata is written collectively).
  void attribute(hid_t object, const std::string& where, const std::string& name, hid_t file_type,
                 hid_t memory_type, const void* value) {
    run_collectively(comm_, [&] {
      const std::string what = "write attribute '" + name + "' of " + where;
      H5Handle space = make(H5Screate(H5S_SCALAR), H5Sclose, what);
      H5Handle attribute = make(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                                H5Aclose, what);
      check(H5Awrite(attribute.get(), memory_type, value), what);
      check(attribute.close(), what);
    });
  }
  void attribute(hid_t object, const std::string& where, const std::string& name, int value) {
    attribute(object, where, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
  }
  void attribute(hid_t object, const std::string& where, const std::string& name, long long value) {
    attribute(object, where, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
  }
  void attribute(hid_t object, const std::string& where, const std::string& name, double value) {
    attribute(object, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }
  // Variable-length UTF-8, which h5py returns as str.
  void attribute(hid_t object, const std::string& where, const std::string& name, const std::string& value) {
    H5Handle type;
    run_collectively(comm_, [&] {
      type = make(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type for attribute " + name);
      check(H5Tset_size(type.get(), H5T_VARIABLE), "size a string type for attribute " + name);
      check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8 for attribute " + name);
    });
    const char* text = value.c_str();
    attribute(object, where, name, type.get(), type.get(), &text);
  }

  // One collective write of a dataset whose first dimension is split between ranks: this rank
  // writes rows [row_offset, row_offset + local_rows) of global_dims; a rank with no rows selects
  // nothing but still takes part.
  void dataset(hid_t parent, const std::string& where, const std::string& name, hid_t file_type, hid_t memory_type,
               const std::vector<hsize_t>& global_dims, hsize_t local_rows, hsize_t row_offset, const void* data) {
    const std::string path = where + "/" + name;
    const int rank = static_cast<int>(global_dims.size());
    H5Handle dataset, file_space, memory_space;
    run_collectively(comm_, [&] {
      file_space = make(H5Screate_simple(rank, global_dims.data(), nullptr), H5Sclose, "create the dataspace of " + path);
      dataset = make(H5Dcreate2(parent, name.c_str(), file_type, file_space.get(), H5P_DEFAULT, creation_.get(),
                                H5P_DEFAULT),
                     H5Dclose, "create dataset " + path);
      if (global_dims[0] == 0) return;
      std::vector<hsize_t> local_dims = global_dims;
      local_dims[0] = std::max<hsize_t>(local_rows, 1);
      memory_space = make(H5Screate_simple(rank, local_dims.data(), nullptr), H5Sclose, "create a memory space for " + path);
      if (local_rows == 0) {
        check(H5Sselect_none(file_space.get()), "select nothing in " + path);
        check(H5Sselect_none(memory_space.get()), "select nothing in " + path);
      } else {
        std::vector<hsize_t> start(global_dims.size(), 0);
        start[0] = row_offset;
        std::vector<hsize_t> count = global_dims;
        count[0] = local_rows;
        check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
              "select rows " + std::to_string(row_offset) + ".." + std::to_string(row_offset + local_rows) + " of " +
                  path);
      }
    });
    run_collectively(comm_, [&] {
      if (global_dims[0] > 0) {
        const unsigned char nothing = 0;  // HDF5 wants a buffer even when nothing is selected
        check(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(), transfer_.get(),
                       local_rows > 0 ? data : &nothing),
              "write dataset " + path);
      }
      check(dataset.close(), "close dataset " + path);
    });
  }

  // The registry's metadata of an existing dataset, as its attributes `units` and
  // `comoving_exponent` (docs/outputs.md, "Particle attributes").
  // `in_restarts` >= 0 is written too (1: a restart takes the array back, 0: analysis only).
  void describe_dataset(hid_t parent, const std::string& where, const std::string& name, const std::string& units,
                        int comoving_exponent, int in_restarts = -1) {
    const std::string path = where + "/" + name;
    H5Handle dataset;
    run_collectively(comm_, [&] { dataset = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open dataset " + path); });
    attribute(dataset.get(), path, "units", units);
    attribute(dataset.get(), path, "comoving_exponent", comoving_exponent);
    if (in_restarts >= 0) attribute(dataset.get(), path, "in_restarts", in_restarts);
    run_collectively(comm_, [&] { check(dataset.close(), "close dataset " + path); });
  }

  // A small table column (parameters, field descriptions): rank 0 writes every row.
  void string_column(hid_t parent, const std::string& where, const std::string& name,
                     const std::vector<std::string>& values) {
    std::size_t width = 1;  // HDF5 strings have at least one byte
    for (const auto& value : values) width = std::max(width, value.size());
    std::vector<char> packed(values.size() * width, '\0');  // null-padded, fixed length
    for (std::size_t row = 0; row < values.size(); ++row) std::memcpy(&packed[row * width], values[row].data(), values[row].size());
    H5Handle type;
    run_collectively(comm_, [&] {
      type = make(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type for " + where + "/" + name);
      check(H5Tset_size(type.get(), width), "size a string type for " + where + "/" + name);
      check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "pad a string type for " + where + "/" + name);
      check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8 for " + where + "/" + name);
    });
    column(parent, where, name, type.get(), type.get(), values.size(), packed.data());
  }
  void column(hid_t parent, const std::string& where, const std::string& name, hid_t file_type, hid_t memory_type,
              std::size_t rows, const void* data) {
    dataset(parent, where, name, file_type, memory_type, {rows}, rank_ == 0 ? rows : 0, 0, data);
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::string path_;
  H5Handle file_, transfer_, creation_;
};

// ---------------------------------------------------------------------------------------------
// Validation: everything that could make ranks disagree or write garbage is checked before any
// file is touched.

std::string number5(int number) {
  char text[16];
  std::snprintf(text, sizeof text, "%05d", number);
  return text;
}

std::string level_group_name(int level) {
  char text[16];
  std::snprintf(text, sizeof text, "level_%02d", level);
  return text;
}

// FNV-1a over the whole meta: equal on all ranks or the ranks were handed different snapshots.
class Fingerprint {
 public:
  void add(const void* bytes, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (std::size_t i = 0; i < size; ++i) hash_ = (hash_ ^ p[i]) * 1099511628211ULL;
  }
  template <class T>
  void add(const T& value) { add(&value, sizeof value); }
  void add(const std::string& text) {
    add(text.size());
    add(text.data(), text.size());
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

std::uint64_t fingerprint(const SnapshotMeta& meta) {
  Fingerprint f;
  for (int v : {meta.output_number, meta.ndim, meta.levelmin, meta.levelmax, meta.nx, meta.ny, meta.nz, meta.ncpu})
    f.add(v);
  f.add(meta.step);
  f.add(meta.cosmological);
  for (double v : {meta.boxlen, meta.time, meta.aexp, meta.unit_l, meta.unit_d, meta.unit_t, meta.h0, meta.omega_m,
                   meta.omega_l, meta.omega_k, meta.omega_b})
    f.add(v);
  f.add(meta.ordering);
  for (const auto& field : meta.fields) {
    f.add(field.name);
    f.add(field.units);
    f.add(field.comoving_exponent);
  }
  for (const auto& parameter : meta.parameters) {
    f.add(parameter.block);
    f.add(parameter.name);
    f.add(parameter.value);
    f.add(parameter.from_file);
  }
  for (double key : meta.hilbert_bound_keys) f.add(key);
  return f.value();
}

void validate_meta(const SnapshotMeta& meta) {
  KOSMO_REQUIRE(meta.output_number >= 0 && meta.output_number <= 99999,
                "snapshot: output_number must be in 0..99999, got " << meta.output_number);
  KOSMO_REQUIRE(meta.ndim >= 1 && meta.ndim <= 3, "snapshot: ndim must be 1, 2 or 3, got " << meta.ndim);
  KOSMO_REQUIRE(meta.levelmax >= 1 && meta.levelmin >= 1 && meta.levelmin <= meta.levelmax,
                "snapshot: need 1 <= levelmin <= levelmax, got levelmin=" << meta.levelmin
                                                                          << " levelmax=" << meta.levelmax);
  KOSMO_REQUIRE(meta.nx >= 1 && meta.ny >= 1 && meta.nz >= 1,
                "snapshot: nx, ny, nz must be positive, got " << meta.nx << ", " << meta.ny << ", " << meta.nz);
  KOSMO_REQUIRE(std::isfinite(meta.boxlen) && meta.boxlen > 0, "snapshot: boxlen must be positive, got " << meta.boxlen);
  std::set<std::string> names;
  for (const auto& field : meta.fields) {
    KOSMO_REQUIRE(!field.name.empty() && field.name != "." && field.name != ".." &&
                      field.name.find('/') == std::string::npos,
                  "snapshot: field name '" << field.name << "' cannot name an HDF5 dataset");
    KOSMO_REQUIRE(names.insert(field.name).second, "snapshot: field '" << field.name << "' is registered twice");
  }
}

// Level l (1-based) as handed to the writer.
void validate_level(const SnapshotMeta& meta, const SnapshotLevel& level, int l) {
  const std::size_t cells = std::size_t{1} << meta.ndim;
  const int extent[3] = {meta.nx, meta.ny, meta.nz};
  {
    const int index = l - 1;
    KOSMO_REQUIRE(level.level == l, "snapshot: levels[" << index << "] holds level " << level.level << ", expected " << l);
    KOSMO_REQUIRE(level.oct_coordinates.size() % static_cast<std::size_t>(meta.ndim) == 0,
                  "snapshot: level " << l << ": oct_coordinates has " << level.oct_coordinates.size()
                                     << " integers, not a multiple of ndim=" << meta.ndim);
    const std::size_t octs = level.oct_coordinates.size() / static_cast<std::size_t>(meta.ndim);
    KOSMO_REQUIRE(level.son_flags.size() == octs * cells, "snapshot: level " << l << ": son_flags has "
                                                                             << level.son_flags.size() << " entries for "
                                                                             << octs << " octs, expected " << octs * cells);
    KOSMO_REQUIRE(level.fields.size() == meta.fields.size(),
                  "snapshot: level " << l << ": " << level.fields.size() << " field arrays for " << meta.fields.size()
                                     << " registered fields");
    KOSMO_REQUIRE(level.restart_fields.size() == meta.restart_fields.size(),
                  "snapshot: level " << l << ": " << level.restart_fields.size() << " restart arrays for "
                                     << meta.restart_fields.size() << " restart fields");
    for (std::size_t f = 0; f < level.restart_fields.size(); ++f)
      KOSMO_REQUIRE(level.restart_fields[f].size() == octs * cells,
                    "snapshot: level " << l << ": restart field '" << meta.restart_fields[f].name << "' has "
                                       << level.restart_fields[f].size() << " values for " << octs << " octs");
    for (std::size_t f = 0; f < level.fields.size(); ++f)
      KOSMO_REQUIRE(level.fields[f].size() == octs * cells,
                    "snapshot: level " << l << ": field '" << meta.fields[f].name << "' has " << level.fields[f].size()
                                       << " values for " << octs << " octs, expected " << octs * cells);
    for (std::size_t i = 0; i < level.oct_coordinates.size(); ++i) {
      const int axis = static_cast<int>(i % static_cast<std::size_t>(meta.ndim));
      const double limit = std::ldexp(static_cast<double>(extent[axis]), l - 1);
      const auto coordinate = level.oct_coordinates[i];
      KOSMO_REQUIRE(coordinate >= 0 && static_cast<double>(coordinate) < limit,
                    "snapshot: level " << l << ": oct " << i / static_cast<std::size_t>(meta.ndim) << " has coordinate "
                                       << coordinate << " along axis " << axis << ", outside [0, " << limit << ")");
    }
    for (std::uint8_t flag : level.son_flags)
      KOSMO_REQUIRE(flag <= 1, "snapshot: level " << l << ": son flag " << int(flag) << " is neither 0 nor 1");
  }
}

void validate_levels(const SnapshotMeta& meta, const std::vector<SnapshotLevel>& levels) {
  KOSMO_REQUIRE(static_cast<int>(levels.size()) == meta.levelmax,
                "snapshot: expected one SnapshotLevel per level 1.." << meta.levelmax << ", got " << levels.size());
  for (std::size_t index = 0; index < levels.size(); ++index) validate_level(meta, levels[index], static_cast<int>(index) + 1);
}

// ---------------------------------------------------------------------------------------------
// Files on disk.

// Pushes a file's (or directory's) data to stable storage before it is renamed into place.
void sync_path(const fs::path& path, bool required) {
  const int descriptor = ::open(path.c_str(), O_RDONLY);
  if (descriptor < 0) {
    KOSMO_REQUIRE(!required, "snapshot: cannot open '" << path.string() << "' to sync it: " << std::strerror(errno));
    return;
  }
  const int status = ::fsync(descriptor);
  const int saved = errno;
  ::close(descriptor);
  KOSMO_REQUIRE(status == 0 || !required, "snapshot: cannot sync '" << path.string() << "': " << std::strerror(saved));
}

void write_text_file(const fs::path& path, const std::string& text) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    KOSMO_REQUIRE(out, "snapshot: cannot create '" << path.string() << "'");
    out << text;
    out.flush();
    KOSMO_REQUIRE(out, "snapshot: cannot write '" << path.string() << "'");
  }
  sync_path(path, true);
}

// Moves the finished temporary directory into place. An existing output is renamed aside first
// and removed only once the new one is in place, so at every instant one complete copy exists.
void move_into_place(const fs::path& temporary, const fs::path& final_path, const fs::path& aside) {
  std::error_code error;
  const bool replacing = fs::exists(final_path, error) || fs::is_symlink(final_path, error);
  if (replacing) {
    fs::remove_all(aside, error);  // a stale leftover of an earlier interrupted replacement
    fs::rename(final_path, aside, error);
    KOSMO_REQUIRE(!error, "snapshot: cannot move the existing '" << final_path.string() << "' aside to '"
                                                                << aside.string() << "': " << error.message());
  }
  fs::rename(temporary, final_path, error);
  if (error) {
    std::error_code restore_error;
    if (replacing) fs::rename(aside, final_path, restore_error);
    KOSMO_FAIL("snapshot: cannot rename '" << temporary.string() << "' to '" << final_path.string()
                                           << "': " << error.message());
  }
  // The new snapshot is complete and in place; a leftover old copy is untidy, not an error.
  if (replacing) fs::remove_all(aside, error);
  sync_path(final_path.parent_path().empty() ? fs::path(".") : final_path.parent_path(), false);
}

// Where this rank's particles go in /particles: rows [offset, offset + local) of total.
struct ParticleRows {
  long long local = 0, offset = 0, total = 0;
};

// File and memory types of one attribute array's values.
struct ParticleTypes {
  hid_t file, memory;
};
ParticleTypes particle_types(const std::vector<double>&) { return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE}; }
ParticleTypes particle_types(const std::vector<std::int64_t>&) { return {H5T_STD_I64LE, H5T_NATIVE_INT64}; }
ParticleTypes particle_types(const std::vector<std::int8_t>&) { return {H5T_STD_I8LE, H5T_NATIVE_INT8}; }

// /particles: one 1-D dataset per attribute array, every rank's particles concatenated in rank
// order (docs/outputs.md), each with the registry's `units` and `comoving_exponent` as attributes.
// Present in every snapshot, with zero rows when the run has none, so that a reader can tell "no
// particles" from "written before kosmo had particles" (no group).
void write_particles(Hdf5SnapshotFile& file, const SnapshotMeta& meta, const SnapshotParticles& particles,
                     const ParticleRows& rows) {
  const std::string where = "/particles";
  H5Handle group = file.create_group(file.root(), "particles", where);
  file.attribute(group.get(), where, "count", rows.total);
  const std::vector<hsize_t> dims = {static_cast<hsize_t>(rows.total)};
  const auto local = static_cast<hsize_t>(rows.local), offset = static_cast<hsize_t>(rows.offset);
  const auto describe_by_name = [&](hid_t parent, const std::string& at, const std::string& name) {
    for (const auto& entry : particles.units)
      if (entry.name == name) file.describe_dataset(parent, at, name, entry.units, entry.comoving_exponent);
  };
  const auto standard = [&](const std::string& name, hid_t file_type, hid_t memory_type, const void* data) {
    file.dataset(group.get(), where, name, file_type, memory_type, dims, local, offset, data);
    describe_by_name(group.get(), where, name);
  };
  const char* axes[3] = {"x", "y", "z"};
  for (int d = 0; d < meta.ndim; ++d)
    standard(std::string("position_") + axes[d], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, particles.position[static_cast<std::size_t>(d)].data());
  for (int d = 0; d < meta.ndim; ++d)
    standard(std::string("velocity_") + axes[d], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, particles.velocity[static_cast<std::size_t>(d)].data());
  standard("mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, particles.mass.data());
  standard("identity", H5T_STD_I64LE, H5T_NATIVE_INT64, particles.id.data());
  // int32 on disk, as RAMSES' levelp and the Python reader's dtype; HDF5 widens the int8 values.
  standard("level", H5T_STD_I32LE, H5T_NATIVE_INT8, particles.level.data());
  standard("family", H5T_STD_I8LE, H5T_NATIVE_INT8, particles.family.data());
  // Further registered attributes, listed by name in registration order (absent when none).
  if (!particles.attributes.empty()) {
    std::vector<std::string> names;
    for (const auto& attribute : particles.attributes) {
      names.push_back(attribute.name);
      std::visit(
          [&](const auto& values) {
            const ParticleTypes types = particle_types(values);
            file.dataset(group.get(), where, attribute.name, types.file, types.memory, dims, local, offset, values.data());
          },
          attribute.values);
      file.describe_dataset(group.get(), where, attribute.name, attribute.units, attribute.comoving_exponent,
                            attribute.in_restarts ? 1 : 0);
    }
    file.string_column(group.get(), where, "attributes", names);
  }
  // The driver's restart-only state, listed by name like /restart_fields (the same on every rank).
  std::vector<std::string> names;
  for (const auto& field : particles.restart_fields) names.push_back(field.name);
  file.string_column(group.get(), where, "restart_fields", names);
  if (!names.empty()) {
    H5Handle restart = file.create_group(group.get(), "restart", where + "/restart");
    for (const auto& field : particles.restart_fields) {
      file.dataset(restart.get(), where + "/restart", field.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, local, offset,
                   field.values.data());
      describe_by_name(restart.get(), where + "/restart", field.name);
    }
    file.close_group(restart, where + "/restart");
  }
  file.close_group(group, where);
}

// level_at(l): this rank's share of level l, for l = 1..levelmax in order; a reference valid until
// the next call.
using LevelAt = std::function<const SnapshotLevel&(int level)>;

void write_hdf5(MPI_Comm comm, const std::string& path, const SnapshotMeta& meta,
                const LevelAt& level_at, const std::vector<long long>& totals,
                const std::vector<long long>& offsets, const SnapshotParticles& particles,
                const ParticleRows& particle_rows) {
  Hdf5SnapshotFile file(comm, path);
  file.create();
  const hid_t root = file.root();
  const std::string top = "/";
  file.attribute(root, top, "format", std::string("kosmo"));
  file.attribute(root, top, "format_version", kSnapshotFormatVersion);
  file.attribute(root, top, "kosmo_version", std::string("0.1.0"));
  file.attribute(root, top, "output_number", meta.output_number);
  file.attribute(root, top, "ndim", meta.ndim);
  file.attribute(root, top, "levelmin", meta.levelmin);
  file.attribute(root, top, "levelmax", meta.levelmax);
  file.attribute(root, top, "nx", meta.nx);
  file.attribute(root, top, "ny", meta.ny);
  file.attribute(root, top, "nz", meta.nz);
  file.attribute(root, top, "boxlen", meta.boxlen);
  file.attribute(root, top, "time", meta.time);
  file.attribute(root, top, "aexp", meta.aexp);
  file.attribute(root, top, "step", meta.step);
  file.attribute(root, top, "ncpu", meta.ncpu);
  file.attribute(root, top, "unit_l", meta.unit_l);
  file.attribute(root, top, "unit_d", meta.unit_d);
  file.attribute(root, top, "unit_t", meta.unit_t);
  file.attribute(root, top, "ordering", meta.ordering);
  file.attribute(root, top, "cosmological", meta.cosmological ? 1 : 0);
  file.attribute(root, top, "H0", meta.h0);
  file.attribute(root, top, "omega_m", meta.omega_m);
  file.attribute(root, top, "omega_l", meta.omega_l);
  file.attribute(root, top, "omega_k", meta.omega_k);
  file.attribute(root, top, "omega_b", meta.omega_b);

  {
    H5Handle group = file.create_group(root, "fields", "/fields");
    std::vector<std::string> names, units;
    std::vector<int> exponents;
    for (const auto& field : meta.fields) {
      names.push_back(field.name);
      units.push_back(field.units);
      exponents.push_back(field.comoving_exponent);
    }
    file.string_column(group.get(), "/fields", "name", names);
    file.string_column(group.get(), "/fields", "units", units);
    file.column(group.get(), "/fields", "comoving_exponent", H5T_STD_I32LE, H5T_NATIVE_INT, exponents.size(),
                exponents.data());
    file.close_group(group, "/fields");
  }
  if (!meta.ksection_walls.empty() || !meta.hilbert_bounds.empty()) {
    H5Handle group = file.create_group(root, "decomposition", "/decomposition");
    if (!meta.ksection_walls.empty())
      file.column(group.get(), "/decomposition", "ksection_walls", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, meta.ksection_walls.size(),
                  meta.ksection_walls.data());
    if (!meta.hilbert_bounds.empty())
      file.column(group.get(), "/decomposition", "hilbert_bounds", H5T_STD_U64LE, H5T_NATIVE_UINT64, meta.hilbert_bounds.size(),
                  meta.hilbert_bounds.data());
    file.close_group(group, "/decomposition");
  }
  if (!meta.restart_fields.empty()) {
    // Names of the restart datasets under every level_NN/restart/, in the order a restart reads them.
    H5Handle group = file.create_group(root, "restart_fields", "/restart_fields");
    std::vector<std::string> names;
    for (const auto& field : meta.restart_fields) names.push_back(field.name);
    file.string_column(group.get(), "/restart_fields", "name", names);
    file.close_group(group, "/restart_fields");
  }
  {
    H5Handle group = file.create_group(root, "parameters", "/parameters");
    std::vector<std::string> blocks, names, values;
    std::vector<std::uint8_t> from_file;
    for (const auto& parameter : meta.parameters) {
      blocks.push_back(parameter.block);
      names.push_back(parameter.name);
      values.push_back(parameter.value);
      from_file.push_back(parameter.from_file ? 1 : 0);
    }
    file.string_column(group.get(), "/parameters", "block", blocks);
    file.string_column(group.get(), "/parameters", "name", names);
    file.string_column(group.get(), "/parameters", "value", values);
    file.column(group.get(), "/parameters", "from_file", H5T_STD_U8LE, H5T_NATIVE_UINT8, from_file.size(),
                from_file.data());
    file.close_group(group, "/parameters");
  }

  const auto ndim = static_cast<hsize_t>(meta.ndim);
  const hsize_t cells = hsize_t{1} << meta.ndim;
  for (int l = 1; l <= meta.levelmax; ++l) {
    const SnapshotLevel& level = level_at(l);
    std::string where = level_group_name(level.level);
    where.insert(0, 1, '/');  // not "/" + name: GCC 12 warns falsely (-Wrestrict) on that inlined concatenation
    const auto index = static_cast<std::size_t>(level.level - 1);
    const auto total = static_cast<hsize_t>(totals[index]);
    const auto offset = static_cast<hsize_t>(offsets[index]);
    const auto local = static_cast<hsize_t>(level.oct_coordinates.size()) / ndim;
    H5Handle group = file.create_group(root, where.substr(1), where);
    file.attribute(group.get(), where, "level", level.level);
    file.attribute(group.get(), where, "noct", totals[index]);
    file.dataset(group.get(), where, "oct_coordinates", H5T_STD_I64LE, H5T_NATIVE_INT64, {total, ndim}, local, offset,
                 level.oct_coordinates.data());
    file.dataset(group.get(), where, "son_flags", H5T_STD_U8LE, H5T_NATIVE_UINT8, {total, cells}, local, offset,
                 level.son_flags.data());
    H5Handle fields = file.create_group(group.get(), "fields", where + "/fields");
    // HDF5 converts the doubles to float32 on the way when single precision is asked for.
    const hid_t field_type = meta.single_precision_fields ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    for (std::size_t f = 0; f < meta.fields.size(); ++f)
      file.dataset(fields.get(), where + "/fields", meta.fields[f].name, field_type, H5T_NATIVE_DOUBLE,
                   {total, cells}, local, offset, level.fields[f].data());
    file.close_group(fields, where + "/fields");
    if (!meta.restart_fields.empty()) {
      H5Handle restart = file.create_group(group.get(), "restart", where + "/restart");
      for (std::size_t f = 0; f < meta.restart_fields.size(); ++f)
        file.dataset(restart.get(), where + "/restart", meta.restart_fields[f].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                     {total, cells}, local, offset, level.restart_fields[f].data());
      file.close_group(restart, where + "/restart");
    }
    file.close_group(group, where);
  }
  write_particles(file, meta, particles, particle_rows);
  file.close();
}

}  // namespace

std::string output_directory_name(int output_number) { return "output_" + number5(output_number); }

namespace {

// Both forms of write_snapshot: `local[l - 1]` octs of level l on this rank, handed over by level_at;
// `levels_checked`: the levels were validated before (the whole mesh at hand), else each is as it
// comes, all ranks agreeing, before it is written.
void write_snapshot_levels(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta,
                           std::vector<long long> local, const LevelAt& level_at, bool levels_checked,
                           const SnapshotParticles* particles) {
  const SnapshotParticles none;
  const SnapshotParticles& my_particles = particles != nullptr ? *particles : none;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  SilenceHdf5Errors silence;

  // 1. Validate everything before touching any file; the meta must be the same on every rank.
  {
    std::string error;
    try {
      validate_meta(meta);
      KOSMO_REQUIRE(static_cast<int>(local.size()) == meta.levelmax,
                    "snapshot: expected oct counts of levels 1.." << meta.levelmax << ", got " << local.size());
      check_snapshot_particles(my_particles, meta.ndim, "snapshot: particles");
    } catch (const std::exception& caught) {
      error = caught.what();
    }
    const std::uint64_t mine = fingerprint(meta);
    std::uint64_t lowest = 0, highest = 0;
    MPI_Allreduce(&mine, &lowest, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(&mine, &highest, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (error.empty() && lowest != highest) error = "snapshot: the SnapshotMeta differs between ranks";
    require_on_all_ranks(comm, error.empty(), error);
    require_same_restart_names(comm, my_particles, "snapshot: particles");
  }

  // 2. Where each rank's octs go: rank order, offsets by exclusive prefix sum.
  const auto nlevel = static_cast<std::size_t>(meta.levelmax);
  std::vector<long long> totals(nlevel), offsets(nlevel, 0);
  MPI_Allreduce(local.data(), totals.data(), meta.levelmax, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Exscan(local.data(), offsets.data(), meta.levelmax, MPI_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) std::fill(offsets.begin(), offsets.end(), 0LL);  // MPI_Exscan leaves rank 0 undefined
  long long total_octs = 0;
  for (long long count : totals) total_octs += count;
  ParticleRows particle_rows;
  particle_rows.local = static_cast<long long>(my_particles.size());
  MPI_Allreduce(&particle_rows.local, &particle_rows.total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Exscan(&particle_rows.local, &particle_rows.offset, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) particle_rows.offset = 0;
  // header_NNNNN.txt's family counts (RAMSES writes the header into every output).
  const RamsesParticleTotals particle_totals = ramses_particle_totals(comm, my_particles);

  // 3. Everything is written into output_NNNNN.tmp/ first.
  const std::string name = output_directory_name(meta.output_number);
  const fs::path parent = directory.empty() ? fs::path(".") : fs::path(directory);
  const fs::path final_path = parent / name;
  const fs::path temporary = parent / (name + ".tmp");
  const fs::path aside = parent / (name + ".old");
  run_collectively(comm, [&] {
    if (rank != 0) return;
    std::error_code error;
    fs::remove_all(temporary, error);  // left by an interrupted earlier attempt
    KOSMO_REQUIRE(!error, "snapshot: cannot remove the stale '" << temporary.string() << "': " << error.message());
    fs::create_directories(temporary, error);
    KOSMO_REQUIRE(!error, "snapshot: cannot create '" << temporary.string() << "': " << error.message());
  });

  const fs::path h5_path = temporary / ("kosmo_" + number5(meta.output_number) + ".h5");
  try {
    const LevelAt checked = [&](int l) -> const SnapshotLevel& {
      const SnapshotLevel& level = level_at(l);
      if (levels_checked) return level;
      run_collectively(comm, [&] {
        validate_level(meta, level, l);
        const auto octs = static_cast<long long>(level.oct_coordinates.size() / static_cast<std::size_t>(meta.ndim));
        KOSMO_REQUIRE(octs == local[static_cast<std::size_t>(l - 1)],
                      "snapshot: level " << l << " has " << octs << " octs, " << local[static_cast<std::size_t>(l - 1)] << " announced");
      });
      return level;
    };
    write_hdf5(comm, h5_path.string(), meta, checked, totals, offsets, my_particles, particle_rows);
    // 4. The info file, then everything synced; the agreement doubles as the barrier after
    //    which every rank has closed the HDF5 file.
    run_collectively(comm, [&] {
      if (rank != 0) return;
      write_text_file(temporary / ("info_" + number5(meta.output_number) + ".txt"),
                      format_info_file(meta, total_octs));
      write_ramses_output_header(temporary, meta, particle_totals);
      write_sink_group(h5_path.string(), meta.sinks, meta.ndim);  // the closed file gets /sinks (io/snapshot_sink_group.hpp)
      sync_path(h5_path, true);
      sync_path(temporary, false);
    });
  } catch (const Error&) {
    // Every rank throws here together; the half-written directory is of no use to anyone.
    std::error_code ignored;
    if (rank == 0) fs::remove_all(temporary, ignored);
    throw;
  }

  // 5. Only now may an existing output be replaced.
  run_collectively(comm, [&] {
    if (rank == 0) move_into_place(temporary, final_path, aside);
  });
}

}  // namespace

void write_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta,
                    const std::vector<SnapshotLevel>& levels, const SnapshotParticles* particles) {
  std::string error;
  try {
    validate_meta(meta);  // first, so that a bad meta is reported as such
    validate_levels(meta, levels);
  } catch (const std::exception& caught) {
    error = caught.what();
  }
  require_on_all_ranks(comm, error.empty(), error);
  std::vector<long long> local;
  for (const SnapshotLevel& level : levels)
    local.push_back(static_cast<long long>(level.oct_coordinates.size() / static_cast<std::size_t>(std::max(meta.ndim, 1))));
  write_snapshot_levels(comm, directory, meta, std::move(local),
                        [&](int l) -> const SnapshotLevel& { return levels[static_cast<std::size_t>(l - 1)]; }, true, particles);
}

void write_snapshot(MPI_Comm comm, const std::string& directory, const SnapshotMeta& meta, const SnapshotLevelSource& levels,
                    const SnapshotParticles* particles) {
  SnapshotLevel current;
  write_snapshot_levels(comm, directory, meta, levels.octs, [&](int l) -> const SnapshotLevel& {
    current = SnapshotLevel{};  // the previous level's copy goes before the next is made
    current = levels.level(l);
    return current;
  }, false, particles);
}

}  // namespace kosmo::io
