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

template <int D, class Key>
RegridCounts regrid(OctTree<D, Key>& tree, const RefinementSettings& settings, const RefinementCriterion<D, Key>& criterion,
                    int min_level, StencilCaches<D, Key>* shared_caches, const FlagSynchroniser* synchronise) {
  using Stencil = OctStencilCache<D, Key>;
  StencilCaches<D, Key> own_caches;
  // Owned octs only (the criterion and the pull-type support check) ...
  StencilCaches<D, Key>& caches = shared_caches ? *shared_caches : own_caches;
  // ... and owned then ghost octs (the push-type rules, destruction and creation).
  StencilCaches<D, Key> ghost_caches(true);
  StencilCaches<D, Key>& local_caches = synchronise ? ghost_caches : caches;
  auto sync = [&](int level, std::vector<std::uint8_t>& f) {
    if (synchronise) (*synchronise)(level, f);
  };
  auto local_octs = [&](int level) {
    std::vector<OctIndex> octs(tree.octs_at_level(level).begin(), tree.octs_at_level(level).end());
    octs.insert(octs.end(), tree.ghost_octs_at_level(level).begin(), tree.ghost_octs_at_level(level).end());
    return octs;
  };
  using Tree = OctTree<D, Key>;
  constexpr int ncell = Tree::cells_per_oct;
  const int levelmax = tree.levelmax();
  // For each child and each of the 3^D - 1 offsets: the neighbourhood oct index and the child in it.
  std::vector<std::vector<std::pair<int, int>>> neighbourhood(ncell);
  for (int c = 0; c < ncell; ++c)
    for (const auto& off : neighbourhood_offsets<D>()) {
      int child = 0;
      const int k = Stencil::locate(c, off, child);
      neighbourhood[static_cast<std::size_t>(c)].emplace_back(k, child);
    }
  // Scratch flags, one per pool cell, alive only during this pass (seeds/000 App. C).
  std::vector<std::uint8_t> flags(tree.oct_capacity() * ncell, 0);
  std::vector<std::uint8_t> expanded;

  min_level = std::max(min_level, 1);
  // Levels below min_level keep their refinement: their flags are their current state.
  for (int l = 1; l < std::min(min_level, levelmax); ++l)
    for (OctIndex o : local_octs(l))
      for (int c = 0; c < ncell; ++c) flags[Tree::cell_index(o, c)] = tree.is_leaf(Tree::cell_index(o, c)) ? 0 : 1;

  for (int l = levelmax - 1; l >= min_level; --l) {
    const auto octs = local_octs(l);
    if (l < settings.levelmin) {
      for (OctIndex o : octs)
        for (int c = 0; c < ncell; ++c) flags[Tree::cell_index(o, c)] = 1;
    } else {
      criterion(tree, l, flags);
    }
    // A cell whose son keeps refined cells must stay refined.
    for (OctIndex o : octs) {
      for (int c = 0; c < ncell; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        const OctIndex s = tree.son(cell);
        if (s == no_oct) continue;
        for (int k = 0; k < ncell; ++k) {
          if (flags[Tree::cell_index(s, k)]) {
            flags[cell] = 1;
            break;
          }
        }
      }
    }
    sync(l, flags);
    // nexpand smoothing: each pass adds the 3^D - 1 same-level neighbours of flagged cells.
    const Stencil& stencil = local_caches.get(tree, l);
    for (int pass = 0; pass < settings.nexpand_at(l); ++pass) {
      expanded = flags;
      for (std::size_t i = 0; i < stencil.size(); ++i) {
        const OctIndex o = stencil.oct(i);
        for (int c = 0; c < ncell; ++c) {
          if (!flags[Tree::cell_index(o, c)]) continue;
          for (const auto& [k, child] : neighbourhood[static_cast<std::size_t>(c)]) {
            const OctIndex n = stencil.neighbour_oct(i, k);
            if (n != no_oct) expanded[Tree::cell_index(n, child)] = 1;
          }
        }
      }
      flags.swap(expanded);
      sync(l, flags);
    }
    // Grading: refining a cell at level l needs its 3^D - 1 neighbours at level l, so the cells of
    // level l - 1 that contain them must be (or stay) refined. Below min_level the mesh is fixed;
    // the check that follows unflags what it cannot support.
    if (l >= 2 && l - 1 >= min_level) {
      for (std::size_t i = 0; i < stencil.size(); ++i) {
        const OctIndex o = stencil.oct(i);
        for (int c = 0; c < ncell; ++c) {
          if (!flags[Tree::cell_index(o, c)]) continue;
          for (const auto& entry : neighbourhood[static_cast<std::size_t>(c)]) {
            const CellIndex parent = stencil.coarse_cell(i, entry.first);
            if (parent != no_cell) flags[parent] = 1;
          }
        }
      }
    }
  }

  // Coarse to fine: a flag stands only if the father stays refined and the coarser cells holding
  // the 3^D - 1 neighbours are refined (RAMSES ensure_ref_rules). With min_level = 1 every
  // request above was granted and nothing changes here. (No coarser cell means outside a
  // non-periodic box: nothing to support there.)
  for (int l = std::max(min_level, 2); l <= levelmax - 1; ++l) {
    const Stencil& stencil = caches.get(tree, l);
    for (std::size_t i = 0; i < stencil.size(); ++i) {
      const OctIndex o = stencil.oct(i);
      const bool father_refined = flags[tree.father_cell(o)] != 0;
      for (int c = 0; c < ncell; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        if (!flags[cell]) continue;
        bool supported = father_refined;
        for (const auto& entry : neighbourhood[static_cast<std::size_t>(c)]) {
          if (!supported) break;
          const CellIndex parent = stencil.coarse_cell(i, entry.first);
          if (parent != no_cell && !flags[parent]) supported = false;
        }
        if (!supported) flags[cell] = 0;
      }
    }
    sync(l, flags);
  }

  RegridCounts counts;
  // Destroy fine to coarse: sons of unflagged cells hold only leaves by then.
  for (int l = levelmax - 1; l >= min_level; --l) {
    for (OctIndex o : local_octs(l)) {
      if (!tree.alive(o) || tree.level(o) != l) continue;
      for (int c = 0; c < ncell; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        const OctIndex s = tree.son(cell);
        if (s == no_oct || flags[cell]) continue;
        restrict_into(tree, cell, s);
        tree.destroy_son(cell);
        ++counts.destroyed;
      }
    }
  }
  if (counts.destroyed > 0) tree.rebuild_level_lists();
  // Create coarse to fine; new octs join their level's list and carry no flags.
  for (int l = min_level; l <= levelmax - 1; ++l) {
    const auto octs = local_octs(l);
    for (const OctIndex o : octs) {
      for (int c = 0; c < ncell; ++c) {
        const CellIndex cell = Tree::cell_index(o, c);
        if (static_cast<std::size_t>(cell) >= flags.size() || !flags[cell] || !tree.is_leaf(cell)) continue;
        const OctIndex s = tree.create_son(cell, tree.role(o));
        if (flags.size() < tree.oct_capacity() * ncell) flags.resize(tree.oct_capacity() * ncell, 0);
        std::fill_n(flags.begin() + Tree::cell_index(s, 0), ncell, std::uint8_t{0});
        prolongate(tree, cell, s, settings.interpolation);
        ++counts.created;
      }
    }
  }
  if (counts.created > 0) tree.rebuild_level_lists();
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
