#include "driver/mesh_update_report.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace kosmo::driver {

template <int D, class Key>
std::string mesh_update_summary(const parallel::DistributedMesh<D, Key>& mesh, const core::OctTree<D, Key>& tree) {
  if (!mesh.distributed()) return {};
  const parallel::DistributedMeshStats& s = mesh.stats();
  long long totals[5] = {s.mesh_changes.messages_sent, s.mesh_changes.bytes_sent, s.ghost_layer_bytes, s.redistribute.messages_sent,
                         s.redistribute.bytes_sent};
  MPI_Allreduce(MPI_IN_PLACE, totals, 5, MPI_LONG_LONG, MPI_SUM, mesh.comm());
  // The fields a time step refreshes in the ghosts (those of any ghost stage): the usual refresh.
  std::set<int> refreshed;
  for (core::GhostStage stage : {core::GhostStage::after_force_update, core::GhostStage::after_kicks, core::GhostStage::after_source_terms})
    for (int f : tree.fields().ghost_fields(stage)) refreshed.insert(f);
  const double calls = static_cast<double>(std::max<long long>(s.mesh_change_calls, 1));
  const double ranks = static_cast<double>(mesh.nrank());
  const double per_update = static_cast<double>(totals[1]) / calls / ranks;
  const double layer_all = static_cast<double>(totals[2]) / calls / ranks;
  const double layer_refreshed = layer_all * static_cast<double>(refreshed.size()) / static_cast<double>(std::max(tree.fields().size(), 1));
  char text[640];
  std::snprintf(text, sizeof text,
                " Mesh changes: %lld exchanges, per rank per exchange %.1f messages and %.4g bytes; one ghost-layer refresh "
                "on the same meshes %.4g bytes (all %d fields: ratio %.3f) or %.4g bytes (the %zu ghost-stage fields: ratio %.3f)\n"
                " Redistributions (load balance, restart): %lld, per rank per redistribution %.1f messages and %.4g bytes\n",
                s.mesh_change_calls, static_cast<double>(totals[0]) / calls / ranks, per_update, layer_all, tree.fields().size(),
                layer_all > 0 ? per_update / layer_all : 0.0, layer_refreshed, refreshed.size(),
                layer_refreshed > 0 ? per_update / layer_refreshed : 0.0, s.redistributions,
                static_cast<double>(totals[3]) / static_cast<double>(std::max<long long>(s.redistributions, 1)) / ranks,
                static_cast<double>(totals[4]) / static_cast<double>(std::max<long long>(s.redistributions, 1)) / ranks);
  return text;
}

template std::string mesh_update_summary<1, core::MortonKey>(const parallel::DistributedMesh<1, core::MortonKey>&, const core::OctTree<1, core::MortonKey>&);
template std::string mesh_update_summary<2, core::MortonKey>(const parallel::DistributedMesh<2, core::MortonKey>&, const core::OctTree<2, core::MortonKey>&);
template std::string mesh_update_summary<3, core::MortonKey>(const parallel::DistributedMesh<3, core::MortonKey>&, const core::OctTree<3, core::MortonKey>&);

}  // namespace kosmo::driver
