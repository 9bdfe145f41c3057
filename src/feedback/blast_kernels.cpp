#include "feedback/blast_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace kosmo::feedback {
namespace {

// Cells per work block: blocks, not threads, own the record lists, so the order of the records
// does not depend on the thread count.
constexpr std::size_t block_cells = 2048;

struct Match {
  std::int32_t event;
  std::int32_t image;  // index into the image list
  bool operator<(const Match& other) const { return event != other.event ? event < other.event : image < other.image; }
};

double distance_squared(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}

// The blast images within rmax of x, sorted by (event, image), into `matches`.
void find_blasts(const std::array<double, 3>& x, std::span<const BlastImage> images, const SupernovaBins* bins, double rmax2,
                 std::vector<Match>& matches) {
  matches.clear();
  auto test = [&](std::int32_t n) {
    const BlastImage& image = images[static_cast<std::size_t>(n)];
    if (distance_squared(x, image.position) < rmax2) matches.push_back({image.event, n});
  };
  if (bins != nullptr) {
    bins->for_each_candidate(x, test);
  } else {
    for (std::size_t n = 0; n < images.size(); ++n) test(static_cast<std::int32_t>(n));
  }
  if (matches.size() > 1) std::sort(matches.begin(), matches.end());
}

}  // namespace

template <int D>
LeafCells owned_leaf_cells(const core::OctTree<D>& tree, int levelmin) {
  using Tree = core::OctTree<D>;
  LeafCells cells;
  for (int level = levelmin; level <= tree.levelmax(); ++level) {
    const double dx = tree.cell_size(level);
    const double volume = std::pow(dx, D);
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        const auto x = tree.cell_centre(cell);
        std::array<double, 3> centre{};
        for (int d = 0; d < D; ++d) centre[d] = x[d];
        cells.cell.push_back(cell);
        cells.centre.push_back(centre);
        cells.volume.push_back(volume);
        cells.level_child.push_back(level * 8 + c);
        cells.key.push_back(static_cast<std::uint64_t>(tree.key(o)));
      }
  }
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
  const std::size_t blocks = (cells.size() + block_cells - 1) / block_cells;
  std::vector<std::vector<BudgetRecord>> block_records(blocks);
  const double rmax2 = rmax * rmax;
#pragma omp parallel
  {
    std::vector<Match> matches;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b) {
      auto& records = block_records[b];
      const std::size_t end = std::min(cells.size(), (b + 1) * block_cells);
      for (std::size_t i = b * block_cells; i < end; ++i) {
        find_blasts(cells.centre[i], images, bins, rmax2, matches);
        const double volume = cells.volume[i];
        for (const Match& m : matches) {
          const BlastImage& image = images[static_cast<std::size_t>(m.image)];
          BudgetRecord r;
          r.event = m.event;
          r.image = image.image;
          r.level_child = cells.level_child[i];
          r.key = cells.key[i];
          r.values[0] = volume;
          for (int d = 0; d < 3; ++d) {
            // RAMSES average_SN: the normalised offset, whose volume mean is zero without grid effects.
            const double u = (cells.centre[i][d] - image.position[d]) / rmax;
            r.values[1 + d] = u * volume;
            r.values[4 + d] = u * u * volume;
          }
          records.push_back(r);
        }
      }
    }
  }
  std::size_t total = 0;
  for (const auto& r : block_records) total += r.size();
  std::vector<BudgetRecord> records;
  records.reserve(total);
  for (const auto& r : block_records) records.insert(records.end(), r.begin(), r.end());
  return records;
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
  double* rho = tree.field(fields.density);
  double* energy = tree.field(fields.energy);
  double* metal = fields.metal >= 0 ? tree.field(fields.metal) : nullptr;
  std::array<double*, 3> momentum{};
  for (int d = 0; d < D; ++d) momentum[d] = tree.field(fields.momentum[d]);
  const double rmax2 = rmax * rmax;
  const std::size_t blocks = (cells.size() + block_cells - 1) / block_cells;
#pragma omp parallel
  {
    std::vector<Match> matches;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t end = std::min(cells.size(), (b + 1) * block_cells);
      for (std::size_t i = b * block_cells; i < end; ++i) {
        find_blasts(cells.centre[i], images, bins, rmax2, matches);
        if (matches.empty()) continue;
        const core::CellIndex cell = cells.cell[i];
        for (const Match& m : matches) {
          const BlastInjection& q = injections[static_cast<std::size_t>(m.event)];
          if (q.density == 0.0 && q.energy_density == 0.0 && q.velocity_scale == 0.0) continue;
          const BlastImage& image = images[static_cast<std::size_t>(m.image)];
          // RAMSES Sedov_blast: velocity linear in r from v_star at the centre, minus the grid's mean
          // offset so that the blast adds no net momentum beyond the ejecta's own.
          double kinetic = 0.0;
          rho[cell] += q.density;
          for (int d = 0; d < D; ++d) {
            const double u = q.velocity_scale * ((cells.centre[i][d] - image.position[d]) / rmax - q.mean_offset[d]) + q.velocity[d];
            momentum[d][cell] += q.density * u;
            kinetic += u * u;
          }
          energy[cell] += 0.5 * q.density * kinetic + q.energy_density;
          if (metal != nullptr) metal[cell] += q.metal_density;
        }
      }
    }
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
