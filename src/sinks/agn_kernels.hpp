#pragma once
// The two kernels of AGN feedback (seeds/000 §6.3: average_AGN and AGN_blast), on the same cell
// search as the supernova blasts (feedback/cell_search.hpp: the spatial hash bins of §6.2, or the
// all-pairs scan with agn_binning=.false.; both give the same bits). An AGN event is a sink with
// energy in its reservoir; its zone is the leaf cells whose centre lies within r_AGN of it
// (distance^2 < r_AGN^2, on every level; periodic images as the supernova blasts).
//
// average_AGN: per (cell, AGN image) a record of the cell's volume, gas mass and thermal energy,
// summed per AGN in (level, Morton key, child) order like average_SN's (sum_budgets on one rank,
// reduce_budgets across ranks), so the sums do not depend on threads, ranks or search.
// AGN_blast: each zone cell gets the AGN's thermal energy in proportion to its volume
// (agn_inj_method='volume') or its gas mass ('mass'), and, in the momentum mode, a radial momentum
// kick in the same proportion, whose kinetic energy is added with it (the thermal energy stays).
#include <cstdint>
#include <span>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/blast_kernels.hpp"
#include "feedback/supernova_bins.hpp"

namespace kosmo::sinks {

// The slots of an AGN budget (feedback::BlastBudget; the others stay 0).
inline constexpr int agn_budget_volume = 0;
inline constexpr int agn_budget_mass = 1;
inline constexpr int agn_budget_thermal_energy = 2;

// The cells within `radius` of each AGN image: one record per (cell, image), in cell order.
// `bins` null: the all-pairs scan.
template <int D>
std::vector<feedback::BudgetRecord> average_agn(const core::OctTree<D>& tree, const feedback::GasFields& fields,
                                                const feedback::LeafCells& cells, std::span<const feedback::BlastImage> images,
                                                const feedback::SupernovaBins* bins, double radius);

// What AGN_blast gives a zone cell per unit volume: thermal energy density
// energy_per_volume + energy_per_mass rho, radial momentum density momentum_per_volume +
// momentum_per_mass rho (one of each pair is 0, after agn_inj_method).
struct AgnInjection {
  double energy_per_volume = 0.0;
  double energy_per_mass = 0.0;
  double momentum_per_volume = 0.0;
  double momentum_per_mass = 0.0;
  bool active() const { return energy_per_volume != 0.0 || energy_per_mass != 0.0 || momentum_per_volume != 0.0 || momentum_per_mass != 0.0; }
};

// Adds every AGN's injection to the cells within `radius` of its images, cell by cell in
// (event, image) order. A cell at the AGN's very position gets no kick (no direction).
template <int D>
void agn_blast(core::OctTree<D>& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells,
               std::span<const feedback::BlastImage> images, const feedback::SupernovaBins* bins, double radius,
               std::span<const AgnInjection> injections);

}  // namespace kosmo::sinks
