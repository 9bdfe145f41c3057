#pragma once
// Refinement machinery (RAMSES flag_fine / smooth_fine / refine_fine, ARCHITECTURE §1): per-cell
// flags from a criterion, `nexpand` smoothing, 2:1 grading, creation of son octs with
// prolongation and destruction with conservative restriction.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/oct_stencil_cache.hpp"
#include "core/oct_tree.hpp"
#include "core/prolongation.hpp"

namespace kosmo::core {

struct RefinementSettings {
  int levelmin = 1;                  // levels below are always refined
  std::vector<int> nexpand;          // nexpand[l - 1] smoothing passes at level l (RAMSES indexing)
  InterpolationType interpolation = InterpolationType::minmod;

  int nexpand_at(int level) const {
    if (nexpand.empty()) return 1;
    const auto i = static_cast<std::size_t>(level - 1);
    return i < nexpand.size() ? nexpand[i] : nexpand.back();
  }
};

// Marks cells of one level for refinement: sets flags[cell] = 1 for cells of the octs of `level`.
// Called once per level per pass; it must only set flags, never clear them.
template <int D, class Key>
using RefinementCriterion = std::function<void(const OctTree<D, Key>&, int level, std::vector<std::uint8_t>& flags)>;

// Distributed runs: copies the owners' flags of one level onto the ghost copies (RAMSES
// make_virtual_fine_int on flag1). Collective: every rank calls it at the same points.
using FlagSynchroniser = std::function<void(int level, std::vector<std::uint8_t>& flags)>;

struct RegridCounts {
  std::size_t created = 0;
  std::size_t destroyed = 0;
  // What a distributed run must send after the pass (seeds/000 §3: only what changed moves): the
  // octs this pass created, alive at its end, and the surviving octs whose cells lost their son
  // (their values are now the restriction of the destroyed son). Local to this rank.
  std::vector<OctIndex> created_octs;
  std::vector<OctIndex> restricted_octs;
  bool changed() const { return created + destroyed > 0; }
};

// One refinement pass over levels min_level..levelmax (RAMSES refines the levels below the one
// being advanced: amr_step calls flag_fine/refine_fine for ilevel..nlevelmax). Only sons of cells
// at levels >= min_level are created or destroyed. Flags are decided from the finest level to
// min_level as RAMSES flag_fine does (keep the fathers of flagged or refined cells, one buffer
// around them, which also holds every neighbour the finer flags need, the criterion, nexpand more
// buffers), then checked from min_level to the finest (a cell may be refined only
// if its father stays refined and the coarser cells around it are refined: RAMSES'
// ensure_ref_rules), then octs are destroyed fine to coarse and created coarse to fine. A pass adds
// at most one level; the result is graded 2:1 whenever the input was. Neighbourhoods come from
// `caches` when given (shared with the solvers, rebuilt only when the mesh changed).
//
// With `synchronise` (distributed runs) the criterion marks owned cells only; every rule then runs
// on owned and ghost octs, and the flags of a level are synchronised after each rule that changed
// them, so an owned cell sees exactly the flags a one-rank run gives it. Octs are created and
// destroyed on ghosts too (sons of ghost cells take the ghost's role); the caller then updates the
// distributed mesh from created_octs and restricted_octs (DistributedMesh::apply_mesh_changes) or
// redistributes, either of which replaces the changed copies by their owners' values.
template <int D, class Key>
RegridCounts regrid(OctTree<D, Key>& tree, const RefinementSettings& settings, const RefinementCriterion<D, Key>& criterion,
                    int min_level = 1, StencilCaches<D, Key>* caches = nullptr, const FlagSynchroniser* synchronise = nullptr);

// The cell across the face (axis, step = -1 or +1) of `cell`: the same-level cell, or where that
// does not exist the finest coarser cell containing the position; no_cell outside a non-periodic box.
template <int D, class Key>
CellIndex face_neighbour_or_coarser(const OctTree<D, Key>& tree, CellIndex cell, int axis, int step);

// Prolongation of every field's value in `cell` onto the 2^D children it would have, written to
// children[field * 2^D + child] (RAMSES interpol_hydro): the same interpolation that refinement
// uses, also used for ghost values of finer octs at coarse-fine boundaries. Neighbour values come
// from the same level, or from the finest coarser cell where the same level has none.
template <int D, class Key>
void interpolate_children(const OctTree<D, Key>& tree, CellIndex cell, InterpolationType type, std::span<const int> fields,
                          double* children);

// Repeats regrid until the mesh stops changing (RAMSES init_refine); `initialise` is called after
// every pass so that new cells take analytic initial values rather than interpolated ones.
template <int D, class Key>
int build_initial_mesh(OctTree<D, Key>& tree, const RefinementSettings& settings, const RefinementCriterion<D, Key>& criterion,
                       const std::function<void(OctTree<D, Key>&)>& initialise);

// The 2:1 rule of RAMSES: the 3^D - 1 neighbours of the father cell of every oct exist.
// Returns an empty string when the tree is graded, else a description of the first violation.
template <int D, class Key>
std::string grading_violation(const OctTree<D, Key>& tree);

}  // namespace kosmo::core
