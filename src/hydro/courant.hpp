#pragma once
// Courant time step of one cell, following RAMSES' cmpdt (hydro/godunov_utils.f90):
//   * primitive variables with RAMSES' floors (rho >= smallr, p >= rho smallc^2 / gamma);
//   * the signal speed SUMS over dimensions: w = D c + sum_d |v_d| (the unsplit scheme's stability
//     bound, not max_d(|v_d| + c));
//   * gravity enters through r = max(sum_d |g_d| dx / w^2, 1e-4) and
//     dt = dx / w (sqrt(1 + 2 C r) - 1) / r, which tends to C dx / w for weak gravity; RAMSES applies
//     the 1e-4 floor even without gravity, so dt is then C dx / w (1 - O(C 1e-4)), reproduced here;
//   * dt never exceeds C dx / smallc.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "hydro/equation_of_state.hpp"

namespace kosmo::hydro {

// u points at the cell's density; variable k lives at u[k * stride]. gravity_norm1 = sum_d |g_d|.
template <int D>
inline double courant_time_step(const double* u, std::ptrdiff_t stride, double dx, double courant_factor,
                                const SchemeSettings& s, double gravity_norm1 = 0.0) {
  const GasConstants g(s);
  const double rho = std::max(u[0], g.smallr);
  double ekin = 0.0, speed_sum = 0.0;
  for (int d = 0; d < D; ++d) {
    const double v = u[(1 + d) * stride] / rho;
    ekin += 0.5 * rho * v * v;
    speed_sum += std::fabs(v);
  }
  const double p = std::max(g.gamma_minus_one * (u[(D + 1) * stride] - ekin), rho * g.smallp);
  const double w = D * std::sqrt(g.gamma * p / rho) + speed_sum;
  const double r = std::max(gravity_norm1 * dx / (w * w), 1e-4);
  const double dt_cell = dx / w * (std::sqrt(1.0 + 2.0 * courant_factor * r) - 1.0) / r;
  return std::min(courant_factor * dx / s.smallc, dt_cell);
}

}  // namespace kosmo::hydro
