#pragma once
// RAMSES' delayed cooling (&FEEDBACK_PARAMS delayed_cooling, t_diss; hydro/cooling_fine.f90 with
// pm/feedback.f90 feedbk): the thermal supernova feedback adds its ejecta to a passive scalar
// (RAMSES idelay, the scalar after the metallicity: hydro/hydro_variables.hpp); in a leaf cell
// where that scalar exceeds 1e-3 of the gas density, cooling may heat the gas but not remove
// energy from it, and after each cooling step the scalar decays as exp(-dt / t_diss). The switch
// keeps a supernova-heated region hot long enough to expand instead of radiating its energy away
// in one step of an under-resolved blast (docs/galaxy.md "Supernova feedback").
#include <algorithm>
#include <cmath>

namespace kosmo::cooling {

struct DelayedCooling {
  static constexpr double switch_fraction = 1e-3;   // RAMSES' threshold on scalar / density
  static constexpr double seconds_per_myr = 3.15576e13;  // RAMSES Myr2sec
  double t_diss_myr = 20.0;

  // RAMSES: cooling is off when scalar / max(rho, smallr) > 1e-3.
  static bool holds(double scalar_density, double density) { return scalar_density / density > switch_fraction; }
  // The thermal energy after a cooling step that the switch holds: no net loss.
  static double held_energy(double before, double after) { return std::max(after, before); }
  // The scalar after a step of dt_seconds, never negative.
  double decayed(double scalar_density, double dt_seconds) const {
    return std::max(scalar_density * std::exp(-dt_seconds / (t_diss_myr * seconds_per_myr)), 0.0);
  }
};

}  // namespace kosmo::cooling
