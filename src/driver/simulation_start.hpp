#pragma once
// What a run starts from besides the mesh: the cosmological background and initial conditions
// (cosmo=.true.) or the particles of filetype='ascii' (pic=.true.). Shared by `kosmo run` and the
// tests, so both start a run the same way.
#include "core/parameters.hpp"
#include "driver/patch_library.hpp"
#include "driver/simulation.hpp"

namespace kosmo::driver {

// Before sim.initialise() or sim.restart(): sets the cosmology (always, for a cosmological run) and,
// unless `restarting`, the start time, the particles and the gas initial condition; then the hooks of
// the run's user patch, if any (driver/patch_hooks.hpp), which take precedence.
template <int D>
void prepare_start(Simulation<D>& sim, const core::ParameterSet& params, bool restarting, const PatchLibrary* patch = nullptr);

}  // namespace kosmo::driver
