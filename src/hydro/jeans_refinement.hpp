#pragma once
// RAMSES' Jeans-length refinement (&REFINE_PARAMS jeans_refine, jeans_length_refine called by
// hydro_flag in hydro/hydro_flag.f90 when poisson=.true.): a cell of level l is flagged when its
// size reaches the local Jeans length divided by jeans_refine(l),
//   jeans_refine(l) dx >= lambda_J = sqrt(pi c^2 / (G rho)),
// with c^2 = p / rho the isothermal sound speed squared (RAMSES' "temperature" (gamma - 1) e / rho,
// floored at smallc^2) and G the gravitational constant of the code's Poisson equation: the
// Poisson factor 4 pi G is 4 pi in code units (G = 1), and 1.5 omega_m aexp in a cosmological run
// (RAMSES factG = 3 omega_m aexp / (8 pi)). With a barotropic or isothermal equation of state
// (&COOLING_PARAMS barotropic_eos, isothermal) c^2 is the barotrope's p / rho at the cell's
// density, which is what RAMSES' cooling_fine leaves in the state after every step.
//
// jeans_refine is a per-level array (element 1 applies to levelmin, as m_refine); a level's
// criterion is on when its value is > 0, and only in runs with self-gravity or an analytic field
// (RAMSES: poisson=.true.; without gravity jeans_refine is ignored, as in RAMSES).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/parameters.hpp"
#include "hydro/refinement_criteria.hpp"

namespace kosmo::hydro {

// The Jeans length sqrt(pi c^2 / (G rho)) for the Poisson factor 4 pi G, in RAMSES' order of
// operations (sqrt(c^2 pi / rho / G)); G is exactly 1 for the factor 4 pi of non-cosmological runs.
inline double jeans_length(double sound_speed_squared, double rho, double poisson_factor) {
  const double g = poisson_factor / (4.0 * std::numbers::pi);
  return std::sqrt(sound_speed_squared * std::numbers::pi / rho / g);
}

// jeans_length_refine for one cell: true when n_jeans dx >= lambda_J (RAMSES' test, equality
// refines). rho is the density floored at smallr, sound_speed_squared p / rho floored at smallc^2.
inline bool jeans_refine_cell(double dx, double rho, double sound_speed_squared, double n_jeans, double poisson_factor) {
  return n_jeans * dx >= jeans_length(sound_speed_squared, rho, poisson_factor);
}

// RAMSES' "temperature" of jeans_length_refine from the conservative state u = [rho, rho v, E, ...]:
// (gamma - 1) (E - rho v^2 / 2) / rho with rho floored at smallr, then floored at smallc^2.
template <int D>
inline double jeans_sound_speed_squared(const double* u, double gamma, double smallr, double smallc) {
  const double rho = std::max(u[0], smallr);
  double internal = u[D + 1];
  for (int d = 0; d < D; ++d) internal -= 0.5 * u[1 + d] * u[1 + d] / rho;
  return std::max(internal / rho * (gamma - 1.0), smallc * smallc);
}

// &REFINE_PARAMS jeans_refine as the criterion of each level, and the Poisson factor of the run.
struct JeansCriterion {
  std::vector<double> n_jeans;  // &REFINE_PARAMS jeans_refine as given (element 1 = levelmin)
  int levelmin = 1;
  bool gravity = false;  // RAMSES poisson: the criterion needs a gravity module in the run
  double poisson_factor = 4.0 * std::numbers::pi;

  // jeans_refine of `level`, -1 (off) below levelmin and beyond the array.
  double at_level(int level) const { return m_refine_at_level(n_jeans, levelmin, level); }
  bool on(int level) const { return gravity && at_level(level) > 0.0; }
};

inline JeansCriterion jeans_criterion(const core::ParameterSet& params) {
  JeansCriterion c;
  c.n_jeans = params.get_real_array("REFINE_PARAMS", "jeans_refine");
  c.levelmin = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  return c;
}

}  // namespace kosmo::hydro
