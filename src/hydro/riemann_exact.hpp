#pragma once
// Exact Riemann solver for the ideal-gas Euler equations (Toro, Riemann Solvers and Numerical Methods,
// 3rd ed., chapter 4): Newton-Raphson on the pressure function f(p) = f_L(p) + f_R(p) + u_R - u_L
// (eqs. 4.5-4.7, derivative eq. 4.37), started from Toro's adaptive guess (§9.5.1: PVRS, or the
// two-rarefaction / two-shock approximations), then sampled at x/t (§4.5, Fig. 4.14). RAMSES'
// riemann_approx (hydro/godunov_utils.f90) iterates a two-shock approximation instead; this one
// treats rarefactions exactly, so its star state reproduces Toro's Table 4.2.
//
// On a face the solver runs at most niter_riemann iterations (RAMSES' parameter) and stops earlier once
// the relative pressure change falls below kExactRiemannTolerance. Vacuum is not generated: p* is
// floored at smallr * smallc^2 / gamma, which turns a vacuum into two rarefactions to a near-zero
// pressure. Transverse velocities and passive scalars are upwinded by the contact (sign of u*).
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "hydro/riemann_face.hpp"

namespace kosmo::hydro {

// Relative pressure change ending the Newton iteration on a face: Toro's TOL in routine STARPU and
// RAMSES' riemann_approx threshold. Newton converges quadratically, so the p* returned is accurate to
// about the square of this.
inline constexpr double kExactRiemannTolerance = 1e-6;

struct RiemannStarState {
  double p, u;
};

namespace detail {

// Toro's G1..G8 (his routine ERS), one set per gamma.
struct ExactGamma {
  double gamma, g1, g2, g3, g4, g5, g6, g7, inv_gamma;
  explicit ExactGamma(double gam)
      : gamma(gam),
        g1((gam - 1.0) / (2.0 * gam)),
        g2((gam + 1.0) / (2.0 * gam)),
        g3(2.0 * gam / (gam - 1.0)),
        g4(2.0 / (gam - 1.0)),
        g5(2.0 / (gam + 1.0)),
        g6((gam - 1.0) / (gam + 1.0)),
        g7((gam - 1.0) / 2.0),
        inv_gamma(1.0 / gam) {}
};

struct ExactSide {
  double rho, u, p, c;
};

// f_K(p) and f_K'(p): shock branch for p > p_K (Toro eq. 4.21), rarefaction branch otherwise (eq. 4.26).
inline void exact_pressure_function(double p, const ExactSide& k, const ExactGamma& e, double& f, double& df) {
  if (p > k.p) {
    const double a = e.g5 / k.rho, b = e.g6 * k.p;
    const double q = std::sqrt(a / (b + p));
    f = (p - k.p) * q;
    df = (1.0 - 0.5 * (p - k.p) / (b + p)) * q;
  } else {
    const double ratio = p / k.p;
    const double power = std::pow(ratio, e.g1);
    f = e.g4 * k.c * (power - 1.0);
    df = power / (ratio * k.rho * k.c);  // ratio^(-g2) = ratio^(g1 - 1): one pow instead of two
  }
}

// Toro §9.5.1 (routine GUESSP): PVRS when the pressure ratio is mild and the PVRS value lies between
// p_L and p_R, the two-rarefaction value (exact for two rarefactions) below, the two-shock value above.
inline double exact_pressure_guess(const ExactSide& l, const ExactSide& r, const ExactGamma& e, double pfloor) {
  const double cup = 0.25 * (l.rho + r.rho) * (l.c + r.c);
  const double ppv = std::max(pfloor, 0.5 * (l.p + r.p) + 0.5 * (l.u - r.u) * cup);
  const double pmin = std::min(l.p, r.p), pmax = std::max(l.p, r.p);
  if (pmax / pmin <= 2.0 && pmin <= ppv && ppv <= pmax) return ppv;
  if (ppv < pmin) {
    const double pq = std::pow(l.p / r.p, e.g1);
    const double um = (pq * l.u / l.c + r.u / r.c + e.g4 * (pq - 1.0)) / (pq / l.c + 1.0 / r.c);
    const double ptl = 1.0 + e.g7 * (l.u - um) / l.c;
    const double ptr = 1.0 + e.g7 * (um - r.u) / r.c;
    // A vacuum-generating pair makes ptl or ptr negative: fall back to the floor.
    if (ptl <= 0.0 || ptr <= 0.0) return pfloor;
    return std::max(pfloor, 0.5 * (l.p * std::pow(ptl, e.g3) + r.p * std::pow(ptr, e.g3)));
  }
  const double gel = std::sqrt((e.g5 / l.rho) / (e.g6 * l.p + ppv));
  const double ger = std::sqrt((e.g5 / r.rho) / (e.g6 * r.p + ppv));
  return std::max(pfloor, (gel * l.p + ger * r.p - (r.u - l.u)) / (gel + ger));
}

// Newton-Raphson for p*, then u* from Toro eq. 4.9.
inline RiemannStarState exact_star(const ExactSide& l, const ExactSide& r, const ExactGamma& e, int niter,
                                   double tolerance, double pfloor) {
  const double du = r.u - l.u;
  double p = exact_pressure_guess(l, r, e, pfloor);
  double fl, dfl, fr, dfr;
  for (int iter = 0; iter < niter; ++iter) {
    exact_pressure_function(p, l, e, fl, dfl);
    exact_pressure_function(p, r, e, fr, dfr);
    const double p_new = std::max(pfloor, p - (fl + fr + du) / (dfl + dfr));
    const double change = 2.0 * std::fabs(p_new - p) / (p_new + p);
    p = p_new;
    if (change <= tolerance) break;
  }
  exact_pressure_function(p, l, e, fl, dfl);
  exact_pressure_function(p, r, e, fr, dfr);
  return {p, 0.5 * (l.u + r.u) + 0.5 * (fr - fl)};
}

// Sample the self-similar solution at s = x/t (Toro §4.5, routine SAMPLE). Returns true when the
// point lies left of the contact.
inline bool exact_sample(const ExactSide& l, const ExactSide& r, const RiemannStarState& star, const ExactGamma& e,
                         double s, double& rho, double& u, double& p) {
  if (s <= star.u) {
    if (star.p > l.p) {  // left shock, speed Toro eq. 4.52
      const double pml = star.p / l.p;
      const double shock = l.u - l.c * std::sqrt(e.g2 * pml + e.g1);
      if (s <= shock) {
        rho = l.rho, u = l.u, p = l.p;
      } else {
        rho = l.rho * (pml + e.g6) / (pml * e.g6 + 1.0), u = star.u, p = star.p;  // eq. 4.50
      }
    } else {  // left rarefaction, eqs. 4.53-4.56
      const double head = l.u - l.c;
      const double tail = star.u - l.c * std::pow(star.p / l.p, e.g1);
      if (s <= head) {
        rho = l.rho, u = l.u, p = l.p;
      } else if (s > tail) {
        rho = l.rho * std::pow(star.p / l.p, e.inv_gamma), u = star.u, p = star.p;
      } else {
        const double c = e.g5 * (l.c + e.g7 * (l.u - s));
        rho = l.rho * std::pow(c / l.c, e.g4);
        u = e.g5 * (l.c + e.g7 * l.u + s);
        p = l.p * std::pow(c / l.c, e.g3);
      }
    }
    return true;
  }
  if (star.p > r.p) {  // right shock, eq. 4.59
    const double pmr = star.p / r.p;
    const double shock = r.u + r.c * std::sqrt(e.g2 * pmr + e.g1);
    if (s >= shock) {
      rho = r.rho, u = r.u, p = r.p;
    } else {
      rho = r.rho * (pmr + e.g6) / (pmr * e.g6 + 1.0), u = star.u, p = star.p;  // eq. 4.57
    }
  } else {  // right rarefaction, eqs. 4.60-4.63
    const double head = r.u + r.c;
    const double tail = star.u + r.c * std::pow(star.p / r.p, e.g1);
    if (s >= head) {
      rho = r.rho, u = r.u, p = r.p;
    } else if (s <= tail) {
      rho = r.rho * std::pow(star.p / r.p, e.inv_gamma), u = star.u, p = star.p;
    } else {
      const double c = e.g5 * (r.c - e.g7 * (r.u - s));
      rho = r.rho * std::pow(c / r.c, e.g4);
      u = e.g5 * (-r.c + e.g7 * r.u + s);
      p = r.p * std::pow(c / r.c, e.g3);
    }
  }
  return false;
}

inline ExactSide exact_side(double rho, double u, double p, double gamma) {
  KOSMO_REQUIRE(rho > 0.0 && p > 0.0,
                "hydro: exact Riemann solver needs rho > 0 and p > 0, got rho = " << rho << ", p = " << p);
  return {rho, u, p, std::sqrt(gamma * p / rho)};
}

}  // namespace detail

// Godunov flux through a face from the exact solution at x/t = 0, with at most niter Newton steps.
inline FaceFlux exact_flux(const FaceInput& left, const FaceInput& right, const GasConstants& g,
                           const detail::ExactGamma& e, int niter) {
  detail::ExactSide l, r;
  l.rho = std::max(left.rho, g.smallr), l.u = left.u, l.p = std::max(left.p, l.rho * g.smallp);
  r.rho = std::max(right.rho, g.smallr), r.u = right.u, r.p = std::max(right.p, r.rho * g.smallp);
  l.c = std::sqrt(g.gamma * l.p / l.rho);
  r.c = std::sqrt(g.gamma * r.p / r.rho);
  const RiemannStarState star = detail::exact_star(l, r, e, niter, kExactRiemannTolerance, g.smallpp);
  double rho, u, p;
  const bool upwind_left = detail::exact_sample(l, r, star, e, 0.0, rho, u, p);
  const double mass = rho * u;
  const double vt2 = upwind_left ? left.vt2 : right.vt2;
  const double energy = p * g.inv_gamma_minus_one + 0.5 * rho * (u * u + vt2);
  return {mass, mass * u + p, u * (energy + p), upwind_left ? mass : 0.0, upwind_left ? 0.0 : mass};
}

// Per-face solver with the common signature of riemann_llf/hll/hllc.
inline void riemann_exact(const double* left, const double* right, double* flux, int nvar, const SchemeSettings& s) {
  const GasConstants g(s);
  const detail::ExactGamma e(s.gamma);
  detail::solve_face(left, right, flux, nvar, s,
                     [&](const FaceInput& l, const FaceInput& r) { return exact_flux(l, r, g, e, s.niter_riemann); });
}

// Star state of the Riemann problem (rho, u, p)_L | (rho, u, p)_R, iterated to full precision; fails
// when the data generate vacuum (Toro eq. 4.40).
inline RiemannStarState exact_star_state(double rho_l, double u_l, double p_l, double rho_r, double u_r, double p_r,
                                         double gamma, int max_iterations = 100, double tolerance = 1e-14) {
  const detail::ExactGamma e(gamma);
  const detail::ExactSide l = detail::exact_side(rho_l, u_l, p_l, gamma);
  const detail::ExactSide r = detail::exact_side(rho_r, u_r, p_r, gamma);
  KOSMO_REQUIRE(e.g4 * (l.c + r.c) > r.u - l.u, "hydro: the Riemann problem generates vacuum (Toro eq. 4.40)");
  // A positive floor far below any representable star pressure of these data keeps the Newton step
  // finite (the rarefaction derivative diverges at p = 0).
  return detail::exact_star(l, r, e, max_iterations, tolerance, 1e-300);
}

// The exact solution at x/t for a star state computed by exact_star_state (the Sod reference).
inline void sample_exact_riemann(double rho_l, double u_l, double p_l, double rho_r, double u_r, double p_r,
                                 double gamma, const RiemannStarState& star, double x_over_t, double& rho, double& u,
                                 double& p) {
  const detail::ExactGamma e(gamma);
  detail::exact_sample(detail::exact_side(rho_l, u_l, p_l, gamma), detail::exact_side(rho_r, u_r, p_r, gamma), star, e,
                       x_over_t, rho, u, p);
}

inline void sample_exact_riemann(double rho_l, double u_l, double p_l, double rho_r, double u_r, double p_r,
                                 double gamma, double x_over_t, double& rho, double& u, double& p) {
  const RiemannStarState star = exact_star_state(rho_l, u_l, p_l, rho_r, u_r, p_r, gamma);
  sample_exact_riemann(rho_l, u_l, p_l, rho_r, u_r, p_r, gamma, star, x_over_t, rho, u, p);
}

}  // namespace kosmo::hydro
