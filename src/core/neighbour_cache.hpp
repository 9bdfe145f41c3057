#pragma once
// Per-level neighbour cache for hot loops (seeds/000 Appendix D.1, eq. 16): the face-neighbour
// octs and father cells of every oct of a level, looked up once in the hash tables and stored
// contiguously. Build it before a sweep, use it, drop it: its memory is transient.
#include <vector>

#include "core/oct_tree.hpp"

namespace kosmo::core {

template <int D, class Key>
class NeighbourCache {
 public:
  static constexpr int directions = 2 * D;

  NeighbourCache(const OctTree<D, Key>& tree, int level) : level_(level), octs_(tree.octs_at_level(level)) {
    const std::size_t n = octs_.size();
    neighbour_octs_.resize(n * directions);
    neighbour_cells_.resize(n * directions);
    // Read-only hash lookups: safe to share between threads.
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      for (int dir = 0; dir < directions; ++dir) {
        neighbour_octs_[i * directions + static_cast<std::size_t>(dir)] = tree.neighbour_oct(octs_[i], dir);
        neighbour_cells_[i * directions + static_cast<std::size_t>(dir)] = tree.neighbour_cell(octs_[i], dir);
      }
    }
  }

  int level() const { return level_; }
  std::size_t size() const { return octs_.size(); }
  // The i-th oct of the level (Morton order) and its neighbours, as tree.neighbour_oct/_cell give.
  OctIndex oct(std::size_t i) const { return octs_[i]; }
  OctIndex neighbour_oct(std::size_t i, int dir) const { return neighbour_octs_[i * directions + static_cast<std::size_t>(dir)]; }
  CellIndex neighbour_cell(std::size_t i, int dir) const { return neighbour_cells_[i * directions + static_cast<std::size_t>(dir)]; }
  std::size_t bytes() const {
    return octs_.capacity() * sizeof(OctIndex) + neighbour_octs_.capacity() * sizeof(OctIndex) +
           neighbour_cells_.capacity() * sizeof(CellIndex);
  }

 private:
  int level_;
  std::vector<OctIndex> octs_;
  std::vector<OctIndex> neighbour_octs_;
  std::vector<CellIndex> neighbour_cells_;
};

}  // namespace kosmo::core
