#pragma once
// The octree spread over MPI ranks (ARCHITECTURE §2, seeds/000 §2-3). Every oct has one owner: the
// rank whose k-section domain holds the oct's centre. A rank's tree holds the octs it owns, ghost
// copies of the other ranks' octs near them, and the ancestors of both; level 1 (the coarse grid)
// exists everywhere, its far octs idle.
//
// Ghost zone: an oct is copied to every rank whose domain overlaps the oct's box grown by
// 1.5 oct widths on every side. That covers everything a computation on an owned oct reads: its
// 3^D same-level neighbours, the 3^D neighbourhood of its father oct (coarse values interpolated
// at coarse-fine faces, RAMSES interpol_hydro), the sons of its cells (restriction), and the finer
// cells whose grading requests land on its cells (refinement). An ancestor's grown box contains
// its descendants', so every ghost arrives with its ancestors. Partners come from walks down the
// k-section tree (ranks_overlapping): no all-to-all of counts.
//
// Exchanges (seeds/000 §3.2.1): forward, owner -> ghosts, of any set of cell fields of a level
// (fine_dp / bulk_dp) and of integer flags (fine_int); reverse, ghost -> owner, of cell fields
// summed into the owner (particle deposits, reverse_dp / bulk_rev_dp) and of records keyed by cell
// (reflux contributions, bulk_rev_dp). The transport is one of the sparse_exchange backends.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/oct_tree.hpp"
#include "parallel/exchange_autotune.hpp"
#include "parallel/hilbert_decomposition.hpp"
#include "parallel/ksection_tree.hpp"
#include "parallel/sparse_exchange.hpp"

namespace kosmo::parallel {

// Messages put on the wire by each kind of exchange, for the instrumentation tests and the log.
// `mesh_changes` counts the exchanges of apply_mesh_changes (one per regrid that changed the mesh),
// `redistribute` those of redistribute() and scatter_octs(). Their yardstick, `ghost_layer_bytes`:
// the payload one forward exchange of every field at every level would send from this rank (one
// refresh of the whole ghost layer), summed over the calls of apply_mesh_changes, each on the mesh
// it left.
struct DistributedMeshStats {
  ExchangeStats redistribute, forward, flags, reverse, mesh_changes;
  long long forward_calls = 0, flag_calls = 0, reverse_calls = 0, redistributions = 0, mesh_change_calls = 0;
  long long ghost_layer_bytes = 0;
};

template <int D, class Key>
class DistributedMesh {
 public:
  using Tree = core::OctTree<D, Key>;

  // `exchange_method`: 'p2p', 'ksection' or 'alltoall' (forced), or 'auto': each exchange
  // component tunes its backend (seeds/000 §3.2.2, parallel/exchange_autotune.hpp).
  // `ordering`: 'ksection' (seeds/000 §2) or 'hilbert' (RAMSES' key ranges), who owns what.
  DistributedMesh(MPI_Comm comm, std::string_view exchange_method, std::string_view ordering = "ksection");

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int nrank() const { return nrank_; }
  bool distributed() const { return nrank_ > 1; }
  // Whether walls exist yet (set by the first classify_coarse_grid, redistribute, balance or adopt).
  bool has_decomposition() const { return has_decomposition_; }
  const ExchangeAutoTuner& tuner() const { return tuner_; }
  // The tuner's decisions since the last call (trial results and switches), for the run log.
  std::vector<std::string> drain_tuning_log() { return tuner_.drain_log(); }
  bool hilbert() const { return hilbert_.has_value(); }
  // For output metadata: "" on one rank (nothing is distributed), "ksection", or
  // "hilbert_skilling" — not "hilbert", which RAMSES readers take as RAMSES' own curve and its
  // DOMAIN key table (kosmo's curve has Skilling's sub-cube orientation, parallel/hilbert_curve.hpp).
  std::string ordering_name() const { return nrank_ == 1 ? "" : (use_hilbert_ ? "hilbert_skilling" : "ksection"); }
  // The k-section tree: the decomposition with ordering='ksection'; with 'hilbert' a geometric
  // tree that only routes the hierarchical exchange backend.
  const KSectionTree& decomposition() const { return decomposition_; }
  // The Hilbert key ranges (ordering='hilbert' only).
  const HilbertDecomposition& hilbert_decomposition() const { return *hilbert_; }
  const DistributedMeshStats& stats() const { return stats_; }

  // The k-section domain of the tree's box in the decomposition's 3-D coordinates (axes beyond D
  // are a sliver that is never split).
  static Box domain_box(const Tree& tree);
  // A geometric k-section of the tree's box (equal volumes): the decomposition before any cost is
  // known, and the one a restart on a new rank count starts from (seeds/000 §7.1).
  void set_uniform_decomposition(const Tree& tree);
  // Walls from the memory-weighted cost of every rank's owned octs (seeds/000 §2.2-2.3):
  // `cost_per_oct[l]` is this rank's cost of one oct of level l (eq. 5's w_grid, times eq. 12's
  // time-blend factor of the level when time_balance_alpha > 0), plus `point_costs[i]` at each of
  // `points` (this rank's particles at their positions, eq. 4's w_part n_part: a particle belongs to
  // the rank whose domain holds it, so its cost sits where it is). Collective. Call redistribute()
  // next to move the octs.
  void balance_decomposition(const Tree& tree, std::span<const double> cost_per_oct,
                             std::span<const std::array<double, 3>> points = {}, std::span<const double> point_costs = {});

  // The decomposition as a checkpoint stores it (KSectionTree::all_walls or Hilbert bound keys),
  // and adopting a stored one: a restart on the same rank count with the same ordering keeps the
  // walls it was written with (seeds/000 §7.1). adopt_* returns false when the stored one does not
  // fit this run (another ordering, rank count or domain); the caller then balances afresh.
  std::vector<double> ksection_walls() const;
  std::vector<std::uint64_t> hilbert_bounds() const;
  bool adopt_decomposition(const Tree& tree, std::span<const double> ksection_walls, std::span<const std::uint64_t> hilbert_bounds);

  // Rank owning oct o under the current decomposition.
  int owner(const Tree& tree, core::OctIndex o) const;
  // Rank whose domain holds the point x (code length units, inside the box [0, extent) on every
  // axis; the caller wraps periodic positions first): the rule owner() applies to an oct's centre,
  // so a particle sitting on an oct's centre has that oct's owner, and a point on a wall goes to the
  // domain above it (half-open slabs, KSectionTree::owner; Hilbert: the key's range). The axes
  // beyond D sit at 0, as owner() places them. 0 on one rank.
  int owner_of_position(const std::array<double, D>& x) const;

  // Roles of a fresh tree that holds only level 1, identical on every rank: each rank marks what
  // it owns, what it keeps as ghost and what is idle, and builds its exchange lists. No messages.
  void classify_coarse_grid(Tree& tree);

  // After a change of the decomposition (load balance), or of the mesh when mesh_update =
  // 'redistribute' (the reference for apply_mesh_changes): every rank sends each oct it owned
  // (all fields) to the oct's owner under the current decomposition and to every rank whose ghost
  // zone holds it; every rank then rebuilds its tree from what it received (its own octs
  // included), so ghosts are fresh and octs have migrated. Collective.
  void redistribute(Tree& tree);
  // After a regrid that kept the decomposition (core::regrid with flags synchronised to the ghosts,
  // which mirrors every creation and destruction on the ghost copies): only what changed moves
  // (seeds/000 §3). `created` are the octs the regrid created on this rank, `restricted` the
  // surviving octs whose cells lost their son (core::RegridCounts). Each rank keeps a new oct it
  // owns or whose grown box overlaps its domain and destroys the others; the owner of each new
  // oct's father sends its copy, and the owner of each restricted oct its restricted values, to the
  // ranks that keep them; level and exchange lists are rebuilt locally. Unchanged ghosts do not
  // travel: the result is the state redistribute() gives in every owned cell and in every ghost
  // cell of the fields the ghost stages refresh and of the changed octs, in the same pool order.
  // Collective.
  void apply_mesh_changes(Tree& tree, std::span<const core::OctIndex> created, std::span<const core::OctIndex> restricted);
  // Restart: octs read from a file, any share of them on any rank (level, key, and 2^D values of
  // every field of the tree in registration order per oct), go to their owners and ghost holders,
  // and the tree is rebuilt from them as in redistribute(). Collective.
  void scatter_octs(Tree& tree, std::span<const int> levels, std::span<const Key> keys, std::span<const double> values);

  // Payload bytes one forward exchange of `field_count` fields at every level sends from this rank.
  long long ghost_layer_bytes(int field_count) const;
  // Forward exchange of cell fields of one level, owners -> ghosts. Collective.
  void exchange_fields(Tree& tree, int level, std::span<const int> fields);
  // Forward exchange of one byte per cell (refinement flags, indexed by cell), owners -> ghosts.
  void exchange_flags(const Tree& tree, int level, std::vector<std::uint8_t>& flags);

  // Reverse exchange of cell fields of one level, ghosts -> owners (RAMSES make_virtual_reverse_dp):
  // every rank sends the values of `fields` in the cells of its ghost octs of `level` to their
  // owners, which ADD them to their own cells. The ghost cells keep their values, as in RAMSES: a
  // caller that accumulates (a CIC deposit) zeroes its ghosts before, and calls exchange_fields
  // after when the ghosts must see the sums. Deterministic: an owner adds the contributions in
  // source-rank order, each message in the Morton order of the exchange lists, so the sums do not
  // depend on the thread count; across rank counts they differ by round-off only (another rank
  // count changes which contributions meet in one cell, hence the order of the additions).
  // One field is seeds/000 §3.2.1's reverse_dp, several at once bulk_rev_dp. Collective.
  void reverse_accumulate(Tree& tree, int level, std::span<const int> fields);

  // Reverse exchange of keyed records to the owners of the cells they target. Each outgoing record
  // names its destination rank; the payload is `width` doubles. Returns what this rank received,
  // concatenated in source-rank order. Collective.
  // The sources are the ranks that keep this rank's octs of `target_level` as ghosts, the only ones
  // that can target its cells there.
  std::vector<double> send_to_owners(int target_level, const std::vector<int>& destinations, const std::vector<double>& payloads,
                                     int width);

  // Sum, min, max over ranks (the only global reductions a step needs).
  double sum(double local) const;
  double min(double local) const;
  double max(double local) const;
  long long sum(long long local) const;

  // Packs a key into doubles (bit copies) for the wire, and back.
  static constexpr int key_words = static_cast<int>((sizeof(Key) + sizeof(double) - 1) / sizeof(double));
  static void pack_key(Key key, std::vector<double>& out);
  static Key unpack_key(const double* in);

 private:
  Box grown_box(const Tree& tree, core::OctIndex o) const;
  Box grown_box(const Tree& tree, int level, const typename Tree::Coordinates& coordinates) const;
  void deliver_and_rebuild(Tree& tree, std::map<int, std::vector<double>>& outgoing_by_rank);
  // Appends one oct's record (level, key, every field's 2^D values) for the wire.
  void pack_oct(const Tree& tree, core::OctIndex o, std::vector<double>& out) const;
  // The new octs this rank keeps (owned, or ghost: its domain overlaps their grown box), after
  // destroying the others; their roles are set.
  std::vector<core::OctIndex> keep_needed_new_octs(Tree& tree, std::span<const core::OctIndex> created);
  std::vector<int> ranks_overlapping(const Box& box) const;
  int owner_of_point(const std::array<double, 3>& point) const;
  void build_exchange_lists(const Tree& tree);
  std::vector<int> partners_of(const Tree& tree, core::OctIndex o) const;  // other ranks holding o as ghost
  // One exchange of `component` through the backend the tuner picks, timed for it.
  std::vector<Message> exchange(ExchangeComponent component, const std::vector<Message>& outgoing, const std::vector<int>& sources,
                                ExchangeStats& stats);

  MPI_Comm comm_;
  int rank_ = 0, nrank_ = 1;
  ExchangeAutoTuner tuner_;
  KSectionTree decomposition_;
  bool has_decomposition_ = false;
  bool use_hilbert_ = false;
  std::optional<HilbertDecomposition> hilbert_;
  // Per level: to each partner, the owned octs it keeps as ghosts; from each partner, the ghost
  // octs it owns. Both in Morton order, so the two sides of a message agree without indices.
  struct Partner {
    int rank;
    std::vector<core::OctIndex> octs;
  };
  std::vector<std::vector<Partner>> send_lists_, receive_lists_;
  // One exchange of per-oct data at `level`: to each partner of `to`, pack(oct, message) appends
  // `values_per_oct` values for each of its octs; each message received (from `sources`) is matched
  // to its sender's list in `from` and unpack(oct, values) reads those values back oct by oct, in
  // the Morton order of the lists. `what` names the exchange in error messages.
  template <class Pack, class Unpack>
  void exchange_per_oct(int level, const std::vector<Partner>& to, const std::vector<Partner>& from, const std::vector<int>& sources,
                        std::size_t values_per_oct, ExchangeComponent component, ExchangeStats& stats, const char* what, Pack pack,
                        Unpack unpack);
  std::vector<std::vector<int>> sources_;  // per level: ranks this rank receives ghosts from
  DistributedMeshStats stats_;
};

}  // namespace kosmo::parallel
