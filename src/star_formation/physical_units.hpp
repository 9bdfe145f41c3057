#pragma once
// The cgs value of kosmo's code units at one moment (RAMSES amr/units.f90): &UNITS_PARAMS in a
// non-cosmological run, the super-comoving units of aexp in a cosmological one
// (cosmology::CosmologicalModel, as the info file states them).
#include "core/parameters.hpp"

namespace kosmo::cosmology {
class CosmologicalModel;
}

namespace kosmo::star_formation {

// RAMSES amr/constants.f90 and hydro/cooling_module.f90 (X: hydrogen mass fraction).
inline constexpr double hydrogen_mass_g = 1.6605390e-24;
inline constexpr double solar_mass_g = 1.9891e33;
inline constexpr double seconds_per_myr = 3.15576e13;
inline constexpr double seconds_per_gyr = 3.15576e16;
inline constexpr double hydrogen_fraction = 0.76;
inline constexpr double megaparsec_cm = 3.0856776e24;

struct PhysicalUnits {
  double length = 1.0;    // scale_l, cm
  double density = 1.0;   // scale_d, g/cm^3
  double time = 1.0;      // scale_t, s
  double velocity = 1.0;  // scale_v = scale_l / scale_t, cm/s
  double hydrogen_number_density = 1.0;  // scale_nH = X / mH scale_d: n_H in cm^-3 of a code density of 1
  double temperature = 1.0;              // scale_T2 = mH / kB scale_v^2: T/mu in K of a code p/rho of 1
  double mass() const { return density * length * length * length; }
};

// The units at the code time `tau` (the super-comoving time of a cosmological run); `cosmology`
// null: &UNITS_PARAMS.
PhysicalUnits physical_units(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology, double tau);

// The proper time at code time tau, as RAMSES texp: the code time itself in a non-cosmological run;
// in a cosmological one the cosmic time measured from today (0 today, negative before), in units
// of 1/H0.
double proper_time(const cosmology::CosmologicalModel* cosmology, double tau);
// Seconds per unit of proper_time(): units_time, or 1/H0 in s.
double proper_time_unit_seconds(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology);

}  // namespace kosmo::star_formation
