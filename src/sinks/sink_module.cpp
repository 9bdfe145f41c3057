#include "sinks/sink_module.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "cosmology/cosmological_model.hpp"
#include "sinks/sink_initial_file.hpp"
#include "sinks/sink_merging.hpp"
#include "star_formation/physical_units.hpp"

namespace kosmo::sinks {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double pi = 3.14159265358979323846;
constexpr double seconds_per_year = 3.15576e7;  // RAMSES yr2sec

AccretionScheme scheme_of(const std::string& name) {
  if (name == "bondi") return AccretionScheme::bondi;
  if (name == "threshold") return AccretionScheme::threshold;
  KOSMO_REQUIRE(name == "none", "sinks: accretion_scheme='" << name << "': not implemented yet (use 'none', 'threshold' or 'bondi')");
  return AccretionScheme::none;
}

}  // namespace

template <int D>
SinkModule<D>::SinkModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh, core::Timers& timers)
    : tree_(tree), mesh_(mesh), timers_(timers), params_(params) {
  scheme_ = scheme_of(params.get_string("SINK_PARAMS", "accretion_scheme"));
  use_relative_velocity_ = params.get_bool("SINK_PARAMS", "bondi_use_vrel");
  eddington_limit_ = params.get_bool("SINK_PARAMS", "eddington_limit");
  refine_ = params.get_bool("REFINE_PARAMS", "sink_refine");
  c_acc_ = params.get_real("SINK_PARAMS", "c_acc");
  ir_cloud_ = static_cast<double>(params.get_int("SINK_PARAMS", "ir_cloud"));
  r_merge_ = params.get_real("SINK_PARAMS", "r_merge");
  merging_timescale_years_ = params.get_real("SINK_PARAMS", "merging_timescale");
  n_sink_ = params.get_real("SINK_PARAMS", "n_sink");
  d_sink_ = params.get_real("SINK_PARAMS", "d_sink");
  rho_sink_ = params.get_real("SINK_PARAMS", "rho_sink");
  create_ = params.get_bool("SINK_PARAMS", "create_sinks");
  mass_sink_seed_ = params.get_real("SINK_PARAMS", "mass_sink_seed");
  nsinkmax_ = std::max(params.get_int("SINK_PARAMS", "nsinkmax"), params.get_int("AMR_PARAMS", "nsinkmax"));
  gamma_ = params.get_real("HYDRO_PARAMS", "gamma");
  courant_factor_ = params.get_real("HYDRO_PARAMS", "courant_factor");
  smallc_ = params.get_real("HYDRO_PARAMS", "smallc");
  levelmin_ = static_cast<int>(params.get_int("AMR_PARAMS", "levelmin"));
  level_start_.assign(static_cast<std::size_t>(tree_.levelmax()) + 2, 0.0);
  ids_ = register_sink_attributes(sinks_);
  if (params.get_bool("SINK_PARAMS", "agn")) t2_agn_ = params.get_real("SINK_PARAMS", "t2_agn");
}

template <int D>
void SinkModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& /*modules*/) {
  const auto& fields = tree_.fields();
  density_ = fields.find("density");
  energy_ = fields.find("total_energy");
  if (scheme_ != AccretionScheme::none)
    KOSMO_REQUIRE(density_ >= 0 && energy_ >= 0, "sinks: accretion needs the gas fields 'density' and 'total_energy' (hydro=.true.)");
  for (int d = 0; d < D; ++d) {
    momentum_[static_cast<std::size_t>(d)] = fields.find(std::string("momentum_") + "xyz"[d]);
    acceleration_[static_cast<std::size_t>(d)] = fields.find(std::string("acceleration_") + "xyz"[d]);
  }
  gravity_ = acceleration_[0] >= 0;
  scalars_.clear();
  for (int id = 0; id < fields.size(); ++id) {
    const core::FieldInfo& info = fields.info(id);
    const bool scalar = info.in_restarts && (info.name == "metallicity" || info.name == "metallicity_density" ||
                                             (info.module == "hydro" && info.name.starts_with("scalar_") && info.name.ends_with("_density")));
    if (scalar) scalars_.push_back(id);
  }
}

template <int D>
void SinkModule<D>::begin_initial_state() {
  if (!sinks_.empty()) return;
  const auto initfile = params_.get_string_array("INIT_PARAMS", "initfile");
  const std::string directory = initfile.size() >= static_cast<std::size_t>(levelmin_) ? initfile[static_cast<std::size_t>(levelmin_) - 1] : "";
  const std::string path = initial_sink_file(directory);
  if (path.empty()) return;
  for (const InitialSink& initial : read_initial_sinks(path, tree_.geometry().boxlen)) {
    Vector position{}, velocity{};
    for (int d = 0; d < D; ++d) {
      position[static_cast<std::size_t>(d)] = initial.position[static_cast<std::size_t>(d)];
      velocity[static_cast<std::size_t>(d)] = initial.velocity[static_cast<std::size_t>(d)];
    }
    const std::size_t index = add_sink(position, velocity, initial.mass, 0.0);
    sinks_.template values<double>(ids_.accreted_mass)[index] = initial.accreted_mass;
  }
}

template <int D>
double SinkModule<D>::time_step_limit(int level) const {
  double fastest = 0.0;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    double v2 = 0.0;
    for (int d = 0; d < D; ++d) v2 += sinks_.velocity(d)[s] * sinks_.velocity(d)[s];
    fastest = std::max(fastest, std::sqrt(v2));
  }
  if (!(fastest > 0.0)) return std::numeric_limits<double>::max();
  return courant_factor_ * tree_.cell_size(level) / fastest;
}

template <int D>
void SinkModule<D>::update_forces(int level, std::optional<double> time) {
  if (time) level_start_[static_cast<std::size_t>(level)] = *time;
}

template <int D>
double SinkModule<D>::accretion_radius() const {
  return ir_cloud_ * tree_.cell_size(tree_.levelmax());
}

// The lattice points of step dx_min / 2 within ir_cloud dx_min of the sink (RAMSES' cloud
// particles), in lattice order.
template <int D>
const std::vector<typename SinkModule<D>::Vector>& SinkModule<D>::cloud_offsets() const {
  if (!cloud_.empty()) return cloud_;
  const double step = 0.5 * tree_.cell_size(tree_.levelmax());
  const int reach = 2 * static_cast<int>(ir_cloud_);
  std::array<int, D> i{};
  i.fill(-reach);
  while (true) {
    Vector offset{};
    double r2 = 0.0;
    for (int d = 0; d < D; ++d) {
      offset[static_cast<std::size_t>(d)] = i[static_cast<std::size_t>(d)] * step;
      r2 += static_cast<double>(i[static_cast<std::size_t>(d)]) * static_cast<double>(i[static_cast<std::size_t>(d)]);
    }
    if (r2 <= static_cast<double>(reach) * static_cast<double>(reach)) cloud_.push_back(offset);
    int d = 0;
    while (d < D && ++i[static_cast<std::size_t>(d)] > reach) i[static_cast<std::size_t>(d++)] = -reach;
    if (d == D) break;
  }
  return cloud_;
}

template <int D>
double SinkModule<D>::merging_length() const {
  return r_merge_ * tree_.cell_size(tree_.levelmax());
}

// RAMSES read_sink_params: d_sink in code units, or rho_sink in g/cm^3, or n_sink in H/cm^3.
template <int D>
double SinkModule<D>::density_threshold(double time) const {
  if (d_sink_ > 0.0) return d_sink_;
  const star_formation::PhysicalUnits units = star_formation::physical_units(params_, cosmology_, time);
  if (rho_sink_ > 0.0) return rho_sink_ / units.density;
  return n_sink_ / units.hydrogen_number_density;
}

template <int D>
double SinkModule<D>::gravity_constant(double tau) const {
  return cosmology_ ? cosmology_->poisson_factor(tau) / (4.0 * pi) : 1.0;
}

template <int D>
std::size_t SinkModule<D>::add_sink(const Vector& position, const Vector& velocity, double mass, double time) {
  KOSMO_REQUIRE(static_cast<long long>(sinks_.size()) < nsinkmax_, "sinks: more than nsinkmax = " << nsinkmax_ << " sinks");
  std::int64_t largest = largest_identity_;
  for (std::int64_t id : sinks_.id()) largest = std::max(largest, id);
  largest_identity_ = largest + 1;
  typename particles::ParticleSet<D>::Particle sink;
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    sink.position[axis] = tree_.geometry().periodic[axis] ? particles::wrap_coordinate(position[axis], tree_.geometry().boxlen) : position[axis];
    sink.velocity[axis] = velocity[axis];
  }
  sink.mass = mass;
  sink.id = largest + 1;
  sink.family = particles::Family::sink;
  const std::size_t index = sinks_.add(sink);
  sinks_.template values<double>(ids_.birth_time)[index] = time;
  return index;
}

// sink_refine (RAMSES flag_utils: the cells holding a sink's cloud refined): every cell of the level
// that meets the sphere of radius r_acc around a sink (its centre within r_acc plus half its
// diagonal).
template <int D>
void SinkModule<D>::flag_cells(int level, std::vector<std::uint8_t>& flags) {
  if (!refine_ || sinks_.empty() || level >= tree_.levelmax()) return;
  const double h = tree_.cell_size(level);
  const double reach = accretion_radius() + 0.5 * h * std::sqrt(static_cast<double>(D));
  const double boxlen = tree_.geometry().boxlen;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    typename Tree::Coordinates low{}, high{};
    for (int d = 0; d < D; ++d) {
      low[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(std::floor((sinks_.position(d)[s] - reach) / h));
      high[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(std::floor((sinks_.position(d)[s] + reach) / h));
    }
    typename Tree::Coordinates c = low;
    while (true) {
      const core::CellIndex cell = tree_.find_cell(level, c);
      if (cell != core::no_cell && tree_.role(Tree::oct_of(cell)) == core::OctRole::owned) {
        const auto centre = tree_.cell_centre(cell);
        double r2 = 0.0;
        for (int d = 0; d < D; ++d) {
          double dx = centre[static_cast<std::size_t>(d)] - sinks_.position(d)[s];
          if (tree_.geometry().periodic[static_cast<std::size_t>(d)]) dx -= boxlen * std::round(dx / boxlen);
          r2 += dx * dx;
        }
        if (r2 <= reach * reach) flags[cell] = 1;
      }
      int d = 0;
      while (d < D && ++c[static_cast<std::size_t>(d)] > high[static_cast<std::size_t>(d)]) {
        c[static_cast<std::size_t>(d)] = low[static_cast<std::size_t>(d)];
        ++d;
      }
      if (d == D) break;
    }
  }
}

template <int D>
void SinkModule<D>::source_terms(int level, double dt) {
  if ((scheme_ == AccretionScheme::none && !create_) || sinks_.empty()) return;
  const auto start = Clock::now();
  accrete(level, dt, level_start_[static_cast<std::size_t>(level)] + dt);  // collective
  timers_.add("sinks - accretion", start);
}

template <int D>
void SinkModule<D>::end_level_step(int level, double dt) {
  const auto start = Clock::now();
  const double time = level_start_[static_cast<std::size_t>(level)] + dt;
  if (create_ && level == tree_.levelmax()) create_sinks(level, time);  // collective
  if (level == levelmin_ && !sinks_.empty()) {
    kick_and_drift(dt);  // collective
    merge(time);
  }
  timers_.add("sinks - creation, motion and merging", start);
}

template <int D>
std::size_t SinkModule<D>::merge(double now) {
  MergeSettings settings;
  settings.linking_length = merging_length();
  settings.box_size = tree_.geometry().boxlen;
  settings.periodic = std::all_of(tree_.geometry().periodic.begin(), tree_.geometry().periodic.end(), [](bool p) { return p; });
  settings.now = now;
  if (merging_timescale_years_ > 0.0) {
    const double seconds = star_formation::physical_units(params_, cosmology_, now).time;
    settings.young_age = merging_timescale_years_ * seconds_per_year / seconds;
  }
  settings.backend = FriendsOfFriendsBackend::automatic;
  return merge_sinks(sinks_, ids_, settings);
}

// The kick with the mean force over the sink's cloud (cloud in cell over the levelmin cells around
// each cloud point, computed by the rank owning the levelmin cell that holds the sink; the others
// add zero, so the sum is exact), then the drift.
template <int D>
void SinkModule<D>::kick_and_drift(double dt) {
  const std::size_t n = sinks_.size();
  std::vector<double> force(n * D, 0.0);
  if (gravity_) {
    const double h = tree_.cell_size(levelmin_);
    const auto& cloud = cloud_offsets();
    const double share = 1.0 / static_cast<double>(cloud.size());
    for (std::size_t s = 0; s < n; ++s) {
      typename Tree::Coordinates holder{};
      for (int d = 0; d < D; ++d) holder[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(std::floor(sinks_.position(d)[s] / h));
      const core::CellIndex home = tree_.find_cell(levelmin_, holder);
      if (home == core::no_cell || tree_.role(Tree::oct_of(home)) != core::OctRole::owned) continue;
      for (const Vector& offset : cloud) {
        Vector x{};
        for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = sinks_.position(d)[s] + offset[static_cast<std::size_t>(d)];
        for_each_cloud_cell(levelmin_, x, [&](core::CellIndex cell, double weight) {
          for (int d = 0; d < D; ++d)
            force[s * D + static_cast<std::size_t>(d)] += share * weight * tree_.field(acceleration_[static_cast<std::size_t>(d)])[cell];
        });
      }
    }
    if (mesh_.distributed()) MPI_Allreduce(MPI_IN_PLACE, force.data(), static_cast<int>(force.size()), MPI_DOUBLE, MPI_SUM, mesh_.comm());
  }
  const double boxlen = tree_.geometry().boxlen;
  for (std::size_t s = 0; s < n; ++s)
    for (int d = 0; d < D; ++d) {
      const auto axis = static_cast<std::size_t>(d);
      sinks_.velocity(d)[s] += force[s * D + axis] * dt;
      double x = sinks_.position(d)[s] + sinks_.velocity(d)[s] * dt;
      if (tree_.geometry().periodic[axis]) x = particles::wrap_coordinate(x, boxlen);
      sinks_.position(d)[s] = x;
    }
}

// visit(cell, weight) for the 2^D cells of `level` of the cloud-in-cell kernel at x that exist here
// (periodic axes wrapped by find_cell).
template <int D>
template <class Visit>
void SinkModule<D>::for_each_cloud_cell(int level, const Vector& x, Visit&& visit) const {
  const double h = tree_.cell_size(level);
  typename Tree::Coordinates base{};
  std::array<double, D> fraction{};
  for (int d = 0; d < D; ++d) {
    const double u = x[static_cast<std::size_t>(d)] / h - 0.5;
    base[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(std::floor(u));
    fraction[static_cast<std::size_t>(d)] = u - static_cast<double>(base[static_cast<std::size_t>(d)]);
  }
  for (int corner = 0; corner < (1 << D); ++corner) {
    typename Tree::Coordinates c = base;
    double weight = 1.0;
    for (int d = 0; d < D; ++d) {
      const bool up = (corner >> d) & 1;
      c[static_cast<std::size_t>(d)] += up ? 1 : 0;
      weight *= up ? fraction[static_cast<std::size_t>(d)] : 1.0 - fraction[static_cast<std::size_t>(d)];
    }
    const core::CellIndex cell = tree_.find_cell(level, c);
    if (cell != core::no_cell) visit(cell, weight);
  }
}

// The cloud points' cloud-in-cell density on the owned cells of the level, for every cloud point
// whose level-l cell exists here (owned or ghost): the points in the level's octs, as RAMSES
// rho_fine deposits the particles of the level's grids. Summed over the sinks and their clouds in
// index order on every rank.
template <int D>
void SinkModule<D>::add_source_density(int level, double* density) {
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  const auto& cloud = cloud_offsets();
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    const double point_mass = sinks_.mass()[s] / static_cast<double>(cloud.size());
    for (const Vector& offset : cloud) {
      Vector x{};
      typename Tree::Coordinates holder{};
      for (int d = 0; d < D; ++d) {
        x[static_cast<std::size_t>(d)] = sinks_.position(d)[s] + offset[static_cast<std::size_t>(d)];
        holder[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(std::floor(x[static_cast<std::size_t>(d)] / h));
      }
      if (tree_.find_cell(level, holder) == core::no_cell) continue;
      for_each_cloud_cell(level, x, [&](core::CellIndex cell, double weight) {
        if (tree_.role(Tree::oct_of(cell)) == core::OctRole::owned) density[cell] += point_mass * weight / volume;
      });
    }
  }
}

template <int D>
double SinkModule<D>::total_mass() const {
  double mass = 0.0;
  for (double m : sinks_.mass()) mass += m;
  return mass;
}

// Replicated sinks count once: on rank 0.
template <int D>
void SinkModule<D>::add_mass_moments(std::array<double, D + 1>& sums) const {
  if (mesh_.rank() != 0) return;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    sums[0] += sinks_.mass()[s];
    for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += sinks_.mass()[s] * sinks_.position(d)[s];
  }
}

template <int D>
void SinkModule<D>::add_conserved_totals(std::vector<double>& sums) const {
  if (sums.size() < static_cast<std::size_t>(D) + 2) sums.resize(static_cast<std::size_t>(D) + 2, 0.0);
  if (mesh_.rank() != 0) return;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    const double m = sinks_.mass()[s];
    sums[0] += m;
    for (int d = 0; d < D; ++d) {
      const double v = sinks_.velocity(d)[s];
      sums[static_cast<std::size_t>(d) + 1] += m * v;
      sums[static_cast<std::size_t>(D) + 1] += 0.5 * m * v * v;
    }
  }
}

template class SinkModule<1>;
template class SinkModule<2>;
template class SinkModule<3>;

}  // namespace kosmo::sinks
