#include "tracers/tracer_module.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "parallel/gather_everywhere.hpp"
#include "parallel/particle_migration.hpp"
#include "particles/particle_locate.hpp"
#include "particles/particle_mesh.hpp"
#include "tracers/tracer_placement.hpp"

namespace kosmo::tracers {
namespace {

using Clock = std::chrono::steady_clock;

// A position held inside the box: wrapped on a periodic axis, kept in [0, boxlen) on the others.
double inside_box(double x, double boxlen, bool periodic) {
  if (periodic) return particles::wrap_coordinate(x, boxlen);
  if (x < 0.0) return 0.0;
  if (x >= boxlen) return std::nextafter(boxlen, 0.0);
  return x;
}

// Every rank's cells, in the fixed order of SeededCell, over `comm` (five integers a cell).
std::vector<SeededCell> all_cells(const std::vector<SeededCell>& mine, MPI_Comm comm, bool distributed) {
  std::vector<SeededCell> all = mine;
  if (distributed) {
    constexpr int fields = 5;
    std::vector<std::int64_t> packed;
    for (const SeededCell& c : mine) packed.insert(packed.end(), {c.level, c.coordinates[0], c.coordinates[1], c.coordinates[2], c.count});
    const std::vector<std::int64_t> gathered = parallel::gather_everywhere(packed, comm);
    all.clear();
    for (std::size_t i = 0; i + fields <= gathered.size(); i += fields)
      all.push_back({gathered[i], {gathered[i + 1], gathered[i + 2], gathered[i + 3]}, gathered[i + 4]});
  }
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

template <int D>
TracerModule<D>::TracerModule(const core::ParameterSet& params, Tree& tree, parallel::DistributedMesh<D, Key>& mesh,
                              core::Timers& timers, particles::ParticleSet<D>& set)
    : tree_(tree),
      mesh_(mesh),
      timers_(timers),
      set_(set),
      feed_format_(params.get_string("TRACER_PARAMS", "tracer_feed_fmt")),
      feed_file_(params.get_string("TRACER_PARAMS", "tracer_feed")),
      source_(params.source()),
      tracer_mass_(params.get_real("TRACER_PARAMS", "tracer_mass")),
      smallr_(params.get_real("HYDRO_PARAMS", "smallr")) {
  for (int d = 0; d < D; ++d)
    velocity_[static_cast<std::size_t>(d)] =
        tree_.add_field(core::scalar_field(std::string("tracer_gas_velocity_") + "xyz"[d], "code_velocity").owned_by("tracers").transient());
}

template <int D>
void TracerModule<D>::connect(const std::vector<core::PhysicsModule<D>*>& /*modules*/) {
  density_ = tree_.fields().find("density");
  KOSMO_REQUIRE(density_ >= 0, "tracers: no gas density field: tracer=.true. needs hydro=.true.");
  for (int d = 0; d < D; ++d) {
    const std::string name = std::string("momentum_") + "xyz"[d];
    momentum_[static_cast<std::size_t>(d)] = tree_.fields().find(name);
    KOSMO_REQUIRE(momentum_[static_cast<std::size_t>(d)] >= 0, "tracers: no gas field '" << name << "'");
  }
}

template <int D>
std::int64_t TracerModule<D>::largest_identity() const {
  std::int64_t largest = 0;
  for (std::int64_t id : set_.id()) largest = std::max(largest, id);
  if (mesh_.distributed()) MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, mesh_.comm());
  return largest;
}

template <int D>
void TracerModule<D>::add_tracer(const std::array<double, D>& position, std::int64_t id) {
  typename particles::ParticleSet<D>::Particle p;
  p.position = position;
  p.mass = 0.0;
  p.id = id;
  p.family = particles::Family::tracer;
  set_.add(p);
}

template <int D>
void TracerModule<D>::end_initial_state() {
  const auto start = Clock::now();
  if (feed_format_ == "inplace") {
    place_in_cells();
  } else {
    place_from_file();
  }
  particles::locate_particles<D, Key>(tree_, set_);
  timers_.add("tracers", start);
}

// RAMSES load_tracers_inplace, identities numbered on from the particles already there in the
// fixed order of the cells (the same on any rank count).
template <int D>
void TracerModule<D>::place_in_cells() {
  const std::int64_t first = largest_identity() + 1;
  const std::vector<SeededCell> mine = seed_leaf_cells<D, Key>(tree_, density_, tracer_mass_);
  const std::vector<SeededCell> all = all_cells(mine, mesh_.comm(), mesh_.distributed());
  std::vector<std::int64_t> offsets(all.size() + 1, 0);
  for (std::size_t i = 0; i < all.size(); ++i) offsets[i + 1] = offsets[i] + all[i].count;
  for (const SeededCell& cell : mine) {
    const auto at = static_cast<std::size_t>(std::lower_bound(all.begin(), all.end(), cell) - all.begin());
    const double h = tree_.cell_size(static_cast<int>(cell.level));
    std::array<double, D> centre{};
    for (int d = 0; d < D; ++d) centre[static_cast<std::size_t>(d)] = (static_cast<double>(cell.coordinates[static_cast<std::size_t>(d)]) + 0.5) * h;
    for (std::int64_t k = 0; k < cell.count; ++k) add_tracer(centre, first + offsets[at] + k);
  }
}

// RAMSES load_tracers: one tracer a line, its position in units of boxlen (RAMSES reads three
// numbers a line; kosmo the first ndim, so 1- and 2-D files may have fewer). Every rank reads the
// file and keeps the tracers in its domain; the identities follow the line order.
template <int D>
void TracerModule<D>::place_from_file() {
  const std::int64_t first = largest_identity() + 1;
  std::ifstream in(feed_file_);
  KOSMO_REQUIRE(in.good(), feed_file_ << ": cannot open the tracer file (&TRACER_PARAMS tracer_feed of " << source_ << ")");
  const auto& g = tree_.geometry();
  std::string line;
  long long number = 0, tracers = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::array<double, D> x{};
    for (int d = 0; d < D; ++d) {
      double v = 0.0;
      KOSMO_REQUIRE(static_cast<bool>(fields >> v), feed_file_ << ":" << number << ": expected at least " << D
                                                              << " numbers (a position in units of boxlen), found '" << line << "'");
      KOSMO_REQUIRE(v >= 0.0 && v < 1.0, feed_file_ << ":" << number << ": coordinate " << v << " lies outside [0, 1) (units of boxlen)");
      x[static_cast<std::size_t>(d)] = v * g.boxlen;
    }
    const std::int64_t id = first + tracers++;
    if (mesh_.distributed() && mesh_.owner_of_position(x) != mesh_.rank()) continue;
    add_tracer(x, id);
  }
}

template <int D>
void TracerModule<D>::compute_gas_velocity(int level) {
  const double* rho = tree_.field(density_);
  for (int d = 0; d < D; ++d) {
    const double* momentum = tree_.field(momentum_[static_cast<std::size_t>(d)]);
    double* u = tree_.field(velocity_[static_cast<std::size_t>(d)]);
    for (const auto* octs : {&tree_.octs_at_level(level), &tree_.ghost_octs_at_level(level)})
      for (core::OctIndex o : *octs)
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          const core::CellIndex cell = Tree::cell_index(o, c);
          u[cell] = momentum[cell] / std::max(rho[cell], smallr_);
        }
  }
}

template <int D>
void TracerModule<D>::end_level_step(int level, double dt) {
  auto start = Clock::now();
  std::vector<std::size_t> moving;
  const std::span<const particles::Family> family = set_.family();
  const std::span<const std::int8_t> particle_level = set_.level();
  for (std::size_t i = 0; i < set_.size(); ++i)
    if (family[i] == particles::Family::tracer && particle_level[i] == level) moving.push_back(i);
  const long long anywhere = mesh_.distributed() ? mesh_.sum(static_cast<long long>(moving.size())) : static_cast<long long>(moving.size());
  if (anywhere == 0) return;
  compute_gas_velocity(level);
  if (level > 1) compute_gas_velocity(level - 1);  // the clouds' fallback cells at the level's edge
  const auto& g = tree_.geometry();
  // u(x): the kernel writes the particles' acceleration scratch, which the particle module's
  // leapfrog no longer needs after its drift (it recomputes it at the next step's start).
  particles::interpolate_acceleration<D, Key>(tree_, set_, level, velocity_, particles::LevelSelection::finest_level);
  std::vector<double> saved(moving.size() * D);
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    const std::span<double> x = set_.position(d);
    const std::span<const double> u = set_.acceleration(d);
    for (std::size_t k = 0; k < moving.size(); ++k) {
      const std::size_t i = moving[k];
      saved[k * D + axis] = x[i];
      x[i] = inside_box(x[i] + 0.5 * dt * u[i], g.boxlen, g.periodic[axis]);
    }
  }
  particles::interpolate_acceleration<D, Key>(tree_, set_, level, velocity_, particles::LevelSelection::finest_level);
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    const std::span<double> x = set_.position(d);
    const std::span<double> v = set_.velocity(d);
    const std::span<const double> u = set_.acceleration(d);
    for (std::size_t k = 0; k < moving.size(); ++k) {
      const std::size_t i = moving[k];
      v[i] = u[i];
      x[i] = inside_box(saved[k * D + axis] + dt * u[i], g.boxlen, g.periodic[axis]);
    }
  }
  timers_.add("tracers - move", start);
  start = Clock::now();
  if (mesh_.distributed()) {
    long long leaving = 0;
    for (std::size_t i : moving) {
      std::array<double, D> x{};
      for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = set_.position(d)[i];
      if (mesh_.owner_of_position(x) != mesh_.rank()) ++leaving;
    }
    if (mesh_.sum(leaving) > 0) parallel::migrate_particles<D, Key>(mesh_, set_);  // collective
  }
  particles::relocate_moved_particles<D, Key>(tree_, set_, level);
  timers_.add("tracers - migrate and locate", start);
}

template <int D>
long long TracerModule<D>::count() const {
  long long n = 0;
  for (particles::Family f : set_.family()) n += f == particles::Family::tracer ? 1 : 0;
  return mesh_.distributed() ? mesh_.sum(n) : n;
}

template class TracerModule<1>;
template class TracerModule<2>;
template class TracerModule<3>;

}  // namespace kosmo::tracers
