#include "io/snapshot_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "io/hdf5_handle.hpp"
#include "io/snapshot_sink_group.hpp"
#include "io/snapshot_writer.hpp"
#include "parallel/collective_check.hpp"

namespace kosmo::io {
namespace {

using parallel::run_collectively;

class Hdf5SnapshotReader {
 public:
  Hdf5SnapshotReader(MPI_Comm comm, std::string path) : comm_(comm), path_(std::move(path)) {}

  H5Handle make(hid_t id, H5Handle::Closer closer, const std::string& what) const {
    if (id < 0) KOSMO_FAIL("restart: cannot " << what << " in '" << path_ << "'" << hdf5_error_detail());
    return H5Handle(id, closer);
  }
  void check(herr_t status, const std::string& what) const {
    if (status < 0) KOSMO_FAIL("restart: cannot " << what << " in '" << path_ << "'" << hdf5_error_detail());
  }

  void open() {
    run_collectively(comm_, [&] {
      KOSMO_REQUIRE(std::filesystem::exists(path_), "restart: '" << path_ << "' does not exist (nrestart names an output that is not there)");
      H5Handle fapl = make(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a file access property list");
      check(H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL), "select the MPI-IO driver");
      check(H5Pset_all_coll_metadata_ops(fapl.get(), true), "request collective metadata reads");
      file_ = make(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose, "open the file (truncated or not HDF5?)");
      transfer_ = make(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create a transfer property list");
      check(H5Pset_dxpl_mpio(transfer_.get(), H5FD_MPIO_COLLECTIVE), "select collective transfers");
    });
  }

  template <class T>
  T attribute(hid_t object, const std::string& where, const std::string& name, hid_t memory_type) {
    T value{};
    run_collectively(comm_, [&] {
      H5Handle a = make(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + where + ":" + name);
      check(H5Aread(a.get(), memory_type, &value), "read attribute " + where + ":" + name);
    });
    return value;
  }
  std::string string_attribute(hid_t object, const std::string& where, const std::string& name) {
    std::string value;
    run_collectively(comm_, [&] {
      H5Handle a = make(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + where + ":" + name);
      H5Handle type = make(H5Aget_type(a.get()), H5Tclose, "get the type of " + where + ":" + name);
      if (H5Tis_variable_str(type.get()) > 0) {  // the writer stores variable-length strings
        H5Handle memory = make(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type for " + where + ":" + name);
        check(H5Tset_size(memory.get(), H5T_VARIABLE), "size a string type for " + where + ":" + name);
        check(H5Tset_cset(memory.get(), H5Tget_cset(type.get())), "set the character set for " + where + ":" + name);
        char* text = nullptr;
        check(H5Aread(a.get(), memory.get(), &text), "read attribute " + where + ":" + name);
        value = text ? text : "";
        H5free_memory(text);
        return;
      }
      const std::size_t size = H5Tget_size(type.get());
      std::vector<char> text(size + 1, '\0');
      check(H5Aread(a.get(), type.get(), text.data()), "read attribute " + where + ":" + name);
      value = text.data();
    });
    return value;
  }
  std::vector<std::string> string_column(hid_t parent, const std::string& where, const std::string& name) {
    std::vector<std::string> values;
    run_collectively(comm_, [&] {
      H5Handle d = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where + "/" + name);
      H5Handle type = make(H5Dget_type(d.get()), H5Tclose, "get the type of " + where + "/" + name);
      H5Handle space = make(H5Dget_space(d.get()), H5Sclose, "get the dataspace of " + where + "/" + name);
      const std::size_t width = H5Tget_size(type.get());
      const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
      std::vector<char> packed(rows * width + 1, '\0');
      if (rows > 0) check(H5Dread(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), "read " + where + "/" + name);
      for (std::size_t r = 0; r < rows; ++r) values.emplace_back(packed.data() + r * width, strnlen(packed.data() + r * width, width));
    });
    return values;
  }
  // A whole 1-D dataset, read by every rank.
  template <class T>
  std::vector<T> column(hid_t parent, const std::string& where, const std::string& name, hid_t memory_type) {
    std::vector<T> values;
    run_collectively(comm_, [&] {
      H5Handle d = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where + "/" + name);
      H5Handle space = make(H5Dget_space(d.get()), H5Sclose, "get the dataspace of " + where + "/" + name);
      values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
      if (!values.empty()) check(H5Dread(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "read " + where + "/" + name);
    });
    return values;
  }
  // Rows [first, first + count) of a 2-D dataset with `columns` columns, read collectively.
  void rows(hid_t parent, const std::string& where, const std::string& name, hid_t memory_type, hsize_t first, hsize_t count,
            hsize_t columns, void* out) {
    H5Handle d, file_space, memory_space;
    run_collectively(comm_, [&] {
      d = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where + "/" + name);
      file_space = make(H5Dget_space(d.get()), H5Sclose, "get the dataspace of " + where + "/" + name);
      hsize_t dims[2] = {0, 0};
      KOSMO_REQUIRE(H5Sget_simple_extent_ndims(file_space.get()) == 2, "restart: " << where << "/" << name << " in '" << path_
                                                                                   << "' is not a 2-D dataset");
      H5Sget_simple_extent_dims(file_space.get(), dims, nullptr);
      KOSMO_REQUIRE(dims[1] == columns && first + count <= dims[0],
                    "restart: " << where << "/" << name << " in '" << path_ << "' has shape " << dims[0] << "x" << dims[1]
                                << ", inconsistent with the level's oct count");
      const hsize_t local[2] = {std::max<hsize_t>(count, 1), columns};
      memory_space = make(H5Screate_simple(2, local, nullptr), H5Sclose, "create a memory space for " + where + "/" + name);
      if (count == 0) {
        check(H5Sselect_none(file_space.get()), "select nothing in " + where + "/" + name);
        check(H5Sselect_none(memory_space.get()), "select nothing in " + where + "/" + name);
      } else {
        const hsize_t start[2] = {first, 0}, size[2] = {count, columns};
        check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr), "select rows of " + where + "/" + name);
      }
    });
    run_collectively(comm_, [&] {
      unsigned char nothing[16] = {};
      check(H5Dread(d.get(), memory_type, memory_space.get(), file_space.get(), transfer_.get(), count > 0 ? out : nothing),
            "read " + where + "/" + name);
    });
  }

  // Rows [first, first + count) of a 1-D dataset of `total` rows, read collectively.
  void column_rows(hid_t parent, const std::string& where, const std::string& name, hid_t memory_type, hsize_t total,
                   hsize_t first, hsize_t count, void* out) {
    H5Handle d, file_space, memory_space;
    run_collectively(comm_, [&] {
      d = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where + "/" + name);
      file_space = make(H5Dget_space(d.get()), H5Sclose, "get the dataspace of " + where + "/" + name);
      hsize_t rows = 0;
      KOSMO_REQUIRE(H5Sget_simple_extent_ndims(file_space.get()) == 1 && H5Sget_simple_extent_dims(file_space.get(), &rows, nullptr) == 1 &&
                        rows == total,
                    "restart: " << where << "/" << name << " in '" << path_ << "' is not a 1-D dataset of " << total
                                << " rows (the group's count attribute)");
      const hsize_t local = std::max<hsize_t>(count, 1);
      memory_space = make(H5Screate_simple(1, &local, nullptr), H5Sclose, "create a memory space for " + where + "/" + name);
      if (count == 0) {
        check(H5Sselect_none(file_space.get()), "select nothing in " + where + "/" + name);
        check(H5Sselect_none(memory_space.get()), "select nothing in " + where + "/" + name);
      } else {
        check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr), "select rows of " + where + "/" + name);
      }
    });
    run_collectively(comm_, [&] {
      unsigned char nothing[16] = {};
      check(H5Dread(d.get(), memory_type, memory_space.get(), file_space.get(), transfer_.get(), count > 0 ? out : nothing),
            "read " + where + "/" + name);
    });
  }

  H5Handle dataset(hid_t parent, const std::string& where, const std::string& name) {
    H5Handle d;
    run_collectively(comm_, [&] { d = make(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + where + "/" + name); });
    return d;
  }
  // Empty values of the type a particle attribute dataset is stored as (float64, int64 or int8).
  ParticleValues particle_values_of(hid_t dataset, const std::string& shown) {
    ParticleValues values;
    run_collectively(comm_, [&] {
      H5Handle type = make(H5Dget_type(dataset), H5Tclose, "get the type of " + shown);
      const H5T_class_t type_class = H5Tget_class(type.get());
      const std::size_t size = H5Tget_size(type.get());
      if (type_class == H5T_FLOAT && size == 8) {
        values = std::vector<double>{};
      } else if (type_class == H5T_INTEGER && size == 8) {
        values = std::vector<std::int64_t>{};
      } else if (type_class == H5T_INTEGER && size == 1) {
        values = std::vector<std::int8_t>{};
      } else {
        KOSMO_FAIL("restart: " << shown << " in '" << path_ << "' is neither float64, int64 nor int8");
      }
    });
    return values;
  }

  hid_t root() const { return file_.get(); }
  H5Handle group(hid_t parent, const std::string& name) {
    H5Handle g;
    run_collectively(comm_, [&] { g = make(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose, "open group " + name); });
    return g;
  }
  bool has(hid_t parent, const std::string& name) {
    return H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0;
  }

 private:
  MPI_Comm comm_;
  std::string path_;
  H5Handle file_, transfer_;
};

std::string level_group_name(int level) { return (level < 10 ? "level_0" : "level_") + std::to_string(level); }

// This rank's share [n r / P, n (r + 1) / P) of /particles; nothing when the group is absent.
SnapshotParticles read_particle_share(Hdf5SnapshotReader& file, const std::string& path, int ndim, int rank, int nrank,
                                      MPI_Comm comm) {
  SnapshotParticles particles;
  if (!file.has(file.root(), "particles")) return particles;  // written before kosmo stored particles
  const std::string where = "/particles";
  H5Handle group = file.group(file.root(), "particles");
  const long long count = file.attribute<long long>(group.get(), where, "count", H5T_NATIVE_LLONG);
  run_collectively(comm, [&] { KOSMO_REQUIRE(count >= 0, "restart: " << where << " in '" << path << "' has count " << count); });
  const auto total = static_cast<hsize_t>(count);
  std::vector<std::string> restart_names;
  if (file.has(group.get(), "restart_fields")) restart_names = file.string_column(group.get(), where, "restart_fields");
  std::vector<std::string> attribute_names;
  if (file.has(group.get(), "attributes")) attribute_names = file.string_column(group.get(), where, "attributes");
  // Every attribute array with its metadata; values are read below when there are any.
  for (const std::string& name : attribute_names) {
    H5Handle dataset = file.dataset(group.get(), where, name);
    ParticleAttributeArray attribute;
    attribute.name = name;
    attribute.values = file.particle_values_of(dataset.get(), where + "/" + name);
    attribute.units = file.string_attribute(dataset.get(), where + "/" + name, "units");
    attribute.comoving_exponent = file.attribute<int>(dataset.get(), where + "/" + name, "comoving_exponent", H5T_NATIVE_INT);
    attribute.in_restarts = file.attribute<int>(dataset.get(), where + "/" + name, "in_restarts", H5T_NATIVE_INT) != 0;
    particles.attributes.push_back(std::move(attribute));
  }
  if (total == 0) {  // the writer allocates no storage for empty datasets: nothing to read
    for (const std::string& name : restart_names) particles.restart_fields.push_back({name, {}});
    return particles;
  }
  const hsize_t first = total * static_cast<hsize_t>(rank) / static_cast<hsize_t>(nrank);
  const hsize_t n = total * static_cast<hsize_t>(rank + 1) / static_cast<hsize_t>(nrank) - first;
  const char* axes[3] = {"x", "y", "z"};
  for (int d = 0; d < ndim; ++d) {
    auto& position = particles.position[static_cast<std::size_t>(d)];
    auto& velocity = particles.velocity[static_cast<std::size_t>(d)];
    position.resize(n);
    velocity.resize(n);
    file.column_rows(group.get(), where, std::string("position_") + axes[d], H5T_NATIVE_DOUBLE, total, first, n, position.data());
    file.column_rows(group.get(), where, std::string("velocity_") + axes[d], H5T_NATIVE_DOUBLE, total, first, n, velocity.data());
  }
  particles.mass.resize(n);
  particles.id.resize(n);
  particles.level.resize(n);
  particles.family.resize(n);
  file.column_rows(group.get(), where, "mass", H5T_NATIVE_DOUBLE, total, first, n, particles.mass.data());
  file.column_rows(group.get(), where, "identity", H5T_NATIVE_INT64, total, first, n, particles.id.data());
  file.column_rows(group.get(), where, "level", H5T_NATIVE_INT8, total, first, n, particles.level.data());
  file.column_rows(group.get(), where, "family", H5T_NATIVE_INT8, total, first, n, particles.family.data());
  for (ParticleAttributeArray& attribute : particles.attributes)
    std::visit(
        [&](auto& values) {
          using Value = typename std::remove_reference_t<decltype(values)>::value_type;
          values.resize(n);
          const hid_t memory = std::is_same_v<Value, double> ? H5T_NATIVE_DOUBLE
                               : std::is_same_v<Value, std::int64_t> ? H5T_NATIVE_INT64
                                                                     : H5T_NATIVE_INT8;
          file.column_rows(group.get(), where, attribute.name, memory, total, first, n, values.data());
        },
        attribute.values);
  if (!restart_names.empty()) {
    H5Handle restart = file.group(group.get(), "restart");
    for (const std::string& name : restart_names) {
      ParticleRestartField field{name, std::vector<double>(n)};
      file.column_rows(restart.get(), where + "/restart", name, H5T_NATIVE_DOUBLE, total, first, n, field.values.data());
      particles.restart_fields.push_back(std::move(field));
    }
  }
  return particles;
}

}  // namespace

// Everything but the sinks, through the collective MPI-IO reader (closed on return).
static RestartShare read_mesh_and_particle_share(MPI_Comm comm, const std::string& directory, int output_number) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  SilenceHdf5Errors silence;
  const std::string name = output_directory_name(output_number);  // output_NNNNN
  const std::filesystem::path dir = std::filesystem::path(directory.empty() ? "." : directory) / name;
  const std::string path = (dir / ("kosmo_" + name.substr(7) + ".h5")).string();

  Hdf5SnapshotReader file(comm, path);
  file.open();
  RestartShare share;
  SnapshotMeta& meta = share.meta;
  const hid_t root = file.root();
  meta.output_number = output_number;
  meta.ndim = file.attribute<int>(root, "/", "ndim", H5T_NATIVE_INT);
  meta.levelmin = file.attribute<int>(root, "/", "levelmin", H5T_NATIVE_INT);
  meta.levelmax = file.attribute<int>(root, "/", "levelmax", H5T_NATIVE_INT);
  meta.nx = file.attribute<int>(root, "/", "nx", H5T_NATIVE_INT);
  meta.ny = file.attribute<int>(root, "/", "ny", H5T_NATIVE_INT);
  meta.nz = file.attribute<int>(root, "/", "nz", H5T_NATIVE_INT);
  meta.boxlen = file.attribute<double>(root, "/", "boxlen", H5T_NATIVE_DOUBLE);
  meta.time = file.attribute<double>(root, "/", "time", H5T_NATIVE_DOUBLE);
  meta.aexp = file.attribute<double>(root, "/", "aexp", H5T_NATIVE_DOUBLE);
  meta.step = file.attribute<long long>(root, "/", "step", H5T_NATIVE_LLONG);
  meta.ncpu = file.attribute<int>(root, "/", "ncpu", H5T_NATIVE_INT);
  meta.ordering = file.string_attribute(root, "/", "ordering");
  parallel::run_collectively(comm, [&] {
    KOSMO_REQUIRE(meta.ndim >= 1 && meta.ndim <= 3 && meta.levelmax >= 1, "restart: '" << path << "' has ndim=" << meta.ndim
                                                                                    << " levelmax=" << meta.levelmax);
    KOSMO_REQUIRE(file.has(root, "restart_fields"),
                  "restart: '" << path << "' holds no restart data (written before kosmo wrote restart fields)");
  });
  if (file.has(root, "decomposition")) {
    H5Handle group = file.group(root, "decomposition");
    if (file.has(group.get(), "ksection_walls"))
      meta.ksection_walls = file.column<double>(group.get(), "/decomposition", "ksection_walls", H5T_NATIVE_DOUBLE);
    if (file.has(group.get(), "hilbert_bounds"))
      meta.hilbert_bounds = file.column<std::uint64_t>(group.get(), "/decomposition", "hilbert_bounds", H5T_NATIVE_UINT64);
  }
  {
    H5Handle names = file.group(root, "restart_fields");
    share.restart_field_names = file.string_column(names.get(), "/restart_fields", "name");
  }
  const auto ndim = static_cast<hsize_t>(meta.ndim);
  const hsize_t cells = hsize_t{1} << meta.ndim;
  for (int l = 1; l <= meta.levelmax; ++l) {
    const std::string where = "/" + level_group_name(l);
    H5Handle group = file.group(root, where.substr(1));
    const auto noct = static_cast<hsize_t>(file.attribute<long long>(group.get(), where, "noct", H5T_NATIVE_LLONG));
    const hsize_t first = noct * static_cast<hsize_t>(rank) / static_cast<hsize_t>(nrank);
    const hsize_t last = noct * static_cast<hsize_t>(rank + 1) / static_cast<hsize_t>(nrank);
    SnapshotLevel level;
    level.level = l;
    if (noct == 0) {  // the writer allocates no storage for an empty level: nothing to read
      level.restart_fields.assign(share.restart_field_names.size(), {});
      share.levels.push_back(std::move(level));
      continue;
    }
    level.oct_coordinates.resize((last - first) * ndim);
    file.rows(group.get(), where, "oct_coordinates", H5T_NATIVE_INT64, first, last - first, ndim, level.oct_coordinates.data());
    H5Handle restart = file.group(group.get(), "restart");
    for (const std::string& name : share.restart_field_names) {
      std::vector<double> values((last - first) * cells);
      file.rows(restart.get(), where + "/restart", name, H5T_NATIVE_DOUBLE, first, last - first, cells, values.data());
      level.restart_fields.push_back(std::move(values));
    }
    share.levels.push_back(std::move(level));
  }
  share.particles = read_particle_share(file, path, meta.ndim, rank, nrank, comm);
  return share;
}

RestartShare read_restart_share(MPI_Comm comm, const std::string& directory, int output_number) {
  RestartShare share = read_mesh_and_particle_share(comm, directory, output_number);
  // The sinks, which every rank holds whole, once the collective reader has closed the file.
  const std::string name = output_directory_name(output_number);
  const std::filesystem::path dir = std::filesystem::path(directory.empty() ? "." : directory) / name;
  const std::string path = (dir / ("kosmo_" + name.substr(7) + ".h5")).string();
  parallel::run_collectively(comm, [&] { share.meta.sinks = read_sink_group(path, share.meta.ndim); });
  return share;
}

}  // namespace kosmo::io
