#include "star_formation/star_formation_module.hpp"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "core/parameter_schema.hpp"
#include "cosmology/cosmological_model.hpp"
#include "parallel/gather_everywhere.hpp"
#include "star_formation/counter_random.hpp"
#include "star_formation/physical_units.hpp"
#include "star_formation/star_attributes.hpp"

namespace kosmo::star_formation {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double critical_density_h2 = 1.88e-29;  // g/cm^3 for h = 1 (RAMSES rhoc)
constexpr double pi = 3.14159265358979323846;

// A key of another module's block, when that module is part of this build (z_ave and cooling
// belong to the cooling module; without it they keep RAMSES' defaults).
double real_if_declared(const core::ParameterSet& params, const char* block, const char* name, double fallback) {
  return core::find_parameter(block, name) ? params.get_real(block, name) : fallback;
}
bool bool_if_declared(const core::ParameterSet& params, const char* block, const char* name) {
  return core::find_parameter(block, name) ? params.get_bool(block, name) : false;
}

}  // namespace

template <int D>
StarFormationModule<D>::StarFormationModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                                            core::Timers& timers, particles::ParticleSet<D>& set)
    : tree_(tree), mesh_(mesh), timers_(timers), set_(set), params_(params) {
  eps_star_ = params.get_real("SF_PARAMS", "eps_star");
  t_star_gyr_ = params.get_real("SF_PARAMS", "t_star");
  n_star_ = params.get_real("SF_PARAMS", "n_star");
  m_star_ = params.get_real("SF_PARAMS", "m_star");
  t2_star_ = params.get_real("SF_PARAMS", "t2_star");
  g_star_ = params.get_real("SF_PARAMS", "g_star");
  del_star_ = params.get_real("SF_PARAMS", "del_star");
  eta_sn_ = params.get_real("FEEDBACK_PARAMS", "eta_sn");
  yield_ = params.get_real("FEEDBACK_PARAMS", "yield");
  t_sne_myr_ = params.get_real("FEEDBACK_PARAMS", "t_sne");
  z_ave_ = real_if_declared(params, "COOLING_PARAMS", "z_ave", 0.0);
  cooling_ = bool_if_declared(params, "COOLING_PARAMS", "cooling");
  gamma_ = params.get_real("HYDRO_PARAMS", "gamma");
  smallr_ = params.get_real("HYDRO_PARAMS", "smallr");
  mass_sph_ = params.get_real("REFINE_PARAMS", "mass_sph");
  if (mass_sph_ == 0.0 && params.get_bool("RUN_PARAMS", "cosmo")) {
    // The run's cosmological default (driver/simulation.cpp): the mean mass of a levelmin cell.
    const int levelmin = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
    double cells = 1.0;
    for (int d = 0; d < D; ++d) cells *= static_cast<double>(tree_.extent(levelmin)[static_cast<std::size_t>(d)]) * 2.0;
    mass_sph_ = std::pow(tree_.geometry().boxlen, D) / cells;
  }
  level_start_.assign(static_cast<std::size_t>(tree_.levelmax()) + 2, 0.0);
  const StarAttributeIds ids = register_star_attributes(set_);
  birth_time_ = ids.birth_time;
  birth_time_proper_ = ids.birth_time_proper;
  initial_mass_ = ids.initial_mass;
  metallicity_ = ids.metallicity;
  exploded_ = ids.exploded;
}

template <int D>
void StarFormationModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& modules) {
  const auto& fields = tree_.fields();
  density_ = fields.find("density");
  energy_ = fields.find("total_energy");
  KOSMO_REQUIRE(density_ >= 0 && energy_ >= 0, "star formation: no gas fields 'density' and 'total_energy' (hydro=.true. is needed)");
  for (int d = 0; d < D; ++d) {
    const std::string name = std::string("momentum_") + "xyz"[d];
    momentum_[static_cast<std::size_t>(d)] = fields.find(name);
    KOSMO_REQUIRE(momentum_[static_cast<std::size_t>(d)] >= 0, "star formation: no gas field '" << name << "'");
  }
  // The gas metallicity: the conserved metal density of the passive scalar "metallicity" (the
  // cooling module's, &COOLING_PARAMS metal=.true.), under either name the registry may hold it.
  metal_density_ = fields.find("metallicity_density");
  if (metal_density_ < 0) metal_density_ = fields.find("metallicity");
  // Every passive scalar density (the hydro module's scalar_NN_density, and the metals).
  scalars_.clear();
  for (int id = 0; id < fields.size(); ++id) {
    const core::FieldInfo& info = fields.info(id);
    const bool scalar = info.module == "hydro" && info.in_restarts && info.name.starts_with("scalar_") && info.name.ends_with("_density");
    if (scalar || id == metal_density_) scalars_.push_back(id);
  }
  std::sort(scalars_.begin(), scalars_.end());
  scalars_.erase(std::unique(scalars_.begin(), scalars_.end()), scalars_.end());
  sink_ = nullptr;
  for (core::PhysicsModule<D>* m : modules)
    if (auto* sink = dynamic_cast<feedback::SupernovaSink*>(m)) sink_ = sink;
}

template <int D>
void StarFormationModule<D>::update_forces(int level, std::optional<double> time) {
  if (time) level_start_[static_cast<std::size_t>(level)] = *time;
}

template <int D>
SchmidtLaw StarFormationModule<D>::law_at(double tau) const {
  const PhysicalUnits units = physical_units(params_, cosmology_, tau);
  const double aexp = cosmology_ ? cosmology_->aexp_at(tau) : 1.0;
  SchmidtLaw law;
  law.threshold_hydrogen = n_star_;
  if (cosmology_) {
    // RAMSES nCOM: del_star times the mean baryon density, in H/cm^3.
    const auto& c = cosmology_->parameters();
    const double mean_baryons = c.omega_b * critical_density_h2 * (c.h0 / 100.0) * (c.h0 / 100.0) / (aexp * aexp * aexp);
    law.threshold_hydrogen = std::max(n_star_, del_star_ * mean_baryons * hydrogen_fraction / hydrogen_mass_g);
    law.gravity_factor = 3.0 / (8.0 * pi) * c.omega_m * aexp;
  }
  law.hydrogen_scale = units.hydrogen_number_density;
  law.temperature_scale = units.temperature;
  law.threshold_density = law.threshold_hydrogen / units.hydrogen_number_density;
  law.efficiency = eps_star_;
  law.time_scale = t_star_gyr_ * seconds_per_gyr / units.time;
  const double dx_min = tree_.cell_size(tree_.levelmax());
  law.star_mass = m_star_ > 0.0 ? m_star_ * mass_sph_ : n_star_ / (units.hydrogen_number_density * aexp * aexp * aexp) * dx_min * dx_min * dx_min;
  law.polytrope_temperature = t2_star_;
  law.polytrope_index = g_star_;
  law.gamma = gamma_;
  law.smallr = smallr_;
  return law;
}

template <int D>
void StarFormationModule<D>::source_terms(int level, double dt) {
  const auto start = Clock::now();
  const double time = level_start_[static_cast<std::size_t>(level)] + dt;  // the step's end
  explode_supernovae(level, time);
  stars_formed_ += form_stars(level, dt, time);  // collective
  if (cooling_ && t2_star_ > 0.0) apply_polytrope_floor(level, time);
  timers_.add("star formation", start);
}

template <int D>
void StarFormationModule<D>::explode_supernovae(int level, double time) {
  if (!sink_ || !(eta_sn_ > 0.0)) return;
  const double now = proper_time(cosmology_, time);
  const double delay = t_sne_myr_ * seconds_per_myr / proper_time_unit_seconds(params_, cosmology_);
  const PhysicalUnits units = physical_units(params_, cosmology_, time);
  // RAMSES ESN: 10^51 erg per 10 solar masses of ejecta, per unit ejected mass in code units.
  const double energy_per_mass = 1.0e51 / (10.0 * solar_mass_g) / (units.velocity * units.velocity);
  const auto family = set_.family();
  const auto particle_level = set_.level();
  const auto birth = set_.template values<double>(birth_time_proper_);
  const auto metallicity = set_.template values<double>(metallicity_);
  const auto exploded = set_.template values<std::int8_t>(exploded_);
  const auto mass = set_.mass();
  const auto identity = set_.id();
  std::vector<feedback::SupernovaEvent> events;
  for (std::size_t i = 0; i < set_.size(); ++i) {
    if (family[i] != particles::Family::star || particle_level[i] != level || exploded[i] != 0) continue;
    if (!(birth[i] < now - delay)) continue;
    feedback::SupernovaEvent event;
    for (int d = 0; d < D; ++d) {
      event.position[static_cast<std::size_t>(d)] = set_.position(d)[i];
      event.velocity[static_cast<std::size_t>(d)] = set_.velocity(d)[i];
    }
    const double remaining = mass[i] - eta_sn_ * mass[i];
    event.ejected_mass = mass[i] - remaining;  // exact (Sterbenz): star + ejecta = the star's mass
    event.energy = event.ejected_mass * energy_per_mass;
    event.ejected_metal_mass = event.ejected_mass * (yield_ + (1.0 - yield_) * metallicity[i]);
    event.identity = identity[i];
    mass[i] = remaining;
    exploded[i] = 1;
    events.push_back(event);
  }
  sink_->add_supernova_events(level, events);
}

// Leaf cells of the level: a Poisson number of star mass units each (schmidt_law.hpp), one star
// particle per cell that forms any (RAMSES). The deviates are drawn in parallel over octs, each
// from its cell's own stream; the stars are then made in one pass.
template <int D>
double StarFormationModule<D>::kinetic_energy_density(core::CellIndex cell) const {
  double kinetic = 0.0;
  for (int d = 0; d < D; ++d) {
    const double p = tree_.field(momentum_[static_cast<std::size_t>(d)])[cell];
    kinetic += 0.5 * p * p / tree_.field(density_)[cell];
  }
  return kinetic;
}

template <int D>
long long StarFormationModule<D>::form_stars(int level, double dt, double time) {
  const SchmidtLaw law = law_at(time);
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  const std::uint64_t step_key = std::bit_cast<std::uint64_t>(level_start_[static_cast<std::size_t>(level)]);
  const auto& octs = tree_.octs_at_level(level);
  double* rho = tree_.field(density_);
  double* energy = tree_.field(energy_);
  std::vector<long long> counts(octs.size() * Tree::cells_per_oct, 0);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      if (!tree_.is_leaf(cell)) continue;
      const double kinetic = kinetic_energy_density(cell);
      if (!law.forms_stars(rho[cell], energy[cell] - kinetic)) continue;
      CounterRandom random({static_cast<std::uint64_t>(tree_.key(octs[i])), static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(level), step_key});
      const long long n = poisson_deviate(law.expected_stars(rho[cell], volume, dt), random);
      counts[i * Tree::cells_per_oct + static_cast<std::size_t>(c)] = law.limited(n, rho[cell], volume);
    }
  // The cells that form stars, in (Morton key, child) order: the order of the identities.
  std::vector<std::array<std::uint64_t, 2>> cells;
  std::vector<core::CellIndex> where;
  std::vector<long long> how_many;
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c)
      if (counts[i * Tree::cells_per_oct + static_cast<std::size_t>(c)] > 0) {
        cells.push_back({static_cast<std::uint64_t>(tree_.key(octs[i])), static_cast<std::uint64_t>(c)});
        where.push_back(Tree::cell_index(octs[i], c));
        how_many.push_back(counts[i * Tree::cells_per_oct + static_cast<std::size_t>(c)]);
      }
  const std::vector<std::int64_t> identities = star_identities(cells);  // collective
  const double proper = proper_time(cosmology_, time);
  for (std::size_t k = 0; k < where.size(); ++k) {
    const core::CellIndex cell = where[k];
    const double star_mass = static_cast<double>(how_many[k]) * law.star_mass;
    const double left = rho[cell] - star_mass / volume;
    const double factor = left / rho[cell];
    typename particles::ParticleSet<D>::Particle star;
    const auto centre = tree_.cell_centre(cell);
    for (int d = 0; d < D; ++d) {
      star.position[static_cast<std::size_t>(d)] = centre[static_cast<std::size_t>(d)];
      star.velocity[static_cast<std::size_t>(d)] = tree_.field(momentum_[static_cast<std::size_t>(d)])[cell] / rho[cell];
    }
    star.mass = star_mass;
    star.id = identities[k];
    star.family = particles::Family::star;
    const double metallicity = metal_density_ >= 0 ? tree_.field(metal_density_)[cell] / rho[cell] : z_ave_;
    const std::size_t index = set_.add(star);
    set_.template values<double>(birth_time_)[index] = time;
    set_.template values<double>(birth_time_proper_)[index] = proper;
    set_.template values<double>(initial_mass_)[index] = star_mass;
    set_.template values<double>(metallicity_)[index] = metallicity;
    // The gas keeps its velocity, specific energy and scalar fractions (RAMSES).
    const double energy_before = energy[cell];
    rho[cell] = left;
    energy[cell] *= factor;
    double speed2 = 0.0;
    for (int d = 0; d < D; ++d) speed2 += star.velocity[static_cast<std::size_t>(d)] * star.velocity[static_cast<std::size_t>(d)];
    energy_to_stars_ += (energy[cell] - energy_before) * volume + 0.5 * star_mass * speed2;
    for (int d = 0; d < D; ++d) tree_.field(momentum_[static_cast<std::size_t>(d)])[cell] *= factor;
    for (int scalar : scalars_) tree_.field(scalar)[cell] *= factor;
  }
  return static_cast<long long>(where.size());
}

// The identities of this rank's new stars (cells in its order): the largest identity of the run's
// particles plus the rank of (key, child) among every rank's new stars of this level step.
template <int D>
std::vector<std::int64_t> StarFormationModule<D>::star_identities(const std::vector<std::array<std::uint64_t, 2>>& cells) {
  long long total = static_cast<long long>(cells.size());
  if (mesh_.distributed()) total = mesh_.sum(total);
  if (total == 0) return {};
  std::int64_t largest = 0;
  for (std::int64_t id : set_.id()) largest = std::max(largest, id);
  std::vector<std::uint64_t> all;
  for (const auto& cell : cells) all.insert(all.end(), {cell[0], cell[1]});
  if (mesh_.distributed()) {
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, mesh_.comm());
    all = parallel::gather_everywhere(all, mesh_.comm());
  }
  // One level per call: (key, child) orders the cells of the level.
  std::vector<std::array<std::uint64_t, 2>> sorted;
  for (std::size_t i = 0; i + 1 < all.size(); i += 2) sorted.push_back({all[i], all[i + 1]});
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> identities;
  for (const auto& cell : cells) {
    const auto at = std::lower_bound(sorted.begin(), sorted.end(), cell) - sorted.begin();
    identities.push_back(largest + 1 + static_cast<std::int64_t>(at));
  }
  return identities;
}

// RAMSES cooling_fine with cooling=.true.: the gas temperature does not fall below the ISM
// polytrope T2_star (n_H / n_ISM)^(g_star - 1). Raises the internal energy of the level's leaf cells
// that are below it.
template <int D>
void StarFormationModule<D>::apply_polytrope_floor(int level, double time) {
  const SchmidtLaw law = law_at(time);
  const auto& octs = tree_.octs_at_level(level);
  double* rho = tree_.field(density_);
  double* energy = tree_.field(energy_);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
  std::vector<double> added(octs.size(), 0.0);  // per oct, summed in oct order: thread-independent
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      if (!tree_.is_leaf(cell)) continue;
      const double kinetic = kinetic_energy_density(cell);
      const double floor = law.polytrope(rho[cell]) / law.temperature_scale * rho[cell] / (gamma_ - 1.0);
      if (energy[cell] - kinetic < floor) {
        const double before = energy[cell];
        energy[cell] = kinetic + floor;
        added[i] += (energy[cell] - before) * volume;
      }
    }
  for (double a : added) polytrope_floor_energy_ += a;
}

template class StarFormationModule<1>;
template class StarFormationModule<2>;
template class StarFormationModule<3>;

}  // namespace kosmo::star_formation
