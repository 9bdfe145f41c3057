#include "sinks/agn_feedback_module.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "feedback/gas_restriction.hpp"
#include "feedback/supernova_bins.hpp"
#include "feedback/supernova_exchange.hpp"
#include "sinks/sink_bondi.hpp"
#include "sinks/sink_module.hpp"
#include "star_formation/physical_units.hpp"

namespace kosmo::sinks {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

template <int D>
AgnFeedbackModule<D>::AgnFeedbackModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                                        core::Timers& timers)
    : tree_(tree), mesh_(mesh), timers_(timers), params_(params), settings_(agn_settings(params)) {
  levelmin_ = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  level_start_.assign(static_cast<std::size_t>(tree_.levelmax()) + 2, 0.0);
}

template <int D>
void AgnFeedbackModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& modules) {
  for (auto* module : modules)
    if (auto* sinks = dynamic_cast<SinkModule<D>*>(module)) sinks_ = sinks;
  KOSMO_REQUIRE(sinks_ != nullptr, "AGN feedback: agn=.true. needs the sink module (sink=.true.)");
  const auto& fields = tree_.fields();
  fields_.density = fields.find("density");
  fields_.energy = fields.find("total_energy");
  KOSMO_REQUIRE(fields_.density >= 0 && fields_.energy >= 0, "AGN feedback needs the gas (hydro=.true.)");
  changed_fields_.clear();
  for (int d = 0; d < D; ++d) {
    fields_.momentum[d] = fields.find(std::string("momentum_") + "xyz"[d]);
    changed_fields_.push_back(fields_.momentum[d]);
  }
  changed_fields_.push_back(fields_.energy);
}

template <int D>
void AgnFeedbackModule<D>::update_forces(int level, std::optional<double> time) {
  if (time) level_start_[static_cast<std::size_t>(level)] = *time;
}

template <int D>
void AgnFeedbackModule<D>::source_terms(int level, double dt) {
  if (level == levelmin_) release_reservoirs(level_start_[static_cast<std::size_t>(level)] + dt);  // collective
}

template <int D>
void AgnFeedbackModule<D>::release_reservoirs(double time) {
  const auto start = Clock::now();
  report_ = AgnReport{};
  const auto& set = sinks_->sinks();
  const std::span<double> reservoir = sinks_->agn_reservoirs();
  // The AGN events: the sinks with energy in their reservoir, in identity order (the same on every rank).
  std::vector<std::size_t> sink_of_slot;
  for (std::size_t s = 0; s < set.size(); ++s)
    if (reservoir[s] > 0.0) sink_of_slot.push_back(s);
  if (sink_of_slot.empty()) return;
  std::sort(sink_of_slot.begin(), sink_of_slot.end(), [&](std::size_t a, std::size_t b) { return set.id()[a] < set.id()[b]; });
  std::vector<feedback::SupernovaEvent> events;
  for (std::size_t s : sink_of_slot) {
    feedback::SupernovaEvent e;
    for (int d = 0; d < D; ++d) {
      e.position[d] = set.position(d)[s];
      e.velocity[d] = set.velocity(d)[s];
    }
    e.energy = reservoir[s];
    e.identity = set.id()[s];
    events.push_back(e);
  }

  // average_AGN over this rank's leaf cells.
  const double radius = sinks_->accretion_radius();
  const feedback::LeafCells cells = feedback::owned_leaf_cells(tree_, levelmin_);
  const auto [lo, hi] = cells.bounding_box(D);
  const std::vector<feedback::BlastImage> images = feedback::blast_images(tree_, events, lo, hi, radius);
  std::array<double, 3> bin_lo{}, bin_hi{};
  for (int d = 0; d < D; ++d) {
    bin_lo[d] = lo[d] - radius;
    bin_hi[d] = hi[d] + radius;
  }
  std::optional<feedback::SupernovaBins> bins;
  if (settings_.binning) bins.emplace(bin_lo, bin_hi, radius, images);
  const feedback::SupernovaBins* search = bins ? &*bins : nullptr;
  const auto pairs = average_agn(cells, images, search, radius);
  std::vector<feedback::BlastBudget> budgets;
  if (mesh_.distributed()) {
    const std::vector<feedback::BudgetRecord> records = agn_budget_records(tree_, fields_, cells, images, pairs);
    // Each sink's records go to the rank owning its position, which sums them in the one-rank
    // order; the sums then reach every rank (the others add exact zeros).
    feedback::SharedEvents shared;
    shared.events = events;
    shared.recipients.assign(events.size(), {});
    for (const auto& e : events) {
      std::array<double, D> x{};
      for (int d = 0; d < D; ++d) x[d] = e.position[d];
      shared.origin.push_back(mesh_.owner_of_position(x));
    }
    budgets = feedback::reduce_budgets(mesh_.comm(), mesh_.decomposition(), shared, records);
    for (std::size_t slot = 0; slot < events.size(); ++slot)
      if (shared.origin[slot] != mesh_.rank()) budgets[slot] = feedback::BlastBudget{};
    MPI_Allreduce(MPI_IN_PLACE, budgets.data(), static_cast<int>(budgets.size() * feedback::budget_values), MPI_DOUBLE, MPI_SUM,
                  mesh_.comm());
  } else {
    budgets = sum_agn_budgets(tree_, fields_, cells, images, pairs, events.size());
  }
  timers_.add("sinks - average_AGN", start);

  // The releases, the same on every rank; then AGN_blast.
  const auto blast_start = Clock::now();
  const star_formation::PhysicalUnits units = star_formation::physical_units(params_, cosmology_, time);
  const auto rate = set.template values<double>(sinks_->attribute_ids().accretion_rate);
  std::vector<AgnInjection> injections(events.size());
  for (std::size_t slot = 0; slot < events.size(); ++slot) {
    const std::size_t s = sink_of_slot[slot];
    const double eddington = eddington_rate(set.mass()[s], units.time);
    const double ratio = eddington > 0.0 ? rate[s] / eddington : 0.0;
    const AgnRelease release = agn_release(settings_, budgets[slot], reservoir[s], ratio, units.temperature, units.velocity);
    if (!(release.released > 0.0)) continue;
    injections[slot] = release.injection;
    reservoir[s] -= release.released;
    report_.active += 1;
    report_.released += release.released;
    report_.thermal_energy += release.thermal_energy;
    report_.momentum += release.momentum;
  }
  if (report_.active > 0) {
    agn_blast(tree_, fields_, cells, images, search, radius, injections);
    feedback::restrict_after_injection(tree_, mesh_, changed_fields_, levelmin_);  // collective
  }
  total_.active += report_.active;
  total_.released += report_.released;
  total_.thermal_energy += report_.thermal_energy;
  total_.momentum += report_.momentum;
  timers_.add("sinks - AGN_blast", blast_start);
}

template class AgnFeedbackModule<1>;
template class AgnFeedbackModule<2>;
template class AgnFeedbackModule<3>;

}  // namespace kosmo::sinks
