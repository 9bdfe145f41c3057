#pragma once
// The cgs values of kosmo's code units at one moment, and the conversions RAMSES' amr/units.f90
// derives from them (scale_v, scale_nH, scale_T2): &UNITS_PARAMS in a non-cosmological run, the
// super-comoving units of the expansion factor in a cosmological one (CosmologicalModel::unit_*, as
// the info file states them). The one place where code units become cgs: cooling, star formation,
// feedback and the step log's temperature all take their units from here.
#include "core/parameters.hpp"

namespace kosmo::cosmology {

class CosmologicalModel;

// RAMSES amr/constants.f90 (mH, kB) and the hydrogen mass fraction X of amr/units.f90.
inline constexpr double hydrogen_mass_g = 1.6605390e-24;
inline constexpr double boltzmann_cgs = 1.3806490e-16;
inline constexpr double hydrogen_fraction = 0.76;

// RAMSES scale_T2 = mH / kB scale_v^2: T/mu in K of a code p/rho of 1, for the code velocity unit
// length / time (cm/s).
inline double temperature_scale(double length, double time) {
  const double velocity = length / time;
  return hydrogen_mass_g / boltzmann_cgs * velocity * velocity;
}

struct PhysicalUnits {
  double length = 1.0;    // scale_l, cm
  double density = 1.0;   // scale_d, g/cm^3
  double time = 1.0;      // scale_t, s
  double velocity = 1.0;  // scale_v = scale_l / scale_t, cm/s
  double hydrogen_number_density = 1.0;  // scale_nH = X / mH scale_d: n_H in cm^-3 of a code density of 1
  double temperature = 1.0;              // scale_T2 = mH / kB scale_v^2: T/mu in K of a code p/rho of 1
  double mass() const { return density * length * length * length; }
};

// The units of the cgs scales length (cm), density (g/cm^3) and time (s).
PhysicalUnits physical_units(double length, double density, double time);
// The units at the code time `tau` (the super-comoving time of a cosmological run: its expansion
// factor's units); `cosmology` null: &UNITS_PARAMS units_length, units_density, units_time.
PhysicalUnits physical_units(const core::ParameterSet& params, const CosmologicalModel* cosmology, double tau);

}  // namespace kosmo::cosmology
