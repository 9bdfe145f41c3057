#include "feedback/blast_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "feedback/cell_search.hpp"

namespace kosmo::feedback {
namespace {

using cell_search::for_each_pair_in_block;
using cell_search::SearchScratch;
using cell_search::work_blocks;

// Cell i's record for one blast image (RAMSES average_SN).
BudgetRecord budget_record(const LeafCells& cells, std::size_t i, const BlastImage& image, double rmax) {
  BudgetRecord r;
  r.event = image.event;
  r.image = image.image;
  r.level_child = cells.level_child[i];
  r.key = cells.key[i];
  const double volume = cells.volume[i];
  r.values[0] = volume;
  for (int d = 0; d < 3; ++d) {
    // The normalised offset, whose volume mean is zero without grid effects.
    const double u = (cells.centre[i][d] - image.position[d]) / rmax;
    r.values[1 + d] = u * volume;
    r.values[4 + d] = u * u * volume;
  }
  return r;
}

std::vector<BudgetRecord> concatenate(const std::vector<std::vector<BudgetRecord>>& block_records) {
  std::size_t total = 0;
  for (const auto& r : block_records) total += r.size();
  std::vector<BudgetRecord> records;
  records.reserve(total);
  for (const auto& r : block_records) records.insert(records.end(), r.begin(), r.end());
  return records;
}

// The conservative fields Sedov_blast writes, as pointers.
template <int D>
struct GasPointers {
  double* density;
  std::array<double*, 3> momentum{};
  double* energy;
  double* metal;
  GasPointers(core::OctTree<D>& tree, const GasFields& fields)
      : density(tree.field(fields.density)),
        energy(tree.field(fields.energy)),
        metal(fields.metal >= 0 ? tree.field(fields.metal) : nullptr) {
    for (int d = 0; d < D; ++d) momentum[d] = tree.field(fields.momentum[d]);
  }
};

// Adds one blast image's share to cell i (RAMSES Sedov_blast): velocity linear in r from v_star at
// the centre, minus the grid's mean offset so that the blast adds no net momentum beyond the
// ejecta's own.
template <int D>
void inject(const GasPointers<D>& gas, const LeafCells& cells, std::size_t i, const BlastImage& image, const BlastInjection& q, double rmax) {
  if (q.density == 0.0 && q.energy_density == 0.0 && q.velocity_scale == 0.0) return;
  const core::CellIndex cell = cells.cell[i];
  double kinetic = 0.0;
  gas.density[cell] += q.density;
  for (int d = 0; d < D; ++d) {
    const double u = q.velocity_scale * ((cells.centre[i][d] - image.position[d]) / rmax - q.mean_offset[d]) + q.velocity[d];
    gas.momentum[d][cell] += q.density * u;
    kinetic += u * u;
  }
  gas.energy[cell] += 0.5 * q.density * kinetic + q.energy_density;
  if (gas.metal != nullptr) gas.metal[cell] += q.metal_density;
}

}  // namespace

template <int D>
LeafCells owned_leaf_cells(const core::OctTree<D>& tree, int levelmin) {
  using Tree = core::OctTree<D>;
  LeafCells cells;
  for (int level = levelmin; level <= tree.levelmax(); ++level) {
    const double dx = tree.cell_size(level);
    const double volume = std::pow(dx, D);
    for (core::OctIndex o : tree.octs_at_level(level)) {
      std::array<double, 3> lo{}, hi{};
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        const auto x = tree.cell_centre(cell);
        std::array<double, 3> centre{};
        for (int d = 0; d < D; ++d) centre[d] = x[d];
        const bool first = cells.size() == cells.oct_first.back();
        for (int d = 0; d < 3; ++d) {
          lo[d] = first ? centre[d] : std::min(lo[d], centre[d]);
          hi[d] = first ? centre[d] : std::max(hi[d], centre[d]);
        }
        cells.cell.push_back(cell);
        cells.centre.push_back(centre);
        cells.volume.push_back(volume);
        cells.level_child.push_back(level * 8 + c);
        cells.key.push_back(static_cast<std::uint64_t>(tree.key(o)));
      }
      if (cells.size() == cells.oct_first.back()) continue;  // no leaf: not an oct of the list
      cells.oct_first.push_back(cells.size());
      cells.oct_lo.push_back(lo);
      cells.oct_hi.push_back(hi);
      cells.oct_key.push_back(static_cast<std::uint64_t>(tree.key(o)));
      const bool new_run = cells.run_lo.empty() || cells.key[cells.oct_first[cells.run_first.back()]] >> 6 != cells.oct_key.back() >> 6 ||
                           cells.level_child[cells.oct_first[cells.run_first.back()]] / 8 != level;
      if (new_run) {
        if (!cells.run_lo.empty()) cells.run_first.push_back(cells.octs() - 1);
        cells.run_lo.push_back(lo);
        cells.run_hi.push_back(hi);
      }
      for (int d = 0; d < 3; ++d) {
        cells.run_lo.back()[d] = std::min(cells.run_lo.back()[d], lo[d]);
        cells.run_hi.back()[d] = std::max(cells.run_hi.back()[d], hi[d]);
      }
    }
  }
  cells.run_first.push_back(cells.octs());
  return cells;
}

template <int D>
std::vector<BlastImage> blast_images(const core::OctTree<D>& tree, std::span<const SupernovaEvent> events,
                                     const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax) {
  std::array<double, 3> length{};
  for (int d = 0; d < D; ++d) length[d] = static_cast<double>(tree.extent(1)[d]) * 2.0 * tree.cell_size(1);
  int shifts = 1;
  for (int d = 0; d < D; ++d) shifts *= 3;
  std::vector<BlastImage> images;
  for (std::size_t slot = 0; slot < events.size(); ++slot)
    for (int code = 0; code < shifts; ++code) {
      BlastImage image;
      image.event = static_cast<std::int32_t>(slot);
      image.image = code;
      bool inside = true;
      int rest = code;
      for (int d = 0; d < D; ++d) {
        const int shift = rest % 3 - 1;
        rest /= 3;
        if (shift != 0 && !tree.geometry().periodic[d]) inside = false;
        image.position[d] = events[slot].position[d] + shift * length[d];
        if (image.position[d] < lo[d] - rmax || image.position[d] > hi[d] + rmax) inside = false;
      }
      if (inside) images.push_back(image);
    }
  return images;
}

std::vector<BudgetRecord> average_sn(const LeafCells& cells, std::span<const BlastImage> images, const SupernovaBins* bins,
                                     double rmax) {
  const std::size_t blocks = work_blocks(cells, bins);
  std::vector<std::vector<BudgetRecord>> block_records(blocks);
#pragma omp parallel
  {
    SearchScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b) {
      auto& records = block_records[b];
      for_each_pair_in_block(cells, b, images, bins, rmax, scratch, [&](std::size_t i, std::size_t n) {
        records.push_back(budget_record(cells, i, images[n], rmax));
      });
    }
  }
  return concatenate(block_records);
}

std::vector<BlastBudget> sum_budgets(std::span<const BudgetRecord> records, std::size_t events) {
  std::vector<BlastBudget> budgets(events, BlastBudget{});
  for (const BudgetRecord& r : records) {
    BlastBudget& b = budgets[static_cast<std::size_t>(r.event)];
    for (int v = 0; v < budget_values; ++v) b[v] += r.values[v];
  }
  return budgets;
}

BlastInjection blast_injection(const BlastBudget& budget, double ejected_mass, double energy, double metal_mass,
                               const std::array<double, 3>& velocity, double kinetic_fraction) {
  BlastInjection injection;
  const double volume = budget[0];
  injection.velocity = velocity;
  if (!(volume > 0.0)) return injection;
  injection.density = ejected_mass / volume;
  injection.metal_density = metal_mass / volume;
  double spread = 0.0;  // RAMSES ekBlast: half the variance of r / rmax over the blast's cells
  for (int d = 0; d < 3; ++d) {
    injection.mean_offset[d] = budget[1 + d] / volume;
    spread += budget[4 + d] / volume - injection.mean_offset[d] * injection.mean_offset[d];
  }
  spread = std::max(0.5 * spread, 0.0);
  if (spread > 0.0 && ejected_mass > 0.0) {
    injection.energy_density = (1.0 - kinetic_fraction) * energy / volume;
    injection.velocity_scale = std::sqrt(kinetic_fraction * energy / ejected_mass / spread);
  } else {
    injection.energy_density = energy / volume;
  }
  return injection;
}

template <int D>
void sedov_blast(core::OctTree<D>& tree, const GasFields& fields, const LeafCells& cells, std::span<const BlastImage> images,
                 const SupernovaBins* bins, double rmax, std::span<const BlastInjection> injections) {
  const GasPointers<D> gas(tree, fields);
  const std::size_t blocks = work_blocks(cells, bins);
#pragma omp parallel
  {
    SearchScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b)
      for_each_pair_in_block(cells, b, images, bins, rmax, scratch, [&](std::size_t i, std::size_t n) {
        const BlastImage& image = images[n];
        inject(gas, cells, i, image, injections[static_cast<std::size_t>(image.event)], rmax);
      });
  }
}

template std::vector<BlastImage> blast_images<1>(const core::OctTree<1>&, std::span<const SupernovaEvent>, const std::array<double, 3>&,
                                                 const std::array<double, 3>&, double);
template std::vector<BlastImage> blast_images<2>(const core::OctTree<2>&, std::span<const SupernovaEvent>, const std::array<double, 3>&,
                                                 const std::array<double, 3>&, double);
template std::vector<BlastImage> blast_images<3>(const core::OctTree<3>&, std::span<const SupernovaEvent>, const std::array<double, 3>&,
                                                 const std::array<double, 3>&, double);
template LeafCells owned_leaf_cells<1>(const core::OctTree<1>&, int);
template LeafCells owned_leaf_cells<2>(const core::OctTree<2>&, int);
template LeafCells owned_leaf_cells<3>(const core::OctTree<3>&, int);
template void sedov_blast<1>(core::OctTree<1>&, const GasFields&, const LeafCells&, std::span<const BlastImage>, const SupernovaBins*,
                             double, std::span<const BlastInjection>);
template void sedov_blast<2>(core::OctTree<2>&, const GasFields&, const LeafCells&, std::span<const BlastImage>, const SupernovaBins*,
                             double, std::span<const BlastInjection>);
template void sedov_blast<3>(core::OctTree<3>&, const GasFields&, const LeafCells&, std::span<const BlastImage>, const SupernovaBins*,
                             double, std::span<const BlastInjection>);

}  // namespace kosmo::feedback
