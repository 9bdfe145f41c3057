#pragma once
// Part of the octree multigrid (octree_multigrid.cpp): the sinks of its coarse levels, and the
// constants the two files share. Included by octree_multigrid.cpp only.
#include <algorithm>
#include <array>
#include <cstddef>

#include "core/oct_tree.hpp"

namespace kosmo::gravity::octree_multigrid_detail {

using core::CellIndex;
using core::OctIndex;

// Face-neighbour octs: core::no_oct when the oct does not exist, kOutside beyond a non-periodic wall.
inline constexpr OctIndex kOutside = -2;

// Lists shorter than this run on one thread (a parallel region costs about what such a loop does).
inline constexpr std::size_t kParallelOcts = 256;

template <int D>
inline constexpr int kCells = 1 << D;
template <int D>
inline constexpr int kDirections = 2 * D;

// The sinks of the coarse multigrid levels: what the unrefined holes that a level cannot resolve
// (inactive cells inside its active cells) do to the correction.
//
// A hole of the solved level L (an unrefined level-(L-1) cell) is a masked cell at L-1; at L-2 it may
// be one cell in eight of an active cell (mask 3/4 > 0), and from there on the coarse levels do not
// see it: their operators lack the Dirichlet boundary the hole gives the fine level. Where such holes
// are scattered through most of a periodic box (particle refinement with m_refine = 2 in a
// cosmological box: a cell with fewer than two particles stays coarse) the coarse operators of the
// smooth modes are far weaker than the fine one, the coarse corrections overshoot them, and the
// V-cycles diverge: at 80 % of a 16^3 box the residual grew 2.3x per V-cycle, and 1.4x with RAMSES'
// mask-weighted operator alone (tests/unit/test_octree_multigrid_coverage.cpp, docs/gravity.md).
//
// Such a hole is kept on the coarse level as a sink on the diagonal, the row sum of the Galerkin
// operator R A P with piecewise-constant P (the coarse value on the active children of active coarse
// cells, 0 elsewhere) and R the mean over the 2^D children: exact for a constant correction, which
// is what a mode smooth on the scale of the hole looks like there. For an active coarse cell c,
//   sink_c = 4 / 2^D * sum over the active children i of
//            [ sink_i + sum over the faces of i whose far cell j is masked (mask_j <= 0) and lies in an
//              active coarse cell (c itself or a neighbour) of (1 - mask_j / mask_i) ],
// the bracket being the row sum of L h^2 at i on the finer multigrid level (its mask weights, see
// build_neighbours, and its own sink), 4 / 2^D the mean and the h^2 ratio. The Laplacian part of the
// coarse operator stays the standard 2D+1-point one (Galerkin with piecewise-constant P would double
// it). A coarse cell with a masked face neighbour gets no sink: its mask weights already place the
// boundary with its own mask, which counts its holes (adding both over-pins the correction there:
// measured, 3.3 instead of 4.4 residual reduction per V-cycle at 80 % coverage by a smooth region).
//
// Where every hole is resolved the two schemes agree: a hole face of 2^(D-1) fine faces, each with
// row sum 1 on the solved level, gives 4 / 2^D * 2^(D-1) = 2 at the first coarse level, RAMSES'
// weight 1 - (-1)/1. And since every hole now shows on every coarse level, none of them is singular
// when the solved level has a Dirichlet face (kosmo's previous remedy, removing the restricted
// residual's mean on fully active periodic coarse levels, left the constant mode to the smoother).
//
// The values go to `sink` on the owned cells of levels coarsest..L-1 (the multigrid correction
// field: scratch until the V-cycles start). One ghost refresh of `contribution` (the bracket) per
// level from L-2 down: a coarse cell's children may be ghosts. Run at every solve, not only when the
// coarse levels are rebuilt, so that every rank makes the same refresh calls.
template <int D, class Refresh>
const double* compute_coarse_sinks(const core::OctTree<D, core::MortonKey>& tree, int L, int coarsest, const double* mask,
                                   bool walls_dirichlet, double* sink, double* contribution, Refresh&& refresh_contribution) {
  using Tree = core::OctTree<D, core::MortonKey>;
  for (int k = coarsest; k <= L - 1; ++k)
    for (const auto* list : {&tree.octs_at_level(k), &tree.ghost_octs_at_level(k)})
      for (OctIndex o : *list) std::fill_n(sink + Tree::cell_index(o, 0), kCells<D>, 0.0);
  auto usable = [&](OctIndex o) { return o != core::no_oct && o != kOutside && tree.role(o) != core::OctRole::idle; };
  auto oct_active = [&](OctIndex o) {  // the father cell's mask (the mean of the oct's) is > 0
    double sum = 0.0;
    for (int c = 0; c < kCells<D>; ++c) sum += mask[Tree::cell_index(o, c)];
    return sum > 0.0;
  };
  auto face_octs = [&](int level, OctIndex o) {
    std::array<OctIndex, kDirections<D>> face{};
    for (int dir = 0; dir < kDirections<D>; ++dir) {
      core::MortonKey key{};
      face[static_cast<std::size_t>(dir)] = Tree::Codec::neighbour_key(tree.key(o), dir, tree.extent(level), tree.geometry().periodic, key)
                                                ? tree.find_oct(level, key)
                                                : kOutside;
    }
    return face;
  };
  // The far cell across face `dir` of cell c of oct o (or -1 when its oct is missing or outside).
  auto far_cell = [](OctIndex o, const std::array<OctIndex, kDirections<D>>& face, int c, int dir, bool usable_face) -> CellIndex {
    const int axis = dir / 2;
    if (((c >> axis) & 1) != (dir & 1)) return CellIndex{o} * kCells<D> + (c ^ (1 << axis));
    return usable_face ? CellIndex{face[static_cast<std::size_t>(dir)]} * kCells<D> + (c ^ (1 << axis)) : CellIndex{-1};
  };
  constexpr double mean_times_h2_ratio = 4.0 / kCells<D>;
  for (int k = L - 2; k >= coarsest; --k) {
    const int fine = k + 1;
    const auto& octs = tree.octs_at_level(fine);
    const auto n = static_cast<std::ptrdiff_t>(octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const OctIndex o = octs[static_cast<std::size_t>(i)];
      std::fill_n(contribution + Tree::cell_index(o, 0), kCells<D>, 0.0);
      if (!oct_active(o)) continue;  // its father is inactive: gathered by no one
      const auto face = face_octs(fine, o);
      std::array<bool, kDirections<D>> in_active_coarse_cell{};
      for (int dir = 0; dir < kDirections<D>; ++dir) {
        const OctIndex f = face[static_cast<std::size_t>(dir)];
        in_active_coarse_cell[static_cast<std::size_t>(dir)] = usable(f) && oct_active(f);
      }
      for (int c = 0; c < kCells<D>; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        if (!(mask[cell] > 0.0)) continue;
        double row = sink[cell];
        for (int dir = 0; dir < kDirections<D>; ++dir) {
          const CellIndex far = far_cell(o, face, c, dir, in_active_coarse_cell[static_cast<std::size_t>(dir)]);
          if (far >= 0 && mask[far] <= 0.0) row += 1.0 - mask[far] / mask[cell];
        }
        contribution[cell] = row;
      }
    }
    refresh_contribution(fine);
    const auto& coarse_octs = tree.octs_at_level(k);
    const auto m = static_cast<std::ptrdiff_t>(coarse_octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(m) >= kParallelOcts)
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      const OctIndex o = coarse_octs[static_cast<std::size_t>(i)];
      const auto face = face_octs(k, o);
      for (int c = 0; c < kCells<D>; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        const OctIndex son = tree.son(cell);
        if (!(mask[cell] > 0.0) || son == core::no_oct) continue;
        bool masked_face = false;  // as build_neighbours codes it: kZero on a coarse level
        for (int dir = 0; dir < kDirections<D> && !masked_face; ++dir) {
          const OctIndex f = face[static_cast<std::size_t>(dir)];
          if (f == kOutside) {
            masked_face = walls_dirichlet;
          } else {
            const CellIndex far = far_cell(o, face, c, dir, usable(f));
            masked_face = far < 0 || mask[far] <= 0.0;
          }
        }
        if (masked_face) continue;
        double sum = 0.0;
        for (int child = 0; child < kCells<D>; ++child) sum += contribution[Tree::cell_index(son, child)];
        sink[cell] = mean_times_h2_ratio * sum;
      }
    }
  }
  return sink;
}

}  // namespace kosmo::gravity::octree_multigrid_detail
