#pragma once
// For every oct of a level, the 3^D octs around it (same level) or, where there is none, the
// coarser cell that covers that place: the neighbourhood the hydro kernel gathers (RAMSES godfine1
// gathers the 3^D neighbouring father cells of each grid) and the refinement rules inspect.
// Looked up once per mesh generation, so hot loops do no hash lookup (ARCHITECTURE §1,
// seeds/000 App. D.1 extended from the 2D face neighbours to the 3^D neighbourhood).
#include <vector>

#include "core/oct_tree.hpp"

namespace kosmo::core {

template <int D, class Key>
class OctStencilCache {
 public:
  static constexpr int neighbours = D == 1 ? 3 : (D == 2 ? 9 : 27);

  // Offset k = sum_d (o_d + 1) 3^d, o_d in {-1, 0, 1}; k = (neighbours - 1) / 2 is the oct itself.
  static constexpr int offset_along(int k, int d) {
    for (int i = 0; i < d; ++i) k /= 3;
    return k % 3 - 1;
  }

  // The owned octs of the level, followed by its ghost octs when `with_ghosts` (the refinement
  // rules also run on ghosts, so that flags pushed from a ghost onto an owned cell are seen).
  void update(const OctTree<D, Key>& tree, int level, bool with_ghosts = false) {
    if (level == level_ && generation_ == tree.generation() && with_ghosts == with_ghosts_) return;
    level_ = level;
    generation_ = tree.generation();
    with_ghosts_ = with_ghosts;
    octs_.assign(tree.octs_at_level(level).begin(), tree.octs_at_level(level).end());
    if (with_ghosts) octs_.insert(octs_.end(), tree.ghost_octs_at_level(level).begin(), tree.ghost_octs_at_level(level).end());
    const auto& octs = octs_;
    const std::size_t n = octs.size();
    neighbour_octs_.resize(n * neighbours);
    coarse_cells_.resize(n * neighbours);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const OctIndex o = octs[i];
      for (int k = 0; k < neighbours; ++k) {
        OctIndex neighbour = no_oct;
        CellIndex coarse = no_cell;
        if (level == 1) {
          // Level-1 octs tile the coarse grid and always exist.
          std::array<int, D> offset{};
          for (int d = 0; d < D; ++d) offset[d] = offset_along(k, d);
          Key key;
          if (MortonCodec<D, Key>::offset_key(tree.key(o), offset, tree.extent(1), tree.geometry().periodic, key))
            neighbour = tree.find_oct(1, key);
        } else {
          auto c = tree.cell_coordinates(tree.father_cell(o));
          for (int d = 0; d < D; ++d) c[d] += offset_along(k, d);
          coarse = tree.find_cell(level - 1, c);
          if (coarse != no_cell) neighbour = tree.son(coarse);
        }
        neighbour_octs_[i * neighbours + static_cast<std::size_t>(k)] = neighbour;
        coarse_cells_[i * neighbours + static_cast<std::size_t>(k)] = coarse;
      }
    }
  }

  // Offset index k of the oct holding the same-level cell displaced by `offset` (components in
  // -1..1) from child `child` of the centre oct, and that cell's child index in it.
  static constexpr int locate(int child, const std::array<int, D>& offset, int& neighbour_child) {
    int k = 0, step = 1;
    neighbour_child = 0;
    for (int d = 0; d < D; ++d, step *= 3) {
      const int position = ((child >> d) & 1) + offset[d];  // -1..2 across the three octs
      const int oct_offset = position < 0 ? -1 : (position > 1 ? 1 : 0);
      k += (oct_offset + 1) * step;
      neighbour_child |= (position - 2 * oct_offset) << d;
    }
    return k;
  }

  // The cell across the face (axis, step = -1 or +1) of child `child` of the i-th oct: the
  // same-level cell, or the coarser cell covering that place, or no_cell outside the box.
  CellIndex face_neighbour(std::size_t i, int child, int axis, int step) const {
    std::array<int, D> offset{};
    offset[axis] = step;
    int neighbour_child = 0;
    const int k = locate(child, offset, neighbour_child);
    const OctIndex o = neighbour_oct(i, k);
    if (o != no_oct) return OctTree<D, Key>::cell_index(o, neighbour_child);
    return coarse_cell(i, k);
  }
  std::size_t size() const { return octs_.size(); }
  OctIndex oct(std::size_t i) const { return octs_[i]; }
  // Same-level oct at offset k, or no_oct.
  OctIndex neighbour_oct(std::size_t i, int k) const { return neighbour_octs_[i * neighbours + static_cast<std::size_t>(k)]; }
  // The level-1 coarser cell at offset k (its son is neighbour_oct), or no_cell outside the box.
  CellIndex coarse_cell(std::size_t i, int k) const { return coarse_cells_[i * neighbours + static_cast<std::size_t>(k)]; }

 private:
  int level_ = -1;
  std::uint64_t generation_ = 0;
  bool with_ghosts_ = false;
  std::vector<OctIndex> octs_;
  std::vector<OctIndex> neighbour_octs_;
  std::vector<CellIndex> coarse_cells_;
};

// One cache per level, each refreshed when the mesh has changed since it was built.
template <int D, class Key>
class StencilCaches {
 public:
  explicit StencilCaches(bool with_ghosts = false) : with_ghosts_(with_ghosts) {}
  const OctStencilCache<D, Key>& get(const OctTree<D, Key>& tree, int level) {
    if (caches_.size() <= static_cast<std::size_t>(level)) caches_.resize(static_cast<std::size_t>(level) + 1);
    auto& cache = caches_[static_cast<std::size_t>(level)];
    cache.update(tree, level, with_ghosts_);
    return cache;
  }

 private:
  bool with_ghosts_ = false;
  std::vector<OctStencilCache<D, Key>> caches_;
};

}  // namespace kosmo::core
