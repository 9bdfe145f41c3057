#pragma once
// The cooling module's namelist keys (&COOLING_PARAMS: RAMSES' names and defaults,
// amr/amr_parameters.f90 and hydro/read_hydro_params.f90) and the settings read from them.
#include "cooling/primordial_rates.hpp"
#include "core/parameters.hpp"

namespace kosmo::core {
class SchemaBuilder;
}

namespace kosmo::cooling {

void declare_parameters(core::SchemaBuilder& schema);

struct CoolingSettings {
  bool cooling = false;
  bool metal = false;           // metallicity from the passive scalar 'metallicity'
  bool self_shielding = false;  // UV attenuated by exp(-n_H / 0.01 cm^-3)
  bool cooling_ism = false;     // the ISM cooling function instead of the primordial rates
  double z_ave = 0.0;           // metallicity (solar units) without metal=.true., its floor with
  double t2max = 1.7976931348623157e308;  // T/mu ceiling after cooling, K
  double mu_gas = 1.0;          // mean molecular weight of the ISM function
  UvSettings uv;
};

CoolingSettings cooling_settings(const core::ParameterSet& params);

}  // namespace kosmo::cooling
