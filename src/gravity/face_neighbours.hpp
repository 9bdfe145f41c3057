#pragma once
// The 2D face neighbours of every owned oct of a level, in flat arrays indexed by the oct's place in
// the level's list: the same-level oct, or where there is none the coarser cell that covers that
// place (no_cell outside a non-periodic box) — what core::OctStencilCache holds for those 2D
// offsets, the only ones the five-point force reads (RAMSES force_fine's getnborgrids). Across a
// face inside the father oct the neighbour is a sibling, found without a lookup; only the D faces
// that leave the father oct cost a hash lookup, against 3^D for the whole stencil.
#include <array>
#include <cstddef>
#include <vector>

#include "core/morton_key.hpp"
#include "core/oct_tree.hpp"

namespace kosmo::gravity {

template <int D, class Key>
class FaceNeighbours {
 public:
  using Tree = core::OctTree<D, Key>;
  static constexpr int faces = 2 * D;

  FaceNeighbours(const Tree& tree, int level) : octs_(tree.octs_at_level(level)) {
    const std::size_t n = octs_.size();
    neighbour_octs_.assign(n * faces, core::no_oct);
    coarse_cells_.assign(n * faces, core::no_cell);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const core::OctIndex o = octs_[i];
      if (level == 1) {
        // Level-1 octs tile the coarse grid and always exist; there is no coarser cell.
        for (int f = 0; f < faces; ++f) {
          std::array<int, D> offset{};
          offset[static_cast<std::size_t>(f / 2)] = f % 2 == 0 ? -1 : 1;
          Key key;
          if (core::MortonCodec<D, Key>::offset_key(tree.key(o), offset, tree.extent(1), tree.geometry().periodic, key))
            neighbour_octs_[i * faces + static_cast<std::size_t>(f)] = tree.find_oct(1, key);
        }
        continue;
      }
      const core::CellIndex father = tree.father_cell(o);
      const core::OctIndex parent = Tree::oct_of(father);
      const int child = Tree::child_of(father);
      const auto centre = tree.cell_coordinates(father);
      for (int f = 0; f < faces; ++f) {
        const int d = f / 2, step = f % 2 == 0 ? -1 : 1;
        const bool upper = ((child >> d) & 1) != 0;
        core::CellIndex coarse = core::no_cell;
        if (upper != (step > 0)) {
          coarse = Tree::cell_index(parent, child ^ (1 << d));  // a sibling's father cell
        } else {
          auto c = centre;
          c[static_cast<std::size_t>(d)] += step;
          coarse = tree.find_cell(level - 1, c);
        }
        coarse_cells_[i * faces + static_cast<std::size_t>(f)] = coarse;
        if (coarse != core::no_cell) neighbour_octs_[i * faces + static_cast<std::size_t>(f)] = tree.son(coarse);
      }
    }
  }

  std::size_t size() const { return octs_.size(); }
  core::OctIndex oct(std::size_t i) const { return octs_[i]; }
  // Face f = 2 d + (0: the -1 side, 1: the +1 side) along axis d.
  core::OctIndex neighbour_oct(std::size_t i, int f) const { return neighbour_octs_[i * faces + static_cast<std::size_t>(f)]; }
  core::CellIndex coarse_cell(std::size_t i, int f) const { return coarse_cells_[i * faces + static_cast<std::size_t>(f)]; }

 private:
  const std::vector<core::OctIndex>& octs_;
  std::vector<core::OctIndex> neighbour_octs_;
  std::vector<core::CellIndex> coarse_cells_;
};

}  // namespace kosmo::gravity
