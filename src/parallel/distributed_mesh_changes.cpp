// Incremental mesh maintenance after a regrid (seeds/000 §3): only the octs that changed travel.
//
// Why the regrid has already put every new oct where it is needed. A rank needs an oct S of level
// l + 1 when it owns S (its domain holds S's centre) or its domain overlaps grown_box(S), S's box
// grown by 1.5 widths of S. S's box lies inside its father oct F's box and S is half as wide, so
// grown_box(S) lies inside F's box grown by 0.75 widths of F, inside grown_box(F); S's centre lies
// inside grown_box(S). So every rank that needs S overlaps grown_box(F) and holds F (owned or as a
// ghost). The regrid synchronises F's refinement flags to every holder of F, so each of them
// created S (a son takes its father's role), even where S's owner differs from F's (a wall may cross
// F). The same argument, run backwards, says every holder of a destroyed oct holds its father and
// destroyed it too. What is left is local (drop the new octs a rank does not need, set the roles)
// plus values: a ghost's son was prolongated from ghost values, which may be stale in fields no
// stage refreshes, and a ghost that lost a son it never held was not restricted at all. So the
// owners' copies are sent, as redistribute() would send them: each new oct from the owner of its
// father (the one rank where it was created as owned) to every other rank that keeps it, its own
// owner included; each restricted oct from its owner to its ghost holders. Every destination holds
// the father (or the oct itself) as a ghost of the sender, so the partners are those of the ghost
// exchange before the regrid, and p2p needs no count exchange.
//
// An unchanged ghost oct does not travel. The fields a stage reads on ghosts are refreshed by that
// stage (core::GhostStage) or set on owned and ghost cells alike (the potential's history, the
// hydro's pending kick time); the others are scratch that a stage writes on the ghosts it reads
// before reading them. So a regrid sends the records of the changed octs only, where a refresh of
// the ghost layer would send every ghost (docs/performance.md, "Ranks: the mesh after a regrid").
#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::parallel {

template <int D, class Key>
void DistributedMesh<D, Key>::pack_oct(const Tree& tree, core::OctIndex o, std::vector<double>& out) const {
  constexpr int ncell = Tree::cells_per_oct;
  out.push_back(static_cast<double>(tree.level(o)));
  pack_key(tree.key(o), out);
  for (int f = 0; f < tree.fields().size(); ++f) {
    const double* values = tree.field(f) + Tree::cell_index(o, 0);
    out.insert(out.end(), values, values + ncell);
  }
}

template <int D, class Key>
std::vector<core::OctIndex> DistributedMesh<D, Key>::keep_needed_new_octs(Tree& tree, std::span<const core::OctIndex> created) {
  // A new oct has no sons (a regrid pass adds at most one level and new cells carry no flags), so
  // each can be destroyed on its own. No oct is created here, so no freed index is reused.
  std::vector<core::OctIndex> kept;
  for (core::OctIndex s : created) {
    KOSMO_REQUIRE(tree.alive(s) && tree.level(s) >= 2, "distributed mesh: a created oct is not alive");
    if (owner(tree, s) == rank_) {
      tree.set_role(s, core::OctRole::owned);
    } else {
      const auto ranks = ranks_overlapping(grown_box(tree, s));
      if (!std::binary_search(ranks.begin(), ranks.end(), rank_)) {
        tree.destroy_son(tree.father_cell(s));  // the son of a ghost cell this rank does not need
        continue;
      }
      tree.set_role(s, core::OctRole::ghost);
    }
    kept.push_back(s);
  }
  return kept;
}

template <int D, class Key>
void DistributedMesh<D, Key>::apply_mesh_changes(Tree& tree, std::span<const core::OctIndex> created,
                                                 std::span<const core::OctIndex> restricted) {
  KOSMO_REQUIRE(has_decomposition_, "distributed mesh: apply_mesh_changes before any decomposition");
  // The partners of the ghost exchange before the regrid, over all levels: this rank sends to the
  // ranks keeping any of its octs and hears from the owners of its ghosts (the same relation seen
  // from both ends), one message each way even when empty, as p2p requires.
  std::set<int> send_partners, sources;
  for (const auto& level : send_lists_)
    for (const Partner& p : level) send_partners.insert(p.rank);
  for (const auto& level : sources_) sources.insert(level.begin(), level.end());
  std::map<int, std::vector<double>> outgoing_by_rank;
  for (int partner : send_partners) outgoing_by_rank[partner];
  const auto send = [&](core::OctIndex o, const std::vector<int>& destinations) {
    for (int destination : destinations) {
      if (destination == rank_) continue;
      KOSMO_REQUIRE(send_partners.count(destination) != 0, "distributed mesh: a changed oct of level "
                                                               << tree.level(o) << " must go to rank " << destination
                                                               << ", which keeps no oct of this rank");
      pack_oct(tree, o, outgoing_by_rank[destination]);
    }
  };
  // Created as owned here means the father is owned here: this rank's copy is the owner's.
  std::set<core::OctIndex> authored;
  for (core::OctIndex s : created)
    if (tree.role(s) == core::OctRole::owned) {
      send(s, ranks_overlapping(grown_box(tree, s)));
      authored.insert(s);
    }
  for (core::OctIndex o : restricted)
    if (tree.role(o) == core::OctRole::owned) send(o, partners_of(tree, o));

  const std::vector<core::OctIndex> kept = keep_needed_new_octs(tree, created);
  std::vector<Message> outgoing;
  for (auto& [destination, data] : outgoing_by_rank) outgoing.push_back({destination, std::move(data)});
  const auto incoming = sparse_exchange(comm_, ExchangeMethod::p2p, outgoing, {sources.begin(), sources.end()}, &decomposition_,
                                        &stats_.mesh_changes);
  ++stats_.mesh_change_calls;

  constexpr int ncell = Tree::cells_per_oct;
  const int nfield = tree.fields().size();
  const std::size_t record = static_cast<std::size_t>(1 + key_words + nfield * ncell);
  std::set<core::OctIndex> refreshed;
  for (const Message& m : incoming) {
    KOSMO_REQUIRE(m.data.size() % record == 0, "distributed mesh: a mesh-change message from rank " << m.rank << " is truncated");
    for (std::size_t at = 0; at < m.data.size(); at += record) {
      const int level = static_cast<int>(m.data[at]);
      const core::OctIndex o = tree.find_oct(level, unpack_key(m.data.data() + at + 1));
      KOSMO_REQUIRE(o != core::no_oct && tree.role(o) != core::OctRole::idle,
                    "distributed mesh: rank " << m.rank << " sent a changed oct of level " << level << " this rank does not keep");
      const double* values = m.data.data() + at + 1 + key_words;
      for (int f = 0; f < nfield; ++f) std::copy_n(values + f * ncell, ncell, tree.field(f) + Tree::cell_index(o, 0));
      refreshed.insert(o);
    }
  }
  for (core::OctIndex s : kept)
    KOSMO_REQUIRE(authored.count(s) != 0 || refreshed.count(s) != 0,
                  "distributed mesh: no rank sent the values of a new oct of level " << tree.level(s) << " this rank keeps");
  // The pool in (level, key) order and the lists sorted by key, exactly as after redistribute(), so
  // that every sum over octs adds in the same order.
  tree.compact();
  build_exchange_lists(tree);
  stats_.ghost_layer_bytes += ghost_layer_bytes(nfield);
}

template <int D, class Key>
long long DistributedMesh<D, Key>::ghost_layer_bytes(int field_count) const {
  long long octs = 0;
  for (const auto& level : send_lists_)
    for (const Partner& p : level) octs += static_cast<long long>(p.octs.size());
  return octs * field_count * Tree::cells_per_oct * static_cast<long long>(sizeof(double));
}

#define KOSMO_INSTANTIATE_MESH_CHANGES(D, Key)                                                                                   \
  template void DistributedMesh<D, Key>::pack_oct(const Tree&, core::OctIndex, std::vector<double>&) const;                     \
  template std::vector<core::OctIndex> DistributedMesh<D, Key>::keep_needed_new_octs(Tree&, std::span<const core::OctIndex>); \
  template void DistributedMesh<D, Key>::apply_mesh_changes(Tree&, std::span<const core::OctIndex>, std::span<const core::OctIndex>); \
  template long long DistributedMesh<D, Key>::ghost_layer_bytes(int) const;
KOSMO_INSTANTIATE_MESH_CHANGES(1, std::uint64_t)
KOSMO_INSTANTIATE_MESH_CHANGES(2, std::uint64_t)
KOSMO_INSTANTIATE_MESH_CHANGES(3, std::uint64_t)
KOSMO_INSTANTIATE_MESH_CHANGES(1, core::UInt128)
KOSMO_INSTANTIATE_MESH_CHANGES(2, core::UInt128)
KOSMO_INSTANTIATE_MESH_CHANGES(3, core::UInt128)
#undef KOSMO_INSTANTIATE_MESH_CHANGES

}  // namespace kosmo::parallel
