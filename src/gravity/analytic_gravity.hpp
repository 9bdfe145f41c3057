#pragma once
// Analytic external gravity (RAMSES poisson/gravana.f90, &POISSON_PARAMS gravity_type and
// gravity_params), used instead of self-gravity when gravity_type > 0:
//   gravity_type 1, constant vector: g = (gravity_params[0], .., gravity_params[D-1]),
//                                     phi = -g . x;
//   gravity_type 2, softened point mass: gravity_params = (GM, softening eps, x_m, y_m, z_m),
//                                     g = -GM (x - x_m) / (|x - x_m|^2 + eps^2)^{3/2},
//                                     phi = -GM / sqrt(|x - x_m|^2 + eps^2).
// As in RAMSES, a run of D < 3 dimensions reads only the first D coordinates of the mass, and the
// parameters are in code units. RAMSES' type 3 (Kuijken & Gilmore vertical disc field, in physical
// units) is not implemented. Potentials are defined up to a constant; these make g = -grad phi.
#include <array>
#include <cmath>
#include <cstddef>
#include <span>

#include "core/error.hpp"

namespace kosmo::gravity {

namespace detail {

template <int D>
inline void check_analytic_gravity(int gravity_type, std::span<const double> gravity_params) {
  KOSMO_REQUIRE(gravity_type == 1 || gravity_type == 2,
                "gravity: unsupported gravity_type " << gravity_type
                                                     << " for analytic gravity (valid: 1 constant vector, 2 point mass)");
  const std::size_t needed = gravity_type == 1 ? D : 2 + D;
  KOSMO_REQUIRE(gravity_params.size() >= needed, "gravity: gravity_type " << gravity_type << " needs " << needed
                                                                          << " gravity_params in " << D
                                                                          << "-D, got " << gravity_params.size());
}

// Softened squared distance |x - x_m|^2 + eps^2 to the point mass, and the offsets x - x_m.
template <int D>
inline double softened_distance2(std::span<const double> gravity_params, const std::array<double, D>& x,
                                 std::array<double, D>& offset) {
  const double softening = gravity_params[1];
  double r2 = softening * softening;
  for (int d = 0; d < D; ++d) {
    const auto a = static_cast<std::size_t>(d);
    offset[a] = x[a] - gravity_params[2 + a];
    r2 += offset[a] * offset[a];
  }
  KOSMO_REQUIRE(r2 > 0.0, "gravity: gravity_type 2 evaluated at the point mass with zero softening");
  return r2;
}

}  // namespace detail

template <int D>
std::array<double, D> analytic_acceleration(int gravity_type, std::span<const double> gravity_params,
                                            const std::array<double, D>& x) {
  detail::check_analytic_gravity<D>(gravity_type, gravity_params);
  std::array<double, D> g{};
  if (gravity_type == 1) {
    for (int d = 0; d < D; ++d) g[static_cast<std::size_t>(d)] = gravity_params[static_cast<std::size_t>(d)];
    return g;
  }
  std::array<double, D> offset{};
  const double r2 = detail::softened_distance2<D>(gravity_params, x, offset);
  const double r = std::sqrt(r2);
  const double factor = -gravity_params[0] / (r2 * r);  // -GM / (r^2 + eps^2)^{3/2}
  for (int d = 0; d < D; ++d) g[static_cast<std::size_t>(d)] = factor * offset[static_cast<std::size_t>(d)];
  return g;
}

template <int D>
double analytic_potential(int gravity_type, std::span<const double> gravity_params, const std::array<double, D>& x) {
  detail::check_analytic_gravity<D>(gravity_type, gravity_params);
  if (gravity_type == 1) {
    double phi = 0.0;
    for (int d = 0; d < D; ++d) phi -= gravity_params[static_cast<std::size_t>(d)] * x[static_cast<std::size_t>(d)];
    return phi;
  }
  std::array<double, D> offset{};
  return -gravity_params[0] / std::sqrt(detail::softened_distance2<D>(gravity_params, x, offset));
}

}  // namespace kosmo::gravity
