#pragma once
// AGN feedback from the sinks (docs/galaxy.md "AGN feedback"; RAMSES pm/sink_particle.f90
// compute_accretion_rate and accrete_sink, structured as the average_AGN / AGN_blast pair of
// seeds/000 §6.3). The sink module fills each sink's reservoir (attribute agn_energy) with
// k_B T2_AGN / m_H per accreted mass; once per coarse step, when every level is synchronised (as
// the supernova feedback), this module
//  * average_AGN: sums, per sink with a reservoir, the volume, gas mass and thermal energy of the
//    leaf cells within r_AGN = ir_cloud dx_min (the sink's accretion radius: RAMSES deposits the AGN
//    energy over the sink's cloud), found by the spatial hash binning of the supernova feedback
//    (agn_binning=.false.: the all-pairs scan, the same bits);
//  * decides per sink, identically on every rank (agn_settings.hpp agn_release): release when the
//    zone's gas reaches T2_min, thermal or momentum mode after the Eddington ratio, at most T2_max
//    and v_max per zone gas mass (the rest stays in the reservoir);
//  * AGN_blast: adds the heat (and the radial kicks) to the zone cells, then restricts the refined
//    cells above them and refreshes the ghosts.
// Several ranks: the sinks are on every rank; each rank sums its own cells, the per-cell records of
// a sink go to the rank owning its position through the supernova feedback's exchange
// (reduce_budgets), which sums them in the one-rank order, and every rank gets every sum, so the
// gas and the reservoirs are the same bits on any rank and thread count.
#include <optional>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "feedback/blast_kernels.hpp"
#include "parallel/distributed_mesh.hpp"
#include "sinks/agn_settings.hpp"

namespace kosmo::sinks {

template <int D>
class SinkModule;

// What the last coarse step's AGN feedback did, over all ranks (identical on every rank).
struct AgnReport {
  long long active = 0;         // sinks that released energy
  double released = 0.0;        // taken from the reservoirs
  double thermal_energy = 0.0;  // given as heat
  double momentum = 0.0;        // given as radial momentum (magnitudes)
};

template <int D>
class AgnFeedbackModule final : public core::PhysicsModule<D> {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  AgnFeedbackModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "agn_feedback"; }
  const AgnSettings& settings() const { return settings_; }
  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmology_ = model; }
  void update_forces(int level, std::optional<double> time) override;
  // At levelmin (the end of the coarse step, after the sinks' accretion): the AGN feedback. Collective.
  void source_terms(int level, double dt) override;

  // The feedback at code time `time`, by hand (tests). Collective.
  void release_reservoirs(double time);
  const AgnReport& last_release() const { return report_; }
  const AgnReport& released_since_start() const { return total_; }

 private:
  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  const core::ParameterSet& params_;
  const cosmology::CosmologicalModel* cosmology_ = nullptr;
  AgnSettings settings_;
  SinkModule<D>* sinks_ = nullptr;
  int levelmin_ = 1;
  std::vector<double> level_start_;
  feedback::GasFields fields_;
  std::vector<int> changed_fields_;  // momentum and energy: restricted after the injection
  AgnReport report_, total_;
};

}  // namespace kosmo::sinks
