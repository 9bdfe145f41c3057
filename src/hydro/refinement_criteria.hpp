#pragma once
// RAMSES' hydro refinement criteria, one cell at a time: the gradient criteria err_grad_d/u/p of
// hydro_refine (hydro/godunov_utils.f90), called by hydro_flag (hydro/hydro_flag.f90) once per axis
// with the cell and its two neighbours along that axis, and the Lagrangian criterion m_refine of
// poisson_refine (amr/flag_utils.f90) for a run with hydro and without gravity.
//
// Left to the caller, as in RAMSES: a missing neighbour is replaced by its coarser father cell;
// cells are flagged only below levelmax; a geometric region (r_refine) of the level then acts as a
// filter, keeping only flags inside it (hydro_flag / userflag_fine call geometry_refine after).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/parameters.hpp"

namespace kosmo::hydro {

// The primitive values hydro_refine compares: density (floored at smallr), velocity, pressure.
template <int D>
struct RefinePrimitive {
  double rho = 0.0;
  std::array<double, D> v{};
  double p = 0.0;
};

// RAMSES' conversion at the top of hydro_refine: rho = max(u_rho, smallr), v = momentum / rho,
// p = (gamma - 1) (E - rho |v|^2 / 2), with no pressure floor.
template <int D>
inline RefinePrimitive<D> refine_primitive(const double* u, double gamma, double smallr) {
  RefinePrimitive<D> q;
  q.rho = std::max(u[0], smallr);
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) {
    q.v[static_cast<std::size_t>(d)] = u[1 + d] / q.rho;
    kinetic += 0.5 * q.rho * q.v[static_cast<std::size_t>(d)] * q.v[static_cast<std::size_t>(d)];
  }
  q.p = (gamma - 1.0) * (u[D + 1] - kinetic);
  return q;
}

// &REFINE_PARAMS err_grad_* and floor_*, and gamma for the sound speeds of err_grad_u. A criterion
// is on when its err_grad is >= 0 (RAMSES' default -1 = off).
struct GradientCriteria {
  double err_grad_d = -1.0, err_grad_u = -1.0, err_grad_p = -1.0;
  double floor_d = 1e-10, floor_u = 1e-10, floor_p = 1e-10;
  double gamma = 1.4;

  bool any() const { return err_grad_d >= 0.0 || err_grad_u >= 0.0 || err_grad_p >= 0.0; }
};

inline GradientCriteria gradient_criteria(const core::ParameterSet& params) {
  GradientCriteria c;
  c.err_grad_d = params.get_real("REFINE_PARAMS", "err_grad_d");
  c.err_grad_u = params.get_real("REFINE_PARAMS", "err_grad_u");
  c.err_grad_p = params.get_real("REFINE_PARAMS", "err_grad_p");
  c.floor_d = params.get_real("REFINE_PARAMS", "floor_d");
  c.floor_u = params.get_real("REFINE_PARAMS", "floor_u");
  c.floor_p = params.get_real("REFINE_PARAMS", "floor_p");
  c.gamma = params.get_real("HYDRO_PARAMS", "gamma");
  return c;
}

// RAMSES' normalised jump of a positive quantity: 2 max(|(r - m) / (r + m + floor)|, |(m - l) / (m + l + floor)|).
inline double normalised_jump(double left, double mid, double right, double floor) {
  return 2.0 *
         std::max(std::fabs((right - mid) / (right + mid + floor)), std::fabs((mid - left) / (mid + left + floor)));
}

// The err_grad_u measure of velocity component `d`: jumps relative to the sum of the two cells'
// sound speeds (floored at floor_u) and speeds |v_d|, plus floor_u.
template <int D>
inline double velocity_jump(const RefinePrimitive<D>& left, const RefinePrimitive<D>& mid,
                            const RefinePrimitive<D>& right, int d, double gamma, double floor_u) {
  auto c = [gamma, floor_u](const RefinePrimitive<D>& q) {
    return std::sqrt(std::max(gamma * q.p / q.rho, floor_u * floor_u));
  };
  const auto k = static_cast<std::size_t>(d);
  const double vg = left.v[k], vm = mid.v[k], vd = right.v[k];
  const double cg = c(left), cm = c(mid), cd = c(right);
  return 2.0 * std::max(std::fabs((vd - vm) / (cd + cm + std::fabs(vd) + std::fabs(vm) + floor_u)),
                        std::fabs((vm - vg) / (cm + cg + std::fabs(vm) + std::fabs(vg) + floor_u)));
}

// hydro_refine for one cell and its neighbours along one axis: true when a criterion that is on is
// exceeded (strictly). err_grad_u tests every velocity component, not only the one along the axis.
template <int D>
inline bool gradient_refine(const RefinePrimitive<D>& left, const RefinePrimitive<D>& mid,
                            const RefinePrimitive<D>& right, const GradientCriteria& c) {
  if (c.err_grad_d >= 0.0 && normalised_jump(left.rho, mid.rho, right.rho, c.floor_d) > c.err_grad_d) return true;
  if (c.err_grad_p >= 0.0 && normalised_jump(left.p, mid.p, right.p, c.floor_p) > c.err_grad_p) return true;
  if (c.err_grad_u >= 0.0)
    for (int d = 0; d < D; ++d)
      if (velocity_jump<D>(left, mid, right, d, c.gamma, c.floor_u) > c.err_grad_u) return true;
  return false;
}

// m_refine of a level. RAMSES read_params shifts the per-level arrays so that namelist element 1
// applies to levelmin, and sets levels below levelmin to -1 (off).
inline double m_refine_at_level(const std::vector<double>& m_refine, int levelmin, int level) {
  const long long i = static_cast<long long>(level) - levelmin;
  if (i < 0 || i >= static_cast<long long>(m_refine.size())) return -1.0;
  return m_refine[static_cast<std::size_t>(i)];
}

// poisson_refine without gravity: a level's criterion is on when m_refine > -1, and a cell refines
// when its density reaches m_refine * mass_sph / dx^3. RAMSES divides by dx^3 whatever ndim (vol_loc
// = dx_loc**3), so in 1-D and 2-D mass_sph is a mass per dx^(3 - ndim); kosmo keeps that rule.
inline bool mass_refine(double rho, double dx, double m_refine, double mass_sph) {
  if (!(m_refine > -1.0)) return false;
  return rho >= m_refine * mass_sph / (dx * dx * dx);
}

}  // namespace kosmo::hydro
