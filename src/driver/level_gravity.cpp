#include "driver/level_gravity.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "driver/level_particles.hpp"
#include "gravity/analytic_gravity.hpp"
#include "gravity/octree_acceleration.hpp"

namespace kosmo::driver {
namespace {

using Clock = std::chrono::steady_clock;
const char* axis_name(int d) { return d == 0 ? "x" : (d == 1 ? "y" : "z"); }

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
  core::FieldInfo pending = core::scalar_field("gravity_half_kick_time", "code_time");
  pending.in_snapshots = false;
  pending_kick_ = tree_.add_field(pending);
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
void LevelGravity<D>::solve_level(int level) {
  if (self_gravity_) {
    auto start = Clock::now();
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
void LevelGravity<D>::begin_step(int level) {
  // The previous step's second half kick used the force of its start: replace it by one with the
  // force of its end (for a constant analytic field the two cancel exactly).
  if (gas_) hydro_.gravity_kick(level, -1.0, pending_kick_);
  solve_level(level);
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
    solve_level(level);
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
