#pragma once
// The two kernels of AGN feedback (seeds/000 §6.3: average_AGN and AGN_blast), on the same cell
// search as the supernova blasts (feedback/cell_search.hpp: the spatial hash bins of §6.2, or the
// all-pairs scan with agn_binning=.false.; both give the same bits). An AGN event is a sink with
// energy in its reservoir; its zone is the leaf cells whose centre lies within r_AGN of it
// (distance^2 < r_AGN^2, on every level; periodic images as the supernova blasts).
//
// average_AGN: the (cell, AGN image) pairs, then per AGN the sums of its cells' volume, gas mass and
// thermal energy in (level, Morton key, child) order like average_SN's (on one rank straight from
// the pairs, across ranks through records and reduce_budgets), so the sums depend neither on
// threads, ranks nor search.
// AGN_blast: each zone cell gets the AGN's thermal energy in proportion to its volume
// (agn_inj_method='volume') or its gas mass ('mass'), and, in the momentum mode, a radial momentum
// kick in the same proportion, whose kinetic energy is added with it (the thermal energy stays).
#include <cstdint>
#include <span>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/blast_kernels.hpp"
#include "feedback/cell_search.hpp"
#include "feedback/supernova_bins.hpp"

namespace kosmo::sinks {

// The slots of an AGN budget (feedback::BlastBudget; the others stay 0).
inline constexpr int agn_budget_volume = 0;
inline constexpr int agn_budget_mass = 1;
inline constexpr int agn_budget_thermal_energy = 2;

// average_AGN's search: the (cell, image) pairs within `radius`, in cell order (`bins` null: the
// all-pairs scan; both give the same list).
std::vector<feedback::cell_search::CellImagePair> average_agn(const feedback::LeafCells& cells, std::span<const feedback::BlastImage> images,
                                                              const feedback::SupernovaBins* bins, double radius);

// The per-AGN sums of the pairs' cells (volume, gas mass, thermal energy), added in pair order: one
// rank's sums, the same bits as sum_budgets of the records below.
template <int D>
std::vector<feedback::BlastBudget> sum_agn_budgets(const core::OctTree<D>& tree, const feedback::GasFields& fields,
                                                   const feedback::LeafCells& cells, std::span<const feedback::BlastImage> images,
                                                   std::span<const feedback::cell_search::CellImagePair> pairs, std::size_t events);

// One record per pair (with the cell's place in the global order), for reduce_budgets across ranks.
template <int D>
std::vector<feedback::BudgetRecord> agn_budget_records(const core::OctTree<D>& tree, const feedback::GasFields& fields,
                                                       const feedback::LeafCells& cells, std::span<const feedback::BlastImage> images,
                                                       std::span<const feedback::cell_search::CellImagePair> pairs);

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
