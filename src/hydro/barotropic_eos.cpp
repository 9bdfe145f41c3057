// RAMSES hydro/eos.f90 and the EOS part of hydro/read_hydro_params.f90 (see barotropic_eos.hpp).
#include "hydro/barotropic_eos.hpp"

#include <cctype>
#include <cmath>

#include "core/error.hpp"
#include "cosmology/physical_units.hpp"

namespace kosmo::hydro {

double BarotropicEos::temperature(double rho) const {
  const double ratio = rho / polytrope_rho_code;
  switch (form) {
    case BarotropicForm::isothermal:
      return t2_eos;
    case BarotropicForm::polytrope:
      return t2_eos * std::pow(ratio, polytrope_index - 1.0);
    case BarotropicForm::double_polytrope:
      return t2_eos * (1.0 + std::pow(ratio, polytrope_index - 1.0));
    case BarotropicForm::custom:
      return ratio < 1.0 ? t2_eos : t2_eos * std::pow(ratio, polytrope_index - 1.0);
  }
  return t2_eos;
}

double temperature_scale(double units_length, double units_time) {
  return cosmology::temperature_scale(units_length, units_time);
}

std::optional<BarotropicEos> barotropic_eos(const core::ParameterSet& params) {
  // RAMSES: isothermal=.true. is the old spelling of barotropic_eos=.true.
  if (!params.get_bool("COOLING_PARAMS", "barotropic_eos") && !params.get_bool("COOLING_PARAMS", "isothermal")) return std::nullopt;
  // Fortran strings: case and blanks do not matter.
  std::string form;
  for (char ch : params.get_string("COOLING_PARAMS", "barotropic_eos_form"))
    if (!std::isspace(static_cast<unsigned char>(ch))) form.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  BarotropicEos eos;
  if (form == "isothermal") {
    eos.form = BarotropicForm::isothermal;
  } else if (form == "polytrope") {
    eos.form = BarotropicForm::polytrope;
  } else if (form == "double_polytrope") {
    eos.form = BarotropicForm::double_polytrope;
  } else if (form == "custom") {
    eos.form = BarotropicForm::custom;
  } else {
    KOSMO_FAIL(params.location_of("COOLING_PARAMS", "barotropic_eos_form")
               << "barotropic_eos_form='" << form
               << "' is not implemented yet: the 'legacy' form follows the star-formation polytrope "
                  "(T2_star, g_star, n_star), which kosmo does not have; choose 'isothermal', 'polytrope', "
                  "'double_polytrope' or 'custom'");
  }
  KOSMO_REQUIRE(!params.get_bool("RUN_PARAMS", "cosmo"),
                params.location_of("COOLING_PARAMS", "barotropic_eos")
                    << "a barotropic equation of state in a cosmological run is not implemented yet "
                       "(its code units change with the expansion factor)");
  eos.t2_eos = params.get_real("COOLING_PARAMS", "t_eos") / params.get_real("COOLING_PARAMS", "mu_gas");
  eos.polytrope_rho_code = params.get_real("COOLING_PARAMS", "polytrope_rho") / params.get_real("UNITS_PARAMS", "units_density");
  eos.polytrope_index = params.get_real("COOLING_PARAMS", "polytrope_index");
  eos.scale_t2 = temperature_scale(params.get_real("UNITS_PARAMS", "units_length"), params.get_real("UNITS_PARAMS", "units_time"));
  return eos;
}

}  // namespace kosmo::hydro
