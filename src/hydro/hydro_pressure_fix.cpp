// RAMSES' pressure fix (hydro/godunov_fine.f90: set_unew, add_pdv_source_terms, set_uold), the cell
// loops around the Godunov update; the face terms are the kernel's (muscl_hancock.cpp) and the -p dV
// work is HydroSolver::add_pdv_work. See docs/hydro.md, "Pressure fix".
//
// In a cold supersonic flow the internal energy E - rho v^2 / 2 is the small difference of two large
// numbers, and the conservative update's truncation error can make it negative. The fix carries a
// second internal energy, e, updated as RAMSES does: advected with the mass flux and changed by the
// work -p div(v) dt (an adiabatic update, so e stays positive where the flow is smooth). After the
// step, a cell whose conservative internal energy falls below
//     e_trunc = beta_fix * rho * max(|div v|, 3 hexp dx)^2,
// |div v| being the velocity jump across the cell from the face velocities, takes E = e + kinetic.
// That replacement is the only place energy is not conserved; with beta_fix = 0 it happens only
// where the conservative internal energy is negative.
#include <algorithm>
#include <cmath>
#include <vector>

#include "hydro/hydro_solver.hpp"
#include "hydro/thread_threshold.hpp"

namespace kosmo::hydro {

template <int D>
void HydroSolver<D>::register_pressure_fix_fields() {
  // Transient: both are rebuilt from uold at every set_unew, as RAMSES' enew and divu.
  internal_energy_ = tree_.add_field(core::scalar_field("new_internal_energy", "code_energy_density").owned_by("hydro").transient());
  divergence_ = tree_.add_field(core::scalar_field("velocity_divergence_dt", "dimensionless").owned_by("hydro").transient());
}

namespace {

// Kinetic energy per volume of a cell, as set_uold computes it (velocities from the floored density).
template <int D>
double kinetic_energy_density(const std::array<const double*, D>& momentum, core::CellIndex cell, double density) {
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) {
    const double v = momentum[static_cast<std::size_t>(d)][cell] / density;
    kinetic += 0.5 * density * v * v;
  }
  return kinetic;
}

}  // namespace

// RAMSES set_unew: divu = 0, enew = the conservative internal energy of uold (density floored).
template <int D>
void HydroSolver<D>::start_internal_energy(int level) {
  const double smallr = settings_.scheme.smallr;
  const auto& octs = tree_.octs_at_level(level);
  const double* rho = tree_.field(uold_[0]);
  const double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
  double* internal = tree_.field(internal_energy_);
  double* divergence = tree_.field(divergence_);
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double density = std::max(rho[cell], smallr);
      const double kinetic = kinetic_energy_density<D>(momentum, cell, density);
      internal[cell] = energy[cell] - kinetic;
      divergence[cell] = 0.0;
    }
}

// RAMSES set_uold's correction, on every cell of the level (restriction overwrites the refined ones).
// hexp, the expansion rate of a cosmological run, is 0 here: kosmo refuses pressure_fix with
// beta_fix > 0 in cosmological runs (hydro_parameters.cpp), the only case where it would matter.
template <int D>
void HydroSolver<D>::apply_pressure_fix(int level, double dt) {
  const double smallr = settings_.scheme.smallr;
  const double beta_fix = settings_.scheme.beta_fix;
  const double dx = tree_.cell_size(level);
  const double hexp = 0.0;
  const auto& octs = tree_.octs_at_level(level);
  const double* rho = tree_.field(uold_[0]);
  double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
  const double* internal = tree_.field(internal_energy_);
  const double* divergence = tree_.field(divergence_);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= dx;
  // The energy the replacement adds to leaf cells (refined ones are overwritten by restriction),
  // per oct and added in oct order, so the threads do not change the sum.
  std::vector<double> added(octs.size(), 0.0);
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double density = std::max(rho[cell], smallr);
      const double kinetic = kinetic_energy_density<D>(momentum, cell, density);
      const double conservative = energy[cell] - kinetic;
      // divu holds -div(v) dt / dx summed over the faces: |div v| dx is the velocity jump.
      const double jump = dt > 0.0 ? std::fabs(divergence[cell]) * dx / dt : 0.0;
      const double scale = std::max(jump, 3.0 * hexp * dx);
      if (conservative < beta_fix * density * scale * scale) {
        const double before = energy[cell];
        energy[cell] = internal[cell] + kinetic;
        if (tree_.is_leaf(cell)) added[i] += (energy[cell] - before) * volume;
      }
    }
  for (double a : added) pressure_fix_energy_ += a;
}

#define KOSMO_PRESSURE_FIX_MEMBERS(D)                        \
  template void HydroSolver<D>::register_pressure_fix_fields(); \
  template void HydroSolver<D>::start_internal_energy(int);     \
  template void HydroSolver<D>::apply_pressure_fix(int, double);
KOSMO_PRESSURE_FIX_MEMBERS(1)
KOSMO_PRESSURE_FIX_MEMBERS(2)
KOSMO_PRESSURE_FIX_MEMBERS(3)
#undef KOSMO_PRESSURE_FIX_MEMBERS

}  // namespace kosmo::hydro
