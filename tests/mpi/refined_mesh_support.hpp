#pragma once
// A small refined, graded, periodic test mesh in 1, 2 or 3 dimensions, spread over MPI_COMM_WORLD by
// a DistributedMesh of either ordering, optionally after a cost-weighted load balance that moves
// the walls away from the geometric split. For the tests of the mesh's particle support
// (owner_of_position, reverse_accumulate, particle migration).
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "parallel/distributed_mesh.hpp"
#include "world.hpp"

namespace kosmo::test {

template <int D>
using Tree = core::OctTree<D, core::MortonKey>;
template <int D>
using Mesh = parallel::DistributedMesh<D, core::MortonKey>;


// Refines the leaf cells of `level` whose centre satisfies `where` and whose 3^D - 1 neighbours
// exist (the 2:1 rule).
template <int D>
void refine_where(Tree<D>& tree, int level, const std::function<bool(const std::array<double, D>&)>& where) {
  int neighbours = 1;
  for (int d = 0; d < D; ++d) neighbours *= 3;
  std::vector<core::CellIndex> cells;
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree<D>::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree<D>::cell_index(o, c);
      if (!tree.is_leaf(cell) || !where(tree.cell_centre(cell))) continue;
      bool graded = true;
      for (int n = 0; n < neighbours && graded; ++n) {
        typename Tree<D>::Offset offset{};
        for (int d = 0, rest = n; d < D; ++d, rest /= 3) offset[static_cast<std::size_t>(d)] = rest % 3 - 1;
        graded = tree.cell_neighbour(cell, offset) != core::no_cell;
      }
      if (graded) cells.push_back(cell);
    }
  for (core::CellIndex cell : cells) tree.create_son(cell);
  tree.rebuild_level_lists();
}

// Base level (full) per dimension, so that every dimension has a few hundred octs there.
template <int D>
constexpr int base_level = D == 3 ? 4 : (D == 2 ? 5 : 6);

// Periodic box of `coarse` level-1 octs per axis (2 x 1 in 2-D: a box twice as long in x),
// levels 1..base full, base + 1 within 0.3 of an off-centre point, base + 2 within 0.15.
template <int D>
Tree<D> refined_tree() {
  typename Tree<D>::Geometry g;
  g.levelmax = base_level<D> + 2;
  for (int d = 0; d < D; ++d) {
    g.coarse_cells[static_cast<std::size_t>(d)] = D == 2 && d == 0 ? 2 : 1;
    g.periodic[static_cast<std::size_t>(d)] = true;
  }
  Tree<D> tree(g);
  const std::array<double, 3> centre{0.3, 0.6, 0.55};
  auto within = [&](double radius) {
    return [=](const std::array<double, D>& x) {
      double r2 = 0.0;
      for (int d = 0; d < D; ++d) r2 += (x[static_cast<std::size_t>(d)] - centre[static_cast<std::size_t>(d)]) *
                                        (x[static_cast<std::size_t>(d)] - centre[static_cast<std::size_t>(d)]);
      return r2 < radius * radius;
    };
  };
  for (int l = 1; l < base_level<D>; ++l) refine_where<D>(tree, l, [](const std::array<double, D>&) { return true; });
  refine_where<D>(tree, base_level<D>, within(0.3));
  refine_where<D>(tree, base_level<D> + 1, within(0.15));
  return tree;
}

// Rank 0's copy of the tree spread over the ranks (the others drop theirs), then, when `balanced`,
// walls placed again with finer octs costing more (cost 2^l per oct of level l), so the refined
// region pulls walls towards it, and the octs moved to their new owners.
template <int D>
void distribute(Tree<D>& tree, Mesh<D>& mesh, bool balanced) {
  if (world_rank() != 0)
    for (std::size_t o = 0; o < tree.oct_capacity(); ++o)
      if (tree.alive(static_cast<core::OctIndex>(o))) tree.set_role(static_cast<core::OctIndex>(o), core::OctRole::idle);
  tree.rebuild_level_lists();
  mesh.redistribute(tree);
  if (!balanced) return;
  std::vector<double> cost(static_cast<std::size_t>(tree.levelmax()) + 1, 0.0);
  for (int l = 1; l <= tree.levelmax(); ++l) cost[static_cast<std::size_t>(l)] = std::ldexp(1.0, l);
  mesh.balance_decomposition(tree, cost);
  mesh.redistribute(tree);
}

}  // namespace kosmo::test
