#include "cooling/cooling_module.hpp"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "cosmology/cosmological_model.hpp"
#include "hydro/hydro_variables.hpp"
#include "cooling/ism_cooling.hpp"

namespace kosmo::cooling {

CoolingUnits cooling_units(const cosmology::PhysicalUnits& units) {
  CoolingUnits u;
  u.time = units.time;
  u.t2_per_code = hydrogen_mass_g / boltzmann_cgs * units.velocity * units.velocity;
  u.nh_per_code = hydrogen_mass_fraction / hydrogen_mass_g * units.density;
  return u;
}

template <int D>
CoolingModule<D>::CoolingModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                                core::Timers& timers)
    : params_(params), tree_(tree), mesh_(mesh), timers_(timers), settings_(cooling_settings(params)) {
  solver_.gamma = params.get_real("HYDRO_PARAMS", "gamma");
  smallr_ = params.get_real("HYDRO_PARAMS", "smallr");
  code_units_ = cooling_units(cosmology::physical_units(params_, nullptr, 0.0));
  level_time_.assign(static_cast<std::size_t>(tree_.levelmax()) + 1, 0.0);
  if (params.get_bool("FEEDBACK_PARAMS", "delayed_cooling")) delayed_ = DelayedCooling{params.get_real("FEEDBACK_PARAMS", "t_diss")};
}

template <int D>
void CoolingModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& /*modules*/) {
  const core::FieldRegistry& fields = tree_.fields();
  density_ = fields.find("density");
  energy_ = fields.find("total_energy");
  for (int d = 0; d < D; ++d) momentum_[static_cast<std::size_t>(d)] = fields.find(std::string("momentum_") + hydro::axis_letter(d));
  KOSMO_REQUIRE(density_ >= 0 && energy_ >= 0, "cooling: &COOLING_PARAMS cooling=.true. needs the gas (&RUN_PARAMS hydro=.true.)");
  if (settings_.metal) {
    metallicity_ = fields.find(hydro::metallicity_density_field);
    KOSMO_REQUIRE(metallicity_ >= 0, "cooling: metal=.true. but the gas carries no '" << hydro::metallicity_density_field << "' scalar");
  }
  if (delayed_) {
    delay_scalar_ = fields.find(hydro::delayed_cooling_density_field(settings_.metal));
    KOSMO_REQUIRE(delay_scalar_ >= 0, "cooling: delayed_cooling=.true. but the gas carries no delayed-cooling scalar");
  }
}

template <int D>
void CoolingModule<D>::update_forces(int level, std::optional<double> time) {
  if (time) level_time_[static_cast<std::size_t>(level)] = *time;
}

template <int D>
void CoolingModule<D>::update_table(double redshift) {
  if (table_ && std::fabs(redshift - table_->redshift()) <= table_redshift_tolerance * (1.0 + redshift)) return;
  const auto start = std::chrono::steady_clock::now();
  // The ranks share the n_H rows (as RAMSES' cmp_table), then every rank gathers all of them.
  const int ranks = mesh_.nrank(), rank = mesh_.distributed() ? mesh_.rank() : 0;
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const int begin = CoolingTable::nh_nodes * r / ranks, end = CoolingTable::nh_nodes * (r + 1) / ranks;
    counts[static_cast<std::size_t>(r)] = (end - begin) * CoolingTable::t2_nodes;
    offsets[static_cast<std::size_t>(r)] = begin * CoolingTable::t2_nodes;
  }
  table_ = std::make_unique<CoolingTable>(redshift, uv_background(settings_.uv, redshift), CoolingTable::nh_nodes * rank / ranks,
                                          CoolingTable::nh_nodes * (rank + 1) / ranks);
  if (ranks > 1)
    for (int q = 0; q < CoolingTable::quantities; ++q)
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table_->rows(static_cast<CoolingTable::Quantity>(q)), counts.data(), offsets.data(),
                     MPI_DOUBLE, mesh_.comm());
  timers_.add("cooling - rate table", start);
}

template <int D>
void CoolingModule<D>::source_terms(int level, double dt) {
  // RAMSES cooling_fine: the units and redshift of the level's time (aexp = 1 without cosmology).
  CoolingUnits units = code_units_;
  double redshift = 0.0;
  if (cosmology_) {
    const double tau = level_time_[static_cast<std::size_t>(level)];
    redshift = 1.0 / cosmology_->aexp_at(tau) - 1.0;
    units = cooling_units(cosmology::physical_units(params_, cosmology_, tau));
  }
  if (!settings_.cooling_ism) update_table(redshift);
  const auto start = std::chrono::steady_clock::now();
  const double gamma = solver_.gamma, dt_seconds = dt * units.time;
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
  double* rho = tree_.field(density_);
  double* energy = tree_.field(energy_);
  std::array<const double*, D> momentum{};
  for (int d = 0; d < D; ++d) momentum[static_cast<std::size_t>(d)] = tree_.field(momentum_[static_cast<std::size_t>(d)]);
  const double* metal_density = metallicity_ >= 0 ? tree_.field(metallicity_) : nullptr;
  double* delay_density = delay_scalar_ >= 0 ? tree_.field(delay_scalar_) : nullptr;
  const auto& octs = tree_.octs_at_level(level);
  // Per-oct energy sums, added in oct order afterwards: the totals do not depend on the threads.
  std::vector<double> radiated(octs.size(), 0.0), heated(octs.size(), 0.0);
  const CoolingSettings& s = settings_;
  const CoolingTable* table = table_.get();
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      if (!tree_.is_leaf(cell)) continue;
      const double density = std::max(rho[cell], smallr_);
      double kinetic = 0.0;
      for (int d = 0; d < D; ++d) kinetic += 0.5 * momentum[static_cast<std::size_t>(d)][cell] * momentum[static_cast<std::size_t>(d)][cell] / density;
      const double thermal = energy[cell] - kinetic;
      const double t2 = std::min(std::max((gamma - 1.0) * thermal / density * units.t2_per_code, solver_.t2_floor), s.t2max);
      const double n_h = density * units.nh_per_code;
      CoolingStepResult step;
      if (s.cooling_ism) {
        step = integrate_temperature([&](double y) { return ism_temperature_rate(gamma, s.mu_gas, n_h, y); }, solver_, t2, dt_seconds);
      } else {
        double metallicity = s.z_ave;
        if (metal_density) metallicity = std::max(metal_density[cell] / density / 0.02, s.z_ave);
        // RAMSES self-shielding: the UV reduced by exp(-n_H / 0.01 cm^-3), which in equilibrium is the
        // table at n_H divided by that factor.
        const double boost = s.self_shielding ? std::max(std::exp(-n_h / 0.01), 1e-20) : 1.0;
        step = integrate_temperature([&](double y) { return primordial_temperature_rate(*table, gamma, n_h / boost, n_h, y, metallicity); },
                                     solver_, t2, dt_seconds);
      }
      const double new_t2 = std::min(step.t2, s.t2max);
      const double per_t2 = density / (units.t2_per_code * (gamma - 1.0));  // code energy density per K of T2
      double new_thermal = new_t2 * per_t2;
      if (delay_density) {
        // Delayed cooling (delayed_cooling.hpp): no net loss where the supernova scalar holds, then its decay.
        if (DelayedCooling::holds(delay_density[cell], density)) new_thermal = DelayedCooling::held_energy(thermal, new_thermal);
        delay_density[cell] = delayed_->decayed(delay_density[cell], dt_seconds);
      }
      energy[cell] = kinetic + new_thermal;
      heated[i] += step.heating * per_t2 * volume;
      radiated[i] += (step.heating * per_t2 - (new_thermal - thermal)) * volume;
    }
  for (std::size_t i = 0; i < octs.size(); ++i) {
    radiated_ += radiated[i];
    heated_ += heated[i];
  }
  timers_.add("cooling", start);
}

template <int D>
double CoolingModule<D>::radiated_energy() const {
  return mesh_.sum(radiated_);
}

template <int D>
double CoolingModule<D>::heating_energy() const {
  return mesh_.sum(heated_);
}

template class CoolingModule<1>;
template class CoolingModule<2>;
template class CoolingModule<3>;

}  // namespace kosmo::cooling
