// Multigrid on one AMR level of the octree (see octree_multigrid.hpp; seeds/000 §5.1, App. D).
//
// Every multigrid level keeps a neighbour cache (seeds/000 App. D.1): for a regular oct (see MgLevel)
// its 2D face-neighbour octs; for the other octs, for each cell it will relax, the tree indices of its
// 2D face neighbours, or a code for "zero" (a masked cell: on the solved level a missing one, whose
// value is folded into the right-hand side as RAMSES' BC-modified rhs f(:,2); on a coarser level an
// inactive or missing one, which only raises the cell's diagonal: mask weights and sinks) or "self"
// (zero-gradient wall), and the cell's diagonal. The sweeps then do no hash lookup. The caches are
// kept from one solve to the next while the mesh is unchanged (MeshCache): building them cost about as
// much as the V-cycles of a solve to 1e-4. What still runs at every solve: the masks and the sinks
// (their exchanges are part of the solve's counted communication), the Dirichlet values of the
// boundary cells (they depend on phi), the rhs and the setup sums.
//
// Results do not depend on the thread count, bit for bit (see octree_multigrid_kernels.hpp).
// They do not depend on the rank count either when every colour sweep is followed by a ghost refresh
// (merged_red_black = false, the default): each owned cell sees exactly the values it sees on one rank. Only the
// global sums (norms; the means of the singular problem) carry rank-dependent round-off.
#include "gravity/octree_multigrid.hpp"

#include "gravity/coarse_interpolation.hpp"
#include "gravity/octree_multigrid_kernels.hpp"
#include "gravity/octree_multigrid_prolongation.hpp"
#include "gravity/octree_multigrid_sinks.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "core/error.hpp"

namespace kosmo::gravity {
namespace {

using core::CellIndex;
using core::OctIndex;

using namespace octree_multigrid_detail;

// A cell of the solved level with Dirichlet faces (coarse-fine faces, or box walls with a boundary
// potential): their values are recomputed at every solve (they depend on phi at level - 1).
struct BoundaryCell {
  CellIndex cell = 0;
  std::uint8_t directions = 0;  // bit dir set for each Dirichlet face
};

// Fills m.face_octs, m.block and m.neighbours from m.octs and m.active (see MgLevel). `mask`: null on
// the solved level, where every existing neighbour counts; on a coarser level a neighbour counts when
// its mask is > 0. `walls_dirichlet`: box walls are homogeneous Dirichlet (else zero gradient, kSelf).
// `boundary` (solved level only) receives the cells with Dirichlet faces, in list order.
template <int D>
void build_neighbours(const core::OctTree<D, core::MortonKey>& tree, MgLevel<D>& m, const double* mask, const double* sink,
                      bool walls_dirichlet, std::vector<BoundaryCell>* boundary) {
  using Tree = core::OctTree<D, core::MortonKey>;
  const auto n = static_cast<std::ptrdiff_t>(m.octs.size());
  const auto extent = tree.extent(m.level);
  const auto& periodic = tree.geometry().periodic;
  constexpr unsigned all = (1u << kCells<D>) - 1u;
  // The code of each face of cell c (as the per-cell find_cell lookups of the neighbour coordinates
  // would give it) and whether that face is Dirichlet on the solved level.
  auto codes = [&](OctIndex o, const std::array<OctIndex, kDirections<D>>& face, int c, CellIndex* out) {
    std::uint8_t dirichlet = 0;
    for (int dir = 0; dir < kDirections<D>; ++dir) {
      const int axis = dir / 2;
      const OctIndex source = ((c >> axis) & 1) == (dir & 1) ? face[static_cast<std::size_t>(dir)] : o;
      CellIndex code = kZero;
      if (source == kOutside) {
        if (walls_dirichlet) {
          dirichlet |= static_cast<std::uint8_t>(1u << dir);
        } else {
          code = kSelf;  // homogeneous zero gradient
        }
      } else if (source == core::no_oct || tree.role(source) == core::OctRole::idle) {
        dirichlet |= static_cast<std::uint8_t>(1u << dir);  // coarse-fine face (on the solved level)
      } else {
        const CellIndex neighbour = CellIndex{source} * kCells<D> + (c ^ (1 << axis));
        if (mask == nullptr || mask[neighbour] > 0.0) code = neighbour;
      }
      out[dir] = code;
    }
    return dirichlet;
  };
  // RAMSES' mask-weighted coarse operator (multigrid_fine_coarse.f90, gauss_seidel_mg_coarse;
  // Guillet & Teyssier 2011): on a coarse level the correction vanishes where the mask, linear
  // between the centres of an active cell c and its masked neighbour n (mask_n <= 0; -1 for a
  // neighbour that does not exist or lies beyond a Dirichlet wall), crosses zero. The neighbour then
  // counts as e_n = e_c mask_n / mask_c: nothing in the sum, -mask_n / mask_c on the diagonal. With
  // e_n = 0 instead (kosmo before), the zero sat at the neighbour's centre, half a coarse cell beyond
  // the fine level's boundary at the first coarse level and further at each coarser one: the coarse
  // problems saw a larger domain than the fine one and over-corrected its smooth modes (a refined
  // smooth region over half a periodic 16^3 box: 1.7 residual reduction per V-cycle, 4.4 with the
  // mask weights). On the solved level (mask null) a missing neighbour's value is Dirichlet data.
  auto masked_neighbour = [&](OctIndex o, const std::array<OctIndex, kDirections<D>>& face, int c, int dir) {
    const int axis = dir / 2;
    const OctIndex source = ((c >> axis) & 1) == (dir & 1) ? face[static_cast<std::size_t>(dir)] : o;
    if (source == kOutside || source == core::no_oct || tree.role(source) == core::OctRole::idle) return -1.0;
    return std::min(mask[CellIndex{source} * kCells<D> + (c ^ (1 << axis))], 0.0);
  };
  m.face_octs.resize(m.octs.size());
  m.block.assign(m.octs.size(), -1);
  std::vector<std::uint8_t> regular(m.octs.size(), 0);
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const OctIndex o = m.octs[static_cast<std::size_t>(i)];
    auto& face = m.face_octs[static_cast<std::size_t>(i)];
    for (int dir = 0; dir < kDirections<D>; ++dir) {
      core::MortonKey key{};
      face[static_cast<std::size_t>(dir)] =
          Tree::Codec::neighbour_key(tree.key(o), dir, extent, periodic, key) ? tree.find_oct(m.level, key) : kOutside;
    }
    bool is_regular = m.active[static_cast<std::size_t>(i)] == all;
    std::array<CellIndex, kDirections<D>> out{};
    for (int c = 0; c < kCells<D> && is_regular; ++c) {
      codes(o, face, c, out.data());
      for (CellIndex code : out) is_regular = is_regular && code >= 0;
      if (sink) is_regular = is_regular && sink[CellIndex{o} * kCells<D> + c] == 0.0;
    }
    regular[static_cast<std::size_t>(i)] = is_regular ? 1 : 0;
  }
  std::int32_t blocks = 0;
  for (std::size_t i = 0; i < m.octs.size(); ++i)
    if (!regular[i]) m.block[i] = blocks++;
  const auto slots = static_cast<std::size_t>(blocks) * kCells<D>;
  m.neighbours.assign(slots * kDirections<D>, kZero);
  m.diagonal.assign(slots, static_cast<double>(kDirections<D>));
  std::vector<std::uint8_t> dirichlet(boundary ? slots : 0, 0);
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::int32_t block = m.block[static_cast<std::size_t>(i)];
    if (block < 0) continue;
    const OctIndex o = m.octs[static_cast<std::size_t>(i)];
    const auto& face = m.face_octs[static_cast<std::size_t>(i)];
    const unsigned bits = m.active[static_cast<std::size_t>(i)];
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;  // inactive: never relaxed, its codes stay kZero
      const auto slot = static_cast<std::size_t>(block) * kCells<D> + static_cast<std::size_t>(c);
      CellIndex* out = m.neighbours.data() + slot * kDirections<D>;
      const std::uint8_t faces = codes(o, face, c, out);
      if (boundary) dirichlet[slot] = faces;
      double diagonal = kDirections<D> + (sink ? sink[CellIndex{o} * kCells<D> + c] : 0.0);
      for (int dir = 0; dir < kDirections<D>; ++dir) {
        if (out[dir] == kSelf) {
          diagonal -= 1.0;
        } else if (out[dir] == kZero && mask != nullptr) {
          diagonal -= masked_neighbour(o, face, c, dir) / mask[CellIndex{o} * kCells<D> + c];
        }
      }
      m.diagonal[slot] = diagonal;
    }
  }
  m.inverse_diagonal.resize(slots);
  m.h2_over_diagonal.resize(slots);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    m.inverse_diagonal[slot] = 1.0 / m.diagonal[slot];
    m.h2_over_diagonal[slot] = m.k.h2 / m.diagonal[slot];
  }
  if (boundary) {
    boundary->clear();
    for (std::size_t i = 0; i < m.octs.size(); ++i) {
      if (m.block[i] < 0) continue;
      for (int c = 0; c < kCells<D>; ++c) {
        const std::uint8_t faces = dirichlet[static_cast<std::size_t>(m.block[i]) * kCells<D> + static_cast<std::size_t>(c)];
        if (faces != 0) boundary->push_back({Tree::cell_index(m.octs[i], c), faces});
      }
    }
  }
}

// The halo of multigrid level m (halo red-black, OctreeMultigridSettings::halo_red_black): the active
// cells of ghost octs that are face neighbours of m's active cells, with their own neighbour cache
// (build_neighbours on the ghost octs, the same masks and sinks the owner uses: both are refreshed to
// the ghosts). Every neighbour of such a cell lies within one oct width of an owned oct, inside the
// ghost zone of 1.5 oct widths (parallel/distributed_mesh.hpp), so the cache codes it as the owner
// does and the halo's red half-sweep gives the owner's bits.
template <int D>
MgLevel<D> build_halo(const core::OctTree<D, core::MortonKey>& tree, const MgLevel<D>& m, const double* mask, const double* sink,
                      bool walls_dirichlet) {
  std::map<OctIndex, std::uint8_t> needed;  // ghost oct -> bits of the cells an owned cell reads
  for (std::size_t i = 0; i < m.octs.size(); ++i) {
    const unsigned bits = m.active[i];
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;
      for (int dir = 0; dir < kDirections<D>; ++dir) {
        const int axis = dir / 2;
        if (((c >> axis) & 1) != (dir & 1)) continue;  // the neighbour is in the same (owned) oct
        const OctIndex f = m.face_octs[i][static_cast<std::size_t>(dir)];
        if (f < 0 || tree.role(f) != core::OctRole::ghost) continue;
        const int neighbour = c ^ (1 << axis);
        if (mask != nullptr && !(mask[CellIndex{f} * kCells<D> + neighbour] > 0.0)) continue;
        needed[f] = static_cast<std::uint8_t>(needed[f] | (1u << neighbour));
      }
    }
  }
  MgLevel<D> halo;
  halo.level = m.level;
  halo.value_field = m.value_field;
  halo.k = m.k;
  for (const auto& [o, bits] : needed) {
    halo.octs.push_back(o);
    halo.active.push_back(bits);
  }
  build_neighbours<D>(tree, halo, mask, sink, walls_dirichlet, nullptr);
  return halo;
}

// Per-solve setup that depends only on the mesh is kept between solves (seeds/000 App. D.1: the
// neighbour caches), for as long as the key below is unchanged. OctTree::generation() changes when an
// oct is created or destroyed or the pool compacted; a load balance can also move octs between the
// owned and ghost lists or change roles, which the generation does not see, so the key also holds
// full copies of the level lists 1..L (comparing them costs a memcmp over one int per oct). The coarse
// levels depend on the masks too, ghosts included (they come from other ranks), and on the sinks:
// the key holds, per coarse multigrid level, the mask of every cell of the owned and ghost octs and
// the sink of every owned cell, compared with the values recomputed at every solve (the mask weights
// and sinks use the values, not only their signs, and a ghost's can change with no change here).
template <int D>
struct MeshCache {
  bool valid = false;  // the solved level's part: levels[0] without its father_stencil, boundary
  int level = 0;
  std::uint64_t generation = 0;
  bool walls_dirichlet = false;
  std::vector<std::vector<OctIndex>> owned, ghosts;  // level lists 1..level when built
  std::vector<BoundaryCell> boundary;
  long long dirichlet_faces = 0;
  bool coarse_valid = false;  // levels[1..] and levels[0].father_stencil
  int coarsest = 0;
  std::vector<std::vector<double>> coarse_key;  // per coarse multigrid level: masks (owned, ghost octs), sinks (owned)
};

}  // namespace

template <int D>
struct OctreeMultigrid<D>::Impl {
  std::vector<MgLevel<D>> levels;  // levels[0] is the solved level, then coarser ones (kept: see MeshCache)
  std::vector<MgLevel<D>> halos;   // per level when halo red-black is on: its halo (build_halo), else empty
  // per level above the coarsest when halo red-black is on (build_prolongation_ghosts), else empty
  std::vector<MgLevel<D>> prolongation_ghosts;
  MeshCache<D> cache;
  long long refreshes = 0, reductions = 0;
  std::vector<long long>* cycle_counts = nullptr;  // the current V-cycle's counts by level, or null
  const MultigridCommunication* communication = nullptr;

  // Every exchange of the solver goes through these two, which count it (seeds/000 Fig. 3).
  double exchange_seconds = 0.0;  // inside the two calls below, this solve

  void refresh(int level, std::initializer_list<int> fields) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<int> list(fields);
    if (communication->refresh_ghosts) communication->refresh_ghosts(level, std::span<const int>(list));
    exchange_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++refreshes;
    if (cycle_counts) ++(*cycle_counts)[static_cast<std::size_t>(level)];
  }
  void sum(int level, std::span<double> values) {
    const auto start = std::chrono::steady_clock::now();
    if (communication->sum) communication->sum(values);
    exchange_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++reductions;
    if (cycle_counts) ++(*cycle_counts)[static_cast<std::size_t>(level)];
  }
};

template <int D>
OctreeMultigrid<D>::OctreeMultigrid(Tree& tree, OctreeMultigridSettings settings, MultigridCommunication communication)
    : tree_(tree), settings_(settings), communication_(std::move(communication)), impl_(std::make_unique<Impl>()) {
  KOSMO_REQUIRE(settings.epsilon > 0.0, "gravity::OctreeMultigrid: epsilon = " << settings.epsilon << " must be positive");
  KOSMO_REQUIRE(settings.max_vcycles >= 1, "gravity::OctreeMultigrid: max_vcycles must be >= 1");
  KOSMO_REQUIRE(settings.pre_smoothing_sweeps >= 0 && settings.post_smoothing_sweeps >= 0 &&
                    settings.pre_smoothing_sweeps + settings.post_smoothing_sweeps >= 1 && settings.coarsest_sweeps >= 1,
                "gravity::OctreeMultigrid: needs at least one smoothing sweep per level and one on the coarsest");
  auto scratch = [&](const std::string& name) {
    const int existing = tree.fields().find(name);
    if (existing >= 0) return existing;
    core::FieldInfo info = core::scalar_field(name, "code_units");
    info.in_snapshots = false;
    info.in_restarts = false;
    return tree.add_field(info);
  };
  correction_field_ = scratch("multigrid_correction");
  rhs_field_ = scratch("multigrid_rhs");
  residual_field_ = scratch("multigrid_residual");
  mask_field_ = scratch("multigrid_mask");
  impl_->communication = &communication_;
}

template <int D>
OctreeMultigrid<D>::~OctreeMultigrid() = default;

template <int D>
void OctreeMultigrid<D>::set_box_boundary_potential(std::function<double(const Position& position)> phi_outside) {
  phi_outside_ = std::move(phi_outside);
}

namespace {

// Dirichlet value of phi at the centre of the missing level-L cell `c` (integer coordinates at level
// L, inside the box): phi of the level-(L-1) cell C holding that centre plus central-difference slopes
// at the +-1/4 offset (see octree_multigrid.hpp). Returns false when C does not exist (ungraded tree).
template <int D>
bool interpolate_coarse_phi(const core::OctTree<D, core::MortonKey>& tree, int coarse_level, typename core::OctTree<D, core::MortonKey>::Coordinates c,
                            const double* phi, double& value) {
  for (int d = 0; d < D; ++d) {  // wrap periodic axes before halving
    const auto u = static_cast<std::size_t>(d);
    const std::int64_t n = 4 * tree.extent(coarse_level)[u];
    c[u] = ((c[u] % n) + n) % n;
  }
  typename core::OctTree<D, core::MortonKey>::Coordinates coarse{};
  std::array<double, D> offset{};
  for (int d = 0; d < D; ++d) {
    coarse[static_cast<std::size_t>(d)] = c[static_cast<std::size_t>(d)] >> 1;
    offset[static_cast<std::size_t>(d)] = (c[static_cast<std::size_t>(d)] & 1) ? 0.25 : -0.25;
  }
  return coarse_potential<D, core::MortonKey>(tree, coarse_level, coarse, offset, phi, value);
}

}  // namespace

// The state one solve passes between its stages (see solve()).
template <int D>
struct OctreeMultigrid<D>::Solve {
  int level = 0;  // L, the solved level
  int phi_field = -1;
  double* mask = nullptr;
  double* rhs = nullptr;
  double* residual = nullptr;
  double* correction = nullptr;
  double* phi = nullptr;
  const double* source = nullptr;
  bool walls_dirichlet = false;
  const double* sink = nullptr;  // of the coarse levels (compute_coarse_sinks)
  int coarsest = 0;              // the coarsest multigrid level
  bool singular = false;         // no Dirichlet face anywhere
  double cells_total = 0.0;
  double round_off_floor = 0.0;
};

// The solved level's neighbour cache, rebuilt only when the mesh changed (MeshCache).
template <int D>
void OctreeMultigrid<D>::prepare_solved_level(const Solve& s) {
  constexpr auto all_cells = static_cast<std::uint8_t>((1u << kCells<D>) - 1u);
  Impl& impl = *impl_;
  MeshCache<D>& cache = impl.cache;
  const int L = s.level;
  auto same_lists = [&]() {
    if (cache.owned.size() != static_cast<std::size_t>(L) + 1) return false;
    for (int k = 1; k <= L; ++k)
      if (cache.owned[static_cast<std::size_t>(k)] != tree_.octs_at_level(k) || cache.ghosts[static_cast<std::size_t>(k)] != tree_.ghost_octs_at_level(k))
        return false;
    return true;
  };
  if (!(cache.valid && cache.level == L && cache.generation == tree_.generation() && cache.walls_dirichlet == s.walls_dirichlet &&
        same_lists())) {
    cache.valid = cache.coarse_valid = false;
    impl.levels.clear();
    MgLevel<D> fine;
    fine.level = L;
    fine.k = coefficients(tree_.cell_size(L), D);
    fine.octs = tree_.octs_at_level(L);
    fine.active.assign(fine.octs.size(), all_cells);
    build_neighbours<D>(tree_, fine, nullptr, nullptr, s.walls_dirichlet, &cache.boundary);
    cache.dirichlet_faces = 0;
    for (const BoundaryCell& b : cache.boundary) cache.dirichlet_faces += std::popcount(static_cast<unsigned>(b.directions));
    impl.levels.push_back(std::move(fine));
    impl.halos.clear();
    if (halo_red_black()) impl.halos.push_back(build_halo<D>(tree_, impl.levels[0], nullptr, nullptr, s.walls_dirichlet));
    cache.level = L;
    cache.generation = tree_.generation();
    cache.walls_dirichlet = s.walls_dirichlet;
    cache.owned.assign(static_cast<std::size_t>(L) + 1, {});
    cache.ghosts.assign(static_cast<std::size_t>(L) + 1, {});
    for (int k = 1; k <= L; ++k) {
      cache.owned[static_cast<std::size_t>(k)] = tree_.octs_at_level(k);
      cache.ghosts[static_cast<std::size_t>(k)] = tree_.ghost_octs_at_level(k);
    }
    cache.valid = true;
  }
  impl.levels[0].value_field = s.phi_field;
}

// rhs = source on the solved level, less the Dirichlet values of the boundary cells' missing faces
// over h^2 (RAMSES' BC-modified rhs f(:,2)): phi_outside beyond a Dirichlet wall, phi interpolated from
// the coarser level at a coarse-fine face (interpol_phi). Returns the source's sum and sum of squares,
// accumulated serially in list order.
template <int D>
std::array<double, 2> OctreeMultigrid<D>::fold_boundary_values(const Solve& s) {
  const Impl& impl = *impl_;
  const int L = s.level;
  double source_sum = 0.0, source_norm2 = 0.0;
  for (OctIndex o : impl.levels[0].octs)
    for (int c = 0; c < kCells<D>; ++c) {
      const CellIndex cell = Tree::cell_index(o, c);
      const double value = s.source[cell];
      s.rhs[cell] = value;  // on the cells without a Dirichlet face: source - 0 / h^2, the same bits
      source_sum += value;
      source_norm2 += value * value;
    }
  bool ungraded = false;
  const std::vector<BoundaryCell>& boundary = impl.cache.boundary;
  const auto n = static_cast<std::ptrdiff_t>(boundary.size());
  const double h = tree_.cell_size(L);
  const double inverse_h2 = impl.levels[0].k.inverse_h2;
#pragma omp parallel for schedule(static) reduction(|| : ungraded) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const CellIndex cell = boundary[static_cast<std::size_t>(i)].cell;
    const unsigned directions = boundary[static_cast<std::size_t>(i)].directions;
    const auto x = tree_.cell_coordinates(cell);
    double sum = 0.0;  // sum of the Dirichlet neighbour values, in direction order
    for (int dir = 0; dir < kDirections<D>; ++dir) {
      if (((directions >> dir) & 1u) == 0) continue;
      const int axis = dir / 2;
      auto y = x;
      y[static_cast<std::size_t>(axis)] += (dir & 1) ? 1 : -1;
      if (outside_box<D>(tree_, L, y, axis)) {
        Position centre{};
        for (int d = 0; d < D; ++d) centre[static_cast<std::size_t>(d)] = (static_cast<double>(y[static_cast<std::size_t>(d)]) + 0.5) * h;
        sum += phi_outside_(centre);
      } else {
        double value = 0.0;
        if (L == 1 || !interpolate_coarse_phi<D>(tree_, L - 1, y, s.phi, value)) ungraded = true;
        sum += value;
      }
    }
    s.rhs[cell] = s.source[cell] - sum * inverse_h2;
  }
  KOSMO_REQUIRE(!ungraded, "gravity::OctreeMultigrid::solve: a level-" << L << " cell's missing face neighbour has no level-" << L - 1
                                                                         << " cell under it (ungraded tree or ghost zone too thin)");
  return {source_sum, source_norm2};
}

// Masks, coarse to the root (RAMSES restrict_mask): level by level, each refreshed to the ghosts so
// that the next coarser owned cells can average ghost children. Returns the active cells of levels
// 1..L-1 (this rank's), indexed by level.
template <int D>
std::vector<double> OctreeMultigrid<D>::restrict_masks(const Solve& s) {
  const int L = s.level;
  double* mask = s.mask;
  for (const auto* list : {&tree_.octs_at_level(L), &tree_.ghost_octs_at_level(L)})
    for (OctIndex o : *list) std::fill_n(mask + Tree::cell_index(o, 0), kCells<D>, 1.0);
  std::vector<double> active_cells(static_cast<std::size_t>(L), 0.0);
  for (int k = L - 1; k >= 1; --k) {
    const auto& octs = tree_.octs_at_level(k);
    const auto n = static_cast<std::ptrdiff_t>(octs.size());
    long long active = 0;
#pragma omp parallel for schedule(static) reduction(+ : active) if (static_cast<std::size_t>(n) >= kParallelOcts)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (int c = 0; c < kCells<D>; ++c) {
        const CellIndex cell = Tree::cell_index(octs[static_cast<std::size_t>(i)], c);
        const OctIndex son = tree_.son(cell);
        double m = -1.0;
        if (son != core::no_oct) {
          double sum = 0.0;
          for (int child = 0; child < kCells<D>; ++child) sum += mask[Tree::cell_index(son, child)];
          m = sum / kCells<D>;
        }
        mask[cell] = m;
        if (m > 0.0) ++active;
      }
    impl_->refresh(k, {mask_field_});
    active_cells[static_cast<std::size_t>(k)] = static_cast<double>(active);
  }
  return active_cells;
}

// The setup counts of every rank in one batched reduction: whether the problem is singular (then the
// source's mean is removed from rhs), the round-off floor of the residual, the coarsest multigrid
// level (the last of L-1, L-2, ... with active cells somewhere), and the coarse levels' sinks.
template <int D>
void OctreeMultigrid<D>::reduce_setup(Solve& s, std::vector<double> active_cells, const std::array<double, 2>& source_sums) {
  Impl& impl = *impl_;
  const int L = s.level;
  // Active cells at 1..L-1, Dirichlet faces, sum of rhs, cells, sum of rhs^2.
  std::vector<double> setup_sums = std::move(active_cells);
  setup_sums.push_back(static_cast<double>(impl.cache.dirichlet_faces));
  setup_sums.push_back(source_sums[0]);
  setup_sums.push_back(static_cast<double>(impl.levels[0].octs.size() * kCells<D>));
  setup_sums.push_back(source_sums[1]);
  impl.sum(L, setup_sums);
  s.singular = setup_sums[static_cast<std::size_t>(L)] == 0.0;
  s.cells_total = setup_sums[static_cast<std::size_t>(L) + 2];
  // The residual a double-precision solve can reach: with a good warm start the initial residual
  // is itself near it, and epsilon times it is out of reach (the solve would never stop).
  s.round_off_floor = 1e-12 * std::sqrt(setup_sums[static_cast<std::size_t>(L) + 3]);
  if (s.singular && s.cells_total > 0.0) {
    // No Dirichlet face anywhere: L_h is singular; solve for the neutral part of the source.
    const double mean = setup_sums[static_cast<std::size_t>(L) + 1] / s.cells_total;
    const std::vector<OctIndex>& octs = impl.levels[0].octs;
    const auto n = static_cast<std::ptrdiff_t>(octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (int c = 0; c < kCells<D>; ++c) s.rhs[Tree::cell_index(octs[static_cast<std::size_t>(i)], c)] -= mean;
  }
  s.coarsest = L;
  while (s.coarsest - 1 >= 1 && setup_sums[static_cast<std::size_t>(s.coarsest - 1)] > 0.0) --s.coarsest;
  // The halo cells' operators (build_halo) need their owners' sinks: a level's sinks are final when
  // the contributions of that level are refreshed (from L-1 down: L-1 has none), so they ride along;
  // the coarsest level's go alone.
  s.sink = compute_coarse_sinks<D>(tree_, L, s.coarsest, s.mask, s.walls_dirichlet, s.correction, s.residual, [&](int level) {
    if (halo_red_black()) {
      impl.refresh(level, {residual_field_, correction_field_});
    } else {
      impl.refresh(level, {residual_field_});
    }
  });
  if (halo_red_black() && s.coarsest < L) impl.refresh(s.coarsest, {correction_field_});
}

// Coarse multigrid levels: active cells, neighbour caches, prolongation stencils. Kept between
// solves while the solved level's cache is, `coarsest` is, and the masks and sinks of levels
// coarsest..L-1 are those they were built with (see MeshCache).
template <int D>
void OctreeMultigrid<D>::prepare_coarse_levels(const Solve& s) {
  Impl& impl = *impl_;
  MeshCache<D>& cache = impl.cache;
  const int L = s.level;
  const double* mask = s.mask;
  auto active_bits = [&](OctIndex o) {
    unsigned bits = 0;
    for (int c = 0; c < kCells<D>; ++c)
      if (mask[Tree::cell_index(o, c)] > 0.0) bits |= 1u << c;
    return static_cast<std::uint8_t>(bits);
  };
  auto coarse_key = [&](int k) {
    std::vector<double> key;
    for (const auto* list : {&tree_.octs_at_level(k), &tree_.ghost_octs_at_level(k)})
      for (OctIndex o : *list) key.insert(key.end(), mask + Tree::cell_index(o, 0), mask + Tree::cell_index(o, 0) + kCells<D>);
    for (const auto* list : {&tree_.octs_at_level(k), &tree_.ghost_octs_at_level(k)}) {
      if (list != &tree_.octs_at_level(k) && !halo_red_black()) break;  // ghost sinks: refreshed (and read) by the halo only
      for (OctIndex o : *list) key.insert(key.end(), s.sink + Tree::cell_index(o, 0), s.sink + Tree::cell_index(o, 0) + kCells<D>);
    }
    return key;
  };
  bool coarse_cached = cache.coarse_valid && cache.coarsest == s.coarsest;
  for (int k = L - 1; k >= s.coarsest && coarse_cached; --k)
    coarse_cached = coarse_key(k) == cache.coarse_key[static_cast<std::size_t>(L - 1 - k)];
  if (coarse_cached) return;
  cache.coarse_valid = false;
  impl.levels.resize(1);
  impl.halos.resize(std::min<std::size_t>(impl.halos.size(), 1));
  cache.coarse_key.assign(static_cast<std::size_t>(L - s.coarsest), {});
  for (int k = L - 1; k >= s.coarsest; --k) {
    MgLevel<D> m;
    m.level = k;
    m.value_field = correction_field_;
    m.k = coefficients(tree_.cell_size(k), D);
    cache.coarse_key[static_cast<std::size_t>(L - 1 - k)] = coarse_key(k);
    for (OctIndex o : tree_.octs_at_level(k)) {
      const std::uint8_t bits = active_bits(o);
      if (bits == 0) continue;
      m.octs.push_back(o);
      m.active.push_back(bits);
      m.reset_octs.push_back(o);
    }
    for (OctIndex o : tree_.ghost_octs_at_level(k))
      if (active_bits(o) != 0) m.reset_octs.push_back(o);
    build_neighbours<D>(tree_, m, mask, s.sink, s.walls_dirichlet, nullptr);
    if (halo_red_black()) impl.halos.push_back(build_halo<D>(tree_, m, mask, s.sink, s.walls_dirichlet));
    impl.levels.push_back(std::move(m));
  }
  build_father_stencils(mask);
  cache.coarsest = s.coarsest;
  cache.coarse_valid = true;
}

// Prolongation stencils: for each level with a coarser multigrid level under it, the 3^D cells of the
// coarser level around each oct's father (active ones, or kZero; zero-gradient walls mirror).
template <int D>
void OctreeMultigrid<D>::build_father_stencils(const double* mask) {
  Impl& impl = *impl_;
  impl.prolongation_ghosts.clear();
  for (std::size_t j = 0; j + 1 < impl.levels.size(); ++j) {
    const bool walls_dirichlet = static_cast<bool>(phi_outside_);
    build_father_stencil<D>(tree_, impl.levels[j], mask, walls_dirichlet);
    if (!halo_red_black()) continue;
    impl.prolongation_ghosts.push_back(build_prolongation_ghosts<D>(tree_, impl.halos[j], j == 0 ? nullptr : mask));
    build_father_stencil<D>(tree_, impl.prolongation_ghosts.back(), mask, walls_dirichlet);
  }
}

// `sweeps` red-black Gauss-Seidel sweeps of multigrid level m.
template <int D>
template <bool Reciprocal>
void OctreeMultigrid<D>::smooth(const Solve& s, std::size_t j, int sweeps) {
  const MgLevel<D>& m = impl_->levels[j];
  double* x = tree_.field(m.value_field);
  const bool halo = halo_red_black();
  for (int sweep_index = 0; sweep_index < sweeps; ++sweep_index) {
    sweep<D, Reciprocal>(m, 0, x, s.rhs);
    if (halo) {
      sweep<D, Reciprocal>(impl_->halos[j], 0, x, s.rhs);  // the red ghosts black reads, as their owners compute them
    } else if (!settings_.merged_red_black) {
      impl_->refresh(m.level, {m.value_field});  // RAMSES: red, exchange, black, exchange
    }
    sweep<D, Reciprocal>(m, 1, x, s.rhs);
    impl_->refresh(m.level, {m.value_field});  // merged (App. D.2): red, black, exchange
  }
}

// One V-cycle from multigrid level j down (seeds/000 §5.1.1, Fig. 3).
template <int D>
template <bool Reciprocal>
void OctreeMultigrid<D>::vcycle(const Solve& s, std::size_t j) {
  Impl& impl = *impl_;
  const MgLevel<D>& m = impl.levels[j];
  if (j + 1 == impl.levels.size()) {
    smooth<Reciprocal>(s, j, j == 0 ? settings_.pre_smoothing_sweeps + settings_.post_smoothing_sweeps : settings_.coarsest_sweeps);
    return;
  }
  smooth<Reciprocal>(s, j, settings_.pre_smoothing_sweeps);
  residual<D, Reciprocal, false>(m, tree_.field(m.value_field), s.rhs, s.residual);
  impl.refresh(m.level, {residual_field_});  // restriction reads children on other ranks
  const MgLevel<D>& coarse = impl.levels[j + 1];
  restrict_residual<D>(tree_, coarse, s.residual, s.mask, s.rhs);
  if (halo_red_black()) impl.refresh(coarse.level, {rhs_field_});  // the halo's red sweep reads rhs
  const auto n = static_cast<std::ptrdiff_t>(coarse.reset_octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    std::fill_n(s.correction + Tree::cell_index(coarse.reset_octs[static_cast<std::size_t>(i)], 0), kCells<D>, 0.0);
  vcycle<Reciprocal>(s, j + 1);
  // The coarse correction's ghosts are fresh: its last sweep ended with a refresh.
  prolong_and_correct<D>(m, s.correction, tree_.field(m.value_field));
  if (halo_red_black() && settings_.post_smoothing_sweeps > 0) {  // the post-smoothing's last sweep refreshes the ghosts
    prolong_and_correct<D>(impl.prolongation_ghosts[j], s.correction, tree_.field(m.value_field));
  } else {
    impl.refresh(m.level, {m.value_field});  // the prolongation exchange
  }
  smooth<Reciprocal>(s, j, settings_.post_smoothing_sweeps);
}

// ||r|| on the solved level: fused (one loop) or RAMSES' residual, residual refresh, norm pass.
template <int D>
template <bool Reciprocal>
double OctreeMultigrid<D>::residual_norm(const Solve& s) {
  const MgLevel<D>& m = impl_->levels[0];
  double value[1] = {0.0};
  if (settings_.fused_residual_norm) {
    value[0] = residual<D, Reciprocal, true>(m, s.phi, s.rhs, s.residual);
  } else {
    residual<D, Reciprocal, false>(m, s.phi, s.rhs, s.residual);
    impl_->refresh(s.level, {residual_field_});  // RAMSES multigrid_fine: make_virtual_fine_dp(f(1,1)) after cmp_residual_mg_fine
    value[0] = norm2_pass<D>(m, s.residual);
  }
  impl_->sum(s.level, value);
  return std::sqrt(value[0]);
}

// V-cycles until the residual has fallen by epsilon (or to the round-off floor) or max_vcycles.
template <int D>
template <bool Reciprocal>
void OctreeMultigrid<D>::iterate(const Solve& s, OctreeMultigridReport& report) {
  Impl& impl = *impl_;
  const int L = s.level;
  if (halo_red_black()) {
    impl.refresh(L, {s.phi_field, rhs_field_});  // the warm start's ghosts, and rhs for the halo's red sweep
  } else {
    impl.refresh(L, {s.phi_field});  // the warm start's ghosts
  }
  report.initial_residual = residual_norm<Reciprocal>(s);
  report.final_residual = report.initial_residual;
  if (report.initial_residual <= s.round_off_floor) {
    report.converged = true;
    return;
  }
  std::vector<long long> counts(static_cast<std::size_t>(L) + 1, 0);
  while (report.vcycles < settings_.max_vcycles) {
    std::fill(counts.begin(), counts.end(), 0);
    impl.cycle_counts = &counts;
    vcycle<Reciprocal>(s, 0);
    report.final_residual = residual_norm<Reciprocal>(s);
    impl.cycle_counts = nullptr;
    ++report.vcycles;
    report.residual_history.push_back(report.final_residual / report.initial_residual);
    if (report.final_residual <= std::max(settings_.epsilon * report.initial_residual, s.round_off_floor)) {
      report.converged = true;
      break;
    }
  }
  report.exchanges_per_vcycle_by_level = counts;
  report.reduction_per_vcycle =
      std::pow(report.initial_residual / std::max(report.final_residual, std::numeric_limits<double>::min()), 1.0 / report.vcycles);
}

// Zero mean, as PeriodicFftPoisson; the same shift on owned and ghost cells keeps ghosts valid.
template <int D>
void OctreeMultigrid<D>::remove_mean(const Solve& s) {
  const int L = s.level;
  double phi_sum[1] = {0.0};
  for (OctIndex o : impl_->levels[0].octs)
    for (int c = 0; c < kCells<D>; ++c) phi_sum[0] += s.phi[Tree::cell_index(o, c)];
  impl_->sum(L, phi_sum);
  const double mean = phi_sum[0] / s.cells_total;
  for (const auto* list : {&tree_.octs_at_level(L), &tree_.ghost_octs_at_level(L)}) {
    const auto n = static_cast<std::ptrdiff_t>(list->size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (int c = 0; c < kCells<D>; ++c) s.phi[Tree::cell_index((*list)[static_cast<std::size_t>(i)], c)] -= mean;
  }
}

template <int D>
OctreeMultigridReport OctreeMultigrid<D>::solve(int level, int phi_field, int rhs_field) {
  const auto start = std::chrono::steady_clock::now();
  KOSMO_REQUIRE(level >= 1 && level <= tree_.levelmax(), "gravity::OctreeMultigrid::solve: level " << level << " outside 1.." << tree_.levelmax());
  impl_->refreshes = impl_->reductions = 0;
  impl_->exchange_seconds = 0.0;
  impl_->cycle_counts = nullptr;
  Solve s;
  s.level = level;
  s.phi_field = phi_field;
  s.mask = tree_.field(mask_field_);
  s.rhs = tree_.field(rhs_field_);
  s.residual = tree_.field(residual_field_);
  s.correction = tree_.field(correction_field_);
  s.phi = tree_.field(phi_field);
  s.source = tree_.field(rhs_field);
  s.walls_dirichlet = static_cast<bool>(phi_outside_);

  prepare_solved_level(s);
  const std::array<double, 2> source_sums = fold_boundary_values(s);
  reduce_setup(s, restrict_masks(s), source_sums);
  prepare_coarse_levels(s);
  OctreeMultigridReport report;
  if (settings_.precomputed_reciprocal) {
    iterate<true>(s, report);
  } else {
    iterate<false>(s, report);
  }
  if (s.singular && s.cells_total > 0.0) remove_mean(s);

  report.ghost_refreshes = impl_->refreshes;
  report.reductions = impl_->reductions;
  report.exchange_seconds = impl_->exchange_seconds;
  if (report.exchanges_per_vcycle_by_level.empty()) report.exchanges_per_vcycle_by_level.assign(static_cast<std::size_t>(level) + 1, 0);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

template class OctreeMultigrid<1>;
template class OctreeMultigrid<2>;
template class OctreeMultigrid<3>;

}  // namespace kosmo::gravity
