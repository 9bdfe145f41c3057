#include "driver/level_particles.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "core/courant_factor.hpp"
#include "core/error.hpp"
#include "driver/particle_snapshot.hpp"
#include "parallel/particle_migration.hpp"
#include "particles/particle_locate.hpp"
#include "particles/particle_mesh.hpp"

namespace kosmo::driver {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

template <int D>
LevelParticles<D>::LevelParticles(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                                  core::Timers& timers)
    : tree_(tree), mesh_(mesh), timers_(timers), courant_factor_(core::run_courant_factor(params)) {
  limb_fields_[0] = tree_.add_field(core::scalar_field("particle_deposit_low_limb").owned_by("particles").transient());
  limb_fields_[1] = tree_.add_field(core::scalar_field("particle_deposit_high_limb").owned_by("particles").transient());
  // The Poisson source and the m_refine count are each read right after their deposit, and the
  // deposit turns the two limbs into the value cell by cell, in place: the low limb holds the
  // result, and no field of its own is kept for either (two fewer doubles per cell, seeds/000 App. C).
  density_field_ = limb_fields_[0];
  refinement_field_ = limb_fields_[0];
}

template <int D>
void LevelParticles<D>::set_initial(const particles::ParticleSet<D>& initial) {
  set_.clear();
  set_.reserve(initial.size());
  for (std::size_t i = 0; i < initial.size(); ++i) set_.add(initial.get(i));
}

template <int D>
void LevelParticles<D>::set_cosmology(const cosmology::CosmologicalModel* model) {
  set_.set_comoving_exponent(particles::ParticleSet<D>::position_id, model ? 1 : 0);
  set_.set_comoving_exponent(particles::ParticleSet<D>::velocity_id, model ? -1 : 0);
}

template <int D>
void LevelParticles<D>::connect(const std::vector<core::PhysicsModule<D>*>& /*modules*/) {
  // Without gravity (poisson=.false.) the particles feel no force and drift (RAMSES move_fine with
  // poisson=.false.): the acceleration fields stay -1 and begin_step sets the force to zero.
  gravity_ = tree_.fields().find("acceleration_x") >= 0;
  for (int d = 0; d < D && gravity_; ++d) {
    const std::string name = std::string("acceleration_") + "xyz"[d];
    acceleration_[static_cast<std::size_t>(d)] = tree_.fields().find(name);
    KOSMO_REQUIRE(acceleration_[static_cast<std::size_t>(d)] >= 0, "particles: no field '" << name << "'");
  }
}

template <int D>
void LevelParticles<D>::remove_outside_box() {
  const auto& g = tree_.geometry();
  bool any_wall = false;
  for (int d = 0; d < D; ++d) any_wall = any_wall || !g.periodic[static_cast<std::size_t>(d)];
  if (!any_wall) return;
  std::vector<std::uint8_t> outside(set_.size(), 0);
  for (int d = 0; d < D; ++d) {
    if (g.periodic[static_cast<std::size_t>(d)]) continue;
    const auto x = set_.position(d);
    for (std::size_t i = 0; i < set_.size(); ++i)
      if (!(x[i] >= 0.0 && x[i] < g.boxlen)) outside[i] = 1;
  }
  for (std::size_t i = 0; i < set_.size(); ++i)
    if (outside[i]) mass_lost_ += set_.mass()[i];
  set_.remove_flagged(outside);
}

template <int D>
void LevelParticles<D>::keep_owned() {
  set_.wrap_positions(tree_.geometry().boxlen, tree_.geometry().periodic);
  remove_outside_box();
  if (mesh_.distributed()) {
    std::vector<std::uint8_t> foreign(set_.size(), 0);
    for (std::size_t i = 0; i < set_.size(); ++i) {
      std::array<double, D> x{};
      for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = set_.position(d)[i];
      foreign[i] = mesh_.owner_of_position(x) != mesh_.rank() ? 1 : 0;
    }
    set_.remove_flagged(foreign);
  }
  locate();
}

template <int D>
void LevelParticles<D>::locate() {
  const auto start = Clock::now();
  particles::locate_particles<D, Key>(tree_, set_);
  timers_.add("particles - locate", start);
}

template <int D>
void LevelParticles<D>::migrate_and_locate() {
  if (mesh_.distributed()) {
    const auto start = Clock::now();
    parallel::migrate_particles<D, Key>(mesh_, set_);
    timers_.add("particles - migrate", start);
  }
  locate();
}

template <int D>
void LevelParticles<D>::deposit(int level, int field) {
  const auto start = Clock::now();
  // The cloud-in-cell density of every particle in the level's octs or below (RAMSES rho_fine): the
  // shares that fall on coarser cells at the level's edge stay out of this level's source, as in
  // RAMSES, where they reach it through the coarse potential on the boundary.
  deposit_exactly(level, field, set_.mass());
  timers_.add("particles - deposit", start);
}

// field = sum of charge * CIC weight / h^D on the owned cells of `level`, summed exactly
// (particles/exact_charge_sum.hpp), so that neither the threads nor the ranks, which group the
// additions differently, change a bit of it. Collective.
template <int D>
void LevelParticles<D>::deposit_exactly(int level, int field, std::span<const double> charge) {
  double largest = 0.0;
  for (double q : charge) largest = std::max(largest, q);
  if (mesh_.distributed()) largest = mesh_.max(largest);  // one fixed-point unit on every rank
  const particles::ExactChargeSum exact(largest);
  double* low = tree_.field(limb_fields_[0]);
  double* high = tree_.field(limb_fields_[1]);
  for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)})
    for (core::OctIndex o : *octs)
      for (int c = 0; c < Tree::cells_per_oct; ++c) low[Tree::cell_index(o, c)] = high[Tree::cell_index(o, c)] = 0.0;
  particles::deposit_charge_exactly<D, Key>(tree_, set_, level, limb_fields_, particles::LevelSelection::level_and_finer, charge, exact);
  if (mesh_.distributed()) mesh_.reverse_accumulate(tree_, level, limb_fields_);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= tree_.cell_size(level);
  double* values = tree_.field(field);
  const auto& octs = tree_.octs_at_level(level);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      values[cell] = exact.value(low[cell], high[cell]) / volume;  // values may be low itself
    }
}

// RAMSES' quasi-Lagrangian criterion (pm/rho_fine.f90, rho_fine and cic_amr; amr/flag_utils.f90,
// poisson_refine): rho_fine(l) deposits, with the cloud-in-cell kernel of the Poisson source, every
// particle in the level-l grids' lists (the particles at level l and finer) into phi on the level-l
// cells; a cloud share whose level-l cell does not exist is dropped (cic_amr: igrid == 0); ghost
// contributions are added to their owners (make_virtual_reverse_dp). What a particle adds is its
// cloud weight vol(j,ind), not its mass: a dark-matter particle counts one whatever its mass; other
// massive particles (stars) count m / mass_sph; tracers nothing. The gas adds rho h^3 / mass_sph
// (hydro/hydro_module.cpp; kosmo's driver compares in density units). A cell refines when
// phi >= m_refine(l) (cpu_map2 = 1). Here the count is scaled by mass_sph / h^D so that the driver's
// density test rho >= m_refine mass_sph / h^3 applies to the sum of gas and particles unchanged.
// RAMSES evaluates phi when rho_fine runs at the start of the level's step and flags at its end;
// kosmo counts at the regrid, on the positions of that moment, which a restart reproduces.
template <int D>
void LevelParticles<D>::refinement_count(int level, int field) {
  std::vector<double> charge(set_.size(), 0.0);
  const std::span<const particles::Family> family = set_.family();
  const std::span<const double> mass = set_.mass();
  for (std::size_t i = 0; i < set_.size(); ++i) {
    if (family[i] == particles::Family::dark_matter) {
      charge[i] = refinement_mass_unit_;
    } else if (family[i] != particles::Family::tracer) {
      charge[i] = mass[i];
    }
  }
  deposit_exactly(level, field, charge);
}

template <int D>
void LevelParticles<D>::begin_step(int level) {
  const auto start = Clock::now();
  const std::size_t n = set_.size();
  const std::int8_t* particle_level = set_.level().data();
  if (gravity_) {
    particles::interpolate_acceleration<D, Key>(tree_, set_, level, acceleration_, particles::LevelSelection::finest_level);
  } else {
    for (int d = 0; d < D; ++d)
      for (std::size_t i = 0; i < n; ++i)
        if (particle_level[i] == level) set_.acceleration(d)[i] = 0.0;
  }
  // Tracers follow the gas (tracers/tracer_module.hpp): no leapfrog for them.
  const particles::Family* family = set_.family().data();
  double* half_dt = set_.pending_half_dt().data();
  for (int d = 0; d < D; ++d) {
    double* v = set_.velocity(d).data();
    double* pending = set_.pending_kick(d).data();
    const double* g = set_.acceleration(d).data();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      if (particle_level[i] != level || family[i] == particles::Family::tracer) continue;
      v[i] += half_dt[i] * g[i] - pending[i];
      pending[i] = 0.0;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (particle_level[i] == level) half_dt[i] = 0.0;
  timers_.add("particles - kick and drift", start);
}

template <int D>
void LevelParticles<D>::end_step(int level, double dt) {
  auto start = Clock::now();
  const std::size_t n = set_.size();
  const std::int8_t* particle_level = set_.level().data();
  double* half_dt = set_.pending_half_dt().data();
  const particles::Family* family = set_.family().data();
  const auto& g = tree_.geometry();
  for (int d = 0; d < D; ++d) {
    double* x = set_.position(d).data();
    double* v = set_.velocity(d).data();
    double* pending = set_.pending_kick(d).data();
    const double* a = set_.acceleration(d).data();
    const bool wrap = g.periodic[static_cast<std::size_t>(d)];
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      if (particle_level[i] != level || family[i] == particles::Family::tracer) continue;
      const double kick = 0.5 * dt * a[i];
      x[i] += (v[i] + kick) * dt;
      if (wrap) x[i] = particles::wrap_coordinate(x[i], g.boxlen);
      v[i] += 2.0 * kick;
      pending[i] = kick;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (particle_level[i] == level && family[i] != particles::Family::tracer) half_dt[i] = 0.5 * dt;
  remove_outside_box();
  timers_.add("particles - kick and drift", start);
  migrate_drifted(level);
  start = Clock::now();
  particles::relocate_moved_particles<D, Key>(tree_, set_, level);
  timers_.add("particles - locate", start);
}

// Only the particles of `level` moved, and only they can have left this rank's domain (the
// decomposition is the one every particle was migrated to). When none left on any rank, the
// migration, which would move nothing, is skipped: one sum instead of the k-section exchange.
template <int D>
void LevelParticles<D>::migrate_drifted(int level) {
  if (!mesh_.distributed()) return;
  const auto start = Clock::now();
  const std::size_t n = set_.size();
  const std::int8_t* particle_level = set_.level().data();
  long long leaving = 0;
#pragma omp parallel for schedule(static) reduction(+ : leaving)
  for (std::size_t i = 0; i < n; ++i) {
    if (particle_level[i] != level) continue;
    std::array<double, D> x{};
    for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = set_.position(d)[i];
    if (mesh_.owner_of_position(x) != mesh_.rank()) ++leaving;
  }
  if (mesh_.sum(leaving) > 0) parallel::migrate_particles<D, Key>(mesh_, set_);  // collective
  timers_.add("particles - migrate", start);
}

template <int D>
double LevelParticles<D>::courant_time_step(int level) const {
  double vmax = 0.0;
  const std::int8_t* particle_level = set_.level().data();
  const particles::Family* family = set_.family().data();
  for (int d = 0; d < D; ++d) {
    const double* v = set_.velocity(d).data();
    for (std::size_t i = 0; i < set_.size(); ++i)  // tracers: the gas's Courant limit bounds them
      if (particle_level[i] == level && family[i] != particles::Family::tracer) vmax = std::max(vmax, std::fabs(v[i]));
  }
  return vmax > 0.0 ? courant_factor_ * tree_.cell_size(level) / vmax : std::numeric_limits<double>::max();
}

template <int D>
std::vector<std::pair<std::size_t, double>> LevelParticles<D>::interpolate_field(int level, int field) const {
  std::array<std::vector<double>, D> saved;
  for (int d = 0; d < D; ++d) saved[static_cast<std::size_t>(d)].assign(set_.acceleration(d).begin(), set_.acceleration(d).end());
  std::array<int, D> fields{};
  fields.fill(field);
  particles::interpolate_acceleration<D, Key>(tree_, set_, level, fields, particles::LevelSelection::finest_level);
  std::vector<std::pair<std::size_t, double>> values;
  for (std::size_t i = 0; i < set_.size(); ++i)
    if (set_.level()[i] == level) values.emplace_back(i, set_.acceleration(0)[i]);
  for (int d = 0; d < D; ++d) std::copy(saved[static_cast<std::size_t>(d)].begin(), saved[static_cast<std::size_t>(d)].end(), set_.acceleration(d).begin());
  return values;
}

template <int D>
long long LevelParticles<D>::count() const {
  return mesh_.sum(static_cast<long long>(set_.size()));
}

template <int D>
void LevelParticles<D>::add_source_density(int level, double* density) {
  deposit(level, density_field_);  // collective
  const double* particle_density = tree_.field(density_field_);
  const auto& octs = tree_.octs_at_level(level);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i)
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(octs[i], c);
      density[cell] += particle_density[cell];
    }
}

template <int D>
void LevelParticles<D>::add_refinement_density(int level, double* density) {
  refinement_count(level, refinement_field_);  // collective
  const double* count = tree_.field(refinement_field_);
  // The deposit divides by h^D, the driver's threshold by h^3 (RAMSES vol_loc = dx^3 in any ndim).
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  const double to_cube = D == 3 ? 1.0 : volume / (h * h * h);
  for (core::OctIndex o : tree_.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      density[cell] += count[cell] * to_cube;
    }
}

template <int D>
void LevelParticles<D>::add_mass_moments(std::array<double, D + 1>& sums) const {
  for (std::size_t i = 0; i < set_.size(); ++i) {
    sums[0] += set_.mass()[i];
    for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += set_.mass()[i] * set_.position(d)[i];
  }
}

template <int D>
void LevelParticles<D>::add_load_points(std::vector<std::array<double, 3>>& points) const {
  const std::size_t first = points.size();
  points.resize(first + set_.size(), {0.0, 0.0, 0.0});
  for (int d = 0; d < D; ++d)
    for (std::size_t i = 0; i < set_.size(); ++i) points[first + i][static_cast<std::size_t>(d)] = set_.position(d)[i];
}

// 1/2 sum m phi(x) over particles (plus m phi_ext for analytic fields), phi interpolated at each
// particle's level with the CIC kernel of the force. In code units with G = 1 (non-cosmological).
template <int D>
double LevelParticles<D>::local_potential_energy(int potential, double self_factor, const ExternalPotential& external) const {
  double energy = 0.0;
  for (int level = 1; level <= tree_.levelmax(); ++level) {
    const auto values = interpolate_field(level, potential);
    for (const auto& [index, value] : values) {
      std::array<double, D> x{};
      for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = set_.position(d)[index];
      double e = self_factor != 0.0 ? self_factor * value : 0.0;
      if (external) e += external(x);
      energy += set_.mass()[index] * e;
    }
  }
  return energy;
}

template <int D>
void LevelParticles<D>::add_conserved_totals(std::vector<double>& sums) const {
  if (sums.size() < static_cast<std::size_t>(D) + 2) sums.resize(static_cast<std::size_t>(D) + 2, 0.0);
  for (std::size_t i = 0; i < set_.size(); ++i)
    if (set_.family()[i] != particles::Family::tracer) sums[0] += set_.mass()[i];
  const auto p = momentum();
  for (int d = 0; d < D; ++d) sums[static_cast<std::size_t>(d) + 1] += p[static_cast<std::size_t>(d)];
  sums[static_cast<std::size_t>(D) + 1] += kinetic_energy();
}

template <int D>
bool LevelParticles<D>::write_particles(io::SnapshotParticles& out) const {
  out = snapshot_particles(set_);
  return true;
}

template <int D>
bool LevelParticles<D>::restore_particles(const io::SnapshotParticles& in, const std::string& file) {
  // Into the running set, which carries the attributes every module registered.
  set_.clear();
  particles_from_snapshot<D>(in, file, set_);
  return true;
}

// Summed exactly (particles/exact_charge_sum.hpp), as the deposit: gravity subtracts the mean
// density from every cell's source, and a sum that depended on how the particles are spread over
// ranks would make every cell depend on the rank count.
template <int D>
double LevelParticles<D>::total_mass() const {
  double largest = 0.0;
  for (double m : set_.mass()) largest = std::max(largest, m);
  if (mesh_.distributed()) largest = mesh_.max(largest);
  const particles::ExactChargeSum exact(largest);
  particles::ExactChargeSum::Integer sum = 0;
  for (std::size_t i = 0; i < set_.size(); ++i)
    if (set_.family()[i] != particles::Family::tracer) sum += exact.quantise(set_.mass()[i]);
  double low = particles::ExactChargeSum::low_limb(sum), high = particles::ExactChargeSum::high_limb(sum);
  if (mesh_.distributed()) {
    low = mesh_.sum(low);  // integers below 2^53: exact in any order
    high = mesh_.sum(high);
  }
  return exact.value(low, high);
}

template <int D>
double LevelParticles<D>::kinetic_energy() const {
  double energy = 0.0;
  for (int d = 0; d < D; ++d) {
    const auto v = set_.velocity(d);
    for (std::size_t i = 0; i < set_.size(); ++i) energy += 0.5 * set_.mass()[i] * v[i] * v[i];
  }
  return energy;
}

template <int D>
std::array<double, D> LevelParticles<D>::momentum() const {
  std::array<double, D> p{};
  for (int d = 0; d < D; ++d) {
    const auto v = set_.velocity(d);
    for (std::size_t i = 0; i < set_.size(); ++i) p[static_cast<std::size_t>(d)] += set_.mass()[i] * v[i];
  }
  return p;
}

template class LevelParticles<1>;
template class LevelParticles<2>;
template class LevelParticles<3>;

}  // namespace kosmo::driver
