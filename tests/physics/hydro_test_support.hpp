#pragma once
// Running a hydro problem from namelist text to a given time, and reading its leaf cells.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "driver/simulation.hpp"

namespace kosmo::test {

template <int D>
struct LeafCell {
  std::array<double, D> x;
  double dx;
  int level;
  std::vector<double> q;  // density, velocity_0..D-1, pressure
};

// Advances to exactly t_end with Courant steps (the last one shortened).
template <int D>
void advance_to(driver::Simulation<D>& sim, double t_end, long long max_steps = 1000000) {
  while (sim.time() < t_end * (1 - 1e-14) && sim.step() < max_steps) sim.advance(std::min(sim.courant_time_step(), t_end - sim.time()));
}

template <int D>
std::vector<LeafCell<D>> leaf_cells(const driver::Simulation<D>& sim) {
  using Tree = core::OctTree<D, core::MortonKey>;
  const Tree& tree = sim.tree();
  const int nout = static_cast<int>(sim.hydro().output_fields().size());
  std::vector<double> values(static_cast<std::size_t>(nout * Tree::cells_per_oct));
  std::vector<LeafCell<D>> cells;
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex o : tree.octs_at_level(l)) {
      sim.hydro().output_values(o, values.data());
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        LeafCell<D> leaf{tree.cell_centre(cell), tree.cell_size(l), l, {}};
        for (int f = 0; f < D + 2; ++f) leaf.q.push_back(values[static_cast<std::size_t>(f * Tree::cells_per_oct + c)]);
        cells.push_back(std::move(leaf));
      }
    }
  return cells;
}

}  // namespace kosmo::test
