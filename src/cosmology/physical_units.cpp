#include "cosmology/physical_units.hpp"

#include "cosmology/cosmological_model.hpp"

namespace kosmo::cosmology {

PhysicalUnits physical_units(double length, double density, double time) {
  PhysicalUnits u;
  u.length = length;
  u.density = density;
  u.time = time;
  u.velocity = length / time;
  u.hydrogen_number_density = hydrogen_fraction / hydrogen_mass_g * density;
  u.temperature = temperature_scale(length, time);
  return u;
}

PhysicalUnits physical_units(const core::ParameterSet& params, const CosmologicalModel* cosmology, double tau) {
  if (cosmology) {
    const double a = cosmology->aexp_at(tau);
    return physical_units(cosmology->unit_length(a), cosmology->unit_density(a), cosmology->unit_time(a));
  }
  return physical_units(params.get_real("UNITS_PARAMS", "units_length"), params.get_real("UNITS_PARAMS", "units_density"),
                        params.get_real("UNITS_PARAMS", "units_time"));
}

}  // namespace kosmo::cosmology
