#pragma once
// Analytic external gravity (RAMSES poisson/gravana.f90, &POISSON_PARAMS gravity_type and
// gravity_params), used instead of self-gravity when gravity_type > 0:
//   gravity_type 1, constant vector: g = (gravity_params[0], .., gravity_params[D-1]),
//                                     phi = -g . x;
//   gravity_type 2, softened point mass: gravity_params = (GM, softening eps, x_m, y_m, z_m),
//                                     g = -GM (x - x_m) / (|x - x_m|^2 + eps^2)^{3/2},
//                                     phi = -GM / sqrt(|x - x_m|^2 + eps^2).
//   gravity_type 3, vertical disc field (Kuijken & Gilmore 1989, as Joung & Mac Low 2006 use it),
//                 along the last axis (x in 1-D, y in 2-D, z in 3-D), about the box's mid-plane z_c:
//                                     g_z = -a1 z / sqrt(z^2 + z0^2) - a2 z,  z = x_{D-1} - z_c,
//                                     phi = a1 (sqrt(z^2 + z0^2) - z0) + a2 z^2 / 2.
// As in RAMSES, a run of D < 3 dimensions reads only the first D coordinates of the mass, and the
// parameters of types 1 and 2 are in code units. Type 3's namelist parameters are physical (a1 in
// kpc/Myr^2, a2 in 1/Myr^2, z0 in pc): analytic_parameters_in_code_units converts them once and
// appends z_c = boxlen / 2; the kernels below take the converted list. Potentials are defined up to
// a constant; these make g = -grad phi (docs/gravity.md).
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "core/error.hpp"

namespace kosmo::gravity {

namespace detail {

template <int D>
inline void check_analytic_gravity(int gravity_type, std::span<const double> gravity_params) {
  KOSMO_REQUIRE(gravity_type >= 1 && gravity_type <= 3,
                "gravity: unsupported gravity_type " << gravity_type
                                                     << " for analytic gravity (valid: 1 constant vector, 2 point mass, 3 vertical disc)");
  const std::size_t needed = gravity_type == 1 ? D : (gravity_type == 2 ? 2 + D : 4);
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

// Vertical disc field: the offset from the mid-plane along the last axis and g_z there.
template <int D>
inline double disc_offset(std::span<const double> code_params, const std::array<double, D>& x) {
  return x[static_cast<std::size_t>(D - 1)] - code_params[3];
}
inline double disc_acceleration(std::span<const double> code_params, double z) {
  const double a1 = code_params[0], a2 = code_params[1], z0 = code_params[2];
  return -a1 * z / std::sqrt(z * z + z0 * z0) - a2 * z;
}

}  // namespace detail

// RAMSES' constants (amr/constants.f90) for type 3's units, in cgs.
inline constexpr double parsec_in_cm = 3.0856776e18;
inline constexpr double kiloparsec_in_cm = 3.0856776e21;
inline constexpr double megayear_in_s = 3.15576e13;

// The parameters the kernels take: gravity_params unchanged for types 1 and 2; for type 3
// (a1 [kpc/Myr^2], a2 [1/Myr^2], z0 [pc]) in code units (&UNITS_PARAMS units_length, units_time
// in cm and s), then the mid-plane boxlen / 2 (RAMSES gravana converts them the same way).
std::vector<double> analytic_parameters_in_code_units(int gravity_type, std::span<const double> gravity_params, double boxlen,
                                                      double units_length, double units_time);

template <int D>
std::array<double, D> analytic_acceleration(int gravity_type, std::span<const double> gravity_params,
                                            const std::array<double, D>& x) {
  detail::check_analytic_gravity<D>(gravity_type, gravity_params);
  std::array<double, D> g{};
  if (gravity_type == 1) {
    for (int d = 0; d < D; ++d) g[static_cast<std::size_t>(d)] = gravity_params[static_cast<std::size_t>(d)];
    return g;
  }
  if (gravity_type == 3) {
    g[static_cast<std::size_t>(D - 1)] = detail::disc_acceleration(gravity_params, detail::disc_offset<D>(gravity_params, x));
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
  if (gravity_type == 3) {
    const double z = detail::disc_offset<D>(gravity_params, x);
    const double a1 = gravity_params[0], a2 = gravity_params[1], z0 = gravity_params[2];
    return a1 * (std::sqrt(z * z + z0 * z0) - z0) + 0.5 * a2 * z * z;
  }
  std::array<double, D> offset{};
  return -gravity_params[0] / std::sqrt(detail::softened_distance2<D>(gravity_params, x, offset));
}

}  // namespace kosmo::gravity
