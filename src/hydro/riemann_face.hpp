#pragma once
// The rotated face layout shared by every Riemann solver, after RAMSES' cmpflxm (hydro/umuscl.f90):
//   state  w = [rho, v_normal, p, v_transverse_0 .., s_0 ..]
//   flux   f = [mass, normal momentum, energy, transverse momenta .., passive fluxes ..]
// For normal axis d the transverse axes are the other axes in increasing order (x: y, z; y: x, z;
// z: x, y), exactly RAMSES' (ln, lt1, lt2). Passive scalars keep their primitive index D + 2 in both
// layouts because 3 + (D - 1) = D + 2.
//
// Every solver reduces to one scalar core: it reads (rho, u_n, p, |v_t|^2) of each side and returns the
// mass, normal-momentum and energy fluxes plus two weights such that the flux of any quantity a
// carried with the mass (a transverse velocity, a passive scalar) is w_L a_L + w_R a_R. For LLF and
// HLL the weights follow from their linear flux formulas, for HLLC and the exact solver they select
// the side upwind of the contact (w = mass flux on that side, 0 on the other). The core is therefore
// independent of the dimension and of the number of passive scalars, and branch-free for LLF, HLL and
// HLLC, which lets the oct kernel run it on many faces without mispredicted branches.
#include <cstddef>

#include "core/error.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/hydro_settings.hpp"

namespace kosmo::hydro {

struct FaceInput {
  double rho, u, p;  // density, normal velocity, pressure (unfloored: the solvers apply RAMSES' floors)
  double vt2;        // squared transverse velocity, for the kinetic energy
};

struct FaceFlux {
  double mass, momentum, energy;
  double weight_left, weight_right;  // flux of a carried quantity a: weight_left a_L + weight_right a_R
};

// k-th transverse axis of normal axis d.
constexpr int transverse_axis(int d, int k) { return k < d ? k : k + 1; }

// Primitive cell state q (RAMSES order, variable k at q[k * stride]) -> rotated face state.
template <int D>
inline void rotate_to_face(const double* q, std::ptrdiff_t stride, int d, int npassive, double* w) {
  w[0] = q[0];
  w[1] = q[(1 + d) * stride];
  w[2] = q[(D + 1) * stride];
  for (int k = 0; k < D - 1; ++k) w[3 + k] = q[(1 + transverse_axis(d, k)) * stride];
  for (int n = D + 2; n < D + 2 + npassive; ++n) w[n] = q[n * stride];
}

// Rotated face vector (state or flux) -> RAMSES order, multiplied by scale (dt/dx for fluxes).
template <int D>
inline void rotate_from_face(const double* w, int d, int npassive, double scale, double* out, std::ptrdiff_t stride) {
  out[0] = w[0] * scale;
  out[(1 + d) * stride] = w[1] * scale;
  out[(D + 1) * stride] = w[2] * scale;
  for (int k = 0; k < D - 1; ++k) out[(1 + transverse_axis(d, k)) * stride] = w[3 + k] * scale;
  for (int n = D + 2; n < D + 2 + npassive; ++n) out[n * stride] = w[n] * scale;
}

// Physical Euler flux of one state (Toro eq. 3.69, x-split form), in the solvers' output form.
inline FaceFlux physical_flux(const FaceInput& w, const GasConstants& g) {
  const double mass = w.rho * w.u;
  const double energy = w.p * g.inv_gamma_minus_one + 0.5 * w.rho * (w.u * w.u + w.vt2);
  return {mass, mass * w.u + w.p, w.u * (energy + w.p), mass, 0.0};
}

namespace detail {

// Number of transverse velocities in a rotated state of nvar variables.
inline int transverse_velocities(int nvar, int npassive) {
  const int nt = nvar - 3 - npassive;
  KOSMO_REQUIRE(nt >= 0 && nt <= 2,
                "hydro: nvar = " << nvar << " with npassive = " << npassive << " is not a 1-, 2- or 3-D Euler state");
  return nt;
}

inline FaceInput face_input(const double* w, int nt) {
  double vt2 = 0.0;
  for (int k = 0; k < nt; ++k) vt2 += w[3 + k] * w[3 + k];
  return {w[0], w[1], w[2], vt2};
}

// Rotated flux vector from a solver's output and the two rotated states.
inline void write_face_flux(const FaceFlux& f, const double* left, const double* right, double* flux, int nvar) {
  flux[0] = f.mass;
  flux[1] = f.momentum;
  flux[2] = f.energy;
  for (int n = 3; n < nvar; ++n) flux[n] = f.weight_left * left[n] + f.weight_right * right[n];
}

// Shared body of the public per-face functions: rotated arrays in, rotated flux out.
template <class Core>
inline void solve_face(const double* left, const double* right, double* flux, int nvar, const SchemeSettings& s,
                       Core&& core) {
  const int nt = transverse_velocities(nvar, s.npassive);
  write_face_flux(core(face_input(left, nt), face_input(right, nt)), left, right, flux, nvar);
}

}  // namespace detail

// Physical flux of a rotated face state; the reference all solvers must reproduce for equal states.
inline void euler_flux(const double* face_state, double* flux, int nvar, const SchemeSettings& s) {
  const GasConstants g(s);
  detail::solve_face(face_state, face_state, flux, nvar, s,
                     [&](const FaceInput& w, const FaceInput&) { return physical_flux(w, g); });
}

}  // namespace kosmo::hydro
