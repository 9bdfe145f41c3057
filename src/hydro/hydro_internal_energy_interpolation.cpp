// RAMSES interpol_var=1 (hydro/interpol_hydro.f90: interpol_hydro, upl): prolongation and
// restriction of rho, rho v and the internal energy rho e = E - rho v^2 / 2 instead of E, the total
// energy of a new or restricted cell then being its interpolated internal energy plus the kinetic
// energy of its interpolated momenta. A limited interpolation of a positive rho e stays positive
// (MinMod in every dimension), where that of E, rho and rho v can leave E < rho v^2 / 2
// (docs/hydro.md, "Positive pressure"); the price is that total energy is no longer exactly
// conserved by the prolongation and the restriction.
//
// kosmo's mesh-level prolongation (core/refinement.cpp) interpolates every registered field alike,
// so the internal energy travels in a transient field of its own: filled on every cell before a
// regrid, prolongated and restricted (and sent to other ranks) with the rest, and turned back into
// E after it wherever it differs from the cell's E - rho v^2 / 2, i.e. only in cells the regrid
// made or restricted: other cells keep their E bit for bit.
#include <algorithm>

#include "hydro/hydro_solver.hpp"
#include "hydro/thread_threshold.hpp"

namespace kosmo::hydro {

template <int D>
void HydroSolver<D>::register_interpolation_fields() {
  interpolation_fields_ = uold_;
  if (settings_.interpol_var != 1) return;
  interpolated_internal_ = tree_.add_field(core::scalar_field("interpolated_internal_energy", "code_energy_density").owned_by("hydro").transient());
  interpolation_fields_[static_cast<std::size_t>(D + 1)] = interpolated_internal_;
}

namespace {

template <int D>
double kinetic_of(const std::array<const double*, D>& momentum, core::CellIndex cell, double density) {
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) kinetic += 0.5 * momentum[static_cast<std::size_t>(d)][cell] * momentum[static_cast<std::size_t>(d)][cell] / density;
  return kinetic;
}

}  // namespace

template <int D>
void HydroSolver<D>::store_internal_energy_for_regrid() {
  const double smallr = settings_.scheme.smallr;
  const double* rho = tree_.field(uold_[0]);
  const double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
  double* internal = tree_.field(interpolated_internal_);
  for (int l = 1; l <= tree_.levelmax(); ++l)
    for (const auto* octs : {&tree_.octs_at_level(l), &tree_.ghost_octs_at_level(l)})
      for (core::OctIndex o : *octs)
        for (int c = 0; c < cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(o, c);
          internal[cell] = energy[cell] - kinetic_of<D>(momentum, cell, std::max(rho[cell], smallr));
        }
}

template <int D>
void HydroSolver<D>::rebuild_energy_after_regrid() {
  const double smallr = settings_.scheme.smallr;
  const double* rho = tree_.field(uold_[0]);
  double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
  const double* internal = tree_.field(interpolated_internal_);
  // Ghosts too: the same per-cell rule on the owner's values gives the owner's result.
  for (int l = 1; l <= tree_.levelmax(); ++l)
    for (const auto* octs : {&tree_.octs_at_level(l), &tree_.ghost_octs_at_level(l)})
      for (core::OctIndex o : *octs)
        for (int c = 0; c < cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(o, c);
          const double kinetic = kinetic_of<D>(momentum, cell, std::max(rho[cell], smallr));
          if (energy[cell] - kinetic != internal[cell]) energy[cell] = internal[cell] + kinetic;
        }
}

// RAMSES upl with interpol_var=1: a refined cell's E is its sons' mean internal energy plus the
// kinetic energy of its (restricted) momenta.
template <int D>
void HydroSolver<D>::restrict_internal_energy(int level) {
  const double smallr = settings_.scheme.smallr;
  const double* rho = tree_.field(uold_[0]);
  double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
  const auto& octs = tree_.octs_at_level(level);
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const core::OctIndex son = tree_.son(cell);
      if (son == core::no_oct) continue;
      double internal = 0.0;
      for (int s = 0; s < cells_per_oct; ++s) {
        const core::CellIndex child = Tree::cell_index(son, s);
        internal += energy[child] - kinetic_of<D>(momentum, child, std::max(rho[child], smallr));
      }
      energy[cell] = internal / cells_per_oct + kinetic_of<D>(momentum, cell, std::max(rho[cell], smallr));
    }
}

// children[v * 2^D + c] as interpolate_children wrote them from interpolation_fields_: the energy
// slot holds the internal energy, which becomes E.
template <int D>
void HydroSolver<D>::rebuild_children_energy(double* children) const {
  const double smallr = settings_.scheme.smallr;
  for (int c = 0; c < cells_per_oct; ++c) {
    const double density = std::max(children[c], smallr);
    double kinetic = 0.0;
    for (int d = 0; d < D; ++d) {
      const double m = children[(1 + d) * cells_per_oct + c];
      kinetic += 0.5 * m * m / density;
    }
    children[(D + 1) * cells_per_oct + c] += kinetic;
  }
}

#define KOSMO_INTERPOLATION_MEMBERS(D)                                           \
  template void HydroSolver<D>::register_interpolation_fields();                 \
  template void HydroSolver<D>::store_internal_energy_for_regrid();              \
  template void HydroSolver<D>::rebuild_energy_after_regrid();                   \
  template void HydroSolver<D>::restrict_internal_energy(int);                   \
  template void HydroSolver<D>::rebuild_children_energy(double*) const;
KOSMO_INTERPOLATION_MEMBERS(1)
KOSMO_INTERPOLATION_MEMBERS(2)
KOSMO_INTERPOLATION_MEMBERS(3)
#undef KOSMO_INTERPOLATION_MEMBERS

}  // namespace kosmo::hydro
