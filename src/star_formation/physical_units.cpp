#include "star_formation/physical_units.hpp"

#include "cosmology/cosmological_model.hpp"

namespace kosmo::star_formation {

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
