#pragma once
// Per-cell maths of prolongation (coarse -> fine) and restriction (fine -> coarse), RAMSES
// `interpol_type` 0-4 (hydro/interpol_hydro.f90). No mesh types here: plain values in, values out.
//
// A child sits at +-1/4 of its father's width from the father's centre along each axis, so with a
// slope s (difference per father width) its value is u0 + s * (+-1/4). The offsets cancel in the
// mean, so restriction(prolongation(u)) = u for every type (exactly when the values are dyadic).
#include <algorithm>
#include <cmath>

namespace kosmo::core {

enum class InterpolationType : int { injection = 0, minmod = 1, moncen = 2, central = 3, central_velocity_moncen = 4 };

// Slope per father width from the left and right neighbour values.
inline double slope_minmod(double left, double centre, double right) {
  const double dl = centre - left;
  const double dr = right - centre;
  if (dl * dr <= 0.0) return 0.0;
  return dl > 0.0 ? std::min(dl, dr) : std::max(dl, dr);
}

inline double slope_moncen(double left, double centre, double right) {
  const double dl = centre - left;
  const double dr = right - centre;
  if (dl * dr <= 0.0) return 0.0;
  const double limit = 2.0 * std::min(std::fabs(dl), std::fabs(dr));
  const double central = 0.5 * std::fabs(right - left);
  return std::copysign(std::min(limit, central), dl);
}

inline double slope_central(double left, double /*centre*/, double right) { return 0.5 * (right - left); }

// Slope for one field along one axis with the chosen interpolation type; `is_velocity` selects the
// unlimited slope of type 4.
inline double prolongation_slope(InterpolationType type, bool is_velocity, double left, double centre, double right) {
  switch (type) {
    case InterpolationType::injection: return 0.0;
    case InterpolationType::minmod: return slope_minmod(left, centre, right);
    case InterpolationType::moncen: return slope_moncen(left, centre, right);
    case InterpolationType::central: return slope_central(left, centre, right);
    case InterpolationType::central_velocity_moncen:
      return is_velocity ? slope_central(left, centre, right) : slope_moncen(left, centre, right);
  }
  return 0.0;
}

// Value of child `child` (bit d = offset along axis d) from the father value and D slopes.
template <int D>
inline double prolongate_child(double centre, const double (&slopes)[D], int child) {
  double value = centre;
  for (int d = 0; d < D; ++d) value += slopes[d] * (((child >> d) & 1) ? 0.25 : -0.25);
  return value;
}

// Mean of the 2^D children (children of equal volume: conservative restriction).
template <int D>
inline double restrict_children(const double* children) {
  double sum = 0.0;
  for (int c = 0; c < (1 << D); ++c) sum += children[c];
  return sum / static_cast<double>(1 << D);
}

}  // namespace kosmo::core
