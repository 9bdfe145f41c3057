#pragma once
// What a distributed run prints about keeping its mesh consistent across ranks after regrids
// (seeds/000 §3: only what changed moves): the messages and bytes of the mesh-change exchanges,
// against one refresh of the whole ghost layer on the same meshes.
#include <string>

#include "core/oct_tree.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::driver {

// Lines for the end-of-run report, identical on every rank; empty on one rank. Collective.
template <int D, class Key>
std::string mesh_update_summary(const parallel::DistributedMesh<D, Key>& mesh, const core::OctTree<D, Key>& tree);

}  // namespace kosmo::driver
