#include "parallel/distributed_mesh.hpp"
#include "parallel/tuned_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/error.hpp"
#include "parallel/distributed_cost_source.hpp"

namespace kosmo::parallel {
namespace {

// Grown-box margin in oct widths (see the header: 1.5 covers every read of an owned oct's work).
constexpr double ghost_margin = 1.5;

// The sliver the axes beyond D occupy in the decomposition's 3-D box: never the longest axis, so
// never split, and every point sits at its lower edge.
constexpr double unused_axis_extent = 1e-9;

}  // namespace

template <int D, class Key>
DistributedMesh<D, Key>::DistributedMesh(MPI_Comm comm, std::string_view exchange_method, std::string_view ordering)
    : comm_(comm), tuner_(autotune_settings_for_exchange_method(exchange_method)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &nrank_);
  KOSMO_REQUIRE(ordering == "ksection" || ordering == "hilbert",
                "distributed mesh: unknown ordering '" << ordering << "' (valid: ksection, hilbert)");
  use_hilbert_ = ordering == "hilbert";
}

template <int D, class Key>
std::vector<int> DistributedMesh<D, Key>::ranks_overlapping(const Box& box) const {
  return hilbert_ ? hilbert_->ranks_overlapping(box) : decomposition_.ranks_overlapping(box);
}

template <int D, class Key>
int DistributedMesh<D, Key>::owner_of_point(const std::array<double, 3>& point) const {
  return hilbert_ ? hilbert_->owner(point) : decomposition_.owner(point);
}

template <int D, class Key>
std::vector<Message> DistributedMesh<D, Key>::exchange(ExchangeComponent component, const std::vector<Message>& outgoing,
                                                       const std::vector<int>& sources, ExchangeStats& stats) {
  return tuned_exchange(comm_, tuner_, component, outgoing, sources, &decomposition_, stats);
}

template <int D, class Key>
Box DistributedMesh<D, Key>::domain_box(const Tree& tree) {
  Box box;
  const double oct_width = 2.0 * tree.cell_size(1);
  for (int d = 0; d < 3; ++d) {
    box.lo[d] = 0.0;
    box.hi[d] = d < D ? static_cast<double>(tree.extent(1)[d]) * oct_width : unused_axis_extent * oct_width;
  }
  return box;
}

template <int D, class Key>
void DistributedMesh<D, Key>::set_uniform_decomposition(const Tree& tree) {
  UniformCostSource uniform;
  decomposition_ = KSectionTree::build(nrank_, domain_box(tree), uniform);
  if (use_hilbert_) hilbert_ = HilbertDecomposition::uniform(nrank_, domain_box(tree));
  has_decomposition_ = true;
}

template <int D, class Key>
void DistributedMesh<D, Key>::balance_decomposition(const Tree& tree, std::span<const double> cost_per_oct,
                                                     std::span<const std::array<double, 3>> points,
                                                     std::span<const double> point_costs) {
  KOSMO_REQUIRE(cost_per_oct.size() > static_cast<std::size_t>(tree.levelmax()),
                "distributed mesh: balance_decomposition needs a cost per oct for levels 1.." << tree.levelmax());
  KOSMO_REQUIRE(points.size() == point_costs.size(),
                "distributed mesh: balance_decomposition got " << points.size() << " points and " << point_costs.size() << " costs");
  // Each oct's whole cost sits at its centre, the point that decides its owner, so the histogram
  // the walls are placed on counts exactly what each side of a wall will hold.
  std::vector<std::array<double, 3>> centres;
  std::vector<double> costs;
  int finest = 1;
  for (int l = 1; l <= tree.levelmax(); ++l) {
    if (!tree.octs_at_level(l).empty()) finest = l;
    const double width = 2.0 * tree.cell_size(l);
    for (core::OctIndex o : tree.octs_at_level(l)) {
      const auto c = tree.coordinates(o);
      std::array<double, 3> p{0.0, 0.0, 0.0};
      for (int d = 0; d < D; ++d) p[d] = (static_cast<double>(c[d]) + 0.5) * width;
      centres.push_back(p);
      costs.push_back(cost_per_oct[static_cast<std::size_t>(l)]);
    }
  }
  centres.insert(centres.end(), points.begin(), points.end());
  costs.insert(costs.end(), point_costs.begin(), point_costs.end());
  int finest_global = finest;
  MPI_Allreduce(&finest, &finest_global, 1, MPI_INT, MPI_MAX, comm_);
  // Walls on faces of the finest cells, at most 8192 bins along a domain (seeds/000 §2.2 step 1).
  std::int64_t widest = 1;
  for (int d = 0; d < D; ++d) widest = std::max<std::int64_t>(widest, tree.extent(1)[d]);
  WallSettings settings;
  settings.bins_per_domain = static_cast<int>(std::min<std::int64_t>(widest << finest_global, 8192));
  if (use_hilbert_) {
    hilbert_ = HilbertDecomposition::balanced(comm_, domain_box(tree), centres, costs);
    if (!has_decomposition_) {
      UniformCostSource uniform;
      decomposition_ = KSectionTree::build(nrank_, domain_box(tree), uniform);
    }
  } else {
    DistributedCostSource source(comm_, std::move(centres), std::move(costs));
    decomposition_ = KSectionTree::build(nrank_, domain_box(tree), source, settings);
  }
  has_decomposition_ = true;
}

template <int D, class Key>
std::vector<double> DistributedMesh<D, Key>::ksection_walls() const {
  if (nrank_ == 1 || hilbert_ || !has_decomposition_) return {};
  return {decomposition_.all_walls().begin(), decomposition_.all_walls().end()};
}

template <int D, class Key>
std::vector<std::uint64_t> DistributedMesh<D, Key>::hilbert_bounds() const {
  if (nrank_ == 1 || !hilbert_) return {};
  return hilbert_->bounds();
}

template <int D, class Key>
bool DistributedMesh<D, Key>::adopt_decomposition(const Tree& tree, std::span<const double> ksection_walls,
                                                  std::span<const std::uint64_t> hilbert_bounds) {
  if (nrank_ == 1) return false;
  const Box domain = domain_box(tree);
  UniformCostSource uniform;
  if (use_hilbert_) {
    if (hilbert_bounds.size() != static_cast<std::size_t>(nrank_) + 1) return false;
    hilbert_ = HilbertDecomposition::from_bounds(domain, {hilbert_bounds.begin(), hilbert_bounds.end()});
    decomposition_ = KSectionTree::build(nrank_, domain, uniform);  // routes the hierarchical backend only
  } else {
    if (ksection_walls.empty()) return false;
    try {
      decomposition_ = KSectionTree::from_walls(nrank_, domain, ksection_walls);
    } catch (const Error&) {
      return false;  // written for another rank count or domain
    }
  }
  has_decomposition_ = true;
  return true;
}

template <int D, class Key>
int DistributedMesh<D, Key>::owner(const Tree& tree, core::OctIndex o) const {
  const auto c = tree.coordinates(o);
  const double width = 2.0 * tree.cell_size(tree.level(o));
  std::array<double, 3> centre{0.0, 0.0, 0.0};
  for (int d = 0; d < D; ++d) centre[d] = (static_cast<double>(c[d]) + 0.5) * width;
  return owner_of_point(centre);
}

template <int D, class Key>
int DistributedMesh<D, Key>::owner_of_position(const std::array<double, D>& x) const {
  if (nrank_ == 1) return 0;
  KOSMO_REQUIRE(has_decomposition_, "distributed mesh: owner_of_position called before any decomposition exists");
  // The decomposition's box is domain_box(tree): axes 0..D-1 span the tree's box, the rest are the
  // unsplit sliver whose lower edge (0) owner() uses for an oct centre's missing coordinates.
  const Box& domain = decomposition_.domain();
  std::array<double, 3> point{0.0, 0.0, 0.0};
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    KOSMO_REQUIRE(x[axis] >= domain.lo[axis] && x[axis] < domain.hi[axis],
                  "distributed mesh: position " << x[axis] << " on axis " << d << " is outside the box [" << domain.lo[axis] << ", "
                                                << domain.hi[axis] << "); wrap periodic positions before asking for their owner");
    point[axis] = x[axis];
  }
  return owner_of_point(point);
}

template <int D, class Key>
Box DistributedMesh<D, Key>::grown_box(const Tree& tree, core::OctIndex o) const {
  return grown_box(tree, tree.level(o), tree.coordinates(o));
}

template <int D, class Key>
Box DistributedMesh<D, Key>::grown_box(const Tree& tree, int level, const typename Tree::Coordinates& c) const {
  const double width = 2.0 * tree.cell_size(level);
  Box box = domain_box(tree);
  for (int d = 0; d < D; ++d) {
    box.lo[d] = (static_cast<double>(c[d]) - ghost_margin) * width;
    box.hi[d] = (static_cast<double>(c[d]) + 1.0 + ghost_margin) * width;
  }
  return box;
}

template <int D, class Key>
std::vector<int> DistributedMesh<D, Key>::partners_of(const Tree& tree, core::OctIndex o) const {
  auto ranks = ranks_overlapping(grown_box(tree, o));
  ranks.erase(std::remove(ranks.begin(), ranks.end(), rank_), ranks.end());
  return ranks;
}

template <int D, class Key>
void DistributedMesh<D, Key>::classify_coarse_grid(Tree& tree) {
  if (!has_decomposition_) set_uniform_decomposition(tree);
  for (std::size_t o = 0; o < tree.oct_capacity(); ++o) {
    const auto oct = static_cast<core::OctIndex>(o);
    if (!tree.alive(oct)) continue;
    KOSMO_REQUIRE(tree.level(oct) == 1, "distributed mesh: classify_coarse_grid expects a tree holding only level 1");
    core::OctRole role = core::OctRole::idle;
    if (owner(tree, oct) == rank_) {
      role = core::OctRole::owned;
    } else {
      const auto ranks = ranks_overlapping(grown_box(tree, oct));
      if (std::binary_search(ranks.begin(), ranks.end(), rank_)) role = core::OctRole::ghost;
    }
    tree.set_role(oct, role);
  }
  tree.rebuild_level_lists();
  build_exchange_lists(tree);
}

template <int D, class Key>
void DistributedMesh<D, Key>::build_exchange_lists(const Tree& tree) {
  const auto levels = static_cast<std::size_t>(tree.levelmax()) + 1;
  send_lists_.assign(levels, {});
  receive_lists_.assign(levels, {});
  sources_.assign(levels, {});
  for (int l = 1; l <= tree.levelmax(); ++l) {
    std::map<int, std::vector<core::OctIndex>> to, from;
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int partner : partners_of(tree, o)) to[partner].push_back(o);
    for (core::OctIndex g : tree.ghost_octs_at_level(l)) from[owner(tree, g)].push_back(g);
    const auto level = static_cast<std::size_t>(l);
    for (auto& [partner, octs] : to) send_lists_[level].push_back({partner, std::move(octs)});
    for (auto& [partner, octs] : from) {
      KOSMO_REQUIRE(partner != rank_, "distributed mesh: a ghost oct is owned by this rank");
      receive_lists_[level].push_back({partner, std::move(octs)});
      sources_[level].push_back(partner);
    }
  }
}

template <int D, class Key>
void DistributedMesh<D, Key>::pack_key(Key key, std::vector<double>& out) {
  double words[key_words] = {};
  std::memcpy(words, &key, sizeof(Key));
  out.insert(out.end(), words, words + key_words);
}

template <int D, class Key>
Key DistributedMesh<D, Key>::unpack_key(const double* in) {
  Key key{};
  std::memcpy(&key, in, sizeof(Key));
  return key;
}

template <int D, class Key>
void DistributedMesh<D, Key>::redistribute(Tree& tree) {
  if (!has_decomposition_) set_uniform_decomposition(tree);
  // Every owned oct, whole, to its owner and to the ranks keeping it as a ghost.
  std::map<int, std::vector<double>> outgoing_by_rank;
  for (int l = 1; l <= tree.levelmax(); ++l)
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int destination : ranks_overlapping(grown_box(tree, o))) pack_oct(tree, o, outgoing_by_rank[destination]);
  deliver_and_rebuild(tree, outgoing_by_rank);
}

template <int D, class Key>
void DistributedMesh<D, Key>::scatter_octs(Tree& tree, std::span<const int> levels, std::span<const Key> keys,
                                           std::span<const double> values) {
  if (!has_decomposition_) set_uniform_decomposition(tree);
  constexpr int ncell = Tree::cells_per_oct;
  const auto width = static_cast<std::size_t>(tree.fields().size() * ncell);
  KOSMO_REQUIRE(levels.size() == keys.size() && values.size() == keys.size() * width,
                "distributed mesh: scatter_octs needs one level, one key and " << width << " values per oct");
  std::map<int, std::vector<double>> outgoing_by_rank;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    KOSMO_REQUIRE(levels[i] >= 1 && levels[i] <= tree.levelmax(), "distributed mesh: an oct of level " << levels[i]
                                                                      << " is outside levels 1.." << tree.levelmax());
    for (int destination : ranks_overlapping(grown_box(tree, levels[i], Tree::Codec::decode(keys[i])))) {
      auto& out = outgoing_by_rank[destination];
      out.push_back(static_cast<double>(levels[i]));
      pack_key(keys[i], out);
      out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(i * width),
                 values.begin() + static_cast<std::ptrdiff_t>((i + 1) * width));
    }
  }
  deliver_and_rebuild(tree, outgoing_by_rank);
}

template <int D, class Key>
void DistributedMesh<D, Key>::deliver_and_rebuild(Tree& tree, std::map<int, std::vector<double>>& outgoing_by_rank) {
  constexpr int ncell = Tree::cells_per_oct;
  const int nfield = tree.fields().size();
  const std::size_t record = static_cast<std::size_t>(1 + key_words + nfield * ncell);
  std::vector<Message> outgoing;
  for (auto& [destination, data] : outgoing_by_rank) outgoing.push_back({destination, std::move(data)});
  // Who sends to whom is not known in advance here (octs migrate): the hierarchical k-section
  // routing needs no sources and no count exchange (seeds/000 §3.1.3).
  const auto incoming = sparse_exchange(comm_, nrank_ > 1 ? ExchangeMethod::ksection : ExchangeMethod::p2p, outgoing, {},
                                        &decomposition_, &stats_.redistribute);
  ++stats_.redistributions;

  // 2. Empty the tree down to the coarse grid.
  std::vector<std::vector<core::OctIndex>> by_level(static_cast<std::size_t>(tree.levelmax()) + 1);
  for (std::size_t o = 0; o < tree.oct_capacity(); ++o)
    if (tree.alive(static_cast<core::OctIndex>(o))) by_level[static_cast<std::size_t>(tree.level(static_cast<core::OctIndex>(o)))].push_back(static_cast<core::OctIndex>(o));
  for (int l = tree.levelmax(); l >= 2; --l)
    for (core::OctIndex o : by_level[static_cast<std::size_t>(l)]) tree.destroy_son(tree.father_cell(o));
  for (core::OctIndex o : by_level[1]) tree.set_role(o, core::OctRole::idle);

  // 3. Rebuild from what arrived, coarse to fine so that fathers exist before their sons.
  struct Arrival {
    int level;
    Key key;
    const double* values;
  };
  std::vector<Arrival> arrivals;
  for (const Message& m : incoming) {
    KOSMO_REQUIRE(m.data.size() % record == 0, "distributed mesh: a redistribution message from rank " << m.rank << " is truncated");
    for (std::size_t at = 0; at < m.data.size(); at += record)
      arrivals.push_back({static_cast<int>(m.data[at]), unpack_key(m.data.data() + at + 1), m.data.data() + at + 1 + key_words});
  }
  std::sort(arrivals.begin(), arrivals.end(),
            [](const Arrival& a, const Arrival& b) { return a.level < b.level || (a.level == b.level && a.key < b.key); });
  using Codec = typename Tree::Codec;
  for (const Arrival& a : arrivals) {
    core::OctIndex o = core::no_oct;
    if (a.level == 1) {
      o = tree.find_oct(1, a.key);
      KOSMO_REQUIRE(o != core::no_oct, "distributed mesh: received a level-1 oct outside the coarse grid");
    } else {
      const core::OctIndex father = tree.find_oct(a.level - 1, Codec::parent(a.key));
      KOSMO_REQUIRE(father != core::no_oct, "distributed mesh: received an oct of level " << a.level << " without its father");
      o = tree.create_son(Tree::cell_index(father, Codec::child_index(a.key)));
    }
    for (int f = 0; f < nfield; ++f) std::copy_n(a.values + f * ncell, ncell, tree.field(f) + Tree::cell_index(o, 0));
    tree.set_role(o, owner(tree, o) == rank_ ? core::OctRole::owned : core::OctRole::ghost);
  }
  tree.compact();
  build_exchange_lists(tree);
}

template <int D, class Key>
template <class Pack, class Unpack>
void DistributedMesh<D, Key>::exchange_per_oct(int level, const std::vector<Partner>& to, const std::vector<Partner>& from,
                                               const std::vector<int>& sources, std::size_t values_per_oct, ExchangeComponent component,
                                               ExchangeStats& stats, const char* what, Pack pack, Unpack unpack) {
  std::vector<Message> outgoing;
  for (const Partner& p : to) {
    Message m{p.rank, {}};
    m.data.reserve(p.octs.size() * values_per_oct);
    for (core::OctIndex o : p.octs) pack(o, m.data);
    outgoing.push_back(std::move(m));
  }
  const auto incoming = exchange(component, outgoing, sources, stats);
  // Messages arrive sorted by source rank (sparse_exchange): a fixed order for the unpacking.
  for (const Message& m : incoming) {
    const auto it = std::find_if(from.begin(), from.end(), [&](const Partner& p) { return p.rank == m.rank; });
    KOSMO_REQUIRE(it != from.end(), "distributed mesh: unexpected " << what << " data from rank " << m.rank << " at level " << level);
    KOSMO_REQUIRE(m.data.size() == it->octs.size() * values_per_oct,
                  "distributed mesh: " << what << " message from rank " << m.rank << " at level " << level << " has the wrong size");
    const double* in = m.data.data();
    for (core::OctIndex o : it->octs) {
      unpack(o, in);
      in += values_per_oct;
    }
  }
}

template <int D, class Key>
void DistributedMesh<D, Key>::exchange_fields(Tree& tree, int level, std::span<const int> fields) {
  if (nrank_ == 1) return;
  constexpr int ncell = Tree::cells_per_oct;
  const auto l = static_cast<std::size_t>(level);
  // One field is seeds/000's fine_dp; several at once (the hydro state) is bulk_dp.
  exchange_per_oct(
      level, send_lists_[l], receive_lists_[l], sources_[l], fields.size() * ncell,
      fields.size() == 1 ? ExchangeComponent::fine_dp : ExchangeComponent::bulk_dp, stats_.forward, "ghost",
      [&](core::OctIndex o, std::vector<double>& out) {
        for (int f : fields) {
          const double* values = tree.field(f) + Tree::cell_index(o, 0);
          out.insert(out.end(), values, values + ncell);
        }
      },
      [&](core::OctIndex g, const double* in) {
        for (int f : fields) {
          std::copy_n(in, ncell, tree.field(f) + Tree::cell_index(g, 0));
          in += ncell;
        }
      });
  ++stats_.forward_calls;
}

template <int D, class Key>
void DistributedMesh<D, Key>::exchange_flags(const Tree& tree, int level, std::vector<std::uint8_t>& flags) {
  if (nrank_ == 1) return;
  constexpr int ncell = Tree::cells_per_oct;
  const auto l = static_cast<std::size_t>(level);
  // An oct's 2^D one-byte flags travel as the bytes of one double (2^D <= 8): a flag exchange
  // sends 8 bytes per oct, not 8 per cell.
  static_assert(ncell <= static_cast<int>(sizeof(double)), "an oct's flags must fit in one double");
  exchange_per_oct(
      level, send_lists_[l], receive_lists_[l], sources_[l], 1, ExchangeComponent::fine_int, stats_.flags, "flag",
      [&](core::OctIndex o, std::vector<double>& out) {
        double word = 0.0;
        std::memcpy(&word, flags.data() + Tree::cell_index(o, 0), ncell);
        out.push_back(word);
      },
      [&](core::OctIndex g, const double* in) { std::memcpy(flags.data() + Tree::cell_index(g, 0), in, ncell); });
  ++stats_.flag_calls;
  (void)tree;
}

template <int D, class Key>
void DistributedMesh<D, Key>::reverse_accumulate(Tree& tree, int level, std::span<const int> fields) {
  if (nrank_ == 1) return;
  KOSMO_REQUIRE(level >= 1 && static_cast<std::size_t>(level) < receive_lists_.size(),
                "distributed mesh: reverse_accumulate at level " << level << " outside the exchange lists (levels 1.."
                                                                 << static_cast<int>(receive_lists_.size()) - 1 << ")");
  constexpr int ncell = Tree::cells_per_oct;
  const auto l = static_cast<std::size_t>(level);
  // The forward exchange's lists read backwards: a ghost holder sends, in the Morton order of its
  // receive list, to the owner, which reads the message in the same order from its send list and
  // adds it in source-rank order, the fixed order of the additions.
  std::vector<int> sources;
  for (const Partner& p : send_lists_[l]) sources.push_back(p.rank);
  exchange_per_oct(
      level, receive_lists_[l], send_lists_[l], sources, fields.size() * ncell,
      fields.size() == 1 ? ExchangeComponent::reverse_dp : ExchangeComponent::bulk_rev_dp, stats_.reverse, "reverse",
      [&](core::OctIndex g, std::vector<double>& out) {
        for (int f : fields) {
          const double* values = tree.field(f) + Tree::cell_index(g, 0);
          out.insert(out.end(), values, values + ncell);
        }
      },
      [&](core::OctIndex o, const double* in) {
        for (int f : fields) {
          double* values = tree.field(f) + Tree::cell_index(o, 0);
          for (int c = 0; c < ncell; ++c) values[c] += in[c];
          in += ncell;
        }
      });
  ++stats_.reverse_calls;
}

template <int D, class Key>
std::vector<double> DistributedMesh<D, Key>::send_to_owners(int target_level, const std::vector<int>& destinations,
                                                            const std::vector<double>& payloads, int width) {
  if (nrank_ == 1) return {};
  const auto w = static_cast<std::size_t>(width);
  KOSMO_REQUIRE(payloads.size() == destinations.size() * w, "distributed mesh: send_to_owners payload size mismatch");
  // Every owner of a ghost at the target level expects a message, empty or not (p2p posts its
  // receives from the known partners).
  std::map<int, std::vector<double>> by_rank;
  for (const Partner& p : receive_lists_[static_cast<std::size_t>(target_level)]) by_rank[p.rank];
  for (std::size_t i = 0; i < destinations.size(); ++i) {
    auto& out = by_rank[destinations[i]];
    out.insert(out.end(), payloads.begin() + static_cast<std::ptrdiff_t>(i * w), payloads.begin() + static_cast<std::ptrdiff_t>((i + 1) * w));
  }
  std::vector<Message> outgoing;
  for (auto& [rank, data] : by_rank) outgoing.push_back({rank, std::move(data)});
  std::vector<int> sources;
  for (const Partner& p : send_lists_[static_cast<std::size_t>(target_level)]) sources.push_back(p.rank);
  const auto incoming = exchange(ExchangeComponent::bulk_rev_dp, outgoing, sources, stats_.reverse);
  ++stats_.reverse_calls;
  std::vector<double> received;
  for (const Message& m : incoming) received.insert(received.end(), m.data.begin(), m.data.end());
  return received;
}

namespace {

template <class T>
T all_reduce(MPI_Comm comm, T local, MPI_Datatype type, MPI_Op op) {
  T global = local;
  MPI_Allreduce(&local, &global, 1, type, op, comm);
  return global;
}

}  // namespace

template <int D, class Key>
double DistributedMesh<D, Key>::sum(double local) const {
  return all_reduce(comm_, local, MPI_DOUBLE, MPI_SUM);
}
template <int D, class Key>
double DistributedMesh<D, Key>::min(double local) const {
  return all_reduce(comm_, local, MPI_DOUBLE, MPI_MIN);
}
template <int D, class Key>
double DistributedMesh<D, Key>::max(double local) const {
  return all_reduce(comm_, local, MPI_DOUBLE, MPI_MAX);
}
template <int D, class Key>
long long DistributedMesh<D, Key>::sum(long long local) const {
  return all_reduce(comm_, local, MPI_LONG_LONG, MPI_SUM);
}

template class DistributedMesh<1, std::uint64_t>;
template class DistributedMesh<2, std::uint64_t>;
template class DistributedMesh<3, std::uint64_t>;
template class DistributedMesh<1, core::UInt128>;
template class DistributedMesh<2, core::UInt128>;
template class DistributedMesh<3, core::UInt128>;

}  // namespace kosmo::parallel
