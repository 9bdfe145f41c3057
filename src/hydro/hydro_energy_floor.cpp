// The internal-energy floor and the thermal summary of the step line (docs/hydro.md, "Positive
// pressure").
//
// Where the pressure can still go non-positive with the pressure fix on: a conservative
// prolongation of a new fine oct interpolates rho, rho v and E separately, and a child's
// (rho v)^2 / 2 rho can exceed its E where the father sits in a converging cold flow (the
// kinetic energy is convex in (rho, rho v), so its children's mean exceeds the father's); the next
// step's internal energy then starts negative. The floor takes the missing internal energy from
// the cell's kinetic energy, so mass and total energy are unchanged where it acts; only the
// momentum loses the part that paid for it. Restriction cannot make it negative (the father's
// kinetic energy is at most its sons' mean, by the same convexity) and the gravity kick leaves the
// internal energy unchanged (HydroSolver::gravity_kick).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "hydro/hydro_solver.hpp"
#include "hydro/thread_threshold.hpp"

namespace kosmo::hydro {

namespace {

// The floor is at least this fraction of the cell's kinetic energy: E - rho v^2 / 2 carries a
// round-off of ~1e-16 rho v^2 / 2 per operation on E (every gravity kick adds to it), so an
// internal energy floored to RAMSES' smallc-based value alone (~1e-20 in code units) would turn
// negative again at the next kick. 1e-10 leaves a margin of 10^6 operations; in the showcase box it
// is a temperature of ~10^-2 K for gas moving at 1000 km/s, the adiabatic temperature of its voids.
constexpr double kRoundOffMargin = 1e-10;

// The floor on the cells of `octs`; returns {cells floored, of which energy was added}.
template <int D, class Tree>
std::pair<long long, long long> floor_octs(Tree& tree, const std::vector<int>& uold, const SchemeSettings& s,
                                           const std::vector<core::OctIndex>& octs) {
  constexpr int cells_per_oct = Tree::cells_per_oct;
  const double smallr = s.smallr;
  // RAMSES' pressure floor rho smallc^2 / gamma as an internal energy per volume, per density.
  const double floor_per_density = s.smallc * s.smallc / (s.gamma * (s.gamma - 1.0));
  const double* rho = tree.field(uold[0]);
  double* energy = tree.field(uold[static_cast<std::size_t>(D + 1)]);
  std::array<double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree.field(uold[static_cast<std::size_t>(1 + d)]);
  long long floored = 0, added = 0;
#pragma omp parallel for schedule(static) reduction(+ : floored, added) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double density = std::max(rho[cell], smallr);
      double kinetic = 0.0;
      for (int d = 0; d < D; ++d) kinetic += 0.5 * momentum[static_cast<std::size_t>(d)][cell] * momentum[static_cast<std::size_t>(d)][cell] / density;
      const double floor = std::max(floor_per_density * density, kRoundOffMargin * kinetic);
      if (energy[cell] - kinetic >= floor) continue;
      ++floored;
      if (energy[cell] > floor && kinetic > 0.0) {
        // Kinetic energy E - floor: momenta scaled by sqrt((E - floor) / kinetic) < 1.
        const double scale = std::sqrt((energy[cell] - floor) / kinetic);
        for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)][cell] *= scale;
      } else {
        for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)][cell] = 0.0;
        energy[cell] = floor;
        ++added;
      }
    }
  return {floored, added};
}

}  // namespace

template <int D>
void HydroSolver<D>::apply_energy_floor(int level, FloorCause cause) {
  const auto& octs = tree_.octs_at_level(level);
  const auto [floored, added] = floor_octs<D>(tree_, uold_, settings_.scheme, octs);
  if (cause == FloorCause::update) {
    floor_counts_.after_update += floored;
    floor_counts_.examined += static_cast<long long>(octs.size()) * cells_per_oct;
  } else {
    floor_counts_.after_refinement += floored;
  }
  floor_counts_.energy_added += added;
  // Ghost copies of other ranks' octs take the same per-cell decision as their owners (the floor
  // reads nothing but the cell), so they stay equal to them without an exchange.
  if (cause == FloorCause::refinement) floor_octs<D>(tree_, uold_, settings_.scheme, tree_.ghost_octs_at_level(level));
}

template <int D>
void HydroSolver<D>::apply_energy_floor_all_levels(FloorCause cause) {
  for (int l = 1; l <= tree_.levelmax(); ++l) apply_energy_floor(l, cause);
}

template <int D>
typename HydroSolver<D>::ThermalSummary HydroSolver<D>::thermal_summary() const {
  const double gamma = settings_.scheme.gamma;
  const double smallr = settings_.scheme.smallr;
  ThermalSummary summary;
  summary.min_pressure_per_density = std::numeric_limits<double>::max();
  const double* rho = tree_.field(uold_[0]);
  const double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    const double volume = std::pow(tree_.cell_size(l), D);
    for (core::OctIndex o : tree_.octs_at_level(l))
      for (int c = 0; c < cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree_.is_leaf(cell)) continue;
        const double density = std::max(rho[cell], smallr);
        double kinetic = 0.0;
        for (int d = 0; d < D; ++d) {
          const double m = tree_.field(uold_[static_cast<std::size_t>(1 + d)])[cell];
          kinetic += 0.5 * m * m / density;
        }
        const double internal = energy[cell] - kinetic;
        const double pressure = (gamma - 1.0) * internal;
        summary.thermal_energy += internal * volume;
        summary.min_pressure_per_density = std::min(summary.min_pressure_per_density, pressure / density);
        if (pressure <= 0.0) ++summary.nonpositive;
        ++summary.leaves;
      }
  }
  return summary;
}

#define KOSMO_ENERGY_FLOOR_MEMBERS(D)                                                               \
  template void HydroSolver<D>::apply_energy_floor(int, FloorCause);                                \
  template void HydroSolver<D>::apply_energy_floor_all_levels(FloorCause);                          \
  template HydroSolver<D>::ThermalSummary HydroSolver<D>::thermal_summary() const;
KOSMO_ENERGY_FLOOR_MEMBERS(1)
KOSMO_ENERGY_FLOOR_MEMBERS(2)
KOSMO_ENERGY_FLOOR_MEMBERS(3)
#undef KOSMO_ENERGY_FLOOR_MEMBERS

}  // namespace kosmo::hydro
