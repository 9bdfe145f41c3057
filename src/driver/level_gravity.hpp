#pragma once
// Gravity in a hydro run (RAMSES poisson=.true.): the potential and acceleration of each level,
// solved when the level's step begins, and the gravity source terms of the gas (RAMSES amr_step's
// gravity block and synchro_hydro_fine).
//
// Per level step of length dt (RAMSES amr_step order, a kick-drift-kick of the gas momentum):
//   begin_step: remove the provisional second half kick of the previous step (-dt_prev/2 with the
//               old force), solve Poisson on the level (base level: FFT or multigrid; finer levels:
//               multigrid with Dirichlet values from the coarser level), g = -grad(phi), and redo it
//               with the new force (+dt_prev/2): the previous step has had half its kick from each end.
//               A subcycled level's later substeps see the coarser potential extrapolated linearly in
//               time (RAMSES interpol_phi; see solve_level).
//   Godunov:    the MUSCL-Hancock predictor includes v += g dt/2 (RAMSES ctoprim).
//   end_step:   kick by dt with this force: the first half for good, the second provisionally, so
//               the state between steps is synchronised (outputs, energy diagnostics).
// Self-gravity: L_h phi = 4 pi G (rho - <rho>) in a periodic box (G = 1 in code units; the mean is
// removed because a periodic box has no net source), 4 pi G rho with isolated boundaries.
// gravity_type > 0 replaces self-gravity by RAMSES' analytic fields; < 0 adds them to it.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/oct_stencil_cache.hpp"
#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "driver/timers.hpp"
#include "gravity/base_level_fft.hpp"
#include "gravity/octree_multigrid.hpp"
#include "hydro/hydro_solver.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::driver {

template <int D>
class LevelParticles;

template <int D>
class LevelGravity {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  // Registers the potential and acceleration fields (in snapshots and restarts: a restart removes
  // the last half kick with the force it was made with) and the Poisson source (transient).
  LevelGravity(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, hydro::HydroSolver<D>& hydro,
               int levelmin, Timers& timers);

  // Particles add their CIC density to the source (RAMSES rho_fine) and take the acceleration.
  void set_particles(LevelParticles<D>* particles);
  // gas=false (hydro=.false.): the gas fields exist but hold nothing; no gas kicks.
  void set_gas(bool gas) { gas_ = gas; }
  // The factor of the source, 4 pi G = 4 pi in code units; a cosmological run sets RAMSES'
  // 1.5 omega_m aexp before each level's solve (driver/cosmological_model.hpp).
  void set_poisson_factor(double factor) { poisson_factor_ = factor; }

  bool self_gravity() const { return self_gravity_; }
  int potential_field() const { return phi_; }
  const std::array<int, D>& acceleration_fields() const { return acceleration_; }

  // RAMSES amr_step's gravity block for `level`, whose step starts at `time`; collective.
  void begin_step(int level, double time);
  // The second half kick of a step of length dt (RAMSES synchro_hydro_fine(+dt/2)).
  void end_step(int level, double dt);
  // Potential and acceleration on every level from the current gas, without kicks (after the
  // initial conditions and after a restart that carries no potential). The potentials it leaves
  // have no predecessor: the next solve of each level extrapolates nothing. Collective.
  void solve_all_levels();

  // RAMSES interpol_phi's time extrapolation of the coarser level's potential for the later
  // substeps of a subcycled level (on by default); off, every substep sees the coarser level's
  // potential of its last solve (the reference path, kept for comparison).
  void set_time_extrapolation(bool on) { time_extrapolation_ = on; }
  bool time_extrapolation() const { return time_extrapolation_; }
  // The fields that carry the potential's history between solves (phi_old of RAMSES save_phi_old,
  // and when and on which level each cell's potential was solved). A restart without them starts
  // with no history: the first solve of each level then extrapolates nothing.
  bool is_history_field(const std::string& name) const;

  // RAMSES newdt_fine's free-fall limit of a level step, t_ff = sqrt(3 pi^2 / (8 f (rho_max + <rho>)))
  // with f the Poisson factor (4 pi G), rho_max the largest source density (gas + particles) of the
  // level's last solve; infinite before the first solve or without self-gravity.
  double free_fall_time(int level) const;

  // Potential energy (1/2) sum over leaf cells of rho phi dV (self-gravity; plus rho phi_ext for
  // analytic fields). Collective.
  double potential_energy() const;

  // Last solve of each level: V-cycles (0 for an FFT solve) and the multigrid report.
  const gravity::OctreeMultigridReport& last_report(int level) const { return reports_[static_cast<std::size_t>(level)]; }
  bool base_level_uses_fft() const { return use_fftw_; }

 private:
  // Per level: the time of its latest solve and the time since the solve before (0: none, or the
  // first solve after solve_all_levels or a restart without history).
  struct SolveTimes {
    double latest = 0.0;
    double interval = 0.0;
    bool known = false;  // latest is this process's record (false before the level's first solve)
  };

  // time: the start of the level's step; empty for solve_all_levels (no history recorded).
  void solve_level(int level, std::optional<double> time);
  std::vector<core::CellIndex> save_potential_history(int level, std::optional<double> time);
  std::vector<double> extrapolate_coarser_potential(int level, std::optional<double> time);
  void restore_coarser_potential(int level, const std::vector<double>& saved);
  void set_source(int level);
  void add_analytic(int level);
  void set_monopole_boundary();
  double mean_density() const;
  double particle_potential_energy() const;

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  hydro::HydroSolver<D>& hydro_;
  Timers& timers_;
  int levelmin_;
  bool self_gravity_ = true;
  int analytic_type_ = 0;
  std::vector<double> analytic_params_;
  bool use_fftw_ = true;
  bool isolated_ = false;
  gravity::BaseLevelFftSettings fft_settings_;
  int phi_ = -1, source_ = -1, pending_kick_ = -1, particle_density_ = -1;
  // RAMSES phi_old: each cell's potential before its level's latest solve; with the time and the
  // level of the solve that made each cell's phi, so that a cell made by refinement since (whose
  // prolonged values are none of its level's solves) is recognised.
  int phi_old_ = -1, phi_time_ = -1, phi_level_ = -1;
  bool time_extrapolation_ = true;
  std::vector<SolveTimes> solve_times_;  // per level
  LevelParticles<D>* particles_ = nullptr;
  bool gas_ = true;
  double poisson_factor_ = 0.0;
  std::vector<double> max_density_;  // per level, at the last solve (global)
  double last_mean_density_ = 0.0;
  std::array<int, D> acceleration_{};
  std::unique_ptr<gravity::OctreeMultigrid<D>> multigrid_;
  std::unique_ptr<gravity::BaseLevelFft<D>> fft_;
  std::uint64_t fft_generation_ = 0;  // the mesh generation the FFT's exchange partners were built for
  long long fft_redistributions_ = -1;
  core::StencilCaches<D, Key> stencils_;
  std::vector<gravity::OctreeMultigridReport> reports_;
};

}  // namespace kosmo::driver
