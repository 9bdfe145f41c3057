#pragma once
// Star formation's physical units: the code units in cgs come from cosmology/physical_units.hpp
// (RAMSES amr/units.f90: &UNITS_PARAMS, or the super-comoving units of aexp); here the constants of
// the Schmidt law and the supernovae, and the proper time (RAMSES texp) that stars age by.
#include "core/parameters.hpp"
#include "cosmology/physical_units.hpp"

namespace kosmo::cosmology {
class CosmologicalModel;
}

namespace kosmo::star_formation {

using cosmology::hydrogen_fraction;
using cosmology::hydrogen_mass_g;
using cosmology::physical_units;
using cosmology::PhysicalUnits;

// RAMSES amr/constants.f90.
inline constexpr double solar_mass_g = 1.9891e33;
inline constexpr double seconds_per_myr = 3.15576e13;
inline constexpr double seconds_per_gyr = 3.15576e16;
inline constexpr double megaparsec_cm = 3.0856776e24;

// The proper time at code time tau, as RAMSES texp: the code time itself in a non-cosmological run;
// in a cosmological one the cosmic time measured from today (0 today, negative before), in units
// of 1/H0.
double proper_time(const cosmology::CosmologicalModel* cosmology, double tau);
// Seconds per unit of proper_time(): units_time, or 1/H0 in s.
double proper_time_unit_seconds(const core::ParameterSet& params, const cosmology::CosmologicalModel* cosmology);

}  // namespace kosmo::star_formation
