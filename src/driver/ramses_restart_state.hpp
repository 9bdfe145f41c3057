#pragma once
// A restart from RAMSES-format files (informat='ramses') of a run with gravity: the files hold the
// analysis state (gas, particles, and in grav_ files the potential and the acceleration) but not the
// leapfrog's restart-only state, which is rebuilt here as RAMSES rebuilds it on its restarts
// (amr/amr_step.f90: the force update first removes the provisional half kick, -dtnew/2 times the
// old force read back from grav_ files, then kicks with the new force; pm/synchro_fine.f90 kicks
// each particle by dtnew(levelp)/2). docs/outputs.md, "Restarts", states what is rebuilt and how
// exactly.
//
// Before Simulation::restart, complete_ramses_restart_share adds to the share, when the output has
// grav_ files and the run registers them:
//   * the gas's pending kick time (gravity_half_kick_time) = dtnew(l)/2 on every cell of level l:
//     the gas was kicked provisionally with the level's latest step (hydro/hydro_module.cpp);
//   * the potential's history tags (potential_solve_level = l, potential_solve_time = t -
//     dtnew(l), the start of the level's latest step, when its potential was solved), so that the
//     next solve of each level keeps the file's potential as its previous one and the subcycled
//     levels extrapolate the coarser potential as the uninterrupted run does;
//   * each particle's pending_half_dt = dtnew(levelp)/2 (levelp: the level of its last kick).
// After it, rebuild_particle_kicks sets each particle's provisional kick, pending_kick = g
// pending_half_dt, with g the acceleration of the file at the particle's position before its last
// drift (x_old = x - (v - pending_kick) 2 pending_half_dt, solved by fixed-point iteration), read on
// the level of the kick with the leapfrog's own CIC kernel.
#include <vector>

#include "driver/simulation.hpp"
#include "io/snapshot_reader.hpp"

namespace kosmo::driver {

template <int D>
void complete_ramses_restart_share(const Simulation<D>& sim, io::RestartShare& share);

// Collective. After Simulation::restart from a share completed above; does nothing without gravity.
template <int D>
void rebuild_particle_kicks(Simulation<D>& sim, const std::vector<double>& level_time_steps);

}  // namespace kosmo::driver
