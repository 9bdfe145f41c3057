#include "star_formation/physical_units.hpp"

#include "cosmology/cosmological_model.hpp"
#include "hydro/barotropic_eos.hpp"

namespace kosmo::star_formation {

PhysicalUnits physical_units(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology, double tau) {
  PhysicalUnits u;
  if (cosmology) {
    const double a = cosmology->aexp_at(tau);
    u.length = cosmology->unit_length(a);
    u.density = cosmology->unit_density(a);
    u.time = cosmology->unit_time(a);
  } else {
    u.length = params.get_real("UNITS_PARAMS", "units_length");
    u.density = params.get_real("UNITS_PARAMS", "units_density");
    u.time = params.get_real("UNITS_PARAMS", "units_time");
  }
  u.velocity = u.length / u.time;
  u.hydrogen_number_density = hydrogen_fraction / hydrogen_mass_g * u.density;
  u.temperature = hydro::temperature_scale(u.length, u.time);
  return u;
}

double proper_time(const cosmology::CosmologicalModel* cosmology, double tau) {
  if (!cosmology) return tau;
  const auto& background = cosmology->background();
  return background.cosmic_time(cosmology->aexp_at(tau)) - background.age();
}

double proper_time_unit_seconds(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology) {
  if (!cosmology) return params.get_real("UNITS_PARAMS", "units_time");
  return megaparsec_cm / (cosmology->parameters().h0 * 1.0e5);
}

}  // namespace kosmo::star_formation
