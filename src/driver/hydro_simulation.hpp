#pragma once
// A hydrodynamics run on the octree (RAMSES with hydro=.true.): the mesh and initial state from
// &AMR_PARAMS, &INIT_PARAMS and &REFINE_PARAMS, and RAMSES' recursive level step (amr_step) with
// nsubcycle, refinement below the level being advanced, Godunov updates, refluxing and
// restriction. Used by `kosmo run` and directly by the physics tests.
#include <functional>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/refine_region.hpp"
#include "core/refinement.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/timers.hpp"
#include "hydro/hydro_solver.hpp"
#include "hydro/initial_regions.hpp"
#include "hydro/refinement_criteria.hpp"

namespace kosmo::driver {

template <int D>
class HydroSimulation {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  explicit HydroSimulation(const core::ParameterSet& params);

  // A named built-in initial condition instead of &INIT_PARAMS regions (tests): fills the
  // primitive state q = [rho, v_0..v_{D-1}, p, scalars] of the cell centred at x, of size dx.
  using InitialCondition = std::function<void(const std::array<double, D>& x, double dx, double* q)>;
  void set_initial_condition(InitialCondition condition) { initial_condition_ = std::move(condition); }

  // Builds the initial mesh from levelmin to levelmax with the initial state set analytically on
  // every cell after each refinement pass (RAMSES init_refine + init_flow_fine).
  void initialise();
  // Largest coarse time step the Courant condition allows on every level, given nsubcycle.
  double courant_time_step() const;
  // One coarse step of length dt.
  void advance(double dt);

  double time() const { return time_; }
  long long step() const { return step_; }
  Tree& tree() { return tree_; }
  const Tree& tree() const { return tree_; }
  hydro::HydroSolver<D>& hydro() { return hydro_; }
  const hydro::HydroSolver<D>& hydro() const { return hydro_; }
  std::vector<DerivedOutput> outputs() const;
  Timers& timers() { return timers_; }
  long long cell_updates() const { return cell_updates_; }

 private:
  void amr_step(int level, double dt, int icount);
  void regrid(int min_level);
  void set_initial_state(Tree& tree);
  void flag_cells(const Tree& tree, int level, std::vector<std::uint8_t>& flags);

  core::ParameterSet params_;
  Tree tree_;
  hydro::HydroSolver<D> hydro_;
  core::RefinementSettings refinement_;
  std::vector<core::RefineRegion> regions_;
  std::vector<hydro::InitRegion> init_regions_;
  InitialCondition initial_condition_;
  std::vector<int> nsubcycle_;
  std::vector<double> m_refine_;
  hydro::GradientCriteria gradients_;
  double mass_sph_ = 0.0;
  double time_ = 0.0;
  long long step_ = 0;
  long long cell_updates_ = 0;
  Timers timers_;
};

}  // namespace kosmo::driver
