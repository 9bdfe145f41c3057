#pragma once
// Sink particles (RAMSES &SINK_PARAMS, pm/sink_particle.f90; docs/galaxy.md "Sink particles").
//
// Storage. Sinks are particles of family 'sink' (RAMSES' FAM_CLOUD holds their clouds) in this
// module's own particle set, with the attributes of sink_attributes.hpp, replicated on every rank
// as RAMSES replicates xsink, vsink, msink: their number is small next to the cells. Every rank
// holds the same sinks in the same order and changes them identically; what the ranks contribute
// (the gas of the accretion zones, the force at a sink) is summed in an order no partition changes
// (sink_cell_sums.hpp), so the sinks are the same to the last bit on any rank and thread count.
//
// Each level step:
//  * source_terms(level, dt), after the gas update: accretion (accretion_scheme). The zone of a
//    sink is the set of leaf cells whose centre lies within r_acc = ir_cloud dx_min of it, plus
//    the leaf cell holding it. 'bondi': the rate of sink_bondi.hpp from the zone's volume-averaged
//    density, mass-weighted velocity and thermal energy (over every level), capped at Eddington
//    with eddington_limit; each zone cell of the level gives Mdot dt V_cell / V_zone, at most c_acc
//    of its gas. 'threshold': each zone cell of the level gives c_acc (rho - d_sink) V_cell when
//    positive. A cell keeps its velocity, specific energy and scalar fractions (RAMSES); the sink
//    takes the mass, its momentum (the cell's velocity) and moves to the centre of mass of itself
//    and the gas taken, so gas + sinks conserve mass and momentum to round-off.
//  * end_level_step(levelmax, dt) with create_sinks: new sinks at the density peaks above the
//    threshold (sink_creation.cpp), which take their seed mass at the next levelmax step;
//  * end_level_step(levelmin, dt), once per coarse step: the kick with the gas + particle gravity
//    interpolated (cloud in cell) at levelmin, v += g dt, then the drift x += v dt; then merging
//    (sink_merging.hpp) of the sinks closer than r_merge dx_min.
// Gravity: each sink's mass is spread evenly over RAMSES' cloud, the points of a lattice of step
// dx_min / 2 within r_acc, each of which enters the Poisson source of every level by cloud in cell
// (add_source_density); the kick is the mean acceleration over the cloud.
// Refinement: with sink_refine the cells that meet the sphere of radius r_acc around a sink are
// refined, down to levelmax.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "io/snapshot_data.hpp"
#include "parallel/distributed_mesh.hpp"
#include "particles/particle_set.hpp"
#include "sinks/sink_attributes.hpp"
#include "sinks/sink_cell_sums.hpp"

namespace kosmo::sinks {

enum class AccretionScheme { none, threshold, bondi };

template <int D>
class SinkModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;
  using Vector = std::array<double, D>;

  SinkModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "sinks"; }
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  // The initial sinks of RAMSES' ic_sink file (sink_initial_file.hpp), if there is one.
  void begin_initial_state() override;
  void flag_cells(int level, std::vector<std::uint8_t>& flags) override;
  // The sinks move once per coarse step: courant_factor h_level / max |v_sink| keeps that move
  // below a levelmin cell (RAMSES limits the finest level's step by the sinks' speed).
  double time_step_limit(int level) const override;
  void update_forces(int level, std::optional<double> time) override;
  // Accretion. Collective.
  void source_terms(int level, double dt) override;
  // At levelmin: kick, drift, merging. Collective.
  void end_level_step(int level, double dt) override;

  // The sinks in snapshots and restarts (sink_restart.cpp; docs/outputs.md "/sinks"): every
  // attribute and the identity counter, replicated, so any rank count restarts bit for bit.
  void write_snapshot_state(io::SnapshotMeta& meta) const override;
  void restore_snapshot_state(const io::SnapshotMeta& meta, const std::string& file) override;
  // This rank's cloud particles for RAMSES' part_ files (sink_output_clouds.cpp).
  io::SnapshotParticles cloud_particles() const;

  double total_mass() const override;
  void add_source_density(int level, double* density) override;
  void add_mass_moments(std::array<double, D + 1>& sums) const override;
  void add_conserved_totals(std::vector<double>& sums) const override;

  // A new sink at rest or moving (RAMSES' ic_sink and create_sink); every rank must call it with
  // the same arguments. Its identity is one more than the largest so far. Returns its index.
  std::size_t add_sink(const Vector& position, const Vector& velocity, double mass, double time);
  const particles::ParticleSet<D>& sinks() const { return sinks_; }
  const SinkAttributeIds& attribute_ids() const { return ids_; }
  // The AGN energy reservoirs (attribute agn_energy), which AGN feedback (agn_feedback_module.hpp) empties.
  std::span<double> agn_reservoirs() { return sinks_.template values<double>(ids_.agn_energy); }
  // The accretion radius ir_cloud dx_min (RAMSES' cloud radius rmax), the radius of the Bondi
  // extrapolation ir_cloud dx_min / 2 (RAMSES compute_accretion_rate) and the merging length
  // r_merge dx_min.
  double accretion_radius() const;
  double bondi_radius_of_zone() const { return 0.5 * accretion_radius(); }
  double merging_length() const;
  // G in code units at code time tau (3 omega_m aexp / (8 pi) in a cosmological run, RAMSES factG).
  double gravity_constant(double tau) const;
  // Merges the sinks closer than merging_length() at code time `now`; returns how many went.
  std::size_t merge(double now);

 private:
  // A leaf cell of an accretion zone on this rank.
  struct ZoneCell {
    std::size_t sink = 0;
    core::CellIndex cell = 0;
    int level = 0;
    Vector offset{};  // cell centre minus sink position (nearest image)
  };
  // The zone cells of every sink over every level on this rank, in (sink, level, key) order.
  std::vector<ZoneCell> zone_cells() const;
  // Per sink: volume, mass, momentum (D), thermal energy of its zone over all ranks. Collective.
  std::vector<double> zone_averages(const std::vector<ZoneCell>& zone) const;
  // Per sink: the accretion rate (bondi) from the zone sums.
  std::vector<double> accretion_rates(const std::vector<double>& zone_sums, double time) const;
  void accrete(int level, double dt, double time);
  // Takes amount(cell), at most c_acc of its gas, from each zone cell of the level and gives it, with
  // its momentum, to the cell's sink (sink_accretion.cpp). Returns the mass each sink took. Collective.
  std::vector<double> take_gas(int level, const std::vector<ZoneCell>& zone, const std::function<double(const ZoneCell&)>& amount);
  // create_sinks (sink_creation.cpp): new sinks at the end of a levelmax step, their seed mass at
  // the next one. Collective.
  void create_sinks(int level, double time);
  void seed_new_sinks(int level, double time, const std::vector<ZoneCell>& zone);
  // The creation and threshold-accretion density in code units.
  double density_threshold(double time) const;
  void kick_and_drift(double dt);
  template <class Visit>
  void for_each_cloud_cell(int level, const Vector& x, Visit&& visit) const;
  // The cloud's offsets from the sink (RAMSES create_cloud_from_sink; computed once).
  const std::vector<Vector>& cloud_offsets() const;
  std::uint64_t key_of(core::CellIndex cell) const { return static_cast<std::uint64_t>(tree_.key(Tree::oct_of(cell))); }

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  const core::ParameterSet& params_;
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  particles::ParticleSet<D> sinks_;
  SinkAttributeIds ids_;
  std::vector<double> level_start_;
  int levelmin_ = 1;
  // Gas fields.
  int density_ = -1, energy_ = -1;
  std::array<int, D> momentum_{};
  std::vector<int> scalars_;
  std::array<int, D> acceleration_{};
  bool gravity_ = false;
  // Parameters.
  AccretionScheme scheme_ = AccretionScheme::none;
  bool use_relative_velocity_ = true, eddington_limit_ = false, refine_ = false, create_ = false;
  double courant_factor_ = 0.5, c_acc_ = 0.75, ir_cloud_ = 4.0, r_merge_ = 2.0, merging_timescale_years_ = -1.0;
  double n_sink_ = -1.0, d_sink_ = -1.0, rho_sink_ = -1.0, mass_sink_seed_ = 0.0, gamma_ = 1.4, smallc_ = 1e-10;
  long long nsinkmax_ = 2000;
  // RAMSES nindsink: the largest identity given so far, so an identity is never given twice (a
  // merger may remove the sink that held it).
  std::int64_t largest_identity_ = 0;
  double t2_agn_ = 0.0;  // with agn=.true., T2_AGN: accreted mass fills the reservoir with k_B T2_AGN / m_H per mass
  mutable std::vector<Vector> cloud_;
};

}  // namespace kosmo::sinks
