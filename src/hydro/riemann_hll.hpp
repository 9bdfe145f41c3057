#pragma once
// HLL flux on a rotated face (RAMSES riemann_hll, hydro/godunov_utils.f90; Toro, Riemann Solvers and
// Numerical Methods, 3rd ed., §10.3, eq. 10.21) with Davis' direct wave-speed bounds (Toro eq. 10.48)
// S_L = min(u_L, u_R) - max(c_L, c_R), S_R = max(u_L, u_R) + max(c_L, c_R), clamped so that
// S_L <= 0 <= S_R: the single formula then also covers the supersonic cases.
#include <algorithm>
#include <cmath>

#include "hydro/riemann_face.hpp"

namespace kosmo::hydro {

inline FaceFlux hll_flux(const FaceInput& l, const FaceInput& r, const GasConstants& g) {
  const double rl = std::max(l.rho, g.smallr), ul = l.u, pl = std::max(l.p, rl * g.smallp);
  const double rr = std::max(r.rho, g.smallr), ur = r.u, pr = std::max(r.p, rr * g.smallp);
  const double cmax = std::max(std::sqrt(g.gamma * pl / rl), std::sqrt(g.gamma * pr / rr));
  const double sl = std::min(std::min(ul, ur) - cmax, 0.0);
  const double sr = std::max(std::max(ul, ur) + cmax, 0.0);
  const double inv = 1.0 / (sr - sl);
  const double a = sr * inv, b = -sl * inv, c = sr * sl * inv;  // F = a F_L + b F_R + c (U_R - U_L)
  const double el = pl * g.inv_gamma_minus_one + 0.5 * rl * (ul * ul + l.vt2);
  const double er = pr * g.inv_gamma_minus_one + 0.5 * rr * (ur * ur + r.vt2);
  const double ml = rl * ul, mr = rr * ur;
  return {a * ml + b * mr + c * (rr - rl), a * (ml * ul + pl) + b * (mr * ur + pr) + c * (mr - ml),
          a * ul * (el + pl) + b * ur * (er + pr) + c * (er - el), a * ml - c * rl, b * mr + c * rr};
}

inline void riemann_hll(const double* left, const double* right, double* flux, int nvar, const SchemeSettings& s) {
  const GasConstants g(s);
  detail::solve_face(left, right, flux, nvar, s,
                     [&](const FaceInput& l, const FaceInput& r) { return hll_flux(l, r, g); });
}

}  // namespace kosmo::hydro
