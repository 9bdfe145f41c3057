#pragma once
// The lifecycle of a physics module (ARCHITECTURE §3; Parthenon packages, SWIFT's per-module
// hooks): the stepper (driver::Simulation) owns the mesh, the decomposition, the clock and the stage
// order of RAMSES' amr_step, and calls every module at each stage in registration order. A module
// registers its cell fields (with metadata: core/field_registry.hpp) and particle attributes in its
// constructor, reads other modules' fields through the registry in connect(), and fills the stages
// it needs; every hook has a default that does nothing. Hooks marked "collective" are called on
// every rank. docs/developing.md gives the stage order of one coarse step and a worked example.
//
// This header is the interface only: it names the plain data types of io/ and cosmology/ that the
// output and clock hooks pass, without depending on those libraries.
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/field_registry.hpp"
#include "core/morton_hash.hpp"
#include "core/oct_stencil_cache.hpp"

namespace kosmo::io {
struct SnapshotParticles;
struct SnapshotMeta;
}
namespace kosmo::cosmology {
class CosmologicalModel;
}

namespace kosmo::core {

// Snapshot variables computed from the stored ones when written (a module's primitive variables,
// for example): the fields' descriptions and a function filling out[field * 2^D + cell] for one oct.
struct DerivedOutput {
  std::vector<FieldInfo> fields;
  std::function<void(OctIndex, double*)> values;
};

template <int D>
class PhysicsModule {
 public:
  using Position = std::array<double, D>;
  // An external (analytic) potential at a position, for the potential energy; empty when none.
  using ExternalPotential = std::function<double(const Position&)>;

  virtual ~PhysicsModule() = default;
  virtual std::string name() const = 0;

  // --- wiring ----------------------------------------------------------------------------------
  // After every module registered its fields: look up other modules' fields by name; `modules`
  // lists every module of the run (gravity keeps them as its mass sources).
  virtual void connect(const std::vector<PhysicsModule<D>*>& /*modules*/) {}
  // The background of a cosmological run (the clock every module reads), before the initial state.
  virtual void set_cosmology(const cosmology::CosmologicalModel* /*model*/) {}

  // --- initial state and mesh changes -------------------------------------------------------------
  // Before the first refinement pass (particles keep the ones this rank owns). Collective.
  virtual void begin_initial_state() {}
  // The analytic initial state on every owned and ghost cell (RAMSES init_flow_fine), after each
  // refinement pass of the initial mesh.
  virtual void set_initial_state() {}
  // Once, after the initial mesh is final (refined and balanced) and before its first forces: state
  // that needs the final mesh (tracers are placed in its leaf cells). Not called on a restart.
  // Collective.
  virtual void end_initial_state() {}
  // Refinement criteria of this module (RAMSES hydro_flag): flags[cell] = 1 for owned cells of
  // `level` that it wants refined. The stepper masks the result by the level's refine region.
  virtual void flag_cells(int /*level*/, std::vector<std::uint8_t>& /*flags*/) {}
  // Per-level 3^D neighbour caches the module keeps (rebuilt only when the mesh changes), which the
  // regrid then shares instead of building its own; nullptr when it keeps none.
  virtual StencilCaches<D, MortonKey>* stencil_caches() { return nullptr; }
  // Before a regrid of the running mesh (the gas stores what its prolongation interpolates).
  virtual void before_regrid() {}
  // The mesh changed but no oct changed owner (a regrid). Collective.
  virtual void after_regrid() {}
  // Octs changed owner (load balance, restart). Collective.
  virtual void after_redistribution() {}

  // --- time step ---------------------------------------------------------------------------------
  // Largest step of `level` this module allows on this rank (the stepper takes the global minimum).
  virtual double time_step_limit(int /*level*/) const { return std::numeric_limits<double>::max(); }

  // --- one level step, in RAMSES amr_step order -------------------------------------------------------
  // Before the level's forces are recomputed (the gas removes its provisional half kick).
  virtual void before_force_update(int /*level*/) {}
  // The level's forces at `time`, its step's start (gravity: the Poisson solve). No time: the
  // forces of a state with no history (the initial state, a restart that lacks them), level by
  // level from levelmin, with no kicks around them. Collective.
  virtual void update_forces(int /*level*/, std::optional<double> /*time*/) {}
  // With the new forces, ghosts refreshed (the gas and the particles redo their half kick).
  virtual void after_force_update(int /*level*/) {}
  // Before the finer levels' substeps (the gas copies uold to unew).
  virtual void begin_level_step(int /*level*/) {}
  // The level's update over dt after the finer levels' (Godunov). Returns the cells updated (the
  // work the load balance's time blend measures), 0 when the module updates no cells.
  virtual std::size_t advance(int /*level*/, double /*dt*/) { return 0; }
  // Source terms and synchronisation after the update (refluxing, the gravity kick, restriction).
  // Collective.
  virtual void source_terms(int /*level*/, double /*dt*/) {}
  // Last, after the ghost refresh of the evolved fields (particles: kick, drift, migrate). Collective.
  virtual void end_level_step(int /*level*/, double /*dt*/) {}

  // --- mass: gravity's sources and the mass refinement criterion ----------------------------------
  // Total mass of the module over all ranks. Collective.
  virtual double total_mass() const { return 0.0; }
  // Adds the module's mass density to density[cell] on the owned cells of `level` (RAMSES
  // rho_fine: gas density plus the particles' cloud-in-cell density). Collective.
  virtual void add_source_density(int /*level*/, double* /*density*/) {}
  // The same for the m_refine criterion (particles: their cloud-in-cell count times mass_sph, see
  // driver/level_particles.cpp). Collective.
  virtual void add_refinement_density(int /*level*/, double* /*density*/) {}
  // Adds mass and mass-weighted position (sums[0], sums[1 + d]) of this rank's matter.
  virtual void add_mass_moments(std::array<double, D + 1>& /*sums*/) const {}
  // This rank's sum over its matter of m (self_factor phi + external(x)), phi the cell field
  // `potential`; external may be empty.
  virtual double local_potential_energy(int /*potential*/, double /*self_factor*/, const ExternalPotential& /*external*/) const {
    return 0.0;
  }
  // Appends the positions of this rank's bodies that weigh on the load balance besides octs
  // (particles: seeds/000 eq. 4).
  virtual void add_load_points(std::vector<std::array<double, 3>>& /*points*/) const {}
  // Gravitational potential energy (the gravity module). Collective.
  virtual double potential_energy() const { return 0.0; }

  // --- diagnostics, outputs, restarts ---------------------------------------------------------------
  // Adds this rank's conserved totals: sums[0] mass, sums[1..D] momentum, sums[D + 1] energy, then
  // module-specific entries (passive scalars); resizes `sums` as needed.
  virtual void add_conserved_totals(std::vector<double>& /*sums*/) const {}
  virtual std::vector<DerivedOutput> derived_outputs() const { return {}; }
  // This rank's particles for a snapshot; false when the module has none.
  virtual bool write_particles(io::SnapshotParticles& /*out*/) const { return false; }
  // Takes this rank's share of a snapshot's particles (`file` names it in errors); false when the
  // module carries no particles.
  virtual bool restore_particles(const io::SnapshotParticles& /*in*/, const std::string& /*file*/) { return false; }
  // The module's own part of a snapshot beyond cells and particles (the sinks fill meta.sinks:
  // docs/outputs.md "/sinks"), and its restore at a restart (`file` names the snapshot in errors).
  // Collective.
  virtual void write_snapshot_state(io::SnapshotMeta& /*meta*/) const {}
  virtual void restore_snapshot_state(const io::SnapshotMeta& /*meta*/, const std::string& /*file*/) {}
};

}  // namespace kosmo::core
