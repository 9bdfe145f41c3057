#pragma once
// For every oct of a level, the 3^D octs around it (same level) or, where there is none, the
// coarser cell to interpolate from: the neighbourhood the hydro kernel gathers (RAMSES godfine1
// gathers the 3^D neighbouring father cells of each grid). Looked up once per mesh generation,
// so the flux loop does no hash lookup (ARCHITECTURE §1, seeds/000 App. D.1).
#include <vector>

#include "core/oct_tree.hpp"

namespace kosmo::hydro {

template <int D, class Key>
class OctStencilCache {
 public:
  static constexpr int neighbours = D == 1 ? 3 : (D == 2 ? 9 : 27);

  // Offset k = sum_d (o_d + 1) 3^d, o_d in {-1, 0, 1}; k = (neighbours - 1) / 2 is the oct itself.
  static constexpr int offset_along(int k, int d) {
    for (int i = 0; i < d; ++i) k /= 3;
    return k % 3 - 1;
  }

  void update(const core::OctTree<D, Key>& tree, int level) {
    if (level == level_ && generation_ == tree.generation() && valid_) return;
    level_ = level;
    generation_ = tree.generation();
    valid_ = true;
    const auto& octs = tree.octs_at_level(level);
    const std::size_t n = octs.size();
    octs_.assign(octs.begin(), octs.end());
    neighbour_octs_.resize(n * neighbours);
    coarse_cells_.resize(n * neighbours);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const core::OctIndex o = octs[i];
      for (int k = 0; k < neighbours; ++k) {
        core::OctIndex neighbour = core::no_oct;
        core::CellIndex coarse = core::no_cell;
        if (level == 1) {
          // Level-1 octs tile the coarse grid and always exist.
          std::array<int, D> offset{};
          for (int d = 0; d < D; ++d) offset[d] = offset_along(k, d);
          Key key;
          if (core::MortonCodec<D, Key>::offset_key(tree.key(o), offset, tree.extent(1), tree.geometry().periodic, key))
            neighbour = tree.find_oct(1, key);
        } else {
          auto c = tree.cell_coordinates(tree.father_cell(o));
          for (int d = 0; d < D; ++d) c[d] += offset_along(k, d);
          coarse = tree.find_cell(level - 1, c);
          if (coarse != core::no_cell) neighbour = tree.son(coarse);
        }
        neighbour_octs_[i * neighbours + static_cast<std::size_t>(k)] = neighbour;
        coarse_cells_[i * neighbours + static_cast<std::size_t>(k)] = coarse;
      }
    }
  }

  void invalidate() { valid_ = false; }
  std::size_t size() const { return octs_.size(); }
  core::OctIndex oct(std::size_t i) const { return octs_[i]; }
  // Same-level oct at offset k, or no_oct.
  core::OctIndex neighbour_oct(std::size_t i, int k) const { return neighbour_octs_[i * neighbours + static_cast<std::size_t>(k)]; }
  // The level-1 coarser cell at offset k (its son is neighbour_oct), or no_cell outside the box.
  core::CellIndex coarse_cell(std::size_t i, int k) const { return coarse_cells_[i * neighbours + static_cast<std::size_t>(k)]; }

 private:
  int level_ = -1;
  std::uint64_t generation_ = 0;
  bool valid_ = false;
  std::vector<core::OctIndex> octs_;
  std::vector<core::OctIndex> neighbour_octs_;
  std::vector<core::CellIndex> coarse_cells_;
};

}  // namespace kosmo::hydro
