#pragma once
// Wiring a loaded user patch (driver/patch_library.hpp) into a simulation: its condinit becomes the
// gas's initial condition, its gravana the gravity module's analytic field, its particles the
// initial particles (docs/patches.md).
#include "core/parameters.hpp"
#include "driver/patch_library.hpp"
#include "driver/simulation.hpp"

namespace kosmo::driver {

// Before sim.initialise() or sim.restart(); `restarting` skips the initial conditions. Throws
// kosmo::Error naming the hook when the run lacks the module it acts on (condinit without hydro,
// gravana without poisson or with gravity_type=0, particles without pic).
template <int D>
void install_patch_hooks(Simulation<D>& sim, const PatchLibrary& patch, const core::ParameterSet& params, bool restarting);

}  // namespace kosmo::driver
