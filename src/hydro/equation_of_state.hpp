#pragma once
// Ideal-gas equation of state for one cell, with RAMSES' floors (hydro/umuscl.f90, ctoprim):
// rho >= smallr, and the specific internal energy >= smalle = smallc^2 / (gamma (gamma - 1)), i.e.
// p >= rho * smallp with smallp = smallc^2 / gamma. The same pressure floor is applied to every
// Riemann-solver input (hydro/godunov_utils.f90) and in the Courant step (cmpdt).
//
// Conservative u = [rho, rho v_0 .. rho v_{D-1}, E, rho s_0 ..], primitive q = [rho, v_0 .., p, s_0 ..].
// Each function reads variable k of the cell at u[k * stride], so the same code serves a packed cell
// (stride 1) and a structure-of-arrays field (stride = number of cells).
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "hydro/hydro_settings.hpp"

namespace kosmo::hydro {

// Derived constants, computed once per kernel call so no per-cell division recomputes them.
struct GasConstants {
  double gamma;
  double gamma_minus_one;
  double inv_gamma_minus_one;  // RAMSES' entho
  double smallr;
  double smallc;
  double smallp;   // pressure floor per unit density: smallc^2 / gamma
  double smalle;   // specific internal energy floor: smallc^2 / (gamma (gamma - 1))
  double smallpp;  // absolute pressure floor smallr * smallp (RAMSES riemann_approx)

  explicit GasConstants(const SchemeSettings& s)
      : gamma(s.gamma),
        gamma_minus_one(s.gamma - 1.0),
        inv_gamma_minus_one(1.0 / (s.gamma - 1.0)),
        smallr(s.smallr),
        smallc(s.smallc),
        smallp(s.smallc * s.smallc / s.gamma),
        smalle(s.smallc * s.smallc / (s.gamma * (s.gamma - 1.0))),
        smallpp(s.smallr * s.smallc * s.smallc / s.gamma) {
    KOSMO_REQUIRE(s.gamma > 1.0, "hydro: gamma must exceed 1, got " << s.gamma);
    KOSMO_REQUIRE(s.smallr > 0.0 && s.smallc > 0.0,
                  "hydro: smallr and smallc must be positive, got " << s.smallr << ", " << s.smallc);
  }
};

// Conservative -> primitive for the Euler part of one cell (RAMSES ctoprim, without its gravity
// predictor); returns 1 / rho for the passive scalars. Branch-free, so loops over cells vectorise.
template <int D>
inline double conservative_to_primitive_euler(const double* u, std::ptrdiff_t u_stride, double* q,
                                              std::ptrdiff_t q_stride, const GasConstants& g) {
  const double rho = std::max(u[0], g.smallr);
  const double inv_rho = 1.0 / rho;
  q[0] = rho;
  double ekin = 0.0;
  for (int d = 0; d < D; ++d) {
    const double v = u[(1 + d) * u_stride] * inv_rho;
    q[(1 + d) * q_stride] = v;
    ekin += 0.5 * v * v;
  }
  const double eint = std::max(u[(D + 1) * u_stride] * inv_rho - ekin, g.smalle);
  q[(D + 1) * q_stride] = g.gamma_minus_one * rho * eint;
  return inv_rho;
}

// Conservative -> primitive for one cell, passive scalars s = (rho s) / rho included.
template <int D>
inline void conservative_to_primitive(const double* u, std::ptrdiff_t u_stride, double* q, std::ptrdiff_t q_stride,
                                      int npassive, const GasConstants& g) {
  const double inv_rho = conservative_to_primitive_euler<D>(u, u_stride, q, q_stride, g);
  for (int n = D + 2; n < D + 2 + npassive; ++n) q[n * q_stride] = u[n * u_stride] * inv_rho;
}

// Primitive -> conservative for one cell (no floors: the caller owns the state).
template <int D>
inline void primitive_to_conservative(const double* q, std::ptrdiff_t q_stride, double* u, std::ptrdiff_t u_stride,
                                      int npassive, const GasConstants& g) {
  const double rho = q[0];
  u[0] = rho;
  double ekin = 0.0;
  for (int d = 0; d < D; ++d) {
    const double v = q[(1 + d) * q_stride];
    u[(1 + d) * u_stride] = rho * v;
    ekin += 0.5 * rho * v * v;
  }
  u[(D + 1) * u_stride] = q[(D + 1) * q_stride] * g.inv_gamma_minus_one + ekin;
  for (int n = D + 2; n < D + 2 + npassive; ++n) u[n * u_stride] = rho * q[n * q_stride];
}

// Packed-cell conveniences (stride 1) taking the user-facing settings.
template <int D>
inline void conservative_to_primitive(const double* u, double* q, const SchemeSettings& s) {
  conservative_to_primitive<D>(u, 1, q, 1, s.npassive, GasConstants(s));
}
template <int D>
inline void primitive_to_conservative(const double* q, double* u, const SchemeSettings& s) {
  primitive_to_conservative<D>(q, 1, u, 1, s.npassive, GasConstants(s));
}

// Adiabatic sound speed sqrt(gamma p / rho).
inline double sound_speed(double rho, double p, double gamma) { return std::sqrt(gamma * p / rho); }

// RAMSES' floored pressure for a (floored) density.
inline double floored_pressure(double rho, double p, const GasConstants& g) { return std::max(p, rho * g.smallp); }

}  // namespace kosmo::hydro
