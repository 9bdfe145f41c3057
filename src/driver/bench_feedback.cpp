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
#include "feedback/supernova_bins.hpp"

namespace kosmo::driver {
namespace {

using Tree = core::OctTree<3>;

constexpr int kLevelmin = 7;
constexpr int kLevelmax = 10;
constexpr int kGalaxies = 24;
constexpr int kSupernovae = 2000;
// Radii (box units) of the regions refined to levels 8, 9 and 10 around each galaxy.
constexpr double kRegionRadius[3] = {0.06, 0.035, 0.02};

// Reproducible uniform numbers (splitmix64).
struct Random {
  std::uint64_t state = 0x2545f4914f6cdd1dULL;
  double operator()() {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
};

double periodic_distance2(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  double r2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    double x = std::fabs(a[d] - b[d]);
    x = std::min(x, 1.0 - x);
    r2 += x * x;
  }
  return r2;
}

// A unit periodic box refined uniformly to levelmin and, around each galaxy, in nested spheres to
// levelmax: most of the volume at levelmin, the supernovae where the mesh is finest.
Tree make_mesh(const std::vector<std::array<double, 3>>& galaxies) {
  Tree::Geometry geometry;
  geometry.levelmax = kLevelmax;
  geometry.coarse_cells = {1, 1, 1};
  geometry.periodic = {true, true, true};
  Tree tree(geometry);
  for (int level = 1; level < kLevelmax; ++level) {
    const std::vector<core::OctIndex> octs = tree.octs_at_level(level);
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        bool refine = level < kLevelmin;
        if (!refine) {
          const auto x = tree.cell_centre(cell);
          const double radius = kRegionRadius[level - kLevelmin];
          for (const auto& g : galaxies) refine = refine || periodic_distance2({x[0], x[1], x[2]}, g) < radius * radius;
        }
        if (refine) tree.create_son(cell);
      }
    tree.rebuild_level_lists();
  }
  return tree;
}

// Gas fields of the bench: uniform, the injection's start for both searches.
feedback::GasFields add_gas(Tree& tree) {
  feedback::GasFields fields;
  fields.density = tree.add_field(core::scalar_field("density"));
  for (int d = 0; d < 3; ++d) fields.momentum[d] = tree.add_field(core::scalar_field(std::string("momentum_") + "xyz"[d]));
  fields.energy = tree.add_field(core::scalar_field("total_energy"));
  return fields;
}

void reset_gas(Tree& tree, const feedback::GasFields& fields) {
  const std::size_t cells = tree.oct_capacity() * Tree::cells_per_oct;
  std::fill(tree.field(fields.density), tree.field(fields.density) + cells, 1.0);
  for (int d = 0; d < 3; ++d) std::fill(tree.field(fields.momentum[d]), tree.field(fields.momentum[d]) + cells, 0.0);
  std::fill(tree.field(fields.energy), tree.field(fields.energy) + cells, 1e-5);
}

struct Timing {
  double wall = 0.0, cpu = 0.0;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class Work>
Timing timed(Work&& work) {
  const double cpu = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  work();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), process_cpu_seconds() - cpu};
}

Timing median(std::vector<Timing> runs) {
  auto middle = [&runs](auto member) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*member);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {middle(&Timing::wall), middle(&Timing::cpu)};
}

// The machine's one-minute load average: timings of a shared machine mean little without it.
double load_average() {
  double load[1] = {0.0};
  return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

void report(std::ostream& out, const char* routine, std::size_t cells, const std::array<int, 3>& bins, double rmax, int repeats,
            const Timing& binned, const Timing& brute, bool identical) {
  char line[768];
  std::snprintf(line, sizeof line,
                "{\"routine\": \"%s\", \"n_sn\": %d, \"n_cells\": %zu, \"levelmin\": %d, \"levelmax\": %d, \"rmax\": %.6g, "
                "\"bins_per_axis\": %d, \"threads\": %d, \"repeats\": %d, \"seconds_binned\": %.5f, \"seconds_brute\": %.5f, "
                "\"cpu_seconds_binned\": %.5f, \"cpu_seconds_brute\": %.5f, \"speedup\": %.1f, \"cpu_speedup\": %.1f, "
                "\"identical\": %s, \"load_average\": %.2f}\n",
                routine, kSupernovae, cells, kLevelmin, kLevelmax, rmax, bins[0], omp_get_max_threads(), repeats, binned.wall,
                brute.wall, binned.cpu, brute.cpu, brute.wall / binned.wall, brute.cpu / binned.cpu, identical ? "true" : "false",
                load_average());
  out << line << std::flush;
}

}  // namespace

void bench_feedback(MPI_Comm comm, std::ostream& out, int repeats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;  // the kernels are a rank's own work; one rank measures them
  Random random;
  std::vector<std::array<double, 3>> galaxies(kGalaxies);
  for (auto& g : galaxies) g = {random(), random(), random()};
  Tree tree = make_mesh(galaxies);
  const feedback::GasFields fields = add_gas(tree);
  std::vector<feedback::SupernovaEvent> events(kSupernovae);
  for (int i = 0; i < kSupernovae; ++i) {
    // Uniform in the level-10 sphere of a galaxy.
    const auto& g = galaxies[static_cast<std::size_t>(i % kGalaxies)];
    std::array<double, 3> offset{};
    do {
      for (double& x : offset) x = 2.0 * random() - 1.0;
    } while (offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2] > 1.0);
    auto& e = events[static_cast<std::size_t>(i)];
    for (int d = 0; d < 3; ++d) e.position[d] = std::fmod(g[d] + kRegionRadius[2] * offset[d] + 1.0, 1.0);
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
    reset_gas(tree, fields);
    binned_runs.push_back(timed([&] {
      const feedback::SupernovaBins bins(lo, hi, rmax, images);
      feedback::sedov_blast(tree, fields, cells, images, &bins, rmax, injections);
    }));
    binned_state = snapshot();
    reset_gas(tree, fields);
    brute_runs.push_back(timed([&] { feedback::sedov_blast(tree, fields, cells, images, nullptr, rmax, injections); }));
    brute_state = snapshot();
  }
  const bool same_gas = binned_state.size() == brute_state.size() &&
                        std::memcmp(binned_state.data(), brute_state.data(), binned_state.size() * sizeof(double)) == 0;
  report(out, "Sedov_blast", cells.size(), bins_per_axis, rmax, repeats, median(binned_runs), median(brute_runs), same_gas);
}

}  // namespace kosmo::driver
