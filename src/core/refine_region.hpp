#pragma once
// RAMSES' geometric refinement region (&REFINE_PARAMS x/y/z/r/a/b/exp_refine, amr/flag_utils
// geometry_refine): a mask that permits refinement inside an ellipsoid or box. r_refine is the
// region's DIAMETER; a_refine and b_refine stretch y and z; exp_refine is the norm (>= 10: max).
#include <array>
#include <cmath>

namespace kosmo::core {

struct RefineRegion {
  double x = 0.0, y = 0.0, z = 0.0;
  double r = -1.0;  // <= -1: no geometric restriction at this level
  double a = 1.0, b = 1.0;
  double exponent = 2.0;

  bool restricts() const { return r > -1.0; }

  template <int D>
  bool contains(const std::array<double, D>& position) const {
    if (r <= 0.0 || exponent <= 0.0 || a <= 0.0 || b <= 0.0) return false;
    const double centre[3] = {x, y, z};
    const double scale[3] = {r, a * r, b * r};
    double n[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < D; ++d) n[d] = 2.0 * std::fabs(position[d] - centre[d]) / scale[d];
    const double distance = exponent < 10.0
                                ? std::pow(std::pow(n[0], exponent) + std::pow(n[1], exponent) + std::pow(n[2], exponent), 1.0 / exponent)
                                : std::fmax(n[0], std::fmax(n[1], n[2]));
    return distance < 1.0;
  }
};

}  // namespace kosmo::core
