#pragma once
// Where the tracers start (RAMSES pm/init_tracer.f90, load_tracers_inplace): every leaf cell gets
// n = (its gas mass) / tracer_mass tracers at its centre, n rounded down or up at random with the
// probability of its fraction, so that the expected count is the gas mass over tracer_mass. The
// random number is a hash of the cell's level and coordinates (identity-seeded), not a stream
// consumed cell by cell as in RAMSES, so the tracers do not depend on how many ranks the cells are
// spread over. Pure kernels: no MPI (the identities are assigned by the module, tracer_module.cpp).
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/oct_tree.hpp"

namespace kosmo::tracers {

// One leaf cell that receives tracers: its level, its integer coordinates at that level (unused axes
// 0), and how many.
struct SeededCell {
  std::int64_t level = 0;
  std::array<std::int64_t, 3> coordinates{};
  std::int64_t count = 0;
  // A fixed order of cells over the whole mesh (level, then z, y, x): the tracers' identities follow it.
  bool operator<(const SeededCell& other) const {
    if (level != other.level) return level < other.level;
    for (int d = 2; d >= 0; --d)
      if (coordinates[static_cast<std::size_t>(d)] != other.coordinates[static_cast<std::size_t>(d)])
        return coordinates[static_cast<std::size_t>(d)] < other.coordinates[static_cast<std::size_t>(d)];
    return false;
  }
};

// A uniform number in [0, 1) that depends only on the cell's level and coordinates (splitmix64's
// finaliser on a mix of them: Steele, Lea & Flood 2014).
inline double cell_uniform(std::int64_t level, const std::array<std::int64_t, 3>& coordinates) {
  std::uint64_t z = 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(level + 1);
  for (std::int64_t c : coordinates) {
    z ^= static_cast<std::uint64_t>(c) + 0x9E3779B97F4A7C15ULL + (z << 6) + (z >> 2);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
  }
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// RAMSES' count: floor(n), plus one when the uniform number falls below n - floor(n).
inline std::int64_t tracers_in_cell(double gas_mass, double tracer_mass, double uniform) {
  const double n = gas_mass / tracer_mass;
  const double whole = std::floor(n);
  return static_cast<std::int64_t>(whole) + (uniform < n - whole ? 1 : 0);
}

// The owned leaf cells of `tree` that receive tracers, from the gas density field, in the order of
// the tree's level lists.
template <int D, class Key>
std::vector<SeededCell> seed_leaf_cells(const core::OctTree<D, Key>& tree, int density_field, double tracer_mass) {
  using Tree = core::OctTree<D, Key>;
  std::vector<SeededCell> cells;
  const double* density = tree.field(density_field);
  for (int level = 1; level <= tree.levelmax(); ++level) {
    double volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= tree.cell_size(level);
    for (core::OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        SeededCell seeded;
        seeded.level = level;
        const auto coordinates = tree.cell_coordinates(cell);
        for (int d = 0; d < D; ++d) seeded.coordinates[static_cast<std::size_t>(d)] = coordinates[static_cast<std::size_t>(d)];
        seeded.count = tracers_in_cell(density[cell] * volume, tracer_mass, cell_uniform(seeded.level, seeded.coordinates));
        if (seeded.count > 0) cells.push_back(seeded);
      }
  }
  return cells;
}

}  // namespace kosmo::tracers
