#pragma once
// Cell fields registered by name (ARCHITECTURE §6): physics modules add their arrays with
// metadata, and the mesh, the writers and the Python reader are driven by this registry.
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::core {

// How prolongation treats a field: interpol_type 4 uses unlimited central slopes for velocity
// components and MonCen for everything else (RAMSES interpol_hydro).
enum class FieldKind { scalar, velocity };

struct FieldInfo {
  std::string name;            // snapshot name, e.g. "density"
  std::string units;           // e.g. "code_density"
  int comoving_exponent = 0;   // power of aexp in the physical value
  FieldKind kind = FieldKind::scalar;
  bool in_snapshots = true;    // written to analysis snapshots
  bool in_restarts = true;     // written to checkpoints
};

inline FieldInfo scalar_field(std::string name, std::string units = "code_units") {
  FieldInfo info;
  info.name = std::move(name);
  info.units = std::move(units);
  return info;
}

inline FieldInfo velocity_field(std::string name, std::string units = "code_velocity") {
  FieldInfo info = scalar_field(std::move(name), std::move(units));
  info.kind = FieldKind::velocity;
  return info;
}

class FieldRegistry {
 public:
  // Returns the field's id (its index); names are unique.
  int add(const FieldInfo& info) {
    KOSMO_REQUIRE(!info.name.empty(), "field registry: a field needs a name");
    KOSMO_REQUIRE(find(info.name) < 0, "field registry: field '" << info.name << "' registered twice");
    fields_.push_back(info);
    return static_cast<int>(fields_.size()) - 1;
  }
  // Field id, or -1 when no field has that name.
  int find(const std::string& name) const {
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
  int id(const std::string& name) const {
    const int i = find(name);
    KOSMO_REQUIRE(i >= 0, "field registry: no field named '" << name << "'");
    return i;
  }
  const FieldInfo& info(int id) const { return fields_.at(static_cast<std::size_t>(id)); }
  int size() const { return static_cast<int>(fields_.size()); }

 private:
  std::vector<FieldInfo> fields_;
};

}  // namespace kosmo::core
