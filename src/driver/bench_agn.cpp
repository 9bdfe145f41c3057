#include "driver/bench_agn.hpp"

#include <omp.h>

#include <cstdio>
#include <cstring>
#include <ostream>
#include <vector>

#include "driver/bench_cell_set.hpp"
#include "feedback/supernova_bins.hpp"
#include "sinks/agn_kernels.hpp"
#include "sinks/agn_settings.hpp"

namespace kosmo::driver {
namespace {

// Many galaxies with a few tens of AGN each, as a cosmological box holds them: levelmin 6, levels
// 7, 8, 9 in spheres of radii 0.02, 0.012 and 0.008 around 1000 galaxies, 30 AGN uniform in each
// level-9 sphere; the AGN radius is RAMSES' default cloud, ir_cloud = 4 cells of levelmax.
constexpr int kGalaxies = 1000;
constexpr int kAgnPerGalaxy = 30;
constexpr int kAgn = kGalaxies * kAgnPerGalaxy;
const bench::CellSetRecipe kRecipe{6, 9, {0.02, 0.012, 0.008}};
constexpr double kCloudCells = 4.0;

void report(std::ostream& out, const char* routine, std::size_t cells, std::size_t pairs, const std::array<int, 3>& bins, double radius,
            int repeats, const bench::Timing& binned, const bench::Timing& brute, bool identical) {
  char line[640];
  std::snprintf(line, sizeof line,
                "{\"routine\": \"%s\", \"n_agn\": %d, \"n_cells\": %zu, \"pairs\": %zu, \"levelmin\": %d, \"levelmax\": %d, "
                "\"radius\": %.6g, \"bins_per_axis\": %d, \"threads\": %d, \"repeats\": %d, ",
                routine, kAgn, cells, pairs, kRecipe.levelmin, kRecipe.levelmax, radius, bins[0], omp_get_max_threads(), repeats);
  out << line << bench::speedup_fields(binned, brute, identical) << "}\n" << std::flush;
}

}  // namespace

void bench_agn(MPI_Comm comm, std::ostream& out, int repeats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;  // the kernels are a rank's own work; one rank measures them
  bench::Random random;
  const std::vector<std::array<double, 3>> galaxies = bench::random_galaxies(random, kGalaxies);
  bench::Tree tree = bench::make_mesh(kRecipe, galaxies);
  const feedback::GasFields fields = bench::add_gas(tree);
  bench::reset_gas(tree, fields);
  std::vector<feedback::SupernovaEvent> agn(kAgn);
  for (int i = 0; i < kAgn; ++i) {
    auto& e = agn[static_cast<std::size_t>(i)];
    e.position = bench::point_in_sphere(random, galaxies[static_cast<std::size_t>(i % kGalaxies)], kRecipe.region_radius.back());
    e.energy = 1e-6;  // the reservoir
    e.identity = i;
  }
  const double radius = kCloudCells * tree.cell_size(kRecipe.levelmax);
  const feedback::LeafCells cells = feedback::owned_leaf_cells(tree, kRecipe.levelmin);
  const std::array<double, 3> lo{-radius, -radius, -radius}, hi{1.0 + radius, 1.0 + radius, 1.0 + radius};
  const auto images = feedback::blast_images(tree, agn, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, radius);

  // average_AGN: the search, the records and the per-AGN sums (the bins are built inside the timing).
  std::vector<bench::Timing> binned_runs, brute_runs;
  std::vector<feedback::BlastBudget> binned_budgets, brute_budgets;
  std::array<int, 3> bins_per_axis{};
  std::size_t pairs = 0;
  for (int r = 0; r < repeats; ++r) {
    binned_runs.push_back(bench::timed([&] {
      const feedback::SupernovaBins bins(lo, hi, radius, images);
      bins_per_axis = bins.bins_per_axis();
      const auto found = sinks::average_agn(cells, images, &bins, radius);
      pairs = found.size();
      binned_budgets = sinks::sum_agn_budgets(tree, fields, cells, images, found, agn.size());
    }));
    brute_runs.push_back(bench::timed(
        [&] { brute_budgets = sinks::sum_agn_budgets(tree, fields, cells, images, sinks::average_agn(cells, images, nullptr, radius), agn.size()); }));
  }
  const bool same_budgets =
      std::memcmp(binned_budgets.data(), brute_budgets.data(), binned_budgets.size() * sizeof(feedback::BlastBudget)) == 0;
  report(out, "average_AGN", cells.size(), pairs, bins_per_axis, radius, repeats, bench::median(binned_runs), bench::median(brute_runs),
         same_budgets);

  // AGN_blast from the same sums (thermal mode, every reservoir released), on a fresh gas state each time.
  sinks::AgnSettings settings;
  settings.t2_min = 0.0;
  settings.mode_switch_threshold = 0.0;
  std::vector<sinks::AgnInjection> injections;
  for (std::size_t i = 0; i < agn.size(); ++i)
    injections.push_back(sinks::agn_release(settings, binned_budgets[i], agn[i].energy, 0.0, 1.0, 1.0).injection);
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
    binned_runs.push_back(bench::timed([&] {
      const feedback::SupernovaBins bins(lo, hi, radius, images);
      sinks::agn_blast(tree, fields, cells, images, &bins, radius, injections);
    }));
    binned_state = snapshot();
    bench::reset_gas(tree, fields);
    brute_runs.push_back(bench::timed([&] { sinks::agn_blast(tree, fields, cells, images, nullptr, radius, injections); }));
    brute_state = snapshot();
  }
  const bool same_gas = binned_state.size() == brute_state.size() &&
                        std::memcmp(binned_state.data(), brute_state.data(), binned_state.size() * sizeof(double)) == 0;
  report(out, "AGN_blast", cells.size(), pairs, bins_per_axis, radius, repeats, bench::median(binned_runs), bench::median(brute_runs),
         same_gas);
}

}  // namespace kosmo::driver
