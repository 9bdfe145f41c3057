#include "feedback/blast_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace kosmo::feedback {
namespace {

// Cells (all-pairs scan) or runs of octs (binned search) per work block: blocks, not threads, own the
// record lists, so the order of the records does not depend on the thread count.
constexpr std::size_t block_cells = 2048;
constexpr std::size_t block_runs = 16;

struct Match {
  std::int32_t event;
  std::int32_t image;  // index into the image list
  bool operator<(const Match& other) const { return event != other.event ? event < other.event : image < other.image; }
};

double distance_squared(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}

// The blast images within rmax of x, by scanning them all (sn_binning=.false.), in image order,
// which is (event, image) order.
void find_blasts_all_pairs(const std::array<double, 3>& x, std::span<const BlastImage> images, double rmax2, std::vector<Match>& matches) {
  matches.clear();
  for (std::size_t n = 0; n < images.size(); ++n)
    if (distance_squared(x, images[n].position) < rmax2) matches.push_back({images[n].event, static_cast<std::int32_t>(n)});
}

// Blast images that may reach a cell centre in a box, with their positions side by side so that
// the per-oct filter runs over contiguous arrays.
struct CandidateList {
  std::vector<std::int32_t> image;
  std::vector<double> x, y, z;
};

// Whether p is within rmax of the box [lo, hi]. The box distance is computed with the cell test's
// operations: rounding is monotonic, so it never exceeds a cell centre's distance and no blast of
// a cell in the box is dropped.
inline bool near_box(double px, double py, double pz, const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax2) {
  const double gx = std::max(lo[0] - px, 0.0) + std::max(px - hi[0], 0.0);
  const double gy = std::max(lo[1] - py, 0.0) + std::max(py - hi[1], 0.0);
  const double gz = std::max(lo[2] - pz, 0.0) + std::max(pz - hi[2], 0.0);
  return gx * gx + gy * gy + gz * gz < rmax2;
}

// The images within rmax of the box [lo, hi], from the bins the box grown by rmax overlaps, sorted
// by image index (= (event, image) order, the all-pairs scan's).
void gather_candidates(std::span<const BlastImage> images, const SupernovaBins& bins, const std::array<double, 3>& lo,
                       const std::array<double, 3>& hi, double rmax, bool with_positions, CandidateList& list) {
  const double rmax2 = rmax * rmax;
  list.image.clear();
  bins.for_each_candidate_in({lo[0] - rmax, lo[1] - rmax, lo[2] - rmax}, {hi[0] + rmax, hi[1] + rmax, hi[2] + rmax}, [&](std::int32_t n) {
    const std::array<double, 3>& p = images[static_cast<std::size_t>(n)].position;
    if (near_box(p[0], p[1], p[2], lo, hi, rmax2)) list.image.push_back(n);
  });
  if (list.image.size() > 1) std::sort(list.image.begin(), list.image.end());
  if (!with_positions) return;
  list.x.resize(list.image.size());
  list.y.resize(list.image.size());
  list.z.resize(list.image.size());
  for (std::size_t c = 0; c < list.image.size(); ++c) {
    const std::array<double, 3>& p = images[static_cast<std::size_t>(list.image[c])].position;
    list.x[c] = p[0];
    list.y[c] = p[1];
    list.z[c] = p[2];
  }
}

// The images of `from` within rmax of the box [lo, hi], in from's order.
void filter_candidates(const CandidateList& from, const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax2,
                       std::vector<std::int32_t>& kept) {
  kept.clear();
  for (std::size_t c = 0; c < from.image.size(); ++c)
    if (near_box(from.x[c], from.y[c], from.z[c], lo, hi, rmax2)) kept.push_back(from.image[c]);
}

// Above this many images near a group of octs, the group splits (each oct gathers its own).
constexpr std::size_t max_group_candidates = 32;

// Per-thread scratch of the searches.
struct SearchScratch {
  CandidateList group, oct;
  std::vector<std::int32_t> kept;
  std::vector<Match> matches;
};

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

// Calls visit(i, n) for the cells i of octs [first, last) and the images n within rmax of them,
// with every oct's cells tested against the images that reach the oct's box. A group within three
// bins per axis gathers those near it once and hands each oct its share; a wider group (or one
// near too many) splits into groups of 8 octs (Morton key but its last 3 bits), which do the same
// or go oct by oct.
template <class Visit>
void visit_oct_group(const LeafCells& cells, std::size_t first, std::size_t last, const std::array<double, 3>& lo,
                     const std::array<double, 3>& hi, bool may_split, std::span<const BlastImage> images, const SupernovaBins& bins,
                     double rmax, SearchScratch& scratch, Visit& visit) {
  const double rmax2 = rmax * rmax;
  auto visit_cells = [&](std::size_t g, const std::vector<std::int32_t>& near) {
    for (std::size_t i = cells.oct_first[g]; i < cells.oct_first[g + 1]; ++i)
      for (std::int32_t n : near) {
        const std::size_t image = static_cast<std::size_t>(n);
        if (distance_squared(cells.centre[i], images[image].position) < rmax2) visit(i, image);
      }
  };
  if (bins.spans_at_most_three_bins({lo[0] - rmax, lo[1] - rmax, lo[2] - rmax}, {hi[0] + rmax, hi[1] + rmax, hi[2] + rmax})) {
    gather_candidates(images, bins, lo, hi, rmax, true, scratch.group);
    if (scratch.group.image.empty()) return;
    if (scratch.group.image.size() <= max_group_candidates) {
      for (std::size_t g = first; g < last; ++g) {
        filter_candidates(scratch.group, cells.oct_lo[g], cells.oct_hi[g], rmax2, scratch.kept);
        if (!scratch.kept.empty()) visit_cells(g, scratch.kept);
      }
      return;
    }
  }
  if (may_split && last - first > 1) {
    for (std::size_t start = first, stop = first; start < last; start = stop) {
      std::array<double, 3> group_lo = cells.oct_lo[start], group_hi = cells.oct_hi[start];
      for (stop = start + 1; stop < last && cells.oct_key[stop] >> 3 == cells.oct_key[start] >> 3; ++stop)
        for (int d = 0; d < 3; ++d) {
          group_lo[d] = std::min(group_lo[d], cells.oct_lo[stop][d]);
          group_hi[d] = std::max(group_hi[d], cells.oct_hi[stop][d]);
        }
      visit_oct_group(cells, start, stop, group_lo, group_hi, false, images, bins, rmax, scratch, visit);
    }
    return;
  }
  for (std::size_t g = first; g < last; ++g) {
    gather_candidates(images, bins, cells.oct_lo[g], cells.oct_hi[g], rmax, false, scratch.oct);
    if (!scratch.oct.image.empty()) visit_cells(g, scratch.oct.image);
  }
}

// Calls visit(i, n) for every cell i and blast image n within rmax of it, cell after cell in list
// order and, per cell, in image order, for the cells of one block (of octs with bins, of cells
// without). Both searches visit the same pairs in the same order. The binned search goes run by
// run and oct by oct (seeds/000 §6.2 on top: an oct's cells share their bins): a run far from
// every blast is skipped in one test, the blasts near a run are gathered from the bins once, and
// each oct keeps those near its own cells.
template <class Visit>
void for_each_pair_in_block(const LeafCells& cells, std::size_t block, std::span<const BlastImage> images, const SupernovaBins* bins,
                            double rmax, SearchScratch& scratch, Visit&& visit) {
  const double rmax2 = rmax * rmax;
  if (bins == nullptr) {
    const std::size_t end = std::min(cells.size(), (block + 1) * block_cells);
    for (std::size_t i = block * block_cells; i < end; ++i) {
      find_blasts_all_pairs(cells.centre[i], images, rmax2, scratch.matches);
      for (const Match& m : scratch.matches) visit(i, static_cast<std::size_t>(m.image));
    }
    return;
  }
  const std::size_t end = std::min(cells.runs(), (block + 1) * block_runs);
  for (std::size_t run = block * block_runs; run < end; ++run) {
    const std::array<double, 3>& lo = cells.run_lo[run];
    const std::array<double, 3>& hi = cells.run_hi[run];
    if (bins->may_hold_blast({lo[0] - rmax, lo[1] - rmax, lo[2] - rmax}, {hi[0] + rmax, hi[1] + rmax, hi[2] + rmax}))
      visit_oct_group(cells, cells.run_first[run], cells.run_first[run + 1], lo, hi, true, images, *bins, rmax, scratch, visit);
  }
}

std::size_t work_blocks(const LeafCells& cells, const SupernovaBins* bins) {
  return bins == nullptr ? (cells.size() + block_cells - 1) / block_cells : (cells.runs() + block_runs - 1) / block_runs;
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
