#pragma once
// Star formation (RAMSES &SF_PARAMS, pm/star_formation.f90) and the supernova events of the stars
// (the producer side of feedback/supernova_event.hpp); docs/galaxy.md "Star formation".
//
// Storage. Stars are particles of family 'star' (RAMSES FAM_STAR = 2) in the particle module's set
// (driver/level_particles.hpp), which moves, migrates, writes and restores them; this module
// registers their attributes on that set: birth_time (the code time of birth, RAMSES tp: the
// super-comoving conformal time in a cosmological run), birth_time_proper (RAMSES texp at birth: the
// code time, or in a cosmological run the cosmic time from today in units of 1/H0), initial_mass,
// metallicity and exploded (1 once its supernovae went off).
//
// Each level step, in source_terms(level, dt), after the gas update of the level (the hydro module
// is registered first) and before the ghost refresh of the gas:
//  1. supernova events: every star of the level older than t_sne (proper time, at the step's end)
//     that has not exploded gives one SupernovaEvent to the run's SupernovaSink, loses the ejected
//     mass eta_sn m and is marked exploded; with no sink in the run (or eta_sn = 0) nothing happens;
//  2. star formation in the level's leaf cells (schmidt_law.hpp): n ~ Poisson(lambda) star mass
//     units in one star particle at the cell's centre with the gas velocity, born at the step's end;
//     the cell keeps its velocity, specific energy and scalar fractions (its density, momentum,
//     energy and scalars scale by the density left, as RAMSES);
//  3. with cooling=.true. and T2_star > 0, the polytrope T2_star (n_H/n_ISM)^(g_star-1) is the
//     temperature floor of the level's leaf cells (RAMSES cooling_fine's T2min, applied here as a
//     source term).
// The new stars are located by the particle module at the end of the level step; they start
// drifting at their level's next step.
//
// Rank and thread independence (seeds/000 §10): the Poisson deviate of a cell comes from a
// counter-based stream keyed by the cell's Morton key, child index and level and by the bits of the
// level step's start time (counter_random.hpp); a star's identity is the largest identity of the
// run's particles plus its rank in the (Morton key, child) order of the stars born in the
// same level step over all ranks. Both are the same on any rank or thread count and after a restart.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "feedback/supernova_event.hpp"
#include "parallel/distributed_mesh.hpp"
#include "particles/particle_set.hpp"
#include "star_formation/schmidt_law.hpp"

namespace kosmo::star_formation {

template <int D>
class StarFormationModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  // `set` is the particle module's set, which carries the stars; the attributes are registered on it.
  StarFormationModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers,
                      particles::ParticleSet<D>& set);

  std::string name() const override { return "star_formation"; }
  // Finds the gas fields, the metallicity scalar if any and the SupernovaSink among `modules`.
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  // Records the level step's start time (the clock of this module).
  void update_forces(int level, std::optional<double> time) override;
  // Supernova events, star formation, polytrope floor (see above). Collective.
  void source_terms(int level, double dt) override;

  // The law at code time tau (its units follow aexp in a cosmological run).
  SchmidtLaw law_at(double tau) const;
  // Stars born on this rank since the start (or the restart), over all levels.
  long long stars_formed() const { return stars_formed_; }
  // The energy of gas + particles this module changed on this rank since the start (code units):
  // star formation removes the thermal energy of the gas the stars take (their kinetic energy moves
  // to the stars), the polytrope floor adds energy. The step log's account counts them
  // (docs/galaxy.md "Energy accounting").
  double energy_to_stars() const { return energy_to_stars_; }
  double polytrope_floor_energy() const { return polytrope_floor_energy_; }

 private:
  // rho v^2 / 2 of a cell from its momentum and density (the thermal energy is E minus it).
  double kinetic_energy_density(core::CellIndex cell) const;
  void explode_supernovae(int level, double time);
  // Returns the number of star particles formed on this rank.
  long long form_stars(int level, double dt, double time);
  void apply_polytrope_floor(int level, double time);
  // The identity of the first star of this level step and this rank's offset among them. Collective.
  std::vector<std::int64_t> star_identities(const std::vector<std::array<std::uint64_t, 2>>& cells);

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  particles::ParticleSet<D>& set_;
  const core::ParameterSet& params_;
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  feedback::SupernovaSink* sink_ = nullptr;
  std::vector<double> level_start_;
  // Gas fields (the hydro module's conservative variables).
  int density_ = -1, energy_ = -1, metal_density_ = -1;
  std::array<int, D> momentum_{};
  std::vector<int> scalars_;  // every passive scalar density, metals included
  // Attributes.
  int birth_time_ = -1, birth_time_proper_ = -1, initial_mass_ = -1, metallicity_ = -1, exploded_ = -1;
  // Parameters.
  double eps_star_ = 0.0, t_star_gyr_ = 0.0, n_star_ = 0.1, m_star_ = -1.0, t2_star_ = 0.0, g_star_ = 1.6, del_star_ = 200.0;
  double eta_sn_ = 0.0, yield_ = 0.0, t_sne_myr_ = 10.0, z_ave_ = 0.0, mass_sph_ = 0.0;
  double gamma_ = 1.4, smallr_ = 1e-10;
  bool cooling_ = false;
  double energy_to_stars_ = 0.0, polytrope_floor_energy_ = 0.0;
  long long stars_formed_ = 0;
};

}  // namespace kosmo::star_formation
