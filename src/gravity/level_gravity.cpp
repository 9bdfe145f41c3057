#include "gravity/level_gravity.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <numbers>
#include <optional>

#include "core/courant_factor.hpp"
#include "core/error.hpp"
#include "cosmology/cosmological_model.hpp"
#include "gravity/analytic_gravity.hpp"
#include "gravity/octree_acceleration.hpp"

namespace kosmo::gravity {
namespace {

using Clock = std::chrono::steady_clock;
const char* axis_name(int d) { return d == 0 ? "x" : (d == 1 ? "y" : "z"); }

// The octs of a level this rank holds, owned then ghost: a coarse potential is read on both.
template <class Tree>
std::vector<core::OctIndex> local_octs(const Tree& tree, int level) {
  std::vector<core::OctIndex> octs(tree.octs_at_level(level).begin(), tree.octs_at_level(level).end());
  octs.insert(octs.end(), tree.ghost_octs_at_level(level).begin(), tree.ghost_octs_at_level(level).end());
  return octs;
}

}  // namespace

template <int D>
LevelGravity<D>::LevelGravity(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers)
    : tree_(tree),
      mesh_(mesh),
      timers_(timers),
      levelmin_(static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"))),
      courant_factor_(core::run_courant_factor(params)) {
  const int type = static_cast<int>(params.get_int("POISSON_PARAMS", "gravity_type"));
  self_gravity_ = type <= 0;
  analytic_type_ = type < 0 ? -type : type;
  analytic_params_ = analytic_parameters_in_code_units(analytic_type_, params.get_real_array("POISSON_PARAMS", "gravity_params"),
                                                       params.get_real("AMR_PARAMS", "boxlen"),
                                                       params.get_real("UNITS_PARAMS", "units_length"),
                                                       params.get_real("UNITS_PARAMS", "units_time"));
  use_fftw_ = params.get_bool("RUN_PARAMS", "use_fftw");
  int periodic_axes = 0;
  for (int d = 0; d < D; ++d) periodic_axes += tree.geometry().periodic[static_cast<std::size_t>(d)] ? 1 : 0;
  isolated_ = periodic_axes == 0;
  KOSMO_REQUIRE(!self_gravity_ || periodic_axes == 0 || periodic_axes == D,
                params.source() << ": &RUN_PARAMS: poisson=.true. with self-gravity needs a box periodic along every axis or "
                                   "along none (isolated boundaries); &BOUNDARY_PARAMS makes it periodic along only some");
  // Isolated boundaries are free space, whose Green's function kosmo has in 3-D only (1/r); the
  // multigrid's zero-gradient walls are no substitute (and its 1-D AMR solve with them diverges).
  KOSMO_REQUIRE(!self_gravity_ || !isolated_ || D == 3,
                params.source() << ": &RUN_PARAMS: poisson=.true. in a non-periodic box (isolated boundaries) needs ndim=3; "
                                   "use a periodic box in 1-D and 2-D");
  fft_settings_.isolated = isolated_;
  fft_settings_.slab_threshold_cells = params.get_int("POISSON_PARAMS", "fft_slab_threshold");

  // A restart that lacks the potential or the acceleration (a RAMSES-format output, a snapshot of a
  // run without gravity) solves for them afresh; the ghosts of the acceleration are refreshed by the
  // stepper after each force update (the analytic field is computed on ghost cells directly).
  auto field = [this](core::FieldInfo info) { return tree_.add_field(info.owned_by("gravity")); };
  phi_ = field(core::scalar_field("potential", "code_velocity**2").comoving(-2).when_missing(core::MissingInRestart::recompute));
  for (int d = 0; d < D; ++d) {
    core::FieldInfo info = core::velocity_field(std::string("acceleration_") + axis_name(d), "code_acceleration")
                               .comoving(-3)
                               .when_missing(core::MissingInRestart::recompute);
    if (self_gravity_) info.ghosts_at(core::GhostStage::after_force_update);
    acceleration_[static_cast<std::size_t>(d)] = field(info);
  }
  // The potential's history (RAMSES save_phi_old), in restarts so that a restart extrapolates as
  // the uninterrupted run does; not in snapshots. Without it each level's first solve extrapolates
  // nothing.
  phi_old_ = field(core::scalar_field("potential_previous", "code_velocity**2").comoving(-2).restart_only(core::MissingInRestart::zero));
  phi_time_ = field(core::scalar_field("potential_solve_time", "code_time").comoving(2).restart_only(core::MissingInRestart::zero));
  phi_level_ = field(core::scalar_field("potential_solve_level", "dimensionless").restart_only(core::MissingInRestart::zero));
  source_ = field(core::scalar_field("poisson_source").transient());
  poisson_factor_ = 4.0 * std::numbers::pi;

  if (self_gravity_) {
    gravity::OctreeMultigridSettings settings;
    settings.epsilon = params.get_real("POISSON_PARAMS", "epsilon");
    // RAMSES' ngs_fine = ngs_coarse = 2: 8.8 residual reduction per V-cycle on the periodic test
    // level against 4.6 with one sweep each (tests/unit/test_octree_multigrid.cpp).
    settings.pre_smoothing_sweeps = settings.post_smoothing_sweeps = 2;
    settings.merged_red_black = params.get_bool("POISSON_PARAMS", "mg_merged_rb");
    settings.halo_red_black = params.get_bool("POISSON_PARAMS", "mg_halo_rb");
    settings.fused_residual_norm = params.get_bool("POISSON_PARAMS", "mg_fused_norm");
    gravity::MultigridCommunication communication;
    communication.refresh_ghosts = [this](int level, std::span<const int> fields) {
      if (mesh_.distributed()) mesh_.exchange_fields(tree_, level, fields);
    };
    communication.sum = [this](std::span<double> values) {
      if (mesh_.distributed())
        MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, mesh_.comm());
    };
    multigrid_ = std::make_unique<gravity::OctreeMultigrid<D>>(tree_, settings, communication);
  }
  reports_.resize(static_cast<std::size_t>(tree_.levelmax()) + 1);
  solve_times_.resize(static_cast<std::size_t>(tree_.levelmax()) + 1);
  max_density_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
}

template <int D>
void LevelGravity<D>::connect(const std::vector<core::PhysicsModule<D>*>& modules) {
  sources_.clear();
  for (core::PhysicsModule<D>* module : modules)
    if (module != this) sources_.push_back(module);
}

template <int D>
double LevelGravity<D>::mean_density() const {
  if (isolated_) return 0.0;
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= static_cast<double>(tree_.extent(1)[static_cast<std::size_t>(d)]) * 2.0 * tree_.cell_size(1);
  double mass = 0.0;
  for (const core::PhysicsModule<D>* source : sources_) mass += source->total_mass();  // collective
  return mass / volume;
}

// RAMSES rho_fine: the Poisson source of every owned cell of the level, 4 pi G (rho - <rho>), rho
// the gas density plus the particles' cloud-in-cell density.
template <int D>
void LevelGravity<D>::set_source(int level) {
  const double mean = mean_density();
  double* source = tree_.field(source_);
  const auto& octs = tree_.octs_at_level(level);
  for (core::OctIndex o : octs)
    for (int c = 0; c < Tree::cells_per_oct; ++c) source[Tree::cell_index(o, c)] = 0.0;
  for (core::PhysicsModule<D>* module : sources_) module->add_source_density(level, source);  // collective
  const double factor = poisson_factor_;
  double max_density = 0.0;
#pragma omp parallel for schedule(static) reduction(max : max_density)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double density = source[cell];
      max_density = std::max(max_density, density);
      source[cell] = factor * (density - mean);
    }
  max_density_[static_cast<std::size_t>(level)] = mesh_.max(max_density);
  last_mean_density_ = mean;
}

template <int D>
double LevelGravity<D>::free_fall_time(int level) const {
  const double rho = max_density_[static_cast<std::size_t>(level)] + last_mean_density_;
  if (!self_gravity_ || !(rho > 0.0)) return std::numeric_limits<double>::max();
  return std::sqrt(3.0 * std::numbers::pi * std::numbers::pi / (8.0 * poisson_factor_ * rho));
}

// RAMSES gravana: the analytic field on owned and ghost cells (nothing to exchange).
template <int D>
void LevelGravity<D>::add_analytic(int level) {
  if (analytic_type_ == 0) return;
  const double dx = tree_.cell_size(level);
  for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)})
    for (core::OctIndex o : *octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        const auto x = tree_.cell_centre(cell);
        std::array<double, D> g{};
        if (patch_field_)
          patch_field_(1, x.data(), dx, g.data());  // one cell: x[d], g[d] (the patch ABI's layout for ncell = 1)
        else
          g = gravity::analytic_acceleration<D>(analytic_type_, analytic_params_, x);
        for (int d = 0; d < D; ++d) {
          double& value = tree_.field(acceleration_[static_cast<std::size_t>(d)])[cell];
          value = (self_gravity_ ? value : 0.0) + g[static_cast<std::size_t>(d)];
        }
        // A patch's field has no potential: phi stays 0 (no potential energy of the external field).
        if (!self_gravity_) tree_.field(phi_)[cell] = patch_field_ ? 0.0 : gravity::analytic_potential<D>(analytic_type_, analytic_params_, x);
      }
}

// The multigrid's base level in an isolated box needs phi on the box walls: the monopole -M/r
// about the centre of mass, the leading term of James' (1977) boundary expansion. (The FFT's zero
// padding needs none.)
template <int D>
void LevelGravity<D>::set_monopole_boundary() {
  std::array<double, D + 1> sums{};  // mass, mass-weighted position
  for (const core::PhysicsModule<D>* source : sources_) source->add_mass_moments(sums);
  if (mesh_.distributed()) MPI_Allreduce(MPI_IN_PLACE, sums.data(), D + 1, MPI_DOUBLE, MPI_SUM, mesh_.comm());
  const double mass = sums[0];
  std::array<double, D> centre{};
  for (int d = 0; d < D; ++d) centre[static_cast<std::size_t>(d)] = mass > 0.0 ? sums[static_cast<std::size_t>(d) + 1] / mass : 0.0;
  multigrid_->set_box_boundary_potential([mass, centre](const std::array<double, D>& x) {
    double r2 = 0.0;
    for (int d = 0; d < D; ++d) r2 += (x[static_cast<std::size_t>(d)] - centre[static_cast<std::size_t>(d)]) * (x[static_cast<std::size_t>(d)] - centre[static_cast<std::size_t>(d)]);
    return -mass / std::sqrt(r2);
  });
}

// RAMSES save_phi_old, called by amr_step just before each solve of a level ("Save old potential
// for time-extrapolation at level boundaries"): phi_old = phi on every cell of the level, owned and
// ghost. A cell whose phi is not that of its level's previous solve (made by refinement since, or
// restricted from destroyed sons, or solved only by solve_all_levels) has no history; it is returned
// so that the caller sets phi_old = phi after the solve, which makes its extrapolation zero. (RAMSES
// gives such a cell its father's phi and phi_old, so it extrapolates the difference between its own
// solution and its father's potential.) `time` is empty for solve_all_levels: no history recorded.
template <int D>
std::vector<core::CellIndex> LevelGravity<D>::save_potential_history(int level, std::optional<double> time) {
  const std::vector<core::OctIndex> octs = local_octs(tree_, level);
  const double* phi = tree_.field(phi_);
  double* phi_old = tree_.field(phi_old_);
  double* phi_time = tree_.field(phi_time_);
  double* phi_level = tree_.field(phi_level_);
  SolveTimes& times = solve_times_[static_cast<std::size_t>(level)];
  // A cell made by refinement takes its father's tag, l - 1, plus a quarter of the limited slopes of
  // the neighbours' tags (within 3/4 of l - 1 unless a neighbour was just restricted from two or more
  // levels deeper), and its father's solve time, which is this level's previous solve time when the
  // father's level is not subcycled. Recognising a cell needs both; after a restart (no record yet)
  // the tag alone.
  const bool check_time = times.known;
  const double latest = times.latest;
  const auto tag = static_cast<double>(level);
  std::vector<std::uint8_t> fresh(octs.size() * Tree::cells_per_oct, 0);
  double previous = -std::numeric_limits<double>::infinity();  // times can be negative (cosmological tau)
  bool any_solved = false;
#pragma omp parallel for schedule(static) reduction(max : previous) reduction(|| : any_solved)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const bool solved = time && phi_level[cell] == tag && (!check_time || phi_time[cell] == latest);
      if (solved) {
        phi_old[cell] = phi[cell];
        previous = std::max(previous, phi_time[cell]);
        any_solved = true;
      } else {
        fresh[i * Tree::cells_per_oct + static_cast<std::size_t>(c)] = 1;
      }
      phi_level[cell] = time ? tag : 0.0;
      phi_time[cell] = time.value_or(0.0);
    }
  // Every solved cell has the time of the level's previous solve (its owner's, on a ghost), so the
  // interval is the same on every rank that holds one; a rank without one extrapolates nothing.
  times.interval = time && any_solved ? *time - previous : 0.0;
  times.latest = time.value_or(0.0);
  times.known = time.has_value();
  std::vector<core::CellIndex> cells;
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c)
      if (fresh[i * Tree::cells_per_oct + static_cast<std::size_t>(c)]) cells.push_back(Tree::cell_index(octs[i], c));
  return cells;
}

// RAMSES interpol_phi's time extrapolation, for a substep of `level` that starts at `time` after the
// coarser level's latest solve: phi + (phi - phi_old) tfrac on the coarser level's cells, tfrac the
// time since that solve over the time between its two latest solves (RAMSES: dtnew(l) (icount - 1)
// / dtold(l - 1), the same with kosmo's variable substeps). The coarse potential then moves with the
// bodies that make it instead of lagging at its last solve, which gives a pair orbiting inside the
// refined region a secular torque (docs/cosmology.md, Kepler test). Returns the overwritten values
// (owned then ghost cells, in list order) for restore_coarser_potential; empty when nothing was
// changed (the first substep, no previous solve, or the extrapolation switched off).
template <int D>
std::vector<double> LevelGravity<D>::extrapolate_coarser_potential(int level, std::optional<double> time) {
  if (!time_extrapolation_ || !time || level <= levelmin_) return {};
  const SolveTimes& coarse = solve_times_[static_cast<std::size_t>(level - 1)];
  const double elapsed = *time - coarse.latest;
  if (!coarse.known || !(coarse.interval > 0.0) || !(elapsed > 0.0)) return {};
  // At most ten intervals ahead. The difference phi - phi_old holds, besides the motion of the
  // masses, the solves' own convergence error (epsilon); over an interval much shorter than the
  // time since (kosmo's variable substeps can end a level's step with a sliver of a substep) that
  // error divided by the interval is no rate at all, and extrapolating it thousands of intervals
  // ahead made a fine level's potential run away (a 64^3 box's time step fell 50-fold at a = 0.39).
  // Regular substeps go further than one interval: the Kepler test's subcycled orbits are bit for
  // bit the same with a cap of 10 as without, while a cap of 2 raised their energy error after ten
  // orbits from 2.74e-2 to 3.00e-2, and a cap of 1 to 3.50e-2.
  const double fraction = std::min(10.0, elapsed / coarse.interval);
  const std::vector<core::OctIndex> octs = local_octs(tree_, level - 1);
  double* phi = tree_.field(phi_);
  const double* phi_old = tree_.field(phi_old_);
  std::vector<double> saved(octs.size() * Tree::cells_per_oct);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      saved[i * Tree::cells_per_oct + static_cast<std::size_t>(c)] = phi[cell];
      phi[cell] += (phi[cell] - phi_old[cell]) * fraction;
    }
  return saved;
}

// The coarser level's own potential back, bit for bit: its forces were computed from it at its step
// start, and it is its next solve's initial guess.
template <int D>
void LevelGravity<D>::restore_coarser_potential(int level, const std::vector<double>& saved) {
  if (saved.empty()) return;
  const std::vector<core::OctIndex> octs = local_octs(tree_, level - 1);
  KOSMO_REQUIRE(saved.size() == octs.size() * Tree::cells_per_oct,
                "gravity: level " << level - 1 << " changed while level " << level << " was solved with its extrapolated potential");
  double* phi = tree_.field(phi_);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c)
      phi[Tree::cell_index(octs[i], c)] = saved[i * Tree::cells_per_oct + static_cast<std::size_t>(c)];
}

template <int D>
void LevelGravity<D>::solve_level(int level, std::optional<double> time) {
  if (self_gravity_) {
    auto start = Clock::now();
    const std::vector<core::CellIndex> fresh = save_potential_history(level, time);
    // The coarse-fine Dirichlet values of the solve and the force stencil's missing neighbours both
    // read the coarser level's potential: extrapolated for both, as RAMSES interpol_phi serves both.
    const std::vector<double> coarse_potential = extrapolate_coarser_potential(level, time);
    timers_.add("gravity - time extrapolation", start);
    start = Clock::now();
    // The source (the modules' densities) has its own timer, so that the solver timers below are
    // the solvers alone; within it the particles' deposit has its own line.
    const double recorded = timers_.recorded();
    set_source(level);
    timers_.add_exclusive("gravity - source density", start, recorded);
    start = Clock::now();
    gravity::OctreeMultigridReport report{};
    if (level == levelmin_ && use_fftw_) {
      // The FFT's exchange partners and index maps follow the mesh and the decomposition.
      if (!fft_ || fft_generation_ != tree_.generation() || fft_redistributions_ != mesh_.stats().redistributions) {
        fft_ = std::make_unique<gravity::BaseLevelFft<D>>(mesh_.comm(), tree_, level, fft_settings_);
        fft_generation_ = tree_.generation();
        fft_redistributions_ = mesh_.stats().redistributions;
      }
      fft_->solve(tree_, source_, phi_);
      report.converged = true;
      timers_.add("gravity - base level FFT", start);
    } else {
      if (isolated_ && level == levelmin_) set_monopole_boundary();
      report = multigrid_->solve(level, phi_, source_);
      KOSMO_REQUIRE(report.converged, "gravity: the multigrid solve of level " << level << " did not converge in "
                                                                               << report.vcycles << " V-cycles (residual "
                                                                               << report.final_residual << " of "
                                                                               << report.initial_residual << ")");
      // The solve's exchanges apart (docs/parallel.md, multigrid exchanges): their share is latency and waiting.
      timers_.add_seconds("gravity - multigrid exchanges", report.exchange_seconds);
      timers_.add_seconds("gravity - multigrid", std::chrono::duration<double>(Clock::now() - start).count() - report.exchange_seconds);
    }
    reports_[static_cast<std::size_t>(level)] = report;
    start = Clock::now();
    gravity::compute_acceleration<D, Key>(tree_, level, phi_, acceleration_);
    timers_.add("gravity - acceleration", start);
    start = Clock::now();
    restore_coarser_potential(level, coarse_potential);
    // No history: phi_old = phi, no extrapolation. Owned and ghost cells alike (the solve left the
    // ghosts their owners' values).
    double* phi = tree_.field(phi_);
    double* phi_old = tree_.field(phi_old_);
    for (core::CellIndex cell : fresh) phi_old[cell] = phi[cell];
    timers_.add("gravity - time extrapolation", start);
  }
  add_analytic(level);
}

template <int D>
void LevelGravity<D>::update_forces(int level, std::optional<double> time) {
  // Super-comoving Poisson equation at the level's time (RAMSES: fourpi = 1.5 omega_m aexp).
  if (cosmology_ && time) poisson_factor_ = cosmology_->poisson_factor(*time);
  solve_level(level, time);
}

template <int D>
double LevelGravity<D>::time_step_limit(int level) const {
  return courant_factor_ * free_fall_time(level);
}

template <int D>
double LevelGravity<D>::potential_energy() const {
  // Self-gravity counts each pair once (1/2); an external field does not.
  const double self_factor = self_gravity_ ? 0.5 : 0.0;
  ExternalPotential external;
  if (analytic_type_ != 0 && !patch_field_)
    external = [this](const std::array<double, D>& x) { return analytic_potential<D>(analytic_type_, analytic_params_, x); };
  double energy = 0.0;
  for (const core::PhysicsModule<D>* source : sources_) energy += mesh_.sum(source->local_potential_energy(phi_, self_factor, external));
  return energy;
}

template class LevelGravity<1>;
template class LevelGravity<2>;
template class LevelGravity<3>;

}  // namespace kosmo::gravity
