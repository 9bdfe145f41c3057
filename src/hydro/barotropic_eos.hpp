#pragma once
// RAMSES' barotropic equations of state (&COOLING_PARAMS barotropic_eos, isothermal; hydro/eos.f90
// barotropic_eos_temperature, applied by hydro/cooling_fine.f90): after each step of a level, the
// internal energy of every leaf cell of that level is reset to the one of a temperature that depends
// on the density only. The Godunov step in between is adiabatic with gamma; the reset makes the gas
// follow the barotrope (docs/hydro.md, "Isothermal and barotropic gas").
//
// With T2 = T / mu in K and rho0 = polytrope_rho in code units (RAMSES polytrope_rho_cu):
//   'isothermal'        T2 = T_eos / mu_gas
//   'polytrope'         T2 = T_eos / mu_gas (rho / rho0)^(polytrope_index - 1)
//   'double_polytrope'  T2 = T_eos / mu_gas (1 + (rho / rho0)^(polytrope_index - 1))
//   'custom'            RAMSES' template body: isothermal below rho0, the polytrope above
// and the internal energy density rho T2 / scale_T2 / (gamma - 1), scale_T2 = m_H / k_B (code
// velocity in cm/s)^2 converting p / rho in code units to T / mu in K (RAMSES units.f90).
#include <optional>
#include <string>

#include "core/parameters.hpp"

namespace kosmo::hydro {

enum class BarotropicForm { isothermal, polytrope, double_polytrope, custom };

struct BarotropicEos {
  BarotropicForm form = BarotropicForm::isothermal;
  double t2_eos = 10.0;             // T_eos / mu_gas, K
  double polytrope_rho_code = 1e50;  // polytrope_rho / units_density
  double polytrope_index = 1.0;
  double scale_t2 = 1.0;  // K per (code velocity)^2

  // T / mu in K at code density rho (RAMSES barotropic_eos_temperature).
  double temperature(double rho) const;
  // Internal energy per unit volume, code units, at code density rho.
  double internal_energy(double rho, double gamma) const { return rho * temperature(rho) / scale_t2 / (gamma - 1.0); }
};

// RAMSES scale_T2 of the &UNITS_PARAMS code units (cosmology/physical_units.hpp, with amr/constants.f90's m_H and k_B).
double temperature_scale(double units_length, double units_time);

// The barotrope of &COOLING_PARAMS, or nothing when neither barotropic_eos nor isothermal is set.
std::optional<BarotropicEos> barotropic_eos(const core::ParameterSet& params);

}  // namespace kosmo::hydro
