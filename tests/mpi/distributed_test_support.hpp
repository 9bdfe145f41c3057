#pragma once
// Leaf cells of a distributed hydro run gathered on rank 0 in a canonical order, so runs on
// different rank counts can be compared cell by cell.
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "driver/simulation.hpp"
#include "world.hpp"

namespace kosmo::test {


// Level, integer cell coordinates, then the conservative variables of every owned leaf cell.
using Cell = std::vector<double>;

inline std::vector<Cell> owned_leaves(const driver::Simulation<3>& sim) {
  using Tree = core::OctTree<3, core::MortonKey>;
  const Tree& tree = sim.tree();
  std::vector<Cell> cells;
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree.is_leaf(cell)) continue;
        const auto x = tree.cell_coordinates(cell);
        Cell v{static_cast<double>(l), static_cast<double>(x[0]), static_cast<double>(x[1]), static_cast<double>(x[2])};
        for (int f : sim.hydro().uold_fields()) v.push_back(tree.field(f)[cell]);
        cells.push_back(std::move(v));
      }
  return cells;
}

// Every rank's cells on rank 0 of `comm`, sorted by (level, x, y, z).
inline std::vector<Cell> gather_sorted(const std::vector<Cell>& local, int width, MPI_Comm comm = MPI_COMM_WORLD) {
  std::vector<double> flat;
  for (const Cell& c : local) flat.insert(flat.end(), c.begin(), c.end());
  int count = static_cast<int>(flat.size());
  int n = 1, rank = 0;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &rank);
  std::vector<int> counts(static_cast<std::size_t>(n)), displacements(static_cast<std::size_t>(n), 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int r = 1; r < n; ++r) displacements[static_cast<std::size_t>(r)] = displacements[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(displacements.back() + counts.back()) : 0);
  MPI_Gatherv(flat.data(), count, MPI_DOUBLE, all.data(), counts.data(), displacements.data(), MPI_DOUBLE, 0, comm);
  std::vector<Cell> cells;
  for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(width))
    cells.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at) + width);
  std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
    return std::lexicographical_compare(a.begin(), a.begin() + 4, b.begin(), b.begin() + 4);
  });
  return cells;
}

}  // namespace kosmo::test
