#include "driver/level_gravity.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <numbers>
#include <optional>

#include "core/error.hpp"
#include "driver/level_particles.hpp"
#include "gravity/analytic_gravity.hpp"
#include "gravity/octree_acceleration.hpp"

namespace kosmo::driver {
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
LevelGravity<D>::LevelGravity(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                              hydro::HydroSolver<D>& hydro, int levelmin, Timers& timers)
    : tree_(tree), mesh_(mesh), hydro_(hydro), timers_(timers), levelmin_(levelmin) {
  const int type = static_cast<int>(params.get_int("POISSON_PARAMS", "gravity_type"));
  self_gravity_ = type <= 0;
  analytic_type_ = type < 0 ? -type : type;
  analytic_params_ = params.get_real_array("POISSON_PARAMS", "gravity_params");
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

  core::FieldInfo potential = core::scalar_field("potential", "code_velocity**2");
  phi_ = tree_.add_field(potential);
  for (int d = 0; d < D; ++d)
    acceleration_[static_cast<std::size_t>(d)] =
        tree_.add_field(core::velocity_field(std::string("acceleration_") + axis_name(d), "code_acceleration"));
  // Per cell, the half kick its gas has had with the force stored in acceleration_*: begin_step
  // removes exactly that. A field rather than a per-level number, so that a restart carries it
  // and a cell made by refinement inherits its father's (its gas is its father's, kicked with the
  // coarse level's step).
  auto restart_only = [this](const char* name, const char* unit) {
    core::FieldInfo info = core::scalar_field(name, unit);
    info.in_snapshots = false;
    return tree_.add_field(info);
  };
  pending_kick_ = restart_only("gravity_half_kick_time", "code_time");
  // The potential's history (RAMSES save_phi_old), in restarts so that a restart extrapolates as
  // the uninterrupted run does; not in snapshots.
  phi_old_ = restart_only("potential_previous", "code_velocity**2");
  phi_time_ = restart_only("potential_solve_time", "code_time");
  phi_level_ = restart_only("potential_solve_level", "dimensionless");
  core::FieldInfo source = core::scalar_field("poisson_source");
  source.in_snapshots = false;
  source.in_restarts = false;
  source_ = tree_.add_field(source);
  hydro_.set_gravity(acceleration_);
  poisson_factor_ = 4.0 * std::numbers::pi;

  if (self_gravity_) {
    gravity::OctreeMultigridSettings settings;
    settings.epsilon = params.get_real("POISSON_PARAMS", "epsilon");
    // RAMSES' ngs_fine = ngs_coarse = 2: 8.8 residual reduction per V-cycle on the periodic test
    // level against 4.6 with one sweep each (tests/unit/test_octree_multigrid.cpp).
    settings.pre_smoothing_sweeps = settings.post_smoothing_sweeps = 2;
    settings.merged_red_black = params.get_bool("POISSON_PARAMS", "mg_merged_rb");
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
void LevelGravity<D>::set_particles(LevelParticles<D>* particles) {
  particles_ = particles;
  if (particles_ && particle_density_ < 0) {
    core::FieldInfo density = core::scalar_field("particle_density");
    density.in_snapshots = false;
    density.in_restarts = false;
    particle_density_ = tree_.add_field(density);
  }
  if (particles_) particles_->set_acceleration_fields(acceleration_);
}

template <int D>
double LevelGravity<D>::mean_density() const {
  if (isolated_) return 0.0;
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= static_cast<double>(tree_.extent(1)[static_cast<std::size_t>(d)]) * 2.0 * tree_.cell_size(1);
  const double gas = gas_ ? mesh_.sum(hydro_.totals()[0]) : 0.0;
  return (gas + (particles_ ? particles_->total_mass() : 0.0)) / volume;
}

// RAMSES rho_fine: the Poisson source of every owned cell of the level, 4 pi G (rho - <rho>), rho
// the gas density plus the particles' cloud-in-cell density.
template <int D>
void LevelGravity<D>::set_source(int level) {
  const double mean = mean_density();
  if (particles_) particles_->deposit(level, particle_density_);
  const double* rho = tree_.field(hydro_.uold_fields()[0]);
  const double* rho_particles = particles_ ? tree_.field(particle_density_) : nullptr;
  const bool gas = gas_;
  double* source = tree_.field(source_);
  const auto& octs = tree_.octs_at_level(level);
  const double factor = poisson_factor_;
  double max_density = 0.0;
#pragma omp parallel for schedule(static) reduction(max : max_density)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      const double density = (gas ? rho[cell] : 0.0) + (rho_particles ? rho_particles[cell] : 0.0);
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
  for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)})
    for (core::OctIndex o : *octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        const auto g = gravity::analytic_acceleration<D>(analytic_type_, analytic_params_, tree_.cell_centre(cell));
        for (int d = 0; d < D; ++d) {
          double& value = tree_.field(acceleration_[static_cast<std::size_t>(d)])[cell];
          value = (self_gravity_ ? value : 0.0) + g[static_cast<std::size_t>(d)];
        }
        if (!self_gravity_) tree_.field(phi_)[cell] = gravity::analytic_potential<D>(analytic_type_, analytic_params_, tree_.cell_centre(cell));
      }
}

// The multigrid's base level in an isolated box needs phi on the box walls: the monopole -M/r
// about the centre of mass, the leading term of James' (1977) boundary expansion. (The FFT's zero
// padding needs none.)
template <int D>
void LevelGravity<D>::set_monopole_boundary() {
  const double* rho = tree_.field(hydro_.uold_fields()[0]);
  std::array<double, D + 1> sums{};  // mass, mass-weighted position
  for (int level = 1; level <= tree_.levelmax(); ++level) {
    double volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
    for (core::OctIndex o : tree_.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree_.is_leaf(cell)) continue;
        const double m = (gas_ ? rho[cell] : 0.0) * volume;
        const auto x = tree_.cell_centre(cell);
        sums[0] += m;
        for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += m * x[static_cast<std::size_t>(d)];
      }
  }
  if (particles_) {
    const auto& set = particles_->set();
    for (std::size_t i = 0; i < set.size(); ++i) {
      sums[0] += set.mass()[i];
      for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += set.mass()[i] * set.position(d)[i];
    }
  }
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

template <int D>
bool LevelGravity<D>::is_history_field(const std::string& name) const {
  for (int field : {phi_old_, phi_time_, phi_level_})
    if (tree_.fields().info(field).name == name) return true;
  return false;
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
  const double fraction = elapsed / coarse.interval;
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
    set_source(level);
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
      timers_.add("gravity - multigrid", start);
    }
    reports_[static_cast<std::size_t>(level)] = report;
    start = Clock::now();
    gravity::compute_acceleration<D, Key>(tree_, stencils_.get(tree_, level), level, phi_, acceleration_);
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
  if (mesh_.distributed() && self_gravity_) {
    const auto start = Clock::now();
    const std::array<int, D>& fields = acceleration_;
    mesh_.exchange_fields(tree_, level, fields);
    timers_.add("ghost exchange", start);
  }
}

template <int D>
void LevelGravity<D>::begin_step(int level, double time) {
  // The previous step's second half kick used the force of its start: replace it by one with the
  // force of its end (for a constant analytic field the two cancel exactly).
  if (gas_) hydro_.gravity_kick(level, -1.0, pending_kick_);
  solve_level(level, time);
  if (gas_) hydro_.gravity_kick(level, 1.0, pending_kick_);
  {
    if (gas_ && mesh_.distributed()) {
      const auto start = Clock::now();
      mesh_.exchange_fields(tree_, level, hydro_.uold_fields());
      timers_.add("ghost exchange", start);
    }
  }
}

template <int D>
void LevelGravity<D>::end_step(int level, double dt) {
  if (!gas_) return;
  // The whole step's kick with this step's force: its first half for good (RAMSES
  // add_gravity_source_terms) and its second half provisionally, so that the state between steps
  // is synchronised; begin_step replaces the provisional half by one with the force of the step's end.
  double* pending = tree_.field(pending_kick_);
  for (core::OctIndex o : tree_.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) pending[Tree::cell_index(o, c)] = 0.5 * dt;
  hydro_.gravity_kick(level, 2.0, pending_kick_);
}

template <int D>
void LevelGravity<D>::solve_all_levels() {
  for (int level = levelmin_; level <= tree_.levelmax(); ++level) {
    const auto local = static_cast<long long>(tree_.octs_at_level(level).size());
    if ((mesh_.distributed() ? mesh_.sum(local) : local) == 0) break;
    solve_level(level, std::nullopt);
  }
}

template <int D>
double LevelGravity<D>::potential_energy() const {
  const double* rho = tree_.field(hydro_.uold_fields()[0]);
  const double* phi = tree_.field(phi_);
  double energy = 0.0;
  for (int level = 1; level <= tree_.levelmax(); ++level) {
    double volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
    for (core::OctIndex o : tree_.octs_at_level(level))
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        const core::CellIndex cell = Tree::cell_index(o, c);
        if (!tree_.is_leaf(cell)) continue;
        // Self-gravity counts each pair once (1/2); an external field does not.
        if (!gas_) continue;
        double e = 0.0;
        if (self_gravity_) e += 0.5 * rho[cell] * phi[cell];
        if (analytic_type_ != 0)
          e += rho[cell] * gravity::analytic_potential<D>(analytic_type_, analytic_params_, tree_.cell_centre(cell));
        energy += e * volume;
      }
  }
  return mesh_.sum(energy) + particle_potential_energy();
}

// 1/2 sum m phi(x) over particles (plus m phi_ext for analytic fields), phi interpolated at each
// particle's level with the CIC kernel of the force. In code units with G = 1 (non-cosmological).
template <int D>
double LevelGravity<D>::particle_potential_energy() const {
  if (!particles_) return 0.0;
  const std::array<double, D> zero{};
  double energy = 0.0;
  for (int level = 1; level <= tree_.levelmax(); ++level) {
    const auto values = particles_->interpolate_field(level, phi_);
    for (const auto& [index, value] : values) {
      const auto& set = particles_->set();
      std::array<double, D> x = zero;
      for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = set.position(d)[index];
      double e = self_gravity_ ? 0.5 * value : 0.0;
      if (analytic_type_ != 0) e += gravity::analytic_potential<D>(analytic_type_, analytic_params_, x);
      energy += set.mass()[index] * e;
    }
  }
  return mesh_.sum(energy);
}

template class LevelGravity<1>;
template class LevelGravity<2>;
template class LevelGravity<3>;

}  // namespace kosmo::driver
