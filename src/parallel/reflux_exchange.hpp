#pragma once
// Reflux contributions for coarse cells of other ranks go to their owners (seeds/000 §3.2.1's
// reverse exchange); the owner then applies all of a cell's contributions in one-rank order, so
// refluxed sums are the same bits on any number of ranks. The contributions are the hydro
// solver's (hydro/hydro_solver.hpp RefluxContribution: fine_key, sequence, coarse cell, offset of
// `nvar` values), kept generic here so that parallel/ does not depend on hydro/.
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/oct_tree.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::parallel {

// Keeps the contributions whose coarse cell this rank owns, sends the others to the coarse cell's
// owner, and appends the ones received (their coarse cell translated to this rank's index).
// Collective when the mesh is distributed; `level` is the fine level.
template <int D, class Key, class Contribution>
void exchange_reflux(DistributedMesh<D, Key>& mesh, const core::OctTree<D, Key>& tree, int level, int nvar,
                     std::vector<Contribution>& pending, std::vector<double>& values) {
  using Tree = core::OctTree<D, Key>;
  using Mesh = DistributedMesh<D, Key>;
  if (!mesh.distributed() || level <= 1) return;
  const int width = 2 * Mesh::key_words + 2 + nvar;  // fine key, sequence, coarse oct key, child, values
  std::vector<int> destinations;
  std::vector<double> payloads;
  std::vector<Contribution> kept;
  std::vector<double> kept_values;
  for (const auto& r : pending) {
    const core::OctIndex coarse_oct = Tree::oct_of(r.coarse);
    const double* v = values.data() + r.offset;
    if (tree.role(coarse_oct) == core::OctRole::owned) {
      kept.push_back({r.fine_key, r.sequence, r.coarse, kept_values.size()});
      kept_values.insert(kept_values.end(), v, v + nvar);
      continue;
    }
    destinations.push_back(mesh.owner(tree, coarse_oct));
    Mesh::pack_key(r.fine_key, payloads);
    payloads.push_back(static_cast<double>(r.sequence));
    Mesh::pack_key(tree.key(coarse_oct), payloads);
    payloads.push_back(static_cast<double>(Tree::child_of(r.coarse)));
    payloads.insert(payloads.end(), v, v + nvar);
  }
  const std::vector<double> received = mesh.send_to_owners(level - 1, destinations, payloads, width);
  for (std::size_t at = 0; at < received.size(); at += static_cast<std::size_t>(width)) {
    const double* in = received.data() + at;
    const Key fine_key = Mesh::unpack_key(in);
    const auto sequence = static_cast<std::uint32_t>(in[Mesh::key_words]);
    const core::OctIndex coarse_oct = tree.find_oct(level - 1, Mesh::unpack_key(in + Mesh::key_words + 1));
    KOSMO_REQUIRE(coarse_oct != core::no_oct && tree.role(coarse_oct) == core::OctRole::owned,
                  "hydro: a reflux contribution arrived for a cell this rank does not own");
    const auto child = static_cast<int>(in[2 * Mesh::key_words + 1]);
    kept.push_back({fine_key, sequence, Tree::cell_index(coarse_oct, child), kept_values.size()});
    kept_values.insert(kept_values.end(), in + 2 * Mesh::key_words + 2, in + width);
  }
  pending.swap(kept);
  values.swap(kept_values);
}

}  // namespace kosmo::parallel
