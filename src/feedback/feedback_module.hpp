#pragma once
// The supernova feedback module (RAMSES pm/feedback.f90; docs/galaxy.md "Supernova feedback"): it
// receives the supernova events of star formation (supernova_event.hpp) during the level steps and
// injects them at the end of the coarse step, when every level is synchronised, as RAMSES'
// kinetic_feedback does: thermal mode (f_w = 0) puts each event's ejecta, momentum, energy and
// metals into the leaf cell holding it; kinetic mode (f_w > 0) spreads them over the leaf cells
// within the blast radius (average_SN then Sedov_blast), the cells found by the spatial hash
// binning of seeds/000 §6.2 or, with sn_binning=.false., by the all-pairs scan. The refined cells
// above the changed leaves are restricted again and the ghosts refreshed (RAMSES upload_fine and
// make_virtual_fine after kinetic_feedback).
#include <array>
#include <span>
#include <vector>

#include "core/oct_tree.hpp"
#include "core/parameters.hpp"
#include "core/physics_module.hpp"
#include "core/timers.hpp"
#include "feedback/blast_kernels.hpp"
#include "feedback/feedback_parameters.hpp"
#include "feedback/supernova_event.hpp"
#include "parallel/distributed_mesh.hpp"

namespace kosmo::feedback {

// What the last injection added to the gas over all ranks: the events' totals (for the tests, and
// for a step log of the energy injected).
struct InjectionReport {
  long long events = 0;  // events injected over all ranks
  // energy: what the gas gains, the explosions' energy plus the ejecta's kinetic energy m v^2 / 2.
  // explosion_energy: the explosions' alone, the energy that enters gas + particles from outside
  // (the ejecta's kinetic energy leaves the stars with their mass), which the step log counts.
  double mass = 0.0, energy = 0.0, explosion_energy = 0.0, metal_mass = 0.0;
  std::array<double, 3> momentum{};
};

template <int D>
class FeedbackModule final : public core::PhysicsModule<D>, public SupernovaSink {
 public:
  using Key = core::MortonKey;
  using Tree = core::OctTree<D, Key>;

  FeedbackModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers);

  std::string name() const override { return "feedback"; }
  const FeedbackSettings& settings() const { return settings_; }
  // The blast radius in code units: RAMSES' max(2 dx_min, rbubble).
  double blast_radius() const;

  void connect(const std::vector<core::PhysicsModule<D>*>& modules) override;
  void set_cosmology(const cosmology::CosmologicalModel* model) override { cosmological_ = model != nullptr; }
  void add_supernova_events(int level, std::span<const SupernovaEvent> events) override;
  // Injects every pending event at the end of the coarse step (level == levelmin). Collective.
  void source_terms(int level, double dt) override;

  const InjectionReport& last_injection() const { return report_; }
  // Every injection of this run so far, over all ranks (the step log's energy account).
  const InjectionReport& injected_since_start() const { return injected_; }

 private:
  void inject();
  void inject_kinetic(const LeafCells& cells, const std::vector<SupernovaEvent>& events, const std::vector<int>& origin,
                      std::span<const BlastBudget> budgets_or_empty);
  void deposit_in_host_cell(const SupernovaEvent& event);
  void restrict_and_refresh();

  Tree& tree_;
  parallel::DistributedMesh<D, Key>& mesh_;
  core::Timers& timers_;
  FeedbackSettings settings_;
  int levelmin_ = 1;
  double unit_length_cm_ = 1.0;
  bool cosmological_ = false;
  std::vector<int> gas_fields_;  // the gas's conservative fields (uold), restricted after injection
  GasFields fields_;
  int delay_scalar_ = -1;  // delayed_cooling: the scalar that receives the ejecta (thermal mode)
  std::vector<SupernovaEvent> pending_;
  InjectionReport report_;
  InjectionReport injected_;
};

}  // namespace kosmo::feedback
