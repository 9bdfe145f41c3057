#pragma once
// Cell fields registered by name (ARCHITECTURE §6): physics modules add their arrays with
// metadata, and the mesh, the stepper's ghost exchanges, the writers, the restart path and the
// Python reader are driven by this registry (docs/developing.md).
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::core {

// How prolongation treats a field: interpol_type 4 uses unlimited central slopes for velocity
// components and MonCen for everything else (RAMSES interpol_hydro). Restriction is the mean of the
// 2^D sons for every field (RAMSES upload_fine), so it needs no tag.
enum class FieldKind { scalar, velocity };

// When the stepper refreshes a field's ghost cells (owner -> ghost copies) for a level, a set of
// these stages: after the level's force update (the acceleration of gravity, read across rank walls
// by the particles' CIC and the Godunov predictor), after the kicks that follow it (the gas state
// kicked with the new force), after the level's source terms (the evolved state: RAMSES'
// make_virtual_fine_dp of uold at the end of a hydro level step). No stage: the module fills its
// ghosts itself or does not read them.
enum class GhostStage : std::uint8_t { after_force_update = 1, after_kicks = 2, after_source_terms = 4 };

// What a restart does when the snapshot lacks a field marked in_restarts: stop with an error
// naming it; start it at zero (a history that the module can do without, as the potential's time
// extrapolation); or let the owning module recompute it after the restart (gravity solves for the
// potential and acceleration of a RAMSES-format or gravity-less snapshot).
enum class MissingInRestart { error, zero, recompute };

struct FieldInfo {
  std::string name;            // snapshot name, e.g. "density"
  std::string units;           // e.g. "code_density"
  // Power of the expansion factor in the physical value of a code-unit value in a cosmological run
  // (RAMSES super-comoving units: unit_l ~ a, unit_t ~ a^2, unit_d ~ a^-3, so density -3,
  // velocity -1, pressure -5); written as 0 when the run is not cosmological.
  int comoving_exponent = 0;
  FieldKind kind = FieldKind::scalar;
  bool in_snapshots = true;    // written to analysis snapshots
  bool in_restarts = true;     // written to checkpoints
  std::string module;          // the module that registered it ("hydro", "gravity", ...)
  std::uint8_t ghost_stages = 0;  // GhostStage bits
  MissingInRestart if_missing = MissingInRestart::error;

  // Builder-style setters, so that a registration reads as one expression.
  FieldInfo& owned_by(std::string owner) {
    module = std::move(owner);
    return *this;
  }
  FieldInfo& comoving(int exponent) {
    comoving_exponent = exponent;
    return *this;
  }
  FieldInfo& ghosts_at(GhostStage stage) {
    ghost_stages |= static_cast<std::uint8_t>(stage);
    return *this;
  }
  bool ghosts_refreshed_at(GhostStage stage) const { return (ghost_stages & static_cast<std::uint8_t>(stage)) != 0; }
  // Restart state only: in checkpoints, not in analysis snapshots.
  FieldInfo& restart_only(MissingInRestart missing = MissingInRestart::error) {
    in_snapshots = false;
    in_restarts = true;
    if_missing = missing;
    return *this;
  }
  // Scratch of a module: neither in snapshots nor in restarts.
  FieldInfo& transient() {
    in_snapshots = false;
    in_restarts = false;
    return *this;
  }
  FieldInfo& when_missing(MissingInRestart missing) {
    if_missing = missing;
    return *this;
  }
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
  // A module that learns in connect() that another module changes its field at a further stage (the
  // gas kicked by gravity) adds that stage.
  void add_ghost_stage(int id, GhostStage stage) { fields_.at(static_cast<std::size_t>(id)).ghosts_at(stage); }
  int size() const { return static_cast<int>(fields_.size()); }

  // The fields whose ghosts the stepper refreshes at `stage`, in registration order.
  std::vector<int> ghost_fields(GhostStage stage) const {
    std::vector<int> ids;
    for (std::size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].ghosts_refreshed_at(stage)) ids.push_back(static_cast<int>(i));
    return ids;
  }

 private:
  std::vector<FieldInfo> fields_;
};

}  // namespace kosmo::core
