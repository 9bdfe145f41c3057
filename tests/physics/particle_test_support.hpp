#pragma once
// Particle and cosmological runs from namelist text: advancing to a time (negative in a cosmological
// run, whose code time tau is 0 today), and the particles as plain arrays.
#include <algorithm>
#include <cmath>

#include "driver/simulation.hpp"

namespace kosmo::test {

// Advances to exactly t_end with the run's own time steps (the last one shortened); t_end may be
// negative (super-comoving time).
template <int D>
void advance_until(driver::Simulation<D>& sim, double t_end, long long max_steps = 1000000) {
  const double tolerance = 1e-12 * std::max(1.0, std::fabs(t_end));
  while (sim.time() < t_end - tolerance && sim.step() < max_steps) sim.advance(std::min(sim.courant_time_step(), t_end - sim.time()));
}

}  // namespace kosmo::test
