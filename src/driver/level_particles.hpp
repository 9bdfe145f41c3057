#pragma once
// The particle module (RAMSES pic=.true.): the collisionless particles of this rank, attached to
// the octree, deposited into gravity's source level by level (a mass source of the gravity module)
// and advanced by the kick-drift-kick leapfrog of the level they live on (RAMSES rho_fine,
// synchro_fine, move_fine), reading gravity's acceleration fields from the registry.
//
// Ownership: a particle belongs to the rank whose domain holds its position
// (DistributedMesh::owner_of_position); its finest oct may be a ghost there, which the ghost zone
// covers. Particles migrate after a drift that took one out of its rank's domain and after every
// load balance.
//
// Level of a particle: the level of the finest oct containing it (RAMSES levelp), refreshed after
// every regrid and drift. It moves with the level step of that level, so a particle in a refined
// region takes the fine level's substeps.
//
// Leapfrog, per step of length dt of level l (the same scheme as the gas in hydro/hydro_module.hpp):
//   begin_step(l), after the level's force update: g = CIC interpolation of the level's acceleration at the particle (RAMSES
//                  move_fine's kernel); the provisional half kick of the previous step, made with the
//                  old force, is replaced by one with g: v += pending_half_dt g - pending_kick.
//   end_step(l, dt): drift with the half-kicked velocity, x += (v + g dt/2) dt, then v += g dt: the
//                  first half kick for good, the second provisionally (pending_kick = g dt/2), so
//                  positions and velocities are synchronised between steps (outputs, diagnostics).
// Each step's velocity change is therefore dt (g^n + g^{n+1}) / 2, whatever level the particle is on
// at either end of it. Without gravity (poisson=.false.) g = 0 and the particles drift.
//
// Tracers (family tracer, tracers/tracer_module.hpp) ride in this set: it locates, migrates, writes
// and restores them, but leaves them out of the leapfrog and the Courant limit (they follow the gas).
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "parallel/distributed_mesh.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

template <int D>
class LevelParticles final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  using ExternalPotential = typename core::PhysicsModule<D>::ExternalPotential;

  // Registers the particles' cloud-in-cell density (gravity's source) and their cloud-in-cell
  // count per cell (the m_refine criterion), both transient.
  LevelParticles(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  // --- the module's stages (core/physics_module.hpp) ---
  std::string name() const override { return "particles"; }
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  // Super-comoving units: positions scale as a, velocities as 1/a (unit_l / unit_t).
  void set_cosmology(const cosmology::CosmologicalModel* model) override;
  void begin_initial_state() override { keep_owned(); }
  void after_regrid() override { locate(); }
  void after_redistribution() override { migrate_and_locate(); }
  double time_step_limit(int level) const override { return courant_time_step(level); }
  void after_force_update(int level) override { begin_step(level); }
  void end_level_step(int level, double dt) override { end_step(level, dt); }
  double total_mass() const override;
  void add_source_density(int level, double* density) override;
  void add_refinement_density(int level, double* density) override;
  void add_mass_moments(std::array<double, D + 1>& sums) const override;
  void add_load_points(std::vector<std::array<double, 3>>& points) const override;
  double local_potential_energy(int potential, double self_factor, const ExternalPotential& external) const override;
  void add_conserved_totals(std::vector<double>& sums) const override;
  bool write_particles(io::SnapshotParticles& out) const override;
  bool restore_particles(const io::SnapshotParticles& in, const std::string& file) override;

  particles::ParticleSet<D>& set() { return set_; }
  // The initial particles, copied into the running set (which keeps the attributes and metadata the
  // modules registered); module attributes start at zero.
  void set_initial(const particles::ParticleSet<D>& initial);
  const particles::ParticleSet<D>& set() const { return set_; }
  // Keeps only the particles whose position this rank owns (every rank may start from the same
  // full list, as the initial-condition generators produce it). Removes particles outside a
  // non-periodic box. Then locates them. Collective.
  void keep_owned();
  // After the mesh or the decomposition changed: particles go to their owners, then find their octs.
  // Collective when distributed.
  void migrate_and_locate();
  // Finest oct and level of every local particle (after a regrid that kept the decomposition).
  void locate();

  // Poisson source of `level` (RAMSES rho_fine): field = CIC density of the particles at level >= l
  // on the level's owned cells (ghost contributions added to their owners), summed exactly so that
  // it does not depend on the rank or thread count. Collective.
  void deposit(int level, int field);
  // The particles' share of the m_refine criterion on the owned cells of `level` (RAMSES rho_fine's
  // "number density" phi, see level_particles.cpp): field = the cloud-in-cell count of the
  // particles at level >= l on the level's cells, a dark-matter particle counting one and any other
  // massive particle m / mass_sph, times mass_sph / h^D. Collective.
  void refinement_count(int level, int field);
  // mass_sph of the m_refine criterion (REFINE_PARAMS, or the run's cosmological default): a cell
  // refines when its refinement density reaches m_refine mass_sph / h^3.
  void set_refinement_mass_unit(double mass_sph) { refinement_mass_unit_ = mass_sph; }

  void begin_step(int level);
  // Kick and drift the particles of `level`, then migrate those that left this rank's domain and
  // locate again those that left their cell. Collective when distributed.
  void end_step(int level, double dt);

  // Largest step of `level` with |v| dt <= courant_factor dx for its particles (RAMSES newdt_fine);
  // this rank's particles only.
  double courant_time_step(int level) const;

  // CIC interpolation of a cell field at the particles of `level` (the force's kernel), as
  // (particle index, value) pairs; the particles' acceleration scratch is left as it was.
  std::vector<std::pair<std::size_t, double>> interpolate_field(int level, int field) const;

  // Over all ranks. Collective.
  long long count() const;
  // Kinetic energy 1/2 sum m v^2 and momentum sum m v (this rank's particles).
  double kinetic_energy() const;
  std::array<double, D> momentum() const;
  // Mass of the particles removed because they left a non-periodic box, this rank.
  double mass_lost() const { return mass_lost_; }

 private:
  void remove_outside_box();
  // After the drift of `level`: the particles that left this rank's domain go to their owners.
  // Collective (a sum; the exchange only when some particle left some rank).
  void migrate_drifted(int level);
  void deposit_exactly(int level, int field, std::span<const double> charge);

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  // interpolate_field uses the acceleration scratch and restores it, so that the potential energy
  // (a diagnostic) leaves the particles as they were.
  mutable particles::ParticleSet<D> set_;
  std::array<int, D> acceleration_{};
  bool gravity_ = false;  // poisson=.true.: the acceleration fields exist
  int density_field_ = -1, refinement_field_ = -1;
  std::array<int, 2> limb_fields_{-1, -1};  // the exact deposit's scratch (particles/exact_charge_sum.hpp)
  double refinement_mass_unit_ = 1.0;
  double courant_factor_ = 0.5;
  double mass_lost_ = 0.0;
};

}  // namespace kosmo::driver
