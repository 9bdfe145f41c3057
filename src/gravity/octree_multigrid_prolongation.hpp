#pragma once
// Part of the octree multigrid (octree_multigrid.cpp): the prolongation stencils of a multigrid
// level's octs, and the ghost octs the halo red-black sweep prolongs onto (docs/parallel.md,
// "Multigrid exchanges on several ranks"). Included by octree_multigrid.cpp only.
#include <cstdint>
#include <map>

#include "core/oct_tree.hpp"
#include "gravity/octree_multigrid_kernels.hpp"

namespace kosmo::gravity::octree_multigrid_detail {

// Prolongation stencil of each oct of m: the 3^D cells of level m.level - 1 around its father
// (active ones, or kZero; zero-gradient walls mirror, Dirichlet walls give kZero).
template <int D>
void build_father_stencil(const core::OctTree<D, core::MortonKey>& tree, MgLevel<D>& m, const double* mask, bool walls_dirichlet) {
  using Tree = core::OctTree<D, core::MortonKey>;
  const int k = m.level - 1;
  m.father_stencil.assign(m.octs.size() * kStencil<D>, kZero);
  const auto n = static_cast<std::ptrdiff_t>(m.octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto father = tree.cell_coordinates(tree.father_cell(m.octs[static_cast<std::size_t>(i)]));
    for (int s = 0; s < kStencil<D>; ++s) {
      auto y = father;
      bool dirichlet_wall = false;
      for (int d = 0, rest = s; d < D; ++d, rest /= 3) {
        const auto u = static_cast<std::size_t>(d);
        y[u] += rest % 3 - 1;
        if (outside_box<D>(tree, k, y, d)) {
          if (walls_dirichlet) dirichlet_wall = true;
          y[u] = father[u];  // zero gradient: the mirror cell is the father's row
        }
      }
      if (dirichlet_wall) continue;
      const CellIndex cell = tree.find_cell(k, y);
      if (cell != core::no_cell && tree.role(Tree::oct_of(cell)) != core::OctRole::idle && mask[cell] > 0.0)
        m.father_stencil[static_cast<std::size_t>(i * kStencil<D> + s)] = cell;
    }
  }
}

// The ghost octs whose cells a level's post-smoothing reads before its first exchange when the
// prolongation is also applied to them (halo red-black): the halo octs, whose red cells the halo
// sweep relaxes and whose black cells the owned red cells read, and the ghost face neighbours of
// the halo octs, whose black cells the halo's red cells read. Their active cells (mask > 0; every
// cell on the solved level, mask null) get the owners' correction: the same coarse values (fresh
// after the coarse level's last sweep; the fathers' neighbourhoods lie within the coarse ghost zone)
// through the same stencil, so the prolongation refresh is not needed.
template <int D>
MgLevel<D> build_prolongation_ghosts(const core::OctTree<D, core::MortonKey>& tree, const MgLevel<D>& halo, const double* mask) {
  std::map<OctIndex, std::uint8_t> octs;
  auto add = [&](OctIndex o) {
    if (o < 0 || tree.role(o) != core::OctRole::ghost || octs.count(o) != 0) return;
    unsigned bits = 0;
    for (int c = 0; c < kCells<D>; ++c)
      if (mask == nullptr || mask[CellIndex{o} * kCells<D> + c] > 0.0) bits |= 1u << c;
    if (bits != 0) octs[o] = static_cast<std::uint8_t>(bits);
  };
  for (std::size_t i = 0; i < halo.octs.size(); ++i) {
    add(halo.octs[i]);
    for (OctIndex f : halo.face_octs[i]) add(f);
  }
  MgLevel<D> ghosts;
  ghosts.level = halo.level;
  for (const auto& [o, bits] : octs) {
    ghosts.octs.push_back(o);
    ghosts.active.push_back(bits);
  }
  return ghosts;
}

}  // namespace kosmo::gravity::octree_multigrid_detail
