#pragma once
// HLLC flux on a rotated face (RAMSES riemann_hllc, hydro/godunov_utils.f90; Toro, Riemann Solvers and
// Numerical Methods, 3rd ed., §10.4). Wave speeds are Davis' bounds (Toro eq. 10.48) with the sound
// speed floored at smallc; the contact speed u* and pressure p* follow from the Rankine-Hugoniot
// conditions across S_L and S_R with the Lagrangian speeds rho_K |S_K - u_K| (Batten et al. 1997, as
// RAMSES), which keeps an isolated stationary contact exact. Transverse velocities and passive scalars
// are carried by the mass flux from the side of the sampled state.
#include <algorithm>
#include <cmath>

#include "hydro/riemann_face.hpp"

namespace kosmo::hydro {

// Written without branches (selects only) so that a loop over faces neither mispredicts nor stops
// the compiler from vectorising it.
inline FaceFlux hllc_flux(const FaceInput& l, const FaceInput& r, const GasConstants& g) {
  const double rl = std::max(l.rho, g.smallr), ul = l.u, pl = std::max(l.p, rl * g.smallp);
  const double rr = std::max(r.rho, g.smallr), ur = r.u, pr = std::max(r.p, rr * g.smallp);
  const double smallc2 = g.smallc * g.smallc;
  const double cmax = std::sqrt(std::max(std::max(g.gamma * pl / rl, g.gamma * pr / rr), smallc2));
  const double sl = std::min(ul, ur) - cmax;
  const double sr = std::max(ul, ur) + cmax;

  // Lagrangian wave speeds and the star state (Toro eqs. 10.37, 10.42 in pressure-velocity form).
  const double rcl = rl * (ul - sl), rcr = rr * (sr - ur);
  const double inv_rc = 1.0 / (rcl + rcr);
  const double ustar = (rcr * ur + rcl * ul + (pl - pr)) * inv_rc;
  const double pstar = (rcr * pl + rcl * pr + rcl * rcr * (ul - ur)) * inv_rc;

  // Sample at x/t = 0 in RAMSES' order (S_L > 0, u* > 0, S_R > 0, else), building only the state the
  // face sees (Toro eq. 10.26). RAMSES upwinds carried quantities by the sign of u*, which picks the
  // same side except in the degenerate case u* <= 0 < S_L.
  const bool from_left = (sl > 0.0) | ((ustar > 0.0) & (sr > 0.0));  // bitwise: no branches
  const bool star = (sl <= 0.0) & (sr > 0.0);
  const double rk = from_left ? rl : rr, uk = from_left ? ul : ur, pk = from_left ? pl : pr;
  const double sk = from_left ? sl : sr, vt2 = from_left ? l.vt2 : r.vt2;
  const double ek = pk * g.inv_gamma_minus_one + 0.5 * rk * (uk * uk + vt2);
  const double inv = 1.0 / (sk - ustar);
  const double ro = star ? rk * (sk - uk) * inv : rk;
  const double uo = star ? ustar : uk;
  const double po = star ? pstar : pk;
  const double eo = star ? ((sk - uk) * ek - pk * uk + pstar * ustar) * inv : ek;
  const double mass = ro * uo;
  return {mass, mass * uo + po, (eo + po) * uo, from_left ? mass : 0.0, from_left ? 0.0 : mass};
}

inline void riemann_hllc(const double* left, const double* right, double* flux, int nvar, const SchemeSettings& s) {
  const GasConstants g(s);
  detail::solve_face(left, right, flux, nvar, s,
                     [&](const FaceInput& l, const FaceInput& r) { return hllc_flux(l, r, g); });
}

}  // namespace kosmo::hydro
