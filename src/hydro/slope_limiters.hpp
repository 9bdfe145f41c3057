#pragma once
// Limited slopes of one primitive variable, as RAMSES' uslope (hydro/umuscl.f90, hydro/slope_types.f90).
// A "slope" is the undivided difference across one cell (dq = dx * dq/dx), the unit the Hancock
// predictor uses. dl = q_i - q_{i-1}, dr = q_{i+1} - q_i.
//   slope_type 0: zero slopes (first-order Godunov).
//   slope_type 1: minmod (Toro eq. 13.28 with beta = 1).
//   slope_type 2: monotonised central, sign(dc) min(2|dl|, 2|dr|, |dc|), zero at extrema
//                 (van Leer 1977; RAMSES slope_moncen).
//   slope_type 3: RAMSES' multidimensional positivity-preserving limiter
//                 (calc_uslope_positivity_preserving): the central differences of all D axes are
//                 scaled by one factor so that the reconstruction at every corner of the cell,
//                 q + sum_d +-dq_d / 2, stays within the min/max of the 3^D neighbourhood. RAMSES only
//                 defines it for 2-D and 3-D and uses moncen for slope_type 3 in 1-D; the 3^D formula
//                 below reduces exactly to moncen in 1-D, so one formula serves all D.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "hydro/hydro_settings.hpp"

namespace kosmo::hydro {

// Both limiters are pure arithmetic: (sgn dl + sgn dr) / 2 is +-1 when the one-sided differences
// agree in sign and 0 otherwise (an extremum; a zero difference makes the magnitude 0 anyway), so
// the results equal RAMSES' branchy forms while loops over cells vectorise and never mispredict.
inline double slope_minmod(double dl, double dr) {
  const double sgn = 0.5 * (std::copysign(1.0, dl) + std::copysign(1.0, dr));
  return sgn * std::min(std::fabs(dl), std::fabs(dr));
}

inline double slope_moncen(double dl, double dr) {
  const double sgn = 0.5 * (std::copysign(1.0, dl) + std::copysign(1.0, dr));
  return sgn * std::min(2.0 * std::min(std::fabs(dl), std::fabs(dr)), 0.5 * std::fabs(dl + dr));
}

// One-axis limiter chosen at compile time (slope types 0, 1, 2).
template <SlopeType S>
inline double limited_slope(double dl, double dr) {
  static_assert(S != SlopeType::positivity, "slope_type 3 is multidimensional: use positivity_slopes");
  if constexpr (S == SlopeType::minmod) return slope_minmod(dl, dr);
  if constexpr (S == SlopeType::moncen) return slope_moncen(dl, dr);
  (void)dl, (void)dr;  // first order
  return 0.0;
}

// Run-time form for tests and non-critical code; slope_type 3 along a single axis is moncen (see above).
inline double limited_slope(SlopeType s, double dl, double dr) {
  switch (s) {
    case SlopeType::first_order:
      return 0.0;
    case SlopeType::minmod:
      return slope_minmod(dl, dr);
    case SlopeType::moncen:
    case SlopeType::positivity:
      return slope_moncen(dl, dr);
  }
  return 0.0;
}

// RAMSES slope_type 3 for N cells contiguous along axis 0, q[0 .. N-1], in an array whose axis d has
// stride stride[d]: slope d of cell k goes to dq[d * dq_stride + k]. Loops run over the N cells
// innermost, so the compiler vectorises them.
template <int D, int N>
inline void positivity_slopes(const double* q, const std::array<std::ptrdiff_t, D>& stride, double* dq,
                              std::ptrdiff_t dq_stride) {
  // Extremes of the neighbourhood (centre included, so qmin <= q <= qmax), differences taken once.
  double qmin[N], qmax[N];
  for (int k = 0; k < N; ++k) qmin[k] = qmax[k] = q[k];
  constexpr int ky = D > 1 ? 1 : 0, kz = D > 2 ? 1 : 0;
  const std::ptrdiff_t sy = D > 1 ? stride[D > 1 ? 1 : 0] : 0, sz = D > 2 ? stride[D > 2 ? 2 : 0] : 0;
  for (int c = -kz; c <= kz; ++c) {
    for (int b = -ky; b <= ky; ++b) {
      for (int a = -1; a <= 1; ++a) {
        const double* qn = q + a * stride[0] + b * sy + c * sz;
#pragma omp simd
        for (int k = 0; k < N; ++k) {
          qmin[k] = std::min(qmin[k], qn[k]);
          qmax[k] = std::max(qmax[k], qn[k]);
        }
      }
    }
  }
  double dff[N];
  for (int k = 0; k < N; ++k) dff[k] = 0.0;
  for (int d = 0; d < D; ++d) {
#pragma omp simd
    for (int k = 0; k < N; ++k) {
      const double central = 0.5 * (q[k + stride[d]] - q[k - stride[d]]);
      dq[d * dq_stride + k] = central;
      dff[k] += 0.5 * std::fabs(central);  // largest deviation of a corner value from the centre
    }
  }
#pragma omp simd
  for (int k = 0; k < N; ++k) {
    const double room = std::min(q[k] - qmin[k], qmax[k] - q[k]);
    // dff = 0 gives room / dff = +inf or NaN, and std::min(1.0, x) returns 1.0 for both.
    const double dlim = std::min(1.0, room / dff[k]);
    for (int d = 0; d < D; ++d) dq[d * dq_stride + k] *= dlim;
  }
}

// The same for one cell at q[0]: writes its D slopes to dq[0 .. D-1].
template <int D>
inline void positivity_slopes(const double* q, const std::array<std::ptrdiff_t, D>& stride, double* dq) {
  positivity_slopes<D, 1>(q, stride, dq, 1);
}

}  // namespace kosmo::hydro
