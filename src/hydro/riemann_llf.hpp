#pragma once
// Local Lax-Friedrichs (Rusanov) flux on a rotated face (RAMSES riemann_llf, hydro/godunov_utils.f90;
// Toro, Riemann Solvers and Numerical Methods, 3rd ed., §10.5.1, eq. 10.56 with the single speed
// S+ = max(|u_L| + c_L, |u_R| + c_R)). Inputs are floored as in RAMSES: rho >= smallr, p >= rho smallp.
#include <algorithm>
#include <cmath>

#include "hydro/riemann_face.hpp"

namespace kosmo::hydro {

inline FaceFlux llf_flux(const FaceInput& l, const FaceInput& r, const GasConstants& g) {
  const double rl = std::max(l.rho, g.smallr), ul = l.u, pl = std::max(l.p, rl * g.smallp);
  const double rr = std::max(r.rho, g.smallr), ur = r.u, pr = std::max(r.p, rr * g.smallp);
  const double cl = std::sqrt(g.gamma * pl / rl), cr = std::sqrt(g.gamma * pr / rr);
  const double cmax = std::max(std::fabs(ul) + cl, std::fabs(ur) + cr);
  const double el = pl * g.inv_gamma_minus_one + 0.5 * rl * (ul * ul + l.vt2);
  const double er = pr * g.inv_gamma_minus_one + 0.5 * rr * (ur * ur + r.vt2);
  const double ml = rl * ul, mr = rr * ur;
  // Carried quantities: U = rho a, F = rho u a, so F_LLF = a_L (m_L + S+ rho_L) / 2 + a_R (m_R - S+ rho_R) / 2.
  return {0.5 * (ml + mr - cmax * (rr - rl)), 0.5 * (ml * ul + pl + mr * ur + pr - cmax * (mr - ml)),
          0.5 * (ul * (el + pl) + ur * (er + pr) - cmax * (er - el)), 0.5 * (ml + cmax * rl), 0.5 * (mr - cmax * rr)};
}

inline void riemann_llf(const double* left, const double* right, double* flux, int nvar, const SchemeSettings& s) {
  const GasConstants g(s);
  detail::solve_face(left, right, flux, nvar, s,
                     [&](const FaceInput& l, const FaceInput& r) { return llf_flux(l, r, g); });
}

}  // namespace kosmo::hydro
