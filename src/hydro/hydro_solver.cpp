#include "hydro/hydro_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/refinement.hpp"
#include "hydro/courant.hpp"
#include "hydro/hydro_variables.hpp"
#include "hydro/muscl_hancock.hpp"
#include "hydro/thread_threshold.hpp"

namespace kosmo::hydro {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

const char* axis_name(int d) { return d == 0 ? "x" : (d == 1 ? "y" : "z"); }

// Index of cell c among the transverse positions of a face along axis d: bit d removed.
constexpr int transverse_index(int c, int d) { return (c & ((1 << d) - 1)) | ((c >> (d + 1)) << d); }

}  // namespace

template <int D>
HydroSolver<D>::HydroSolver(Tree& tree, const Settings& settings)
    : tree_(tree), settings_(settings), nvar_(D + 2 + settings.scheme.npassive), flux_width_(hydro::flux_width(D, settings.scheme)) {
  // Snapshots carry primitive variables (output_fields), so the conservative arrays are written
  // only to restarts; the new time level is transient. uold's ghosts are refreshed by the stepper
  // after each level's source terms (RAMSES make_virtual_fine_dp).
  const std::vector<core::FieldInfo> conservative = conservative_fields<D>(settings.scheme.npassive, settings.scheme.metallicity);
  for (auto info : conservative) uold_.push_back(tree_.add_field(info.restart_only().ghosts_at(core::GhostStage::after_source_terms)));
  for (auto info : conservative) {
    info.name = "new_" + info.name;
    unew_.push_back(tree_.add_field(info.transient()));
  }
  if (settings.scheme.pressure_fix) register_pressure_fix_fields();
  register_interpolation_fields();
  using Stencil = core::OctStencilCache<D, Key>;
  block_index_.resize(Stencil::neighbours);
  for (int k = 0; k < Stencil::neighbours; ++k)
    for (int c = 0; c < cells_per_oct; ++c) {
      std::array<int, D> local{};
      for (int d = 0; d < D; ++d) local[d] = 2 * Stencil::offset_along(k, d) + 1 + ((c >> d) & 1);
      block_index_[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)] = OctBlock<D>::index(local);
    }
}

// On one thread: the copy is bound by memory bandwidth, and on the 2-core development machine a
// threaded copy (one region over the octs, split as the Godunov sweep) was slower than this, the
// thread wake-up costing more than the second core gains (docs/performance.md, "Threads and
// ranks on shared cores").
template <int D>
void HydroSolver<D>::copy_level(int level, const std::vector<int>& from, const std::vector<int>& to) {
  const auto& octs = tree_.octs_at_level(level);
  std::vector<const double*> source(static_cast<std::size_t>(nvar_));
  std::vector<double*> target(static_cast<std::size_t>(nvar_));
  for (int v = 0; v < nvar_; ++v) {
    source[static_cast<std::size_t>(v)] = tree_.field(from[static_cast<std::size_t>(v)]);
    target[static_cast<std::size_t>(v)] = tree_.field(to[static_cast<std::size_t>(v)]);
  }
  for (std::size_t i = 0; i < octs.size(); ++i) {
    const core::CellIndex first = Tree::cell_index(octs[i], 0);
    for (int v = 0; v < nvar_; ++v)
      std::copy_n(source[static_cast<std::size_t>(v)] + first, cells_per_oct, target[static_cast<std::size_t>(v)] + first);
  }
}

template <int D>
void HydroSolver<D>::set_unew(int level) {
  copy_level(level, uold_, unew_);
  if (settings_.scheme.pressure_fix) start_internal_energy(level);
}

template <int D>
void HydroSolver<D>::set_uold(int level, double dt) {
  copy_level(level, unew_, uold_);
  if (settings_.scheme.pressure_fix) apply_pressure_fix(level, dt);
}

template <int D>
void HydroSolver<D>::restrict_onto(int level) {
  const auto& octs = tree_.octs_at_level(level);
  std::vector<double*> u(static_cast<std::size_t>(nvar_));
  for (int v = 0; v < nvar_; ++v) u[static_cast<std::size_t>(v)] = tree_.field(uold_[static_cast<std::size_t>(v)]);
  // One region for all variables (a region per variable cost more in thread wake-ups than the
  // restriction itself).
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const core::OctIndex son = tree_.son(cell);
      if (son == core::no_oct) continue;
      for (int v = 0; v < nvar_; ++v) {
        double* values = u[static_cast<std::size_t>(v)];
        values[cell] = core::restrict_children<D>(values + Tree::cell_index(son, 0));
      }
    }
  if (settings_.interpol_var == 1) restrict_internal_energy(level);
}

template <int D>
void HydroSolver<D>::set_gravity(std::array<int, D> acceleration_fields) {
  for (int d = 0; d < D; ++d) {
    const int id = acceleration_fields[static_cast<std::size_t>(d)];
    KOSMO_REQUIRE(id >= 0 && id < tree_.fields().size(),
                  "hydro: set_gravity: acceleration field id " << id << " for axis " << axis_name(d)
                                                               << " is not a registered cell field");
  }
  gravity_fields_ = acceleration_fields;
  has_gravity_ = true;
}

template <int D>
void HydroSolver<D>::gravity_kick(int level, double dt_kick) {
  kick_level(level, dt_kick, nullptr);
}

template <int D>
void HydroSolver<D>::gravity_kick(int level, double factor, int kick_time_field) {
  KOSMO_REQUIRE(kick_time_field >= 0 && kick_time_field < tree_.fields().size(),
                "hydro: gravity_kick: kick time field id " << kick_time_field << " is not a registered cell field");
  kick_level(level, factor, tree_.field(kick_time_field));
}

template <int D>
void HydroSolver<D>::kick_level(int level, double factor, const double* kick_time) {
  KOSMO_REQUIRE(has_gravity_, "hydro: gravity_kick needs the acceleration fields (set_gravity)");
  const auto& octs = tree_.octs_at_level(level);
  const double smallr = settings_.scheme.smallr;
  double* rho = tree_.field(uold_[0]);
  double* energy = tree_.field(uold_[static_cast<std::size_t>(D + 1)]);
  std::array<double*, D> momentum{};
  std::array<const double*, D> g{};
  for (int d = 0; d < D; ++d) {
    momentum[static_cast<std::size_t>(d)] = tree_.field(uold_[static_cast<std::size_t>(1 + d)]);
    g[static_cast<std::size_t>(d)] = tree_.field(gravity_fields_[static_cast<std::size_t>(d)]);
  }
  // RAMSES synchro_hydro_fine: every cell of the level, leaf or not (restriction overwrites the
  // refined ones later); the kinetic energy is swapped so that the internal energy is untouched.
#pragma omp parallel for schedule(static) if (worth_threads(octs.size()))
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double dt_kick = kick_time == nullptr ? factor : factor * kick_time[cell];
      const double density = std::max(rho[cell], smallr);
      double speed2_old = 0.0, speed2_new = 0.0;
      for (int d = 0; d < D; ++d) {
        const auto a = static_cast<std::size_t>(d);
        const double velocity = momentum[a][cell] / density;
        const double kicked = velocity + g[a][cell] * dt_kick;
        speed2_old += velocity * velocity;
        speed2_new += kicked * kicked;
        momentum[a][cell] = density * kicked;
      }
      energy[cell] = (energy[cell] - 0.5 * density * speed2_old) + 0.5 * density * speed2_new;
    }
}

template <int D>
double HydroSolver<D>::courant_time_step(int level) const {
  const auto& octs = tree_.octs_at_level(level);
  const double dx = tree_.cell_size(level);
  double dt = std::numeric_limits<double>::max();
  std::vector<const double*> u(static_cast<std::size_t>(nvar_));
  for (int v = 0; v < nvar_; ++v) u[static_cast<std::size_t>(v)] = tree_.field(uold_[static_cast<std::size_t>(v)]);
#pragma omp parallel
  {
    std::vector<double> cell_u(static_cast<std::size_t>(nvar_));
#pragma omp for schedule(static) reduction(min : dt)
    for (std::size_t i = 0; i < octs.size(); ++i)
      for (int c = 0; c < cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(octs[i], c);
        for (int v = 0; v < nvar_; ++v) cell_u[static_cast<std::size_t>(v)] = u[static_cast<std::size_t>(v)][cell];
        // RAMSES cmpdt: gravity shortens the step where it accelerates gas faster than the flow
        // crosses a cell (a cold collapse starts from rest, where the sound speed alone allows any dt).
        double gravity_norm1 = 0.0;
        if (has_gravity_)
          for (int d = 0; d < D; ++d) gravity_norm1 += std::fabs(tree_.field(gravity_fields_[static_cast<std::size_t>(d)])[cell]);
        dt = std::min(dt, hydro::courant_time_step<D>(cell_u.data(), 1, dx, settings_.courant_factor, settings_.scheme, gravity_norm1));
      }
  }
  return dt;
}

// What every oct of a level's Godunov update shares (see godunov()).
template <int D>
struct HydroSolver<D>::GodunovLevel {
  const core::OctStencilCache<D, Key>& stencil;
  double dt_over_dx;
  std::vector<const double*> uold;
  std::vector<double*> unew;
  bool gravity;
  std::array<const double*, D> acceleration;  // gathered into a block laid out like u (RAMSES godfine1's gloc)
  typename Tree::Coordinates extent;
  bool any_wall;
  std::vector<unsigned char> needed;  // per offset k of the 3^D neighbourhood: whether the kernel reads its cells
  double dt, dx;
  double* internal_energy;  // the pressure fix's enew and divu fields; nullptr without the fix
  double* divergence;
};

// One thread's blocks, fluxes and scratch, and the reflux contributions it records in oct order.
template <int D>
struct HydroSolver<D>::GodunovScratch {
  GodunovScratch(int nvar, int flux_width, bool gravity, std::vector<RefluxContribution>& records, std::vector<double>& fluxes)
      : block(static_cast<std::size_t>(nvar * OctBlock<D>::cells)),
        gravity_block(gravity ? static_cast<std::size_t>(D * OctBlock<D>::cells) : 0),
        flux(static_cast<std::size_t>(D * OctBlock<D>::faces * flux_width)),
        children(static_cast<std::size_t>(nvar * cells_per_oct)),
        mirror(static_cast<std::size_t>(nvar)),
        ghost(static_cast<std::size_t>(nvar)),
        muscl(nvar),
        records(records),
        fluxes(fluxes) {}
  std::vector<double> block, gravity_block, flux, children, mirror, ghost;
  MusclScratch<D> muscl;
  std::vector<RefluxContribution>& records;
  std::vector<double>& fluxes;
};

// Only the neighbour octs whose cells the kernel reads are gathered (corner octs are not read with
// slope types 0-2).
template <int D>
std::vector<unsigned char> HydroSolver<D>::neighbours_read() const {
  using Stencil = core::OctStencilCache<D, Key>;
  std::vector<unsigned char> needed(Stencil::neighbours, 0);
  const MusclScratch<D> probe(nvar_);
  for (int cell : probe.cells_read(settings_.scheme.slope_type))
    for (int k = 0; k < Stencil::neighbours; ++k)
      for (int c = 0; c < cells_per_oct; ++c)
        if (block_index_[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)] == cell) needed[static_cast<std::size_t>(k)] = 1;
  return needed;
}

// Gather the i-th oct's block: same-level octs copied, coarser leaves interpolated as at refinement.
// Returns whether part of the neighbourhood lies outside a non-periodic box.
template <int D>
bool HydroSolver<D>::gather_block(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  const int nvar = nvar_;
  bool has_outside = false;
  for (int k = 0; k < core::OctStencilCache<D, Key>::neighbours; ++k) {
    if (!shared.needed[static_cast<std::size_t>(k)]) continue;
    const core::OctIndex s = shared.stencil.neighbour_oct(i, k);
    const auto& where = block_index_[static_cast<std::size_t>(k)];
    if (s != core::no_oct) {
      const core::CellIndex first = Tree::cell_index(s, 0);
      for (int v = 0; v < nvar; ++v) {
        const double* src = shared.uold[static_cast<std::size_t>(v)] + first;
        double* dst = scratch.block.data() + static_cast<std::size_t>(v) * Block::cells;
        for (int c = 0; c < cells_per_oct; ++c) dst[where[static_cast<std::size_t>(c)]] = src[c];
      }
      if (shared.gravity)
        for (int d = 0; d < D; ++d) {
          const double* src = shared.acceleration[static_cast<std::size_t>(d)] + first;
          double* dst = scratch.gravity_block.data() + static_cast<std::size_t>(d) * Block::cells;
          for (int c = 0; c < cells_per_oct; ++c) dst[where[static_cast<std::size_t>(c)]] = src[c];
        }
    } else if (shared.stencil.coarse_cell(i, k) != core::no_cell) {
      const core::CellIndex coarse = shared.stencil.coarse_cell(i, k);
      core::interpolate_children<D, Key>(tree_, coarse, settings_.interpolation, interpolation_fields_, scratch.children.data());
      if (settings_.interpol_var == 1) rebuild_children_energy(scratch.children.data());
      for (int v = 0; v < nvar; ++v)
        for (int c = 0; c < cells_per_oct; ++c)
          scratch.block[static_cast<std::size_t>(v) * Block::cells + static_cast<std::size_t>(where[static_cast<std::size_t>(c)])] =
              scratch.children[static_cast<std::size_t>(v * cells_per_oct + c)];
      // RAMSES godfine1 gives the missing fine cells their father cell's acceleration, not an
      // interpolation (f(ibuffer_father) in gloc).
      if (shared.gravity)
        for (int d = 0; d < D; ++d)
          for (int c = 0; c < cells_per_oct; ++c)
            scratch.gravity_block[static_cast<std::size_t>(d) * Block::cells + static_cast<std::size_t>(where[static_cast<std::size_t>(c)])] =
                shared.acceleration[static_cast<std::size_t>(d)][coarse];
    } else {
      has_outside = true;
    }
  }
  return has_outside;
}

// Ghost cells beyond a wall, axis by axis, from the mirror cell inside (seeds: RAMSES
// make_boundary_hydro). A cell outside along several axes is filled at the last of them.
template <int D>
void HydroSolver<D>::fill_wall_ghosts(const GodunovLevel& shared, core::OctIndex o, GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  const int nvar = nvar_;
  const BoxBoundaries<D>& boundaries = settings_.boundaries;
  const auto oct_coordinates = tree_.coordinates(o);
  for (int d = 0; d < D; ++d) {
    if (boundaries.periodic(d)) continue;
    for (int b = 0; b < Block::cells; ++b) {
      std::array<int, D> local{};
      int rest = b;
      for (int e = 0; e < D; ++e) {
        local[e] = rest % Block::width - 1;
        rest /= Block::width;
      }
      auto global = [&](int e) { return 2 * oct_coordinates[e] + local[e] - 1; };
      const std::int64_t position = global(d);
      const std::int64_t cells_along = 2 * shared.extent[d];
      if (position >= 0 && position < cells_along) continue;
      bool inside_later_axes = true;
      for (int e = d + 1; e < D; ++e)
        inside_later_axes = inside_later_axes && (boundaries.periodic(e) || (global(e) >= 0 && global(e) < 2 * shared.extent[e]));
      if (!inside_later_axes) continue;
      const int side = position < 0 ? 0 : 1;
      const BoundaryFace& face = boundaries.faces[static_cast<std::size_t>(2 * d + side)];
      // Reflecting walls mirror; outflow copies the first interior cell at every depth.
      const std::int64_t mirrored = boundary_reference_cell(face.type, position, cells_along);
      auto mirror_local = local;
      mirror_local[d] = static_cast<int>(mirrored - 2 * oct_coordinates[d] + 1);
      const int m = Block::index(mirror_local);
      for (int v = 0; v < nvar; ++v) scratch.mirror[static_cast<std::size_t>(v)] = scratch.block[static_cast<std::size_t>(v * Block::cells + m)];
      boundary_ghost_state<D>(face, d, side, settings_.scheme.gamma, settings_.scheme.npassive, scratch.mirror.data(), scratch.ghost.data());
      for (int v = 0; v < nvar; ++v) scratch.block[static_cast<std::size_t>(v * Block::cells + b)] = scratch.ghost[static_cast<std::size_t>(v)];
      // The ghost's acceleration is its reference cell's, with the normal component negated
      // at a reflecting wall (RAMSES make_boundary_force), so that the gravity predictor
      // keeps the mirror symmetry that makes the wall's mass flux vanish.
      if (shared.gravity)
        for (int e = 0; e < D; ++e) {
          const double value = scratch.gravity_block[static_cast<std::size_t>(e * Block::cells + m)];
          const bool flip = e == d && face.type == BoundaryType::reflecting;
          scratch.gravity_block[static_cast<std::size_t>(e * Block::cells + b)] = flip ? -value : value;
        }
    }
  }
}

// No flux through a face next to a refined cell: the finer level carries it (refluxing).
template <int D>
void HydroSolver<D>::drop_fluxes_next_to_refined(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  constexpr int centre = (core::OctStencilCache<D, Key>::neighbours - 1) / 2;
  for (int d = 0; d < D; ++d) {
    for (int f = 0; f < 3; ++f) {
      // Cells on either side of face f along d sit at local f and f + 1 (0..3): neighbour
      // offset -1 (local 0), 0 (local 1, 2) or +1 (local 3), child bit (local + 1) & 1.
      for (int t = 0; t < Block::transverse; ++t) {
        bool refined = false;
        for (int l = f; l <= f + 1 && !refined; ++l) {
          const int offset = l < 1 ? -1 : (l < 3 ? 0 : 1);
          int k = centre;
          int step = 1;
          for (int e = 0; e < d; ++e) step *= 3;
          k += offset * step;
          const core::OctIndex s = shared.stencil.neighbour_oct(i, k);
          if (s == core::no_oct) continue;
          // Child index: bit d from the local position, other bits from t.
          int c = 0, tb = 0;
          for (int e = 0; e < D; ++e) {
            if (e == d) {
              c |= ((l + 1) & 1) << e;
            } else {
              c |= ((t >> tb) & 1) << e;
              ++tb;
            }
          }
          refined = !tree_.is_leaf(Tree::cell_index(s, c));
        }
        if (refined) std::fill_n(scratch.flux.begin() + ((d * 3 + f) * Block::transverse + t) * flux_width_, flux_width_, 0.0);
      }
    }
  }
}

// Update of the oct's own cells: unew += F_left - F_right along each axis.
template <int D>
void HydroSolver<D>::update_oct(const GodunovLevel& shared, core::OctIndex o, const GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  for (int c = 0; c < cells_per_oct; ++c) {
    const core::CellIndex cell = Tree::cell_index(o, c);
    for (int d = 0; d < D; ++d) {
      const int bit = (c >> d) & 1;
      const int t = transverse_index(c, d);
      const double* left = scratch.flux.data() + ((d * 3 + bit) * Block::transverse + t) * flux_width_;
      const double* right = scratch.flux.data() + ((d * 3 + bit + 1) * Block::transverse + t) * flux_width_;
      for (int v = 0; v < nvar_; ++v) shared.unew[static_cast<std::size_t>(v)][cell] += left[v] - right[v];
      if (shared.divergence != nullptr) {
        shared.divergence[cell] += left[nvar_] - right[nvar_];
        shared.internal_energy[cell] += left[nvar_ + 1] - right[nvar_ + 1];
      }
    }
  }
}

// RAMSES add_pdv_source_terms: the internal energy's -p dV work over the step, from the old
// velocities of the face neighbours (div v = sum_d (v_d(right) - v_d(left)) / (dx_left + dx_right)).
// A neighbour on this level (or a wall's ghost) is dx away; where only a coarser leaf is there, that
// cell's own velocity is used, 1.5 dx away, as RAMSES does (not the interpolated block value).
template <int D>
void HydroSolver<D>::add_pdv_work(const GodunovLevel& shared, std::size_t i, const GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  using Stencil = core::OctStencilCache<D, Key>;
  constexpr int centre = (Stencil::neighbours - 1) / 2;
  const double smallr = settings_.scheme.smallr;
  const double dx = shared.dx;
  const core::OctIndex o = shared.stencil.oct(i);
  // Velocity component d of block cell b.
  auto block_velocity = [&](int b, int d) {
    return scratch.block[static_cast<std::size_t>((1 + d) * Block::cells + b)] /
           std::max(scratch.block[static_cast<std::size_t>(b)], smallr);
  };
  for (int c = 0; c < cells_per_oct; ++c) {
    std::array<int, D> local{};
    for (int d = 0; d < D; ++d) local[static_cast<std::size_t>(d)] = 1 + ((c >> d) & 1);
    double divergence = 0.0;
    for (int d = 0; d < D; ++d) {
      int step = 1;
      for (int e = 0; e < d; ++e) step *= 3;
      double velocity[2], distance[2];
      for (int side = 0; side < 2; ++side) {
        std::array<int, D> neighbour = local;
        neighbour[static_cast<std::size_t>(d)] += side == 0 ? -1 : 1;
        velocity[side] = block_velocity(Block::index(neighbour), d);
        distance[side] = dx;
        const int n = neighbour[static_cast<std::size_t>(d)];
        if (n != 0 && n != 3) continue;  // inside the oct
        const int k = centre + (n == 0 ? -step : step);
        if (shared.stencil.neighbour_oct(i, k) != core::no_oct) continue;
        const core::CellIndex coarse = shared.stencil.coarse_cell(i, k);
        if (coarse == core::no_cell) continue;  // beyond a wall: the ghost cell filled for the fluxes
        velocity[side] = shared.uold[static_cast<std::size_t>(1 + d)][coarse] / std::max(shared.uold[0][coarse], smallr);
        distance[side] = 1.5 * dx;
      }
      divergence += (velocity[1] - velocity[0]) / (distance[0] + distance[1]);
    }
    const core::CellIndex cell = Tree::cell_index(o, c);
    const double density = std::max(shared.uold[0][cell], smallr);
    double kinetic = 0.0;
    for (int d = 0; d < D; ++d) {
      const double v = shared.uold[static_cast<std::size_t>(1 + d)][cell] / density;
      kinetic += 0.5 * density * v * v;
    }
    const double internal_old = shared.uold[static_cast<std::size_t>(D + 1)][cell] - kinetic;
    shared.internal_energy[cell] -= (settings_.scheme.gamma - 1.0) * internal_old * divergence * shared.dt;
  }
}

// Faces next to a coarser leaf: record the flux for that cell (applied by apply_reflux).
template <int D>
void HydroSolver<D>::record_coarse_fluxes(const GodunovLevel& shared, std::size_t i, GodunovScratch& scratch) const {
  using Block = OctBlock<D>;
  constexpr int centre = (core::OctStencilCache<D, Key>::neighbours - 1) / 2;
  const core::OctIndex o = shared.stencil.oct(i);
  std::uint32_t sequence = 0;
  for (int d = 0; d < D; ++d) {
    int step = 1;
    for (int e = 0; e < d; ++e) step *= 3;
    for (int side = 0; side < 2; ++side) {
      const int k = centre + (side == 0 ? -step : step);
      if (shared.stencil.neighbour_oct(i, k) != core::no_oct) continue;
      const core::CellIndex coarse = shared.stencil.coarse_cell(i, k);
      if (coarse == core::no_cell) continue;
      const int f = side == 0 ? 0 : 2;
      // Flux F (x dt/dx) leaves the coarse cell on the left, enters the one on the right;
      // the fine face is 2^-(D-1) of the coarse face and dx_f/dx_c = 1/2: weight 2^-D.
      const double weight = (side == 0 ? -1.0 : 1.0) / static_cast<double>(cells_per_oct);
      for (int t = 0; t < Block::transverse; ++t) {
        scratch.records.push_back({tree_.key(o), sequence++, coarse, scratch.fluxes.size()});
        const double* face = scratch.flux.data() + ((d * 3 + f) * Block::transverse + t) * flux_width_;
        for (int v = 0; v < flux_width_; ++v) scratch.fluxes.push_back(weight * face[v]);
      }
    }
  }
}

template <int D>
void HydroSolver<D>::godunov(int level, double dt) {
  auto start = Clock::now();
  const core::OctStencilCache<D, Key>& stencil = stencils_.get(tree_, level);
  timing_.stencil += seconds_since(start);
  start = Clock::now();

  GodunovLevel shared{.stencil = stencil,
                      .dt_over_dx = dt / tree_.cell_size(level),
                      .uold = std::vector<const double*>(static_cast<std::size_t>(nvar_)),
                      .unew = std::vector<double*>(static_cast<std::size_t>(nvar_)),
                      .gravity = has_gravity_,
                      .acceleration = {},
                      .extent = tree_.extent(level),
                      .any_wall = false,
                      .needed = neighbours_read(),
                      .dt = dt,
                      .dx = tree_.cell_size(level),
                      .internal_energy = nullptr,
                      .divergence = nullptr};
  if (settings_.scheme.pressure_fix) {
    shared.internal_energy = tree_.field(internal_energy_);
    shared.divergence = tree_.field(divergence_);
  }
  for (int v = 0; v < nvar_; ++v) {
    shared.uold[static_cast<std::size_t>(v)] = tree_.field(uold_[static_cast<std::size_t>(v)]);
    shared.unew[static_cast<std::size_t>(v)] = tree_.field(unew_[static_cast<std::size_t>(v)]);
  }
  if (shared.gravity)
    for (int d = 0; d < D; ++d) shared.acceleration[static_cast<std::size_t>(d)] = tree_.field(gravity_fields_[static_cast<std::size_t>(d)]);
  for (int d = 0; d < D; ++d) shared.any_wall = shared.any_wall || !settings_.boundaries.periodic(d);

  // Reflux contributions, per thread in oct order.
  const int nthreads = omp_get_max_threads();
  std::vector<std::vector<RefluxContribution>> records(static_cast<std::size_t>(nthreads));
  std::vector<std::vector<double>> record_fluxes(static_cast<std::size_t>(nthreads));
  const std::size_t n = stencil.size();
#pragma omp parallel num_threads(nthreads)
  {
    const auto thread = static_cast<std::size_t>(omp_get_thread_num());
    GodunovScratch scratch(nvar_, flux_width_, shared.gravity, records[thread], record_fluxes[thread]);
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const core::OctIndex o = stencil.oct(i);
      if (gather_block(shared, i, scratch) && shared.any_wall) fill_wall_ghosts(shared, o, scratch);
      muscl_hancock_fluxes<D>(settings_.scheme, shared.dt_over_dx, scratch.block.data(), scratch.muscl, scratch.flux.data(),
                              shared.gravity ? scratch.gravity_block.data() : nullptr, dt);
      drop_fluxes_next_to_refined(shared, i, scratch);
      update_oct(shared, o, scratch);
      if (shared.divergence != nullptr) add_pdv_work(shared, i, scratch);
      if (level > 1) record_coarse_fluxes(shared, i, scratch);
    }
  }
  timing_.fluxes += seconds_since(start);
  start = Clock::now();
  for (int thread = 0; thread < nthreads; ++thread) {
    const std::size_t base = reflux_values_.size();
    for (RefluxContribution r : records[static_cast<std::size_t>(thread)]) {
      r.offset += base;
      reflux_.push_back(r);
    }
    const auto& fluxes = record_fluxes[static_cast<std::size_t>(thread)];
    reflux_values_.insert(reflux_values_.end(), fluxes.begin(), fluxes.end());
  }
  timing_.reflux += seconds_since(start);
}

template <int D>
void HydroSolver<D>::apply_reflux() {
  const auto start = Clock::now();
  std::sort(reflux_.begin(), reflux_.end(), [](const RefluxContribution& a, const RefluxContribution& b) {
    return a.fine_key < b.fine_key || (a.fine_key == b.fine_key && a.sequence < b.sequence);
  });
  for (const RefluxContribution& r : reflux_) {
    for (int v = 0; v < nvar_; ++v)
      tree_.field(unew_[static_cast<std::size_t>(v)])[r.coarse] += reflux_values_[r.offset + static_cast<std::size_t>(v)];
    // The pressure fix's velocity divergence and internal energy are refluxed like the rest
    // (RAMSES godfine1's divu and enew updates at level ilevel-1).
    if (settings_.scheme.pressure_fix) {
      tree_.field(divergence_)[r.coarse] += reflux_values_[r.offset + static_cast<std::size_t>(nvar_)];
      tree_.field(internal_energy_)[r.coarse] += reflux_values_[r.offset + static_cast<std::size_t>(nvar_ + 1)];
    }
  }
  reflux_.clear();
  reflux_values_.clear();
  timing_.reflux += seconds_since(start);
}

template <int D>
std::vector<double> HydroSolver<D>::totals() const {
  std::vector<double> sums(static_cast<std::size_t>(nvar_), 0.0);
  for (int l = 1; l <= tree_.levelmax(); ++l) {
    const double volume = std::pow(tree_.cell_size(l), D);
    for (core::OctIndex o : tree_.octs_at_level(l))
      for (int c = 0; c < cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree_.is_leaf(cell)) continue;
        for (int v = 0; v < nvar_; ++v) sums[static_cast<std::size_t>(v)] += tree_.field(uold_[static_cast<std::size_t>(v)])[cell] * volume;
      }
  }
  return sums;
}

template <int D>
std::vector<core::FieldInfo> HydroSolver<D>::output_fields() const {
  return primitive_fields<D>(settings_.scheme.npassive, settings_.scheme.metallicity);
}

template <int D>
void HydroSolver<D>::output_values(core::OctIndex o, double* out) const {
  const double gamma = settings_.scheme.gamma;
  for (int c = 0; c < cells_per_oct; ++c) {
    const core::CellIndex cell = Tree::cell_index(o, c);
    auto u = [&](int v) { return tree_.field(uold_[static_cast<std::size_t>(v)])[cell]; };
    const double rho = u(0);
    double kinetic = 0.0;
    for (int d = 0; d < D; ++d) {
      const double velocity = u(1 + d) / rho;
      out[(1 + d) * cells_per_oct + c] = velocity;
      kinetic += 0.5 * rho * velocity * velocity;
    }
    out[c] = rho;
    out[(D + 1) * cells_per_oct + c] = (gamma - 1.0) * (u(D + 1) - kinetic);
    for (int k = 0; k < settings_.scheme.npassive; ++k) out[(D + 2 + k) * cells_per_oct + c] = u(D + 2 + k) / rho;
  }
}

template class HydroSolver<1>;
template class HydroSolver<2>;
template class HydroSolver<3>;

}  // namespace kosmo::hydro
