#pragma once
// The gravity module (RAMSES poisson=.true.): the potential and acceleration of each level, solved
// when the level's step begins (RAMSES amr_step's gravity block), from the mass of every module of
// the run (gas density, particles' cloud-in-cell density: core/physics_module.hpp mass hooks).
// The modules that feel the force read the acceleration fields from the registry and kick
// themselves (the gas in hydro/hydro_module.cpp, the particles in their leapfrog).
//
// Per level step (RAMSES amr_step order, a kick-drift-kick):
//   update_forces: solve Poisson on the level (base level: FFT or multigrid; finer levels:
//               multigrid with Dirichlet values from the coarser level), g = -grad(phi). The modules
//               remove their provisional half kick with the old force before it and redo it with
//               the new one after it. A subcycled level's later substeps see the coarser potential
//               extrapolated linearly in time (RAMSES interpol_phi; see solve_level).
// Self-gravity: L_h phi = 4 pi G (rho - <rho>) in a periodic box (G = 1 in code units; the mean is
// removed because a periodic box has no net source), 4 pi G rho with isolated boundaries; in a
// cosmological run 4 pi G is RAMSES' 1.5 omega_m aexp at the level's time.
// gravity_type > 0 replaces self-gravity by RAMSES' analytic fields; < 0 adds them to it.
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "gravity/base_level_fft.hpp"
#include "gravity/octree_multigrid.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::gravity {

template <int D>
class LevelGravity final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  using ExternalPotential = typename core::PhysicsModule<D>::ExternalPotential;

  // Registers the potential and acceleration fields (in snapshots and restarts), the potential's
  // history (restarts only) and the Poisson source (transient).
  LevelGravity(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "gravity"; }
  // Every other module of the run is a mass source (most add nothing).
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  // A cosmological run's Poisson factor follows aexp (RAMSES: fourpi = 1.5 omega_m aexp).
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  // RAMSES amr_step's gravity block for `level`, whose step starts at `time`; collective.
  void update_forces(int level, std::optional<double> time) override;
  // RAMSES newdt_fine's free-fall limit: courant_factor t_ff.
  double time_step_limit(int level) const override;

  // The factor of the source, 4 pi G = 4 pi in code units (a cosmological run sets it per solve).
  void set_poisson_factor(double factor) { poisson_factor_ = factor; }

  // A user patch's gravana (docs/patches.md): fills g[d * ncell + i], the acceleration at the
  // cell centres x[d * ncell + i] of size dx, instead of the built-in field of gravity_type (the
  // field is used only when gravity_type != 0, added to self-gravity when it is negative).
  using AnalyticField = std::function<void(int ncell, const double* x, double dx, double* g)>;
  void set_analytic_field(AnalyticField field) { patch_field_ = std::move(field); }
  bool has_analytic_field() const { return analytic_type_ != 0; }

  int potential_field() const { return phi_; }
  const std::array<int, D>& acceleration_fields() const { return acceleration_; }

  // RAMSES interpol_phi's time extrapolation of the coarser level's potential for the later
  // substeps of a subcycled level (on by default); off, every substep sees the coarser level's
  // potential of its last solve (the reference path, kept for comparison).
  void set_time_extrapolation(bool on) { time_extrapolation_ = on; }
  bool time_extrapolation() const { return time_extrapolation_; }
  // RAMSES newdt_fine's free-fall limit of a level step, t_ff = sqrt(3 pi^2 / (8 f (rho_max + <rho>)))
  // with f the Poisson factor (4 pi G), rho_max the largest source density (gas + particles) of the
  // level's last solve; infinite before the first solve or without self-gravity.
  double free_fall_time(int level) const;

  // Potential energy (1/2) sum of m phi over the matter of every module (self-gravity; plus
  // m phi_ext for analytic fields). Collective.
  double potential_energy() const override;

  // Last solve of each level: V-cycles (0 for an FFT solve) and the multigrid report.
  const gravity::OctreeMultigridReport& last_report(int level) const { return reports_[static_cast<std::size_t>(level)]; }

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

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  int levelmin_;
  bool self_gravity_ = true;
  int analytic_type_ = 0;
  std::vector<double> analytic_params_;  // in code units (analytic_parameters_in_code_units)
  AnalyticField patch_field_;
  bool use_fftw_ = true;
  bool isolated_ = false;
  gravity::BaseLevelFftSettings fft_settings_;
  int phi_ = -1, source_ = -1;
  // RAMSES phi_old: each cell's potential before its level's latest solve; with the time and the
  // level of the solve that made each cell's phi, so that a cell made by refinement since (whose
  // prolonged values are none of its level's solves) is recognised.
  int phi_old_ = -1, phi_time_ = -1, phi_level_ = -1;
  bool time_extrapolation_ = true;
  std::vector<SolveTimes> solve_times_;  // per level
  std::vector<core::PhysicsModule<D>*> sources_;  // the run's other modules
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  double courant_factor_ = 0.5;
  double poisson_factor_ = 0.0;
  std::vector<double> max_density_;  // per level, at the last solve (global)
  double last_mean_density_ = 0.0;
  std::array<int, D> acceleration_{};
  std::unique_ptr<gravity::OctreeMultigrid<D>> multigrid_;
  std::unique_ptr<gravity::BaseLevelFft<D>> fft_;
  std::uint64_t fft_generation_ = 0;  // the mesh generation the FFT's exchange partners were built for
  long long fft_redistributions_ = -1;
  std::vector<gravity::OctreeMultigridReport> reports_;
};

}  // namespace kosmo::gravity
