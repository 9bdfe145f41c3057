#pragma once
// After an injection into leaf cells (supernova blasts, AGN), RAMSES' upload_fine and
// make_virtual_fine: the refined cells take the mean of their sons again, finest level first, each
// level's ghosts refreshed before the level above reads them. Shared by the supernova and AGN
// feedback (docs/galaxy.md "Supernova feedback", "AGN feedback"). Collective.
#include <vector>

#include "core/oct_tree.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::feedback {

template <int D>
void restrict_after_injection(core::OctTree<D, core::MortonKey>& tree, parallel::DistributedMesh<D, core::MortonKey>& mesh,
                              const std::vector<int>& fields, int levelmin);

}  // namespace kosmo::feedback
