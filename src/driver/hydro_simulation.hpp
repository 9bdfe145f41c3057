#pragma once
// A hydrodynamics run on the octree (RAMSES with hydro=.true.): the mesh and initial state from
// &AMR_PARAMS, &INIT_PARAMS and &REFINE_PARAMS, and RAMSES' recursive level step (amr_step) with
// nsubcycle, refinement below the level being advanced, Godunov updates, refluxing and
// restriction. Used by `kosmo run` and directly by the physics tests.
#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/refine_region.hpp"
#include "core/refinement.hpp"
#include "driver/cosmological_model.hpp"
#include "driver/level_gravity.hpp"
#include "driver/level_particles.hpp"
#include "driver/mesh_snapshot.hpp"
#include "driver/timers.hpp"
#include "hydro/hydro_solver.hpp"
#include "hydro/initial_regions.hpp"
#include "hydro/refinement_criteria.hpp"
#include "io/snapshot_reader.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::driver {

template <int D>
class HydroSimulation {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  // On a communicator of several ranks the mesh is distributed (parallel/distributed_mesh.hpp):
  // each rank advances the octs it owns, and the results equal the one-rank run's bit for bit.
  explicit HydroSimulation(const core::ParameterSet& params, MPI_Comm comm = MPI_COMM_SELF);

  // A named built-in initial condition instead of &INIT_PARAMS regions (tests): fills the
  // primitive state q = [rho, v_0..v_{D-1}, p, scalars] of the cell centred at x, of size dx.
  using InitialCondition = std::function<void(const std::array<double, D>& x, double dx, double* q)>;
  void set_initial_condition(InitialCondition condition) { initial_condition_ = std::move(condition); }
  // A cosmological run (cosmo=.true.): the code time is the super-comoving tau, gravity's source
  // factor follows aexp, and the coarse step keeps the change of aexp below 10 %. Before initialise().
  void set_cosmology(std::shared_ptr<const CosmologicalModel> model);
  const CosmologicalModel* cosmology() const { return cosmology_.get(); }
  // Initial particles (pic=.true.), before initialise(): every rank may pass the same full list;
  // each keeps the particles it owns.
  void set_initial_particles(particles::ParticleSet<D> particles);
  // Start time (a cosmological run starts at tau(aexp_ini)), before initialise().
  void set_time(double t) { time_ = t; }

  // Builds the initial mesh from levelmin to levelmax with the initial state set analytically on
  // every cell after each refinement pass (RAMSES init_refine + init_flow_fine).
  void initialise();
  // Instead of initialise(): the mesh, state, time and step of a snapshot (nrestart), whatever
  // number of ranks wrote it; the octs go to their owners and the load is balanced at once
  // (seeds/000 §7.1). Collective.
  void restart(const io::RestartShare& share);
  // True after a restart that kept the decomposition stored in the snapshot (same rank count and
  // ordering), false after one that placed new walls.
  bool restarted_in_place() const { return restarted_in_place_; }
  // Largest coarse time step the Courant condition allows on every level, given nsubcycle.
  // Collective.
  double courant_time_step() const;
  // Volume integrals of the conservative variables over all ranks' leaf cells, plus the particles'
  // mass, momentum and kinetic energy. Collective.
  std::vector<double> totals() const;
  // Gravitational potential energy (0 without gravity). Collective.
  double potential_energy() const { return gravity_ ? gravity_->potential_energy() : 0.0; }
  // The particles of pic=.true. runs, or nullptr.
  LevelParticles<D>* particles() { return particles_.get(); }
  const LevelParticles<D>* particles() const { return particles_.get(); }
  // hydro=.true.: the gas is advanced (otherwise its fields exist but stay empty).
  bool gas() const { return gas_; }
  // The gravity of poisson=.true. runs, or nullptr.
  LevelGravity<D>* gravity() { return gravity_.get(); }
  const LevelGravity<D>* gravity() const { return gravity_.get(); }
  // Re-places the k-section walls from the memory-weighted cost and migrates the octs. Collective.
  void balance_load();
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
  const parallel::DistributedMesh<D, Key>& mesh() const { return mesh_; }
  parallel::DistributedMesh<D, Key>& mesh() { return mesh_; }
  long long cell_updates() const { return cell_updates_; }

 private:
  void amr_step(int level, double t, double dt, int icount);
  double level_courant_time_step(int level) const;
  void advance_gas(int level, double dt);  // Godunov, reflux, gravity kick, restriction, ghosts  // this rank's gas and particles of one level
  void regrid(int min_level);
  void set_initial_state(Tree& tree);
  void flag_cells(const Tree& tree, int level, std::vector<std::uint8_t>& flags);
  // Regrid of levels >= min_level; on several ranks followed by the redistribution of the octs.
  core::RegridCounts regrid_and_redistribute(int min_level);
  void exchange_reflux(int level);
  bool level_exists_anywhere(int level) const;

  core::ParameterSet params_;
  parallel::DistributedMesh<D, Key> mesh_;
  Tree tree_;
  hydro::HydroSolver<D> hydro_;
  Timers timers_;
  bool gas_ = true;
  std::unique_ptr<LevelGravity<D>> gravity_;
  std::unique_ptr<LevelParticles<D>> particles_;
  std::shared_ptr<const CosmologicalModel> cosmology_;
  int particle_mass_field_ = -1;
  core::RefinementSettings refinement_;
  std::vector<core::RefineRegion> regions_;
  std::vector<hydro::InitRegion> init_regions_;
  InitialCondition initial_condition_;
  std::vector<int> nsubcycle_;
  std::vector<double> m_refine_;
  hydro::GradientCriteria gradients_;
  double mass_sph_ = 0.0;
  long long nremap_ = 0;
  bool restarted_in_place_ = false;
  double oct_cost_ = 0.0;  // seeds/000 eq. 5
  double particle_cost_ = 0.0;  // load-balance cost of one particle (mem_weight_part)
  double time_balance_alpha_ = 0.0;
  // Per level since the last load balance: seconds of domain-size-dependent work (Godunov and
  // flagging) and cells updated, for the time blend of seeds/000 eq. 12.
  std::vector<double> level_seconds_, level_cells_;
  double time_ = 0.0;
  long long step_ = 0;
  long long cell_updates_ = 0;
};

}  // namespace kosmo::driver
