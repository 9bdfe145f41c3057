#pragma once
// The two kernels of RAMSES' kinetic supernova feedback (pm/feedback.f90 average_SN and
// Sedov_blast), written as the gathering scheme of seeds/000 §6.3: the outer loop runs over cells
// (OpenMP), and each cell finds the blasts that reach it, either from the spatial bins (§6.2) or by
// scanning every blast (the O(N_cells × N_SN) reference, sn_binning=.false.). The binned search
// works per oct on top of §6.2, since the cells of an oct (and of a few neighbouring octs) share
// their bins: groups of octs far from every blast are skipped at once, and the blasts near a group
// are gathered once and tested per cell only when they reach the oct's box.
//
// Determinism: a cell's blasts are sorted by (event, image) before use, and average_SN's per-event
// sums are taken over the cells in (level, Morton key, child) order — the order of the cell list —
// whatever the thread count and whichever search found them. The two searches find the same blasts,
// so they give the same bits; and a rank's cells are a contiguous run of that order per event, so
// sums merged across ranks in the same order equal a one-rank run's.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/supernova_bins.hpp"
#include "feedback/supernova_event.hpp"

namespace kosmo::feedback {

// This rank's owned leaf cells in (level, key, child) order, with their centres (unused axes 0) and
// volumes (dx^D).
struct LeafCells {
  std::vector<core::CellIndex> cell;
  std::vector<std::array<double, 3>> centre;
  std::vector<double> volume;
  std::vector<std::int32_t> level_child;  // level * 8 + child: with key, the cell's place in the global order
  std::vector<std::uint64_t> key;         // Morton key of the cell's oct
  // The cells of one oct are a run of the list: oct g holds cells [oct_first[g], oct_first[g + 1]),
  // whose centres lie in [oct_lo[g], oct_hi[g]]. The binned search works per oct, since an oct's
  // cells share their bins and most octs are far from every blast.
  std::vector<std::size_t> oct_first{0};
  std::vector<std::array<double, 3>> oct_lo, oct_hi;
  std::vector<std::uint64_t> oct_key;
  // Runs of octs of one level sharing their Morton key but its last 6 bits (at most a cube of 4^3
  // octs): run r holds octs [run_first[r], run_first[r + 1]) with centres in [run_lo[r], run_hi[r]].
  // One test skips a whole run far from every blast.
  std::vector<std::size_t> run_first{0};
  std::vector<std::array<double, 3>> run_lo, run_hi;

  std::size_t size() const { return cell.size(); }
  std::size_t octs() const { return oct_lo.size(); }
  std::size_t runs() const { return run_lo.size(); }

  // {lo, hi} of the cells' centres along the first `dimensions` axes (the others stay 0): the
  // domain the spatial hash bins cover.
  std::array<std::array<double, 3>, 2> bounding_box(int dimensions) const {
    std::array<double, 3> lo{}, hi{};
    for (int d = 0; d < dimensions; ++d) {
      lo[static_cast<std::size_t>(d)] = size() > 0 ? centre[0][static_cast<std::size_t>(d)] : 0.0;
      hi[static_cast<std::size_t>(d)] = lo[static_cast<std::size_t>(d)];
    }
    for (const auto& x : centre)
      for (int d = 0; d < dimensions; ++d) {
        const auto a = static_cast<std::size_t>(d);
        lo[a] = x[a] < lo[a] ? x[a] : lo[a];
        hi[a] = x[a] > hi[a] ? x[a] : hi[a];
      }
    return {lo, hi};
  }
};

template <int D>
LeafCells owned_leaf_cells(const core::OctTree<D>& tree, int levelmin);

// The images of each event (periodic shifts by one box length on periodic axes) within rmax of the
// box [lo, hi]: the blasts a cell of that box can see. An image is numbered by its shift, the same
// on every rank.
template <int D>
std::vector<BlastImage> blast_images(const core::OctTree<D>& tree, std::span<const SupernovaEvent> events,
                                     const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax);

// What a cell adds to a blast's budget (average_SN): volume, the volume-weighted offset r / r_max
// and its square per axis.
inline constexpr int budget_values = 7;
using BlastBudget = std::array<double, budget_values>;

struct BudgetRecord {
  std::int32_t event = 0;
  std::int32_t image = 0;
  std::int32_t level_child = 0;
  std::uint64_t key = 0;
  BlastBudget values{};
};

// Orders records of one event as a one-rank sweep would produce them.
inline bool sweep_order(const BudgetRecord& a, const BudgetRecord& b) {
  if (a.level_child / 8 != b.level_child / 8) return a.level_child / 8 < b.level_child / 8;
  if (a.key != b.key) return a.key < b.key;
  if (a.level_child != b.level_child) return a.level_child < b.level_child;
  return a.image < b.image;
}

// The cells within rmax of each blast image (distance² < rmax², RAMSES' test): one record per
// (cell, image), in cell order. `bins` null: the all-pairs scan.
std::vector<BudgetRecord> average_sn(const LeafCells& cells, std::span<const BlastImage> images, const SupernovaBins* bins,
                                     double rmax);

// Per-event sums of records in the order given (sorted per event with sweep_order when they come
// from several ranks).
std::vector<BlastBudget> sum_budgets(std::span<const BudgetRecord> records, std::size_t events);

// What Sedov_blast adds per unit volume for one event, from its global budget.
struct BlastInjection {
  double density = 0.0;          // ejected mass / blast volume
  double energy_density = 0.0;   // thermal part: (1 - f_ek) E / volume (E / volume without a kinetic part)
  double velocity_scale = 0.0;   // u_Sedov: the radial velocity at r = rmax
  double metal_density = 0.0;
  std::array<double, 3> mean_offset{};  // dq: the mean of r / rmax over the blast's cells
  std::array<double, 3> velocity{};     // the star's
};

// RAMSES Sedov_blast's per-event constants from the global budget (volume > 0): the kinetic part
// f_ek E is given as u = u_Sedov (r / rmax - dq) + v_star, whose kinetic energy over the blast cells
// is exactly f_ek E; with no ejected mass, or a blast of one cell (no spread of r), all of E is thermal.
BlastInjection blast_injection(const BlastBudget& budget, double ejected_mass, double energy, double metal_mass,
                               const std::array<double, 3>& velocity, double kinetic_fraction);

// The conservative fields Sedov_blast writes (uold); metal < 0 when the run carries no metals.
struct GasFields {
  int density = -1;
  std::array<int, 3> momentum{-1, -1, -1};  // unused axes -1
  int energy = -1;
  int metal = -1;
};

// Adds each blast's mass, momentum, energy and metals to the cells within rmax (events with a zero
// budget volume are skipped: the caller puts them into their host cell).
template <int D>
void sedov_blast(core::OctTree<D>& tree, const GasFields& fields, const LeafCells& cells, std::span<const BlastImage> images,
                 const SupernovaBins* bins, double rmax, std::span<const BlastInjection> injections);

}  // namespace kosmo::feedback
