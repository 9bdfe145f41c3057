#include "core/refinement.hpp"

#include <algorithm>
#include <sstream>

namespace kosmo::core {
namespace {

// All offsets of the 3^D neighbourhood except the centre.
template <int D>
std::vector<std::array<int, D>> neighbourhood_offsets() {
  std::vector<std::array<int, D>> offsets;
  int total = 1;
  for (int d = 0; d < D; ++d) total *= 3;
  for (int n = 0; n < total; ++n) {
    std::array<int, D> o{};
    int rest = n;
    bool centre = true;
    for (int d = 0; d < D; ++d) {
      o[d] = rest % 3 - 1;
      rest /= 3;
      centre = centre && o[d] == 0;
    }
    if (!centre) offsets.push_back(o);
  }
  return offsets;
}

// Value across a face; the centre value outside a non-periodic box (zero gradient).
template <int D, class Key>
double neighbour_value(const OctTree<D, Key>& tree, const double* values, CellIndex cell, int axis, int step) {
  const CellIndex n = face_neighbour_or_coarser(tree, cell, axis, step);
  return n == no_cell ? values[cell] : values[n];
}

template <int D, class Key>
double child_slope(const OctTree<D, Key>& tree, const double* values, CellIndex cell, int axis, InterpolationType type,
                   bool is_velocity) {
  if (type == InterpolationType::injection) return 0.0;
  return prolongation_slope(type, is_velocity, neighbour_value(tree, values, cell, axis, -1), values[cell],
                            neighbour_value(tree, values, cell, axis, +1));
}

template <int D, class Key>
void prolongate(OctTree<D, Key>& tree, CellIndex cell, OctIndex son, InterpolationType type) {
  for (int f = 0; f < tree.fields().size(); ++f) {
    double* values = tree.field(f);
    const bool is_velocity = tree.fields().info(f).kind == FieldKind::velocity;
    double slopes[D];
    for (int d = 0; d < D; ++d) slopes[d] = child_slope(tree, values, cell, d, type, is_velocity);
    for (int c = 0; c < (1 << D); ++c) values[OctTree<D, Key>::cell_index(son, c)] = prolongate_child<D>(values[cell], slopes, c);
  }
}

template <int D, class Key>
void restrict_into(OctTree<D, Key>& tree, CellIndex cell, OctIndex son) {
  for (int f = 0; f < tree.fields().size(); ++f) {
    double* values = tree.field(f);
    values[cell] = restrict_children<D>(values + OctTree<D, Key>::cell_index(son, 0));
  }
}

}  // namespace

template <int D, class Key>
CellIndex face_neighbour_or_coarser(const OctTree<D, Key>& tree, CellIndex cell, int axis, int step) {
  std::array<int, D> offset{};
  offset[axis] = step;
  const CellIndex n = tree.cell_neighbour(cell, offset);
  if (n != no_cell) return n;
  auto c = tree.cell_coordinates(cell);
  c[axis] += step;
  for (int l = tree.level(tree.oct_of(cell)) - 1; l >= 1; --l) {
    for (int d = 0; d < D; ++d) c[d] >>= 1;  // arithmetic shift: -1 stays -1, wrapped by find_cell
    const CellIndex coarse = tree.find_cell(l, c);
    if (coarse != no_cell) return coarse;
  }
  return no_cell;
}

template <int D, class Key>
void interpolate_children(const OctTree<D, Key>& tree, CellIndex cell, InterpolationType type, std::span<const int> fields,
                          double* children) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const double* values = tree.field(fields[i]);
    const bool is_velocity = tree.fields().info(fields[i]).kind == FieldKind::velocity;
    double slopes[D];
    for (int d = 0; d < D; ++d) slopes[d] = child_slope(tree, values, cell, d, type, is_velocity);
    for (int c = 0; c < (1 << D); ++c) children[i * (1 << D) + static_cast<std::size_t>(c)] = prolongate_child<D>(values[cell], slopes, c);
  }
}

namespace {

// One regrid pass (see regrid() in refinement.hpp): flags fine to coarse, support checks coarse to
// fine, then destruction fine to coarse and creation coarse to fine.
template <int D, class Key>
class RegridPass {
 public:
  using Tree = OctTree<D, Key>;
  using Stencil = OctStencilCache<D, Key>;
  static constexpr int ncell = Tree::cells_per_oct;

  RegridPass(Tree& tree, const RefinementSettings& settings, int min_level, StencilCaches<D, Key>* shared_caches,
             const FlagSynchroniser* synchronise)
      : tree_(tree),
        settings_(settings),
        min_level_(std::max(min_level, 1)),
        levelmax_(tree.levelmax()),
        synchronise_(synchronise),
        caches_(shared_caches ? *shared_caches : own_caches_),
        local_caches_(synchronise ? ghost_caches_ : caches_),
        neighbourhood_(ncell),
        face_neighbourhood_(ncell),
        flags_(tree.oct_capacity() * ncell, 0) {
    // For each child and each of the 3^D - 1 offsets: the neighbourhood oct index and the child in it.
    for (int c = 0; c < ncell; ++c)
      for (const auto& off : neighbourhood_offsets<D>()) {
        int child = 0;
        const int k = Stencil::locate(c, off, child);
        neighbourhood_[static_cast<std::size_t>(c)].emplace_back(k, child);
        int nonzero = 0;
        for (int d = 0; d < D; ++d) nonzero += off[d] != 0;
        if (nonzero == 1) face_neighbourhood_[static_cast<std::size_t>(c)].emplace_back(k, child);
      }
  }

  int min_level() const { return min_level_; }

  // Owned then ghost octs of a level (the push-type rules, destruction and creation).
  std::vector<OctIndex> local_octs(int level) const {
    std::vector<OctIndex> octs(tree_.octs_at_level(level).begin(), tree_.octs_at_level(level).end());
    octs.insert(octs.end(), tree_.ghost_octs_at_level(level).begin(), tree_.ghost_octs_at_level(level).end());
    return octs;
  }

  void synchronise(int level) {
    if (synchronise_) (*synchronise_)(level, flags_);
  }

  // Levels below min_level keep their refinement: their flags are their current state.
  void keep_levels_below_min_level() {
    for (int l = 1; l < std::min(min_level_, levelmax_); ++l)
      for (OctIndex o : local_octs(l))
        for (int c = 0; c < ncell; ++c) flags_[Tree::cell_index(o, c)] = tree_.is_leaf(Tree::cell_index(o, c)) ? 0 : 1;
  }

  // RAMSES flag_fine at level l (amr/flag_utils.f90): every cell below levelmin; from levelmin on,
  // a cell whose son holds a flagged or a refined cell (test_flag), one cubic buffer around those
  // (smooth_fine, "to enforce the refinement rules"), then the criterion's flags. expand_flags adds
  // the nexpand buffers, so a region holding finer levels gets 1 + nexpand buffer cells and a
  // region the criterion flags gets nexpand (docs/performance.md, "The 64³ dark-matter box against
  // RAMSES": one buffer fewer made the box's level-7 mesh 30-46 % smaller than RAMSES').
  void flag_level(int l, const RefinementCriterion<D, Key>& criterion) {
    const auto octs = local_octs(l);
    if (l < settings_.levelmin) {
      for (OctIndex o : octs)
        for (int c = 0; c < ncell; ++c) flags_[Tree::cell_index(o, c)] = 1;
      synchronise(l);
      return;
    }
    for (OctIndex o : octs) {
      for (int c = 0; c < ncell; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        const OctIndex s = tree_.son(cell);
        if (s == no_oct) continue;
        for (int k = 0; k < ncell; ++k) {
          if (flags_[Tree::cell_index(s, k)] || !tree_.is_leaf(Tree::cell_index(s, k))) {
            flags_[cell] = 1;
            break;
          }
        }
      }
    }
    synchronise(l);
    smooth(l);
    criterion(tree_, l, flags_);
    synchronise(l);
  }

  // RAMSES smooth_fine, one cubic buffer in D stages: a cell is flagged when at least 1 (first
  // stage), then 2 (later stages) of its 2D same-level face neighbours are: faces, then edges,
  // then corners of a flagged region, and the concave corners between flagged cells.
  void smooth(int l) {
    const Stencil& stencil = local_caches_.get(tree_, l);
    for (int stage = 0; stage < D; ++stage) {
      const std::uint8_t threshold = stage == 0 ? 1 : 2;
      counts_.assign(flags_.size(), 0);
      for (std::size_t i = 0; i < stencil.size(); ++i) {
        const OctIndex o = stencil.oct(i);
        for (int c = 0; c < ncell; ++c) {
          if (!flags_[Tree::cell_index(o, c)]) continue;
          for (const auto& [k, child] : face_neighbourhood_[static_cast<std::size_t>(c)]) {
            const OctIndex n = stencil.neighbour_oct(i, k);
            if (n != no_oct) ++counts_[Tree::cell_index(n, child)];
          }
        }
      }
      for (std::size_t i = 0; i < stencil.size(); ++i)
        for (int c = 0; c < ncell; ++c) {
          const CellIndex cell = Tree::cell_index(stencil.oct(i), c);
          if (counts_[cell] >= threshold) flags_[cell] = 1;
        }
      synchronise(l);
    }
  }

  // nexpand smoothing: RAMSES flag_fine step 4, nexpand cubic buffers.
  void expand_flags(int l) {
    for (int pass = 0; pass < settings_.nexpand_at(l); ++pass) smooth(l);
  }

  // Coarse to fine: a flag stands only if the father stays refined and the coarser cells holding
  // the 3^D - 1 neighbours are refined (RAMSES ensure_ref_rules). With min_level = 1 every request
  // was granted and nothing changes here. (No coarser cell means outside a non-periodic box:
  // nothing to support there.)
  void keep_supported_flags() {
    for (int l = std::max(min_level_, 2); l <= levelmax_ - 1; ++l) {
      const Stencil& stencil = caches_.get(tree_, l);
      for (std::size_t i = 0; i < stencil.size(); ++i) {
        const OctIndex o = stencil.oct(i);
        const bool father_refined = flags_[tree_.father_cell(o)] != 0;
        for (int c = 0; c < ncell; ++c) {
          const CellIndex cell = Tree::cell_index(o, c);
          if (!flags_[cell]) continue;
          bool supported = father_refined;
          for (const auto& entry : neighbourhood_[static_cast<std::size_t>(c)]) {
            if (!supported) break;
            const CellIndex parent = stencil.coarse_cell(i, entry.first);
            if (parent != no_cell && !flags_[parent]) supported = false;
          }
          if (!supported) flags_[cell] = 0;
        }
      }
      synchronise(l);
    }
  }

  // Destroy fine to coarse: sons of unflagged cells hold only leaves by then.
  // `restricted` receives the octs that lost a son and survive the pass.
  std::size_t destroy_unflagged(std::vector<OctIndex>& restricted) {
    std::size_t destroyed = 0;
    for (int l = levelmax_ - 1; l >= min_level_; --l) {
      for (OctIndex o : local_octs(l)) {
        if (!tree_.alive(o) || tree_.level(o) != l) continue;
        bool lost_a_son = false;
        for (int c = 0; c < ncell; ++c) {
          const CellIndex cell = Tree::cell_index(o, c);
          const OctIndex s = tree_.son(cell);
          if (s == no_oct || flags_[cell]) continue;
          restrict_into(tree_, cell, s);
          tree_.destroy_son(cell);
          lost_a_son = true;
          ++destroyed;
        }
        if (lost_a_son) restricted.push_back(o);
      }
    }
    // A coarser level's pass may have destroyed an oct after it lost its own sons. No oct is
    // created before this point, so a freed index is not reused yet and alive() tells.
    std::erase_if(restricted, [this](OctIndex o) { return !tree_.alive(o); });
    if (destroyed > 0) tree_.rebuild_level_lists();
    return destroyed;
  }

  // Create coarse to fine; new octs join their level's list and carry no flags.
  // `created` receives the new octs.
  std::size_t create_flagged(std::vector<OctIndex>& created_octs) {
    std::size_t created = 0;
    for (int l = min_level_; l <= levelmax_ - 1; ++l) {
      const auto octs = local_octs(l);
      for (const OctIndex o : octs) {
        for (int c = 0; c < ncell; ++c) {
          const CellIndex cell = Tree::cell_index(o, c);
          if (static_cast<std::size_t>(cell) >= flags_.size() || !flags_[cell] || !tree_.is_leaf(cell)) continue;
          const OctIndex s = tree_.create_son(cell, tree_.role(o));
          if (flags_.size() < tree_.oct_capacity() * ncell) flags_.resize(tree_.oct_capacity() * ncell, 0);
          std::fill_n(flags_.begin() + Tree::cell_index(s, 0), ncell, std::uint8_t{0});
          prolongate(tree_, cell, s, settings_.interpolation);
          created_octs.push_back(s);
          ++created;
        }
      }
    }
    if (created > 0) tree_.rebuild_level_lists();
    return created;
  }

 private:
  Tree& tree_;
  const RefinementSettings& settings_;
  const int min_level_, levelmax_;
  const FlagSynchroniser* synchronise_;
  StencilCaches<D, Key> own_caches_;
  StencilCaches<D, Key> ghost_caches_{true};
  // Owned octs only (the criterion and the pull-type support check) ...
  StencilCaches<D, Key>& caches_;
  // ... and owned then ghost octs (the push-type rules, destruction and creation).
  StencilCaches<D, Key>& local_caches_;
  std::vector<std::vector<std::pair<int, int>>> neighbourhood_;
  std::vector<std::vector<std::pair<int, int>>> face_neighbourhood_;  // the 2D face offsets only
  // Scratch flags, one per pool cell, alive only during this pass (seeds/000 App. C).
  std::vector<std::uint8_t> flags_;
  std::vector<std::uint8_t> counts_;  // flagged face neighbours per cell (smooth)
};

}  // namespace

template <int D, class Key>
RegridCounts regrid(OctTree<D, Key>& tree, const RefinementSettings& settings, const RefinementCriterion<D, Key>& criterion,
                    int min_level, StencilCaches<D, Key>* shared_caches, const FlagSynchroniser* synchronise) {
  RegridPass<D, Key> pass(tree, settings, min_level, shared_caches, synchronise);
  pass.keep_levels_below_min_level();
  for (int l = tree.levelmax() - 1; l >= pass.min_level(); --l) {
    pass.flag_level(l, criterion);
    pass.expand_flags(l);
  }
  pass.keep_supported_flags();
  RegridCounts counts;
  counts.destroyed = pass.destroy_unflagged(counts.restricted_octs);
  counts.created = pass.create_flagged(counts.created_octs);
  return counts;
}

template <int D, class Key>
int build_initial_mesh(OctTree<D, Key>& tree, const RefinementSettings& settings, const RefinementCriterion<D, Key>& criterion,
                       const std::function<void(OctTree<D, Key>&)>& initialise) {
  int passes = 0;
  if (initialise) initialise(tree);
  for (int pass = 0; pass < 2 * tree.levelmax() + 2; ++pass) {
    const RegridCounts counts = regrid(tree, settings, criterion);
    if (initialise) initialise(tree);
    ++passes;
    if (!counts.changed()) break;
  }
  return passes;
}

template <int D, class Key>
std::string grading_violation(const OctTree<D, Key>& tree) {
  using Tree = OctTree<D, Key>;
  const auto offsets = neighbourhood_offsets<D>();
  for (int l = 2; l <= tree.levelmax(); ++l) {
    for (OctIndex o : tree.octs_at_level(l)) {
      const CellIndex father = tree.father_cell(o);
      const auto fc = tree.cell_coordinates(father);
      for (const auto& off : offsets) {
        typename Tree::Coordinates c{};
        bool outside = false;
        for (int d = 0; d < D; ++d) {
          c[d] = fc[d] + off[d];
          const std::int64_t n = 2 * tree.extent(l - 1)[d];
          if ((c[d] < 0 || c[d] >= n) && !tree.geometry().periodic[d]) outside = true;
        }
        if (outside) continue;
        if (tree.find_cell(l - 1, c) == no_cell) {
          std::ostringstream why;
          why << "oct " << o << " at level " << l << " has a missing neighbour of its father cell";
          return why.str();
        }
      }
    }
  }
  return {};
}

#define KOSMO_INSTANTIATE_REFINEMENT(D, Key)                                                                     \
  template RegridCounts regrid<D, Key>(OctTree<D, Key>&, const RefinementSettings&, const RefinementCriterion<D, Key>&, int, \
                                       StencilCaches<D, Key>*, const FlagSynchroniser*);                                                           \
  template CellIndex face_neighbour_or_coarser<D, Key>(const OctTree<D, Key>&, CellIndex, int, int); \
  template void interpolate_children<D, Key>(const OctTree<D, Key>&, CellIndex, InterpolationType, std::span<const int>, double*); \
  template int build_initial_mesh<D, Key>(OctTree<D, Key>&, const RefinementSettings&,                          \
                                          const RefinementCriterion<D, Key>&,                                    \
                                          const std::function<void(OctTree<D, Key>&)>&);                         \
  template std::string grading_violation<D, Key>(const OctTree<D, Key>&);
KOSMO_INSTANTIATE_REFINEMENT(1, std::uint64_t)
KOSMO_INSTANTIATE_REFINEMENT(2, std::uint64_t)
KOSMO_INSTANTIATE_REFINEMENT(3, std::uint64_t)
KOSMO_INSTANTIATE_REFINEMENT(1, UInt128)
KOSMO_INSTANTIATE_REFINEMENT(2, UInt128)
KOSMO_INSTANTIATE_REFINEMENT(3, UInt128)
#undef KOSMO_INSTANTIATE_REFINEMENT

}  // namespace kosmo::core
