// RAMSES names and defaults (amr/amr_parameters.f90, hydro/read_hydro_params.f90); mu_gas and
// isothermal are the hydro module's keys (the barotropic equations of state).
#include "cooling/cooling_parameters.hpp"

#include <limits>

#include "core/schema_builder.hpp"

namespace kosmo::cooling {

void declare_parameters(core::SchemaBuilder& schema) {
  using namespace core::parameter_rows;
  schema.add({
      logical_key("COOLING_PARAMS", "cooling", false,
                  "radiative cooling and UV heating of the gas after each level step (docs/galaxy.md, 'Cooling')"),
      logical_key("COOLING_PARAMS", "metal", false,
                  "carry the gas metallicity as the passive scalar 'metallicity' and scale metal-line cooling by it"),
      logical_key("COOLING_PARAMS", "haardt_madau", false,
                  "UV background of Haardt & Madau (1996, Theuns et al. 1998 fits) instead of the J21 power law"),
      real_key("COOLING_PARAMS", "j21", 0.0, at_least(0),
               "power-law UV background intensity at the Lyman limit at 2 < z < 3, 1e-21 erg/s/cm^2/Hz/sr"),
      real_key("COOLING_PARAMS", "a_spec", 1.0, above(0), "slope of the power-law UV spectrum, J ~ nu^-a_spec"),
      logical_key("COOLING_PARAMS", "self_shielding", false,
                  "attenuate the UV background by exp(-n_H / 0.01 cm^-3) (RAMSES' self-shielding)"),
      real_key("COOLING_PARAMS", "z_ave", 0.0, at_least(0),
               "metallicity in solar units without metal=.true.; with it, the floor of the cells' metallicity"),
      real_key("COOLING_PARAMS", "z_reion", 8.5, at_least(0), "redshift at which the UV background switches on"),
      real_key("COOLING_PARAMS", "t2max", std::numeric_limits<double>::max(), above(0),
               "ceiling of T/mu after cooling, K"),
      logical_key("COOLING_PARAMS", "cooling_ism", false,
                  "the ISM cooling and heating function (Koyama & Inutsuka 2002; Sutherland & Dopita 1993 solar CIE above 10^4.2 K) instead of the primordial rates"),
  });
}

CoolingSettings cooling_settings(const core::ParameterSet& params) {
  CoolingSettings s;
  s.cooling = params.get_bool("COOLING_PARAMS", "cooling");
  s.metal = params.get_bool("COOLING_PARAMS", "metal");
  s.self_shielding = params.get_bool("COOLING_PARAMS", "self_shielding");
  s.cooling_ism = params.get_bool("COOLING_PARAMS", "cooling_ism");
  s.z_ave = params.get_real("COOLING_PARAMS", "z_ave");
  s.t2max = params.get_real("COOLING_PARAMS", "t2max");
  s.mu_gas = params.get_real("COOLING_PARAMS", "mu_gas");
  s.uv.haardt_madau = params.get_bool("COOLING_PARAMS", "haardt_madau");
  s.uv.j21 = params.get_real("COOLING_PARAMS", "j21");
  s.uv.a_spec = params.get_real("COOLING_PARAMS", "a_spec");
  s.uv.z_reion = params.get_real("COOLING_PARAMS", "z_reion");
  return s;
}

}  // namespace kosmo::cooling
