#include "sinks/agn_kernels.hpp"

#include <cmath>

#include "feedback/cell_search.hpp"

namespace kosmo::sinks {

using feedback::BlastImage;
using feedback::BudgetRecord;
using feedback::cell_search::for_each_pair_in_block;
using feedback::cell_search::SearchScratch;
using feedback::cell_search::work_blocks;

namespace {

using feedback::BlastBudget;
using feedback::cell_search::CellImagePair;

// A cell's share of an AGN's sums: volume, gas mass, thermal energy.
template <int D>
struct CellValues {
  const double* rho;
  const double* energy;
  std::array<const double*, 3> momentum{};
  CellValues(const core::OctTree<D>& tree, const feedback::GasFields& fields)
      : rho(tree.field(fields.density)), energy(tree.field(fields.energy)) {
    for (int d = 0; d < D; ++d) momentum[d] = tree.field(fields.momentum[d]);
  }
  std::array<double, 3> operator()(const feedback::LeafCells& cells, std::size_t i) const {
    const core::CellIndex cell = cells.cell[i];
    double kinetic = 0.0;
    for (int d = 0; d < D; ++d) kinetic += momentum[d][cell] * momentum[d][cell];
    const double volume = cells.volume[i];
    return {volume, rho[cell] * volume, (energy[cell] - 0.5 * kinetic / rho[cell]) * volume};
  }
};

}  // namespace

std::vector<CellImagePair> average_agn(const feedback::LeafCells& cells, std::span<const BlastImage> images, const feedback::SupernovaBins* bins,
                                       double radius) {
  return feedback::cell_search::pairs_in_reach(cells, images, bins, radius);
}

template <int D>
std::vector<BlastBudget> sum_agn_budgets(const core::OctTree<D>& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells,
                                         std::span<const BlastImage> images, std::span<const CellImagePair> pairs, std::size_t events) {
  const CellValues<D> values(tree, fields);
  std::vector<BlastBudget> budgets(events, BlastBudget{});
  for (const CellImagePair& p : pairs) {
    const std::array<double, 3> v = values(cells, p.cell);
    BlastBudget& b = budgets[static_cast<std::size_t>(images[static_cast<std::size_t>(p.image)].event)];
    b[agn_budget_volume] += v[0];
    b[agn_budget_mass] += v[1];
    b[agn_budget_thermal_energy] += v[2];
  }
  return budgets;
}

template <int D>
std::vector<BudgetRecord> agn_budget_records(const core::OctTree<D>& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells,
                                             std::span<const BlastImage> images, std::span<const CellImagePair> pairs) {
  const CellValues<D> values(tree, fields);
  std::vector<BudgetRecord> records(pairs.size());
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const BlastImage& image = images[static_cast<std::size_t>(pairs[k].image)];
    BudgetRecord& r = records[k];
    r.event = image.event;
    r.image = image.image;
    r.level_child = cells.level_child[pairs[k].cell];
    r.key = cells.key[pairs[k].cell];
    const std::array<double, 3> v = values(cells, pairs[k].cell);
    r.values[agn_budget_volume] = v[0];
    r.values[agn_budget_mass] = v[1];
    r.values[agn_budget_thermal_energy] = v[2];
  }
  return records;
}

template <int D>
void agn_blast(core::OctTree<D>& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells, std::span<const BlastImage> images,
               const feedback::SupernovaBins* bins, double radius, std::span<const AgnInjection> injections) {
  const double* rho = tree.field(fields.density);
  double* energy = tree.field(fields.energy);
  std::array<double*, 3> momentum{};
  for (int d = 0; d < D; ++d) momentum[d] = tree.field(fields.momentum[d]);
  const std::size_t blocks = work_blocks(cells, bins);
#pragma omp parallel
  {
    SearchScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b)
      for_each_pair_in_block(cells, b, images, bins, radius, scratch, [&](std::size_t i, std::size_t n) {
        const AgnInjection& q = injections[static_cast<std::size_t>(images[n].event)];
        if (!q.active()) return;
        const core::CellIndex cell = cells.cell[i];
        const double density = rho[cell];
        energy[cell] += q.energy_per_volume + q.energy_per_mass * density;
        const double kick = q.momentum_per_volume + q.momentum_per_mass * density;
        if (kick == 0.0) return;
        std::array<double, 3> offset{};
        double distance2 = 0.0;
        for (int d = 0; d < D; ++d) {
          offset[d] = cells.centre[i][d] - images[n].position[d];
          distance2 += offset[d] * offset[d];
        }
        if (!(distance2 > 0.0)) return;
        const double distance = std::sqrt(distance2);
        // The kick's kinetic energy goes in with it: the cell's thermal energy is unchanged.
        double kinetic_before = 0.0, kinetic_after = 0.0;
        for (int d = 0; d < D; ++d) {
          kinetic_before += momentum[d][cell] * momentum[d][cell];
          momentum[d][cell] += kick * offset[d] / distance;
          kinetic_after += momentum[d][cell] * momentum[d][cell];
        }
        energy[cell] += 0.5 * (kinetic_after - kinetic_before) / density;
      });
  }
}

template std::vector<BlastBudget> sum_agn_budgets<1>(const core::OctTree<1>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                      std::span<const BlastImage>, std::span<const CellImagePair>, std::size_t);
template std::vector<BudgetRecord> agn_budget_records<1>(const core::OctTree<1>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                         std::span<const BlastImage>, std::span<const CellImagePair>);
template std::vector<BlastBudget> sum_agn_budgets<2>(const core::OctTree<2>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                      std::span<const BlastImage>, std::span<const CellImagePair>, std::size_t);
template std::vector<BudgetRecord> agn_budget_records<2>(const core::OctTree<2>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                         std::span<const BlastImage>, std::span<const CellImagePair>);
template std::vector<BlastBudget> sum_agn_budgets<3>(const core::OctTree<3>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                      std::span<const BlastImage>, std::span<const CellImagePair>, std::size_t);
template std::vector<BudgetRecord> agn_budget_records<3>(const core::OctTree<3>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                         std::span<const BlastImage>, std::span<const CellImagePair>);
template void agn_blast<1>(core::OctTree<1>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);
template void agn_blast<2>(core::OctTree<2>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);
template void agn_blast<3>(core::OctTree<3>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);

}  // namespace kosmo::sinks
