#include "driver/bench_cell_set.hpp"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>

namespace kosmo::driver::bench {
namespace {

double periodic_distance2(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  double r2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    double x = std::fabs(a[d] - b[d]);
    x = std::min(x, 1.0 - x);
    r2 += x * x;
  }
  return r2;
}

}  // namespace

std::vector<std::array<double, 3>> random_galaxies(Random& random, int count) {
  std::vector<std::array<double, 3>> galaxies(static_cast<std::size_t>(count));
  for (auto& g : galaxies) g = {random(), random(), random()};
  return galaxies;
}

Tree make_mesh(const CellSetRecipe& recipe, const std::vector<std::array<double, 3>>& galaxies) {
  Tree::Geometry geometry;
  geometry.levelmax = recipe.levelmax;
  geometry.coarse_cells = {1, 1, 1};
  geometry.periodic = {true, true, true};
  Tree tree(geometry);
  for (int level = 1; level < recipe.levelmax; ++level) {
    const std::vector<core::OctIndex> octs = tree.octs_at_level(level);
    for (core::OctIndex o : octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        bool refine = level < recipe.levelmin;
        if (!refine) {
          const auto x = tree.cell_centre(cell);
          const double radius = recipe.region_radius[static_cast<std::size_t>(level - recipe.levelmin)];
          for (const auto& g : galaxies) refine = refine || periodic_distance2({x[0], x[1], x[2]}, g) < radius * radius;
        }
        if (refine) tree.create_son(cell);
      }
    tree.rebuild_level_lists();
  }
  return tree;
}

std::array<double, 3> point_in_sphere(Random& random, const std::array<double, 3>& centre, double radius) {
  std::array<double, 3> offset{};
  do {
    for (double& x : offset) x = 2.0 * random() - 1.0;
  } while (offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2] > 1.0);
  std::array<double, 3> p{};
  for (int d = 0; d < 3; ++d) p[d] = std::fmod(centre[d] + radius * offset[d] + 1.0, 1.0);
  return p;
}

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

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

Timing median(const std::vector<Timing>& runs) {
  auto middle = [&runs](auto member) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*member);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {middle(&Timing::wall), middle(&Timing::cpu)};
}

double load_average() {
  double load[1] = {0.0};
  return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

std::string speedup_fields(const Timing& binned, const Timing& brute, bool identical) {
  char fields[384];
  std::snprintf(fields, sizeof fields,
                "\"seconds_binned\": %.5f, \"seconds_brute\": %.5f, \"cpu_seconds_binned\": %.5f, \"cpu_seconds_brute\": %.5f, "
                "\"speedup\": %.1f, \"cpu_speedup\": %.1f, \"identical\": %s, \"load_average\": %.2f",
                binned.wall, brute.wall, binned.cpu, brute.cpu, brute.wall / binned.wall, brute.cpu / binned.cpu,
                identical ? "true" : "false", load_average());
  return fields;
}

}  // namespace kosmo::driver::bench
