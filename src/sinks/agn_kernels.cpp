#include "sinks/agn_kernels.hpp"

#include <cmath>

#include "feedback/cell_search.hpp"

namespace kosmo::sinks {

using feedback::BlastImage;
using feedback::BudgetRecord;
using feedback::cell_search::for_each_pair_in_block;
using feedback::cell_search::SearchScratch;
using feedback::cell_search::work_blocks;

template <int D>
std::vector<BudgetRecord> average_agn(const core::OctTree<D>& tree, const feedback::GasFields& fields, const feedback::LeafCells& cells,
                                      std::span<const BlastImage> images, const feedback::SupernovaBins* bins, double radius) {
  const double* rho = tree.field(fields.density);
  const double* energy = tree.field(fields.energy);
  std::array<const double*, 3> momentum{};
  for (int d = 0; d < D; ++d) momentum[d] = tree.field(fields.momentum[d]);
  const std::size_t blocks = work_blocks(cells, bins);
  std::vector<std::vector<BudgetRecord>> block_records(blocks);
#pragma omp parallel
  {
    SearchScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b) {
      auto& records = block_records[b];
      for_each_pair_in_block(cells, b, images, bins, radius, scratch, [&](std::size_t i, std::size_t n) {
        const core::CellIndex cell = cells.cell[i];
        double kinetic = 0.0;
        for (int d = 0; d < D; ++d) kinetic += momentum[d][cell] * momentum[d][cell];
        BudgetRecord r;
        r.event = images[n].event;
        r.image = images[n].image;
        r.level_child = cells.level_child[i];
        r.key = cells.key[i];
        const double volume = cells.volume[i];
        r.values[agn_budget_volume] = volume;
        r.values[agn_budget_mass] = rho[cell] * volume;
        r.values[agn_budget_thermal_energy] = (energy[cell] - 0.5 * kinetic / rho[cell]) * volume;
        records.push_back(r);
      });
    }
  }
  std::size_t total = 0;
  for (const auto& r : block_records) total += r.size();
  std::vector<BudgetRecord> records;
  records.reserve(total);
  for (const auto& r : block_records) records.insert(records.end(), r.begin(), r.end());
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

template std::vector<BudgetRecord> average_agn<1>(const core::OctTree<1>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                  std::span<const BlastImage>, const feedback::SupernovaBins*, double);
template std::vector<BudgetRecord> average_agn<2>(const core::OctTree<2>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                  std::span<const BlastImage>, const feedback::SupernovaBins*, double);
template std::vector<BudgetRecord> average_agn<3>(const core::OctTree<3>&, const feedback::GasFields&, const feedback::LeafCells&,
                                                  std::span<const BlastImage>, const feedback::SupernovaBins*, double);
template void agn_blast<1>(core::OctTree<1>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);
template void agn_blast<2>(core::OctTree<2>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);
template void agn_blast<3>(core::OctTree<3>&, const feedback::GasFields&, const feedback::LeafCells&, std::span<const BlastImage>,
                           const feedback::SupernovaBins*, double, std::span<const AgnInjection>);

}  // namespace kosmo::sinks
