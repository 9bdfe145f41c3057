#include "feedback/feedback_module.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "feedback/gas_restriction.hpp"
#include "feedback/supernova_bins.hpp"
#include "feedback/supernova_exchange.hpp"
#include "hydro/hydro_module.hpp"
#include "hydro/hydro_variables.hpp"

namespace kosmo::feedback {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double parsec_cm = 3.0856775814913673e18;

}  // namespace

template <int D>
FeedbackModule<D>::FeedbackModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                                  core::Timers& timers)
    : tree_(tree), mesh_(mesh), timers_(timers), settings_(feedback_settings(params)) {
  levelmin_ = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  unit_length_cm_ = params.get_real("UNITS_PARAMS", "units_length");
}

template <int D>
double FeedbackModule<D>::blast_radius() const {
  KOSMO_REQUIRE(!(cosmological_ && settings_.rbubble_pc > 0.0),
                "&FEEDBACK_PARAMS rbubble > 0 in a cosmological run: not implemented yet (the blast radius in "
                "comoving code units needs the expansion factor); use rbubble=0 (two finest cells)");
  return std::max(2.0 * tree_.cell_size(tree_.levelmax()), settings_.rbubble_pc * parsec_cm / unit_length_cm_);
}

template <int D>
void FeedbackModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& modules) {
  for (auto* module : modules)
    if (auto* gas = dynamic_cast<hydro::HydroModule<D>*>(module)) gas_fields_ = gas->solver().uold_fields();
  KOSMO_REQUIRE(!gas_fields_.empty(), "feedback: supernova feedback needs the gas (hydro=.true.)");
  fields_.density = gas_fields_[0];
  for (int d = 0; d < D; ++d) fields_.momentum[d] = gas_fields_[static_cast<std::size_t>(1 + d)];
  fields_.energy = gas_fields_[static_cast<std::size_t>(D + 1)];
  // The metals are the passive scalar named metallicity, when the run carries it.
  for (std::size_t k = static_cast<std::size_t>(D + 2); k < gas_fields_.size(); ++k)
    if (tree_.fields().info(gas_fields_[k]).name.find("metallicity") != std::string::npos) fields_.metal = gas_fields_[k];
  if (settings_.delayed_cooling) {
    delay_scalar_ = tree_.fields().find(hydro::delayed_cooling_density_field(fields_.metal >= 0));
    KOSMO_REQUIRE(delay_scalar_ >= 0, "feedback: delayed_cooling=.true. but the gas carries no delayed-cooling scalar");
  }
}

template <int D>
void FeedbackModule<D>::add_supernova_events(int /*level*/, std::span<const SupernovaEvent> events) {
  pending_.insert(pending_.end(), events.begin(), events.end());
}

template <int D>
void FeedbackModule<D>::source_terms(int level, double /*dt*/) {
  if (level == levelmin_) inject();
}

template <int D>
void FeedbackModule<D>::inject() {
  const auto start = Clock::now();
  report_ = InjectionReport{};
  std::vector<SupernovaEvent> own;
  own.swap(pending_);
  // Positions wrapped into the box on periodic axes, as the particles' are.
  for (auto& e : own)
    for (int d = 0; d < D; ++d) {
      if (!tree_.geometry().periodic[d]) continue;
      const double length = static_cast<double>(tree_.extent(1)[d]) * 2.0 * tree_.cell_size(1);
      e.position[d] -= length * std::floor(e.position[d] / length);
    }
  std::array<double, 5> sums{};  // events, mass, energy, metals, explosion energy
  std::array<double, 3> momentum{};
  for (const auto& e : own) {
    double v2 = 0.0;
    for (int d = 0; d < 3; ++d) v2 += e.velocity[d] * e.velocity[d];
    sums[0] += 1.0;
    sums[1] += e.ejected_mass;
    sums[2] += e.energy + 0.5 * e.ejected_mass * v2;
    sums[3] += e.ejected_metal_mass;
    sums[4] += e.energy;
    for (int d = 0; d < 3; ++d) momentum[d] += e.ejected_mass * e.velocity[d];
  }
  std::array<double, 8> all{sums[0], sums[1], sums[2], sums[3], momentum[0], momentum[1], momentum[2], sums[4]};
  if (mesh_.distributed()) MPI_Allreduce(MPI_IN_PLACE, all.data(), 8, MPI_DOUBLE, MPI_SUM, mesh_.comm());
  report_.events = static_cast<long long>(all[0]);
  report_.mass = all[1];
  report_.energy = all[2];
  report_.metal_mass = all[3];
  report_.explosion_energy = all[7];
  report_.momentum = {all[4], all[5], all[6]};
  injected_.events += report_.events;
  injected_.mass += report_.mass;
  injected_.energy += report_.energy;
  injected_.explosion_energy += report_.explosion_energy;
  injected_.metal_mass += report_.metal_mass;
  for (int d = 0; d < 3; ++d) injected_.momentum[static_cast<std::size_t>(d)] += report_.momentum[static_cast<std::size_t>(d)];
  if (report_.events == 0) return;

  const bool kinetic = settings_.mode == InjectionMode::kinetic;
  const double rmax = kinetic ? blast_radius() : 0.0;
  SharedEvents shared;
  if (mesh_.distributed()) {
    // Owned cell centres lie within one levelmin cell of the rank's domain (an oct belongs to the rank
    // holding its centre), so the blast's reach is grown by that much.
    const double reach = rmax + tree_.cell_size(levelmin_);
    shared = share_events(mesh_.comm(), mesh_.decomposition(), mesh_.hilbert(), own, reach);
  } else {
    sort_by_identity(own);
    shared.events = std::move(own);
    shared.origin.assign(shared.events.size(), 0);
    shared.recipients.assign(shared.events.size(), {0});
  }
  if (kinetic) {
    const LeafCells cells = owned_leaf_cells(tree_, levelmin_);
    const auto [lo, hi] = cells.bounding_box(D);
    const std::vector<BlastImage> images = blast_images(tree_, shared.events, lo, hi, rmax);
    std::array<double, 3> bin_lo{}, bin_hi{};
    for (int d = 0; d < D; ++d) {
      bin_lo[d] = lo[d] - rmax;
      bin_hi[d] = hi[d] + rmax;
    }
    const auto search_start = Clock::now();
    std::optional<SupernovaBins> bins;
    if (settings_.binning) bins.emplace(bin_lo, bin_hi, rmax, images);
    const SupernovaBins* search = bins ? &*bins : nullptr;
    const std::vector<BudgetRecord> records = average_sn(cells, images, search, rmax);
    const std::vector<BlastBudget> budgets = mesh_.distributed() ? reduce_budgets(mesh_.comm(), mesh_.decomposition(), shared, records)
                                                                 : sum_budgets(records, shared.events.size());
    timers_.add("feedback - average_SN", search_start);
    const auto blast_start = Clock::now();
    std::vector<BlastInjection> injections;
    injections.reserve(shared.events.size());
    for (std::size_t slot = 0; slot < shared.events.size(); ++slot) {
      const SupernovaEvent& e = shared.events[slot];
      injections.push_back(blast_injection(budgets[slot], e.ejected_mass, e.energy, e.ejected_metal_mass, e.velocity,
                                           settings_.kinetic_fraction));
    }
    sedov_blast(tree_, fields_, cells, images, search, rmax, injections);
    // RAMSES: a blast that holds no cell centre goes into the cell holding the star.
    for (std::size_t slot = 0; slot < shared.events.size(); ++slot)
      if (!(budgets[slot][0] > 0.0)) deposit_in_host_cell(shared.events[slot]);
    timers_.add("feedback - Sedov_blast", blast_start);
  } else {
    for (const SupernovaEvent& e : shared.events) deposit_in_host_cell(e);
  }
  restrict_and_refresh();
  timers_.add("feedback", start);
}

// RAMSES feedbk: the ejecta with the star's velocity, the energy as heat, the metals, into the leaf
// cell holding the event, by the rank owning that cell.
template <int D>
void FeedbackModule<D>::deposit_in_host_cell(const SupernovaEvent& event) {
  core::CellIndex host = core::no_cell;
  for (int level = levelmin_; level <= tree_.levelmax(); ++level) {
    const double dx = tree_.cell_size(level);
    typename Tree::Coordinates c{};
    for (int d = 0; d < D; ++d) c[d] = static_cast<typename Tree::Coordinates::value_type>(std::floor(event.position[d] / dx));
    const core::CellIndex cell = tree_.find_cell(level, c);
    if (cell == core::no_cell || core::is_coarse_cell(cell)) return;
    if (tree_.is_leaf(cell)) {
      host = cell;
      break;
    }
  }
  if (host == core::no_cell || tree_.role(Tree::oct_of(host)) != core::OctRole::owned) return;
  const double volume = std::pow(tree_.cell_size(tree_.level(Tree::oct_of(host))), D);
  const double density = event.ejected_mass / volume;
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) {
    tree_.field(fields_.momentum[d])[host] += density * event.velocity[d];
    kinetic += event.velocity[d] * event.velocity[d];
  }
  tree_.field(fields_.density)[host] += density;
  tree_.field(fields_.energy)[host] += 0.5 * density * kinetic + event.energy / volume;
  if (fields_.metal >= 0) tree_.field(fields_.metal)[host] += event.ejected_metal_mass / volume;
  // RAMSES feedbk: the delayed-cooling scalar receives the ejecta of the thermal mode only
  // (cooling/delayed_cooling.hpp); the kinetic mode's blasts leave it alone, as RAMSES' do.
  if (delay_scalar_ >= 0 && settings_.mode == InjectionMode::thermal) tree_.field(delay_scalar_)[host] += density;
}

// RAMSES upload_fine and make_virtual_fine after kinetic_feedback (feedback/gas_restriction.hpp).
template <int D>
void FeedbackModule<D>::restrict_and_refresh() {
  restrict_after_injection(tree_, mesh_, gas_fields_, levelmin_);
}

template class FeedbackModule<1>;
template class FeedbackModule<2>;
template class FeedbackModule<3>;

}  // namespace kosmo::feedback
