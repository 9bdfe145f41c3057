#pragma once
// Particle attributes registered by name (ARCHITECTURE §6), the particle counterpart of
// core/field_registry.hpp: the particle module registers the attributes every particle has
// (ParticleSet's constructor), other modules add theirs (star formation a birth time and a
// metallicity, sinks their accretion state) before the first particle is added, and the writers
// (HDF5 /particles, RAMSES part_ files and part_file_descriptor.txt), restarts, migration and the
// Python reader are driven by this list, so a new attribute appears in every output with no edit
// outside its module (docs/outputs.md, "Particle attributes").
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::particles {

// Storage type of one attribute's values (RAMSES' descriptor codes d, q, b).
enum class AttributeType { float64, int64, int8 };

struct ParticleAttributeInfo {
  std::string name;              // e.g. "mass"; a vector attribute's arrays are name_x, name_y, name_z
  AttributeType type = AttributeType::float64;
  int components = 1;            // 1, or D for a vector stored as one array per axis
  std::string units;             // e.g. "code_mass"; "" for dimensionless integers
  int comoving_exponent = 0;     // power of aexp in the physical value
  bool in_snapshots = true;      // written to analysis snapshots (and read back by restarts)
  bool in_restarts = true;       // carried through a restart; in_snapshots=false: restart-only state
  std::string module;            // who registered it, e.g. "particles"
};

// A scalar attribute's info with the common defaults (in snapshots and restarts).
inline ParticleAttributeInfo particle_attribute(std::string name, AttributeType type, std::string units,
                                                std::string module, int comoving_exponent = 0) {
  ParticleAttributeInfo info;
  info.name = std::move(name);
  info.type = type;
  info.units = std::move(units);
  info.module = std::move(module);
  info.comoving_exponent = comoving_exponent;
  return info;
}

// The name of component c of an attribute: its name for a scalar, name_x / name_y / name_z for a
// vector (RAMSES' position_x .. velocity_z).
inline std::string component_name(const ParticleAttributeInfo& info, int component) {
  if (info.components == 1) return info.name;
  return info.name + "_" + "xyz"[component];
}

class ParticleAttributeRegistry {
 public:
  // Returns the attribute's id (its index); names are unique and every component array name too.
  int add(const ParticleAttributeInfo& info) {
    KOSMO_REQUIRE(!info.name.empty(), "particle attributes: an attribute needs a name");
    KOSMO_REQUIRE(info.components >= 1 && info.components <= 3,
                  "particle attributes: '" << info.name << "' has " << info.components << " components (1..3)");
    KOSMO_REQUIRE(find(info.name) < 0, "particle attributes: '" << info.name << "' registered twice");
    for (int c = 0; c < info.components; ++c) {
      int id = -1, component = -1;
      KOSMO_REQUIRE(!find_array(component_name(info, c), id, component),
                    "particle attributes: the array '" << component_name(info, c) << "' of '" << info.name
                                                       << "' is already an array of '" << attributes_[static_cast<std::size_t>(id)].name << "'");
    }
    attributes_.push_back(info);
    return static_cast<int>(attributes_.size()) - 1;
  }
  // Attribute id, or -1 when no attribute has that name.
  int find(const std::string& name) const {
    for (std::size_t i = 0; i < attributes_.size(); ++i)
      if (attributes_[i].name == name) return static_cast<int>(i);
    return -1;
  }
  int id(const std::string& name) const {
    const int i = find(name);
    KOSMO_REQUIRE(i >= 0, "particle attributes: no attribute named '" << name << "'");
    return i;
  }
  // The attribute and component whose array is called `array` (position_y: position, 1).
  bool find_array(const std::string& array, int& id, int& component) const {
    for (std::size_t i = 0; i < attributes_.size(); ++i)
      for (int c = 0; c < attributes_[i].components; ++c)
        if (component_name(attributes_[i], c) == array) {
          id = static_cast<int>(i);
          component = c;
          return true;
        }
    return false;
  }
  const ParticleAttributeInfo& info(int id) const { return attributes_.at(static_cast<std::size_t>(id)); }
  int size() const { return static_cast<int>(attributes_.size()); }
  // Metadata only, at any time (a cosmological run states its comoving exponents once it knows).
  void set_comoving_exponent(int id, int exponent) { attributes_.at(static_cast<std::size_t>(id)).comoving_exponent = exponent; }

 private:
  std::vector<ParticleAttributeInfo> attributes_;
};

}  // namespace kosmo::particles
