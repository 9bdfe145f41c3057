#pragma once
// The adaptive cell set of the feedback benchmarks (`kosmo bench feedback`, `kosmo bench agn`;
// docs/galaxy.md): a periodic unit box refined uniformly to levelmin and, around galaxies, in nested
// spheres to levelmax (most of the volume coarse, the events where the mesh is finest, as seeds/000
// §6.3's production runs), with uniform gas; and the timing helpers both benchmarks report with.
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "feedback/blast_kernels.hpp"

namespace kosmo::driver::bench {

using Tree = core::OctTree<3>;

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

// levelmin, levelmax and the radii (box units) of the spheres refined to levelmin + 1 ... levelmax
// around each galaxy (levelmax - levelmin of them).
struct CellSetRecipe {
  int levelmin = 7;
  int levelmax = 10;
  std::vector<double> region_radius{0.06, 0.035, 0.02};
};

// Galaxy centres uniform in the box.
std::vector<std::array<double, 3>> random_galaxies(Random& random, int count);
// The refined mesh of the recipe around the galaxies.
Tree make_mesh(const CellSetRecipe& recipe, const std::vector<std::array<double, 3>>& galaxies);
// A point uniform in the sphere of `radius` around `centre`, wrapped into the unit box.
std::array<double, 3> point_in_sphere(Random& random, const std::array<double, 3>& centre, double radius);
// Uniform gas (density 1, at rest, energy 1e-5): the fields and their reset.
feedback::GasFields add_gas(Tree& tree);
void reset_gas(Tree& tree, const feedback::GasFields& fields);

struct Timing {
  double wall = 0.0, cpu = 0.0;
};
double process_cpu_seconds();
template <class Work>
Timing timed(Work&& work) {
  const double cpu = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  work();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), process_cpu_seconds() - cpu};
}
// Medians of wall and CPU time over the runs.
Timing median(const std::vector<Timing>& runs);
// The machine's one-minute load average: timings of a shared machine mean little without it.
double load_average();

// The JSON fields every binned-against-brute-force line ends with: wall and CPU seconds of both,
// their ratios, whether the outputs were identical, and the machine's load average.
std::string speedup_fields(const Timing& binned, const Timing& brute, bool identical);

}  // namespace kosmo::driver::bench
