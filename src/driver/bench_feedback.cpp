#include "driver/bench_feedback.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <ostream>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/blast_kernels.hpp"
#include "driver/bench_cell_set.hpp"
#include "feedback/supernova_bins.hpp"

namespace kosmo::driver {
namespace {

using bench::Timing;
using bench::timed;
using bench::median;
using bench::load_average;

constexpr int kLevelmin = 7;
constexpr int kLevelmax = 10;
constexpr int kGalaxies = 24;
constexpr int kSupernovae = 2000;
// Radii (box units) of the regions refined to levels 8, 9 and 10 around each galaxy.
constexpr double kRegionRadius[3] = {0.06, 0.035, 0.02};

void report(std::ostream& out, const char* routine, std::size_t cells, const std::array<int, 3>& bins, double rmax, int repeats,
            const Timing& binned, const Timing& brute, bool identical) {
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"routine\": \"%s\", \"n_sn\": %d, \"n_cells\": %zu, \"levelmin\": %d, \"levelmax\": %d, \"rmax\": %.6g, "
                "\"bins_per_axis\": %d, \"threads\": %d, \"repeats\": %d, ",
                routine, kSupernovae, cells, kLevelmin, kLevelmax, rmax, bins[0], omp_get_max_threads(), repeats);
  out << line << bench::speedup_fields(binned, brute, identical) << "}\n" << std::flush;
}

}  // namespace

void bench_feedback(MPI_Comm comm, std::ostream& out, int repeats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;  // the kernels are a rank's own work; one rank measures them
  bench::Random random;
  const std::vector<std::array<double, 3>> galaxies = bench::random_galaxies(random, kGalaxies);
  bench::Tree tree = bench::make_mesh({kLevelmin, kLevelmax, {kRegionRadius[0], kRegionRadius[1], kRegionRadius[2]}}, galaxies);
  const feedback::GasFields fields = bench::add_gas(tree);
  std::vector<feedback::SupernovaEvent> events(kSupernovae);
  for (int i = 0; i < kSupernovae; ++i) {
    // Uniform in the level-10 sphere of a galaxy.
    auto& e = events[static_cast<std::size_t>(i)];
    e.position = bench::point_in_sphere(random, galaxies[static_cast<std::size_t>(i % kGalaxies)], kRegionRadius[2]);
    e.ejected_mass = 1e-6;
    e.energy = 1e-3;
    e.identity = i;
  }
  // RAMSES' blast radius with rbubble = 0: two cells of levelmax.
  const double rmax = 2.0 * tree.cell_size(kLevelmax);
  const feedback::LeafCells cells = feedback::owned_leaf_cells(tree, kLevelmin);
  const std::array<double, 3> lo{-rmax, -rmax, -rmax}, hi{1.0 + rmax, 1.0 + rmax, 1.0 + rmax};
  const auto images = feedback::blast_images(tree, events, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, rmax);

  // average_SN: the search and the per-event sums (the bins are built inside the timing).
  std::vector<Timing> binned_runs, brute_runs;
  std::vector<feedback::BlastBudget> binned_budgets, brute_budgets;
  std::array<int, 3> bins_per_axis{};
  for (int r = 0; r < repeats; ++r) {
    binned_runs.push_back(timed([&] {
      const feedback::SupernovaBins bins(lo, hi, rmax, images);
      bins_per_axis = bins.bins_per_axis();
      binned_budgets = feedback::sum_budgets(feedback::average_sn(cells, images, &bins, rmax), events.size());
    }));
    brute_runs.push_back(
        timed([&] { brute_budgets = feedback::sum_budgets(feedback::average_sn(cells, images, nullptr, rmax), events.size()); }));
  }
  const bool same_budgets =
      std::memcmp(binned_budgets.data(), brute_budgets.data(), binned_budgets.size() * sizeof(feedback::BlastBudget)) == 0;
  report(out, "average_SN", cells.size(), bins_per_axis, rmax, repeats, median(binned_runs), median(brute_runs), same_budgets);

  // Sedov_blast from the same budgets, on a fresh gas state each time.
  std::vector<feedback::BlastInjection> injections;
  for (std::size_t i = 0; i < events.size(); ++i)
    injections.push_back(feedback::blast_injection(binned_budgets[i], events[i].ejected_mass, events[i].energy, 0.0, events[i].velocity, 1.0));
  auto snapshot = [&] {
    std::vector<double> state;
    for (int f : {fields.density, fields.momentum[0], fields.momentum[1], fields.momentum[2], fields.energy})
      for (core::CellIndex c : cells.cell) state.push_back(tree.field(f)[c]);
    return state;
  };
  binned_runs.clear();
  brute_runs.clear();
  std::vector<double> binned_state, brute_state;
  for (int r = 0; r < repeats; ++r) {
    bench::reset_gas(tree, fields);
    binned_runs.push_back(timed([&] {
      const feedback::SupernovaBins bins(lo, hi, rmax, images);
      feedback::sedov_blast(tree, fields, cells, images, &bins, rmax, injections);
    }));
    binned_state = snapshot();
    bench::reset_gas(tree, fields);
    brute_runs.push_back(timed([&] { feedback::sedov_blast(tree, fields, cells, images, nullptr, rmax, injections); }));
    brute_state = snapshot();
  }
  const bool same_gas = binned_state.size() == brute_state.size() &&
                        std::memcmp(binned_state.data(), brute_state.data(), binned_state.size() * sizeof(double)) == 0;
  report(out, "Sedov_blast", cells.size(), bins_per_axis, rmax, repeats, median(binned_runs), median(brute_runs), same_gas);
}

}  // namespace kosmo::driver
