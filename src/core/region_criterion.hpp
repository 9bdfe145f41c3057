#pragma once
// Refinement everywhere the geometric region of each level permits, as RAMSES with m_refine = 0
// and &REFINE_PARAMS regions: the region of level l (regions[l - 1], the last one beyond the end)
// restricts where cells of level l may refine; a level without a region refines everywhere.
#include <vector>

#include "core/refine_region.hpp"
#include "core/refinement.hpp"

namespace kosmo::core {

template <int D, class Key>
RefinementCriterion<D, Key> region_criterion(std::vector<RefineRegion> regions) {
  return [regions = std::move(regions)](const OctTree<D, Key>& tree, int level, std::vector<std::uint8_t>& flags) {
    using Tree = OctTree<D, Key>;
    const std::size_t i = std::min(static_cast<std::size_t>(level - 1), regions.size() - 1);
    const RefineRegion& region = regions[i];
    for (OctIndex o : tree.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        if (!region.restricts() || region.contains<D>(tree.cell_centre(cell))) flags[cell] = 1;
      }
  };
}

}  // namespace kosmo::core
