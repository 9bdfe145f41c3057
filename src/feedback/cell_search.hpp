#pragma once
// The search behind the feedback kernels (seeds/000 §6.2-6.3): for each leaf cell of a rank, the
// event images (supernova blasts, AGN) whose centre lies within a radius of the cell centre, found
// either from the spatial hash bins (per run of octs, then per oct, then per cell) or by scanning
// every image (the O(N_cells x N_events) reference). Both searches visit the same (cell, image)
// pairs in the same order: cell after cell in the list order and, per cell, in image order, so
// whatever a kernel does with a pair gives the same bits either way. The work is cut into blocks
// (of runs with bins, of cells without) that a kernel hands to OpenMP threads and that own their
// outputs, so nothing depends on the thread count.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "feedback/blast_kernels.hpp"
#include "feedback/supernova_bins.hpp"

namespace kosmo::feedback::cell_search {

// Cells (all-pairs scan) or runs of octs (binned search) per work block: blocks, not threads, own the
// record lists, so the order of the records does not depend on the thread count.
constexpr std::size_t block_cells = 2048;
constexpr std::size_t block_runs = 16;

struct Match {
  std::int32_t event;
  std::int32_t image;  // index into the image list
  bool operator<(const Match& other) const { return event != other.event ? event < other.event : image < other.image; }
};

inline double distance_squared(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}

// The blast images within rmax of x, by scanning them all (sn_binning=.false.), in image order,
// which is (event, image) order.
inline void find_blasts_all_pairs(const std::array<double, 3>& x, std::span<const BlastImage> images, double rmax2, std::vector<Match>& matches) {
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
inline void gather_candidates(std::span<const BlastImage> images, const SupernovaBins& bins, const std::array<double, 3>& lo,
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
inline void filter_candidates(const CandidateList& from, const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax2,
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

inline std::size_t work_blocks(const LeafCells& cells, const SupernovaBins* bins) {
  return bins == nullptr ? (cells.size() + block_cells - 1) / block_cells : (cells.runs() + block_runs - 1) / block_runs;
}


// A leaf cell (its index in the cell list) and an event image within reach of it.
struct CellImagePair {
  std::uint32_t cell = 0;
  std::int32_t image = 0;
};

// Every (cell, image) pair within `radius`, in cell order and, per cell, in image order (the same
// list from both searches). Eight bytes a pair: kernels with many pairs per event (AGN zones of a
// few hundred cells) keep the pairs rather than per-pair records, and compute from them.
inline std::vector<CellImagePair> pairs_in_reach(const LeafCells& cells, std::span<const BlastImage> images, const SupernovaBins* bins,
                                                 double radius) {
  const std::size_t blocks = work_blocks(cells, bins);
  std::vector<std::vector<CellImagePair>> block_pairs(blocks);
#pragma omp parallel
  {
    SearchScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t b = 0; b < blocks; ++b) {
      auto& pairs = block_pairs[b];
      for_each_pair_in_block(cells, b, images, bins, radius, scratch, [&](std::size_t i, std::size_t n) {
        pairs.push_back({static_cast<std::uint32_t>(i), static_cast<std::int32_t>(n)});
      });
    }
  }
  std::vector<std::size_t> offset(blocks + 1, 0);
  for (std::size_t b = 0; b < blocks; ++b) offset[b + 1] = offset[b] + block_pairs[b].size();
  std::vector<CellImagePair> pairs(offset[blocks]);
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < blocks; ++b) std::copy(block_pairs[b].begin(), block_pairs[b].end(), pairs.begin() + static_cast<std::ptrdiff_t>(offset[b]));
  return pairs;
}

}  // namespace kosmo::feedback::cell_search
