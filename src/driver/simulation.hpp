#pragma once
// One simulation on the octree: the stepper. It owns the mesh and its decomposition, the clock
// (the code time, and the cosmological background every module reads) and the stage order of
// RAMSES' recursive level step (amr_step: regrid, forces, finer levels' substeps, update, source
// terms, ghost refresh), and calls its physics modules (core/physics_module.hpp) at each stage in
// registration order: hydro (hydro=.true.), gravity (poisson=.true.) and particles (pic=.true.)
// today. The stepper refreshes ghost cells from field metadata; it knows no physics.
// docs/developing.md describes the stages and how to add a module. Used by `kosmo run` and directly
// by the physics tests.
#include <mpi.h>

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/refine_region.hpp"
#include "core/refinement.hpp"
#include "core/timers.hpp"
#include "cosmology/cosmological_model.hpp"
#include "driver/level_particles.hpp"
#include "gravity/level_gravity.hpp"
#include "hydro/hydro_module.hpp"
#include "io/snapshot_reader.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::driver {

template <int D>
class Simulation {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  using Module = core::PhysicsModule<D>;

  // On a communicator of several ranks the mesh is distributed (parallel/distributed_mesh.hpp):
  // each rank advances the octs it owns, and the results equal the one-rank run's bit for bit.
  // The modules of &RUN_PARAMS (hydro, poisson, pic) are registered here.
  explicit Simulation(const core::ParameterSet& params, MPI_Comm comm = MPI_COMM_SELF);

  // Adds a module after the ones of &RUN_PARAMS (tests, and modules a run enables by parameter),
  // before initialise() or restart(): it registers its fields in its constructor, which must run
  // on this simulation's tree(), mesh() and timers().
  void add_module(std::unique_ptr<Module> module);

  // A named built-in initial condition of the gas (tests, cosmological runs) instead of
  // &INIT_PARAMS regions; needs hydro=.true.
  using InitialCondition = typename hydro::HydroModule<D>::InitialCondition;
  void set_initial_condition(InitialCondition condition);
  // A cosmological run (cosmo=.true.): the code time is the super-comoving tau, gravity's source
  // factor follows aexp, and the coarse step keeps the change of aexp below 10 %. Before initialise().
  void set_cosmology(std::shared_ptr<const cosmology::CosmologicalModel> model);
  const cosmology::CosmologicalModel* cosmology() const { return cosmology_.get(); }
  // Initial particles (pic=.true.), before initialise(): every rank may pass the same full list;
  // each keeps the particles it owns.
  void set_initial_particles(particles::ParticleSet<D> particles);
  // Start time (a cosmological run starts at tau(aexp_ini)), before initialise().
  void set_time(double t) { time_ = t; }

  // Builds the initial mesh from levelmin to levelmax with the initial state set analytically on
  // every cell after each refinement pass (RAMSES init_refine + init_flow_fine), then the forces.
  void initialise();
  // Instead of initialise(): the mesh, state, time and step of a snapshot (nrestart), whatever
  // number of ranks wrote it; the octs go to their owners and the load is balanced at once
  // (seeds/000 §7.1). Collective.
  void restart(const io::RestartShare& share);
  // True after a restart that kept the decomposition stored in the snapshot (same rank count and
  // ordering), false after one that placed new walls.
  bool restarted_in_place() const { return restarted_in_place_; }
  // Largest coarse time step every module allows on every level, given nsubcycle. Collective.
  double courant_time_step() const;
  // Conserved totals of every module over all ranks: mass, momentum, energy (kinetic + internal of
  // the gas, kinetic of the particles), then the gas's passive scalars. Collective.
  std::vector<double> totals() const;
  // Gravitational potential energy (0 without gravity). Collective.
  double potential_energy() const;
  // Re-places the k-section walls from the memory-weighted cost and migrates the octs. Collective.
  void balance_load();
  // One coarse step of length dt.
  void advance(double dt);

  // The modules, in registration order, and typed access for tests and tools.
  const std::vector<std::unique_ptr<Module>>& modules() const { return modules_; }
  template <class M>
  M* find_module() const {
    for (const auto& module : modules_)
      if (auto* found = dynamic_cast<M*>(module.get())) return found;
    return nullptr;
  }
  // The gas's module and solver (hydro=.true.); gas() is false for runs without gas.
  bool gas() const { return find_module<hydro::HydroModule<D>>() != nullptr; }
  hydro::HydroSolver<D>& hydro();
  const hydro::HydroSolver<D>& hydro() const;
  // The particles of pic=.true. runs and the gravity of poisson=.true. runs, or nullptr.
  LevelParticles<D>* particles() const { return find_module<LevelParticles<D>>(); }
  gravity::LevelGravity<D>* gravity() const { return find_module<gravity::LevelGravity<D>>(); }

  double time() const { return time_; }
  long long step() const { return step_; }
  // The length of each level's latest step, levels 1..levelmax (RAMSES dtnew; 0 for a level that has
  // not stepped): written into RAMSES-format outputs, from which a restart rebuilds the half kicks.
  const std::vector<double>& level_time_steps() const { return level_time_steps_; }
  Tree& tree() { return tree_; }
  const Tree& tree() const { return tree_; }
  std::vector<core::DerivedOutput> outputs() const;
  // This rank's particles of every module, for a snapshot; false when no module carries particles.
  // Every module's own snapshot state (the sinks) into the meta. Collective.
  void complete_snapshot_meta(io::SnapshotMeta& meta) const;
  bool snapshot_particles(io::SnapshotParticles& out) const;
  core::Timers& timers() { return timers_; }
  // Called on every rank at each coarse step's start right after the coarse level's forces, where
  // the potential is that of the current state (the Layzer-Irvine diagnostic samples there).
  void set_coarse_force_observer(std::function<void()> observer) { coarse_force_observer_ = std::move(observer); }
  const parallel::DistributedMesh<D, Key>& mesh() const { return mesh_; }
  parallel::DistributedMesh<D, Key>& mesh() { return mesh_; }
  long long cell_updates() const { return cell_updates_; }

 private:
  void connect_modules();
  void amr_step(int level, double t, double dt, int icount);
  void update_forces(int level, double t);
  void initial_forces();
  void advance_level(int level, double dt);
  double level_time_step(int level) const;
  void regrid(int min_level);
  void flag_cells(const Tree& tree, int level, std::vector<std::uint8_t>& flags);
  void flag_by_mass(int level, std::vector<std::uint8_t>& wanted);
  void refresh_ghosts(int level, core::GhostStage stage);
  // Regrid of levels >= min_level; on several ranks followed by the exchange of what changed (or,
  // with mesh_update='redistribute', the redistribution of every oct).
  core::RegridCounts regrid_and_redistribute(int min_level);
  bool level_exists_anywhere(int level) const;
  // Restart helpers: the file's values of this run's fields (missing ones per their metadata) and
  // the particles.
  std::vector<std::string> restart_fields(const io::RestartShare& share, std::vector<int>& source) const;
  void restart_particles(const io::RestartShare& share);
  template <class Stage>
  void for_each_module(Stage&& stage) {
    for (const auto& module : modules_) stage(*module);
  }

  static std::size_t stage_index(core::GhostStage stage) {
    return stage == core::GhostStage::after_force_update ? 0 : (stage == core::GhostStage::after_kicks ? 1 : 2);
  }

  core::ParameterSet params_;
  parallel::DistributedMesh<D, Key> mesh_;
  Tree tree_;
  core::Timers timers_;
  std::vector<std::unique_ptr<Module>> modules_;
  bool connected_ = false;
  std::array<std::vector<int>, 3> ghost_fields_;  // per GhostStage, fixed by connect_modules()
  // Scratch of the refinement criteria, per cell, reused between regrids.
  std::vector<std::uint8_t> wanted_flags_;
  std::vector<double> refinement_density_;
  std::shared_ptr<const cosmology::CosmologicalModel> cosmology_;
  core::RefinementSettings refinement_;
  std::vector<core::RefineRegion> regions_;
  std::vector<int> nsubcycle_;
  std::vector<double> m_refine_;
  double mass_sph_ = 0.0;
  long long nremap_ = 0;
  bool incremental_mesh_updates_ = true;  // mesh_update = 'incremental' (else 'redistribute')
  bool restarted_in_place_ = false;
  std::function<void()> coarse_force_observer_;
  double oct_cost_ = 0.0;       // seeds/000 eq. 5
  double particle_cost_ = 0.0;  // load-balance cost of one particle (mem_weight_part)
  double time_balance_alpha_ = 0.0;
  // Per level since the last load balance: seconds of domain-size-dependent work (the modules'
  // cell updates) and cells updated, for the time blend of seeds/000 eq. 12.
  std::vector<double> level_seconds_, level_cells_;
  double time_ = 0.0;
  std::vector<double> level_time_steps_;
  long long step_ = 0;
  long long cell_updates_ = 0;
};

}  // namespace kosmo::driver
