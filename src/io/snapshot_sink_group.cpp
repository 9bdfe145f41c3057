#include "io/snapshot_sink_group.hpp"

#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5_handle.hpp"

namespace kosmo::io {
namespace {

const char* const axes[3] = {"x", "y", "z"};

// Fails with the file, the object and HDF5's own reason.
hid_t checked(hid_t id, const std::string& path, const std::string& what) {
  KOSMO_REQUIRE(id >= 0, "sinks: cannot " << what << " in '" << path << "'" << hdf5_error_detail());
  return id;
}
void checked(herr_t status, const std::string& path, const std::string& what, int /*tag*/) {
  KOSMO_REQUIRE(status >= 0, "sinks: cannot " << what << " in '" << path << "'" << hdf5_error_detail());
}

class SinkGroupWriter {
 public:
  SinkGroupWriter(const std::string& path, hid_t group) : path_(path), group_(group) {}

  void scalar(hid_t location, const std::string& name, hid_t file_type, hid_t memory_type, const void* value) {
    H5Handle space(checked(H5Screate(H5S_SCALAR), path_, "make a scalar space"), H5Sclose);
    H5Handle attribute(checked(H5Acreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), path_,
                               "create the attribute /sinks " + name),
                       H5Aclose);
    checked(H5Awrite(attribute.get(), memory_type, value), path_, "write the attribute " + name, 0);
  }
  void text(hid_t location, const std::string& name, const std::string& value) {
    H5Handle type(checked(H5Tcopy(H5T_C_S1), path_, "copy a string type"), H5Tclose);
    checked(H5Tset_size(type.get(), H5T_VARIABLE), path_, "size a string type", 0);
    checked(H5Tset_cset(type.get(), H5T_CSET_UTF8), path_, "set UTF-8", 0);
    const char* data = value.c_str();
    scalar(location, name, type.get(), type.get(), &data);
  }
  // A 1-D dataset of n rows under `location`; returns it open so that attributes can describe it.
  H5Handle column(hid_t location, const std::string& name, hid_t file_type, hid_t memory_type, std::size_t n, const void* data) {
    const hsize_t dims[1] = {static_cast<hsize_t>(n)};
    H5Handle space(checked(H5Screate_simple(1, dims, nullptr), path_, "make a space for /sinks/" + name), H5Sclose);
    H5Handle set(checked(H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path_,
                         "create /sinks/" + name),
                 H5Dclose);
    if (n > 0) checked(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), path_, "write /sinks/" + name, 0);
    return set;
  }
  void names(const std::string& name, const std::vector<std::string>& values) {
    std::size_t width = 1;
    for (const auto& value : values) width = std::max(width, value.size());
    std::vector<char> packed(values.size() * width, '\0');  // null-padded fixed length, as /particles
    for (std::size_t row = 0; row < values.size(); ++row) std::memcpy(&packed[row * width], values[row].data(), values[row].size());
    H5Handle type(checked(H5Tcopy(H5T_C_S1), path_, "copy a string type"), H5Tclose);
    checked(H5Tset_size(type.get(), width), path_, "size a string type", 0);
    checked(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), path_, "pad a string type", 0);
    checked(H5Tset_cset(type.get(), H5T_CSET_UTF8), path_, "set UTF-8", 0);
    column(group_, name, type.get(), type.get(), values.size(), packed.data());
  }
  void describe(hid_t set, const std::string& units, int comoving_exponent) {
    text(set, "units", units);
    scalar(set, "comoving_exponent", H5T_STD_I32LE, H5T_NATIVE_INT, &comoving_exponent);
  }

 private:
  std::string path_;
  hid_t group_;
};

template <class T>
struct Types;
template <>
struct Types<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
};
template <>
struct Types<std::int64_t> {
  static hid_t file() { return H5T_STD_I64LE; }
  static hid_t memory() { return H5T_NATIVE_INT64; }
};
template <>
struct Types<std::int8_t> {
  static hid_t file() { return H5T_STD_I8LE; }
  static hid_t memory() { return H5T_NATIVE_INT8; }
};

}  // namespace

void write_sink_group(const std::string& path, const SnapshotSinks& sinks, int ndim) {
  if (!sinks.present) return;
  SilenceHdf5Errors silence;
  const SnapshotParticles& p = sinks.particles;
  H5Handle file(checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), path, "open the file"), H5Fclose);
  H5Handle group(checked(H5Gcreate2(file.get(), "sinks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path, "create /sinks"), H5Gclose);
  SinkGroupWriter out(path, group.get());
  const auto count = static_cast<std::int64_t>(p.size());
  out.scalar(group.get(), "count", H5T_STD_I64LE, H5T_NATIVE_INT64, &count);
  out.scalar(group.get(), "largest_identity", H5T_STD_I64LE, H5T_NATIVE_INT64, &sinks.largest_identity);
  const auto units_of = [&](const std::string& name, hid_t set) {
    for (const auto& entry : p.units)
      if (entry.name == name) out.describe(set, entry.units, entry.comoving_exponent);
  };
  const auto standard = [&](const std::string& name, hid_t file_type, hid_t memory_type, const void* data) {
    H5Handle set = out.column(group.get(), name, file_type, memory_type, p.size(), data);
    units_of(name, set.get());
  };
  for (int d = 0; d < ndim; ++d)
    standard(std::string("position_") + axes[d], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p.position[static_cast<std::size_t>(d)].data());
  for (int d = 0; d < ndim; ++d)
    standard(std::string("velocity_") + axes[d], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p.velocity[static_cast<std::size_t>(d)].data());
  standard("mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p.mass.data());
  standard("identity", H5T_STD_I64LE, H5T_NATIVE_INT64, p.id.data());
  standard("level", H5T_STD_I32LE, H5T_NATIVE_INT8, p.level.data());
  standard("family", H5T_STD_I8LE, H5T_NATIVE_INT8, p.family.data());
  std::vector<std::string> attribute_names;
  for (const auto& attribute : p.attributes) {
    attribute_names.push_back(attribute.name);
    H5Handle set = std::visit(
        [&](const auto& values) {
          using T = typename std::decay_t<decltype(values)>::value_type;
          return out.column(group.get(), attribute.name, Types<T>::file(), Types<T>::memory(), values.size(), values.data());
        },
        attribute.values);
    out.describe(set.get(), attribute.units, attribute.comoving_exponent);
    const int in_restarts = attribute.in_restarts ? 1 : 0;
    out.scalar(set.get(), "in_restarts", H5T_STD_I32LE, H5T_NATIVE_INT, &in_restarts);
  }
  out.names("attributes", attribute_names);
  std::vector<std::string> restart_names;
  for (const auto& field : p.restart_fields) restart_names.push_back(field.name);
  out.names("restart_fields", restart_names);
  H5Handle restart(checked(H5Gcreate2(group.get(), "restart", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), path, "create /sinks/restart"),
                   H5Gclose);
  for (const auto& field : p.restart_fields) {
    H5Handle set = out.column(restart.get(), field.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, field.values.size(), field.values.data());
    units_of(field.name, set.get());
  }
  checked(restart.close(), path, "close /sinks/restart", 0);
  checked(group.close(), path, "close /sinks", 0);
  checked(file.close(), path, "close the file", 0);
}

namespace {

class SinkGroupReader {
 public:
  SinkGroupReader(const std::string& path, hid_t group) : path_(path), group_(group) {}

  H5Handle open(hid_t location, const std::string& name) const {
    return H5Handle(checked(H5Dopen2(location, name.c_str(), H5P_DEFAULT), path_, "open /sinks/" + name), H5Dclose);
  }
  template <class T>
  std::vector<T> column(hid_t location, const std::string& name, hid_t memory_type, std::size_t n) const {
    H5Handle set = open(location, name);
    std::vector<T> values(n);
    if (n > 0) checked(H5Dread(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), path_, "read /sinks/" + name, 0);
    return values;
  }
  std::vector<std::string> names(const std::string& name) const {
    H5Handle set = open(group_, name);
    H5Handle type(checked(H5Dget_type(set.get()), path_, "type /sinks/" + name), H5Tclose);
    H5Handle space(checked(H5Dget_space(set.get()), path_, "space /sinks/" + name), H5Sclose);
    const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
    const std::size_t width = H5Tget_size(type.get());
    std::vector<char> packed(rows * width + 1, '\0');
    if (rows > 0) checked(H5Dread(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), path_, "read /sinks/" + name, 0);
    std::vector<std::string> values;
    for (std::size_t row = 0; row < rows; ++row) {
      const char* start = &packed[row * width];
      values.emplace_back(start, strnlen(start, width));
    }
    return values;
  }
  bool has_attribute(hid_t location, const std::string& name) const { return H5Aexists(location, name.c_str()) > 0; }
  void scalar(hid_t location, const std::string& name, hid_t memory_type, void* value) const {
    H5Handle attribute(checked(H5Aopen(location, name.c_str(), H5P_DEFAULT), path_, "open the attribute " + name), H5Aclose);
    checked(H5Aread(attribute.get(), memory_type, value), path_, "read the attribute " + name, 0);
  }
  std::string text(hid_t location, const std::string& name) const {
    H5Handle attribute(checked(H5Aopen(location, name.c_str(), H5P_DEFAULT), path_, "open the attribute " + name), H5Aclose);
    H5Handle type(checked(H5Tcopy(H5T_C_S1), path_, "copy a string type"), H5Tclose);
    checked(H5Tset_size(type.get(), H5T_VARIABLE), path_, "size a string type", 0);
    checked(H5Tset_cset(type.get(), H5T_CSET_UTF8), path_, "set UTF-8", 0);
    char* data = nullptr;
    checked(H5Aread(attribute.get(), type.get(), &data), path_, "read the attribute " + name, 0);
    std::string value = data != nullptr ? data : "";
    H5free_memory(data);
    return value;
  }

 private:
  std::string path_;
  hid_t group_;
};

}  // namespace

SnapshotSinks read_sink_group(const std::string& path, int ndim) {
  SilenceHdf5Errors silence;
  SnapshotSinks sinks;
  H5Handle file(checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), path, "open the file"), H5Fclose);
  if (H5Lexists(file.get(), "sinks", H5P_DEFAULT) <= 0) return sinks;
  H5Handle group(checked(H5Gopen2(file.get(), "sinks", H5P_DEFAULT), path, "open /sinks"), H5Gclose);
  SinkGroupReader in(path, group.get());
  sinks.present = true;
  std::int64_t count = 0;
  in.scalar(group.get(), "count", H5T_NATIVE_INT64, &count);
  in.scalar(group.get(), "largest_identity", H5T_NATIVE_INT64, &sinks.largest_identity);
  const auto n = static_cast<std::size_t>(count);
  SnapshotParticles& p = sinks.particles;
  for (int d = 0; d < ndim; ++d) {
    p.position[static_cast<std::size_t>(d)] = in.column<double>(group.get(), std::string("position_") + axes[d], H5T_NATIVE_DOUBLE, n);
    p.velocity[static_cast<std::size_t>(d)] = in.column<double>(group.get(), std::string("velocity_") + axes[d], H5T_NATIVE_DOUBLE, n);
  }
  p.mass = in.column<double>(group.get(), "mass", H5T_NATIVE_DOUBLE, n);
  p.id = in.column<std::int64_t>(group.get(), "identity", H5T_NATIVE_INT64, n);
  p.level = in.column<std::int8_t>(group.get(), "level", H5T_NATIVE_INT8, n);
  p.family = in.column<std::int8_t>(group.get(), "family", H5T_NATIVE_INT8, n);
  for (const std::string& name : in.names("attributes")) {
    ParticleAttributeArray attribute;
    attribute.name = name;
    H5Handle set = in.open(group.get(), name);
    H5Handle type(checked(H5Dget_type(set.get()), path, "type /sinks/" + name), H5Tclose);
    if (H5Tget_class(type.get()) == H5T_FLOAT) {
      attribute.values = in.column<double>(group.get(), name, H5T_NATIVE_DOUBLE, n);
    } else if (H5Tget_size(type.get()) == 1) {
      attribute.values = in.column<std::int8_t>(group.get(), name, H5T_NATIVE_INT8, n);
    } else {
      attribute.values = in.column<std::int64_t>(group.get(), name, H5T_NATIVE_INT64, n);
    }
    attribute.units = in.text(set.get(), "units");
    in.scalar(set.get(), "comoving_exponent", H5T_NATIVE_INT, &attribute.comoving_exponent);
    int in_restarts = 1;
    if (in.has_attribute(set.get(), "in_restarts")) in.scalar(set.get(), "in_restarts", H5T_NATIVE_INT, &in_restarts);
    attribute.in_restarts = in_restarts != 0;
    p.attributes.push_back(std::move(attribute));
  }
  H5Handle restart(checked(H5Gopen2(group.get(), "restart", H5P_DEFAULT), path, "open /sinks/restart"), H5Gclose);
  for (const std::string& name : in.names("restart_fields")) p.restart_fields.push_back({name, in.column<double>(restart.get(), name, H5T_NATIVE_DOUBLE, n)});
  return sinks;
}

}  // namespace kosmo::io
