#pragma once
// The hydro module's cell variables, named once: the conservative state that the solver evolves
// and restarts carry (density, momentum_*, total_energy, scalar_NN_density) and the primitive
// variables that analysis snapshots, RAMSES hydro_ files and the RAMSES-format restart reader use
// (density, velocity_*, pressure, scalar_NN). Their units and comoving exponents (RAMSES
// super-comoving units: length ~ a, time ~ a^2, density ~ a^-3) are set here for every reader.
#include <cstdio>
#include <string>
#include <vector>

#include "core/field_registry.hpp"

namespace kosmo::hydro {

inline const char* axis_letter(int axis) { return axis == 0 ? "x" : (axis == 1 ? "y" : "z"); }

// With &COOLING_PARAMS metal=.true. the first passive scalar is the gas metallicity (RAMSES imetal):
// 'metallicity' in snapshots and hydro_file_descriptor.txt, its conserved density rho Z
// 'metallicity_density' in the field registry, where other modules look it up.
inline constexpr const char* metallicity_field = "metallicity";
inline constexpr const char* metallicity_density_field = "metallicity_density";

inline std::string passive_scalar_name(int k, bool metallicity = false) {  // k = 0, 1, ...: scalar_01, scalar_02, ...
  if (metallicity && k == 0) return metallicity_field;
  char name[32];
  std::snprintf(name, sizeof name, "scalar_%02d", k + 1);
  return name;
}

// With &FEEDBACK_PARAMS delayed_cooling=.true. the passive scalar after the metallicity (RAMSES
// idelay = imetal + 1 with metals, imetal without) holds the supernova ejecta that switch cooling off
// (docs/galaxy.md "Supernova feedback"); as in RAMSES' outputs it is named by its position, scalar_NN.
inline int delayed_cooling_scalar(bool metallicity) { return metallicity ? 1 : 0; }
inline std::string delayed_cooling_density_field(bool metallicity) {
  return passive_scalar_name(delayed_cooling_scalar(metallicity), metallicity) + "_density";
}

// density, momentum_x.., total_energy, scalar_NN_density: the order of the solver's nvar variables.
template <int D>
std::vector<core::FieldInfo> conservative_fields(int npassive, bool metallicity = false) {
  std::vector<core::FieldInfo> fields;
  fields.push_back(core::scalar_field("density", "code_density").comoving(-3));
  for (int d = 0; d < D; ++d)
    fields.push_back(core::velocity_field(std::string("momentum_") + axis_letter(d), "code_momentum_density").comoving(-4));
  fields.push_back(core::scalar_field("total_energy", "code_energy_density").comoving(-5));
  for (int k = 0; k < npassive; ++k) fields.push_back(core::scalar_field(passive_scalar_name(k, metallicity) + "_density", "code_density").comoving(-3));
  for (auto& field : fields) field.owned_by("hydro");
  return fields;
}

// density, velocity_x.., pressure, scalar_NN: the variables of snapshots, in the same order.
template <int D>
std::vector<core::FieldInfo> primitive_fields(int npassive, bool metallicity = false) {
  std::vector<core::FieldInfo> fields;
  fields.push_back(core::scalar_field("density", "code_density").comoving(-3));
  for (int d = 0; d < D; ++d) fields.push_back(core::velocity_field(std::string("velocity_") + axis_letter(d), "code_velocity").comoving(-1));
  fields.push_back(core::scalar_field("pressure", "code_pressure").comoving(-5));
  for (int k = 0; k < npassive; ++k) fields.push_back(core::scalar_field(passive_scalar_name(k, metallicity), "dimensionless"));
  for (auto& field : fields) field.owned_by("hydro");
  return fields;
}

}  // namespace kosmo::hydro
