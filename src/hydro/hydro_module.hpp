#pragma once
// The hydro module (RAMSES hydro=.true.): the gas on the octree as a physics module of the stepper
// (core/physics_module.hpp). It owns the HydroSolver and its conservative fields, sets the
// initial state (&INIT_PARAMS regions or a built-in condition), flags cells by RAMSES' gradient
// criteria, limits the step by the Courant condition, and per level step: set_unew, Godunov,
// refluxing (contributions for other ranks' coarse cells sent to their owners), set_uold, the
// gravity kick as a source term reading gravity's acceleration fields from the registry, and
// restriction. Without a gravity module in the run the kicks do nothing.
#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "hydro/barotropic_eos.hpp"
#include "hydro/hydro_solver.hpp"
#include "hydro/initial_regions.hpp"
#include "hydro/jeans_refinement.hpp"
#include "hydro/refinement_criteria.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::hydro {

// Solver settings from &HYDRO_PARAMS and &REFINE_PARAMS (interpol_type), boundaries from
// &BOUNDARY_PARAMS.
template <int D>
typename HydroSolver<D>::Settings solver_settings(const core::ParameterSet& params);

template <int D>
class HydroModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  using Position = std::array<double, D>;
  using ExternalPotential = typename core::PhysicsModule<D>::ExternalPotential;
  // A named built-in initial condition instead of &INIT_PARAMS regions: fills the primitive state
  // q = [rho, v_0..v_{D-1}, p, scalars] of the cell centred at x, of size dx.
  using InitialCondition = std::function<void(const Position& x, double dx, double* q)>;

  HydroModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "hydro"; }
  HydroSolver<D>& solver() { return solver_; }
  const HydroSolver<D>& solver() const { return solver_; }
  void set_initial_condition(InitialCondition condition) { initial_condition_ = std::move(condition); }

  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  // The Jeans criterion's gravitational constant follows aexp in a cosmological run.
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  void set_initial_state() override;
  void flag_cells(int level, std::vector<std::uint8_t>& flags) override;
  core::StencilCaches<D, Key>* stencil_caches() override { return &solver_.stencils(); }
  double time_step_limit(int level) const override;
  void before_regrid() override;
  void after_regrid() override;

  void before_force_update(int level) override;
  // Notes the time of the solve: the Jeans criterion of a cosmological run uses its Poisson factor.
  void update_forces(int level, std::optional<double> time) override;
  void after_force_update(int level) override;
  void begin_level_step(int level) override;
  std::size_t advance(int level, double dt) override;
  void source_terms(int level, double dt) override;

  double total_mass() const override;
  void add_source_density(int level, double* density) override;
  void add_refinement_density(int level, double* density) override;
  void add_mass_moments(std::array<double, D + 1>& sums) const override;
  double local_potential_energy(int potential, double self_factor, const ExternalPotential& external) const override;
  void add_conserved_totals(std::vector<double>& sums) const override;
  std::vector<core::DerivedOutput> derived_outputs() const override;

 private:
  void add_density(int level, double* density) const;
  // RAMSES cooling_fine with barotropic_eos: the internal energy of the level's leaf cells set to
  // the barotrope's, the kinetic energy kept.
  void impose_barotrope(int level);
  // RAMSES jeans_length_refine on the cells of `level` (hydro/jeans_refinement.hpp).
  void flag_by_jeans_length(int level, std::vector<std::uint8_t>& flags) const;
  template <class Visit>
  void for_each_leaf(Visit&& visit) const;

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  HydroSolver<D> solver_;
  std::vector<InitRegion> init_regions_;
  InitialCondition initial_condition_;
  GradientCriteria gradients_;
  JeansCriterion jeans_;
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  std::optional<BarotropicEos> barotrope_;  // &COOLING_PARAMS barotropic_eos / isothermal
  // Per cell, the half kick its gas has had with the force stored in acceleration_*: the next force
  // update removes exactly that. A field rather than a per-level number, so that a restart carries
  // it and a cell made by refinement inherits its father's. -1 without gravity.
  int pending_kick_ = -1;
  // interpol_var=1: before_regrid stored the internal energy the regrid interpolates.
  bool internal_energy_stored_ = false;
};

}  // namespace kosmo::hydro
