#include "particles/particle_set.hpp"

#include <cmath>
#include <type_traits>

#include "core/error.hpp"

namespace kosmo::particles {

namespace {

AttributeArray empty_array(AttributeType type) {
  switch (type) {
    case AttributeType::float64: return std::vector<double>{};
    case AttributeType::int64: return std::vector<std::int64_t>{};
    case AttributeType::int8: return std::vector<std::int8_t>{};
  }
  KOSMO_FAIL("particles: unknown attribute type");
}

}  // namespace

template <int D>
ParticleSet<D>::ParticleSet() {
  // The particle module's attributes, in the order the snapshot and RAMSES files hold them
  // (docs/outputs.md); the ids are the *_id constants. Restart-only: the leapfrog's state.
  auto vector_attribute = [](const char* name, const char* units, bool in_snapshots) {
    ParticleAttributeInfo info = particle_attribute(name, AttributeType::float64, units, "particles");
    info.components = D;
    info.in_snapshots = in_snapshots;
    return info;
  };
  ParticleAttributeInfo half_dt = particle_attribute("pending_half_dt", AttributeType::float64, "code_time", "particles");
  half_dt.in_snapshots = false;
  // The level of the cell holding the particle is written for analysis; a restart finds it again
  // by locating the particle on the new mesh.
  ParticleAttributeInfo level = particle_attribute("level", AttributeType::int8, "", "particles");
  level.in_restarts = false;
  for (const ParticleAttributeInfo& info :
       {vector_attribute("position", "code_length", true), vector_attribute("velocity", "code_velocity", true),
        particle_attribute("mass", AttributeType::float64, "code_mass", "particles"),
        particle_attribute("identity", AttributeType::int64, "", "particles"),
        level,
        particle_attribute("family", AttributeType::int8, "", "particles"),
        vector_attribute("pending_kick", "code_velocity", false), half_dt})
    add_attribute(info);
}

template <int D>
int ParticleSet<D>::add_attribute(const ParticleAttributeInfo& info) {
  KOSMO_REQUIRE(empty(), "particles: attribute '" << info.name << "' registered after particles were added ("
                                                 << size() << " particles); modules register theirs first");
  KOSMO_REQUIRE(info.components == 1 || info.components == D,
                "particles: attribute '" << info.name << "' has " << info.components << " components in " << D
                                         << "-D (1 or " << D << ")");
  const int id = attributes_.add(info);
  arrays_.emplace_back(static_cast<std::size_t>(info.components), empty_array(info.type));
  return id;
}

template <int D>
AttributeArray& ParticleSet<D>::array(int id, int component) {
  return arrays_.at(static_cast<std::size_t>(id)).at(static_cast<std::size_t>(component));
}

template <int D>
const AttributeArray& ParticleSet<D>::array(int id, int component) const {
  return arrays_.at(static_cast<std::size_t>(id)).at(static_cast<std::size_t>(component));
}

template <int D>
template <class Visit>
void ParticleSet<D>::for_each_array(Visit&& visit) {
  for (auto& components : arrays_)
    for (AttributeArray& values : components) std::visit(visit, values);
  for (auto& values : acceleration_) visit(values);
  visit(oct_);
}

template <int D>
void ParticleSet<D>::reserve(std::size_t count) {
  for_each_array([count](auto& values) { values.reserve(count); });
}

template <int D>
void ParticleSet<D>::clear() {
  for_each_array([](auto& values) { values.clear(); });
  oct_offsets_.clear();
  sorted_ = false;
}

template <int D>
std::size_t ParticleSet<D>::add(const Particle& particle) {
  // Every array gets a zero (no_oct for oct), then the core values are set in place.
  for_each_array([](auto& values) { values.emplace_back(); });
  const std::size_t index = oct_.size() - 1;
  oct_[index] = core::no_oct;
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    position(d)[index] = particle.position[axis];
    velocity(d)[index] = particle.velocity[axis];
    pending_kick(d)[index] = particle.pending_kick[axis];
  }
  pending_half_dt()[index] = particle.pending_half_dt;
  mass()[index] = particle.mass;
  id()[index] = particle.id;
  family()[index] = particle.family;
  sorted_ = false;
  return index;
}

template <int D>
typename ParticleSet<D>::Particle ParticleSet<D>::get(std::size_t index) const {
  KOSMO_REQUIRE(index < size(), "particles: index " << index << " out of range (" << size() << " particles)");
  Particle particle;
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    particle.position[axis] = position(d)[index];
    particle.velocity[axis] = velocity(d)[index];
    particle.pending_kick[axis] = pending_kick(d)[index];
  }
  particle.pending_half_dt = pending_half_dt()[index];
  particle.mass = mass()[index];
  particle.id = id()[index];
  particle.family = family()[index];
  return particle;
}

template <int D>
void ParticleSet<D>::remove(std::size_t index) {
  KOSMO_REQUIRE(index < size(), "particles: remove(" << index << ") out of range (" << size() << " particles)");
  const std::size_t last = size() - 1;
  for_each_array([&](auto& values) {
    values[index] = values[last];
    values.pop_back();
  });
  sorted_ = false;
}

template <int D>
std::size_t ParticleSet<D>::remove_flagged(std::span<const std::uint8_t> flags) {
  KOSMO_REQUIRE(flags.size() == size(), "particles: remove_flagged needs one flag per particle ("
                                            << flags.size() << " flags, " << size() << " particles)");
  std::vector<std::size_t> kept;
  kept.reserve(size());
  for (std::size_t i = 0; i < size(); ++i)
    if (flags[i] == 0) kept.push_back(i);
  const std::size_t removed = size() - kept.size();
  if (removed > 0) permute(kept);
  sorted_ = false;
  return removed;
}

template <int D>
void ParticleSet<D>::permute(const std::vector<std::size_t>& order) {
  const std::size_t n = order.size();
  for_each_array([&](auto& values) {
    std::remove_reference_t<decltype(values)> moved(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) moved[i] = values[order[i]];
    values.swap(moved);
  });
}

template <int D>
void ParticleSet<D>::sort_by_oct(std::size_t oct_capacity) {
  // Counting sort by oct index (the role of RAMSES' per-grid linked lists headp/nextp/numbp):
  // histogram, exclusive prefix sum, then a stable scatter in particle order.
  const std::size_t n = size();
  std::vector<std::size_t> offsets(oct_capacity + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const core::OctIndex o = oct_[i];
    KOSMO_REQUIRE(o >= 0 && static_cast<std::size_t>(o) < oct_capacity,
                  "particles: sort_by_oct needs located particles; particle id "
                      << id()[i] << " has oct " << o << " (pool of " << oct_capacity << " octs)");
    ++offsets[static_cast<std::size_t>(o) + 1];
  }
  for (std::size_t o = 0; o < oct_capacity; ++o) offsets[o + 1] += offsets[o];
  std::vector<std::size_t> order(n);
  std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i) order[next[static_cast<std::size_t>(oct_[i])]++] = i;
  permute(order);
  oct_offsets_.swap(offsets);
  sorted_ = true;
}

template <int D>
void ParticleSet<D>::wrap_positions(double boxlen, const std::array<bool, D>& periodic) {
  for (int d = 0; d < D; ++d) {
    if (!periodic[static_cast<std::size_t>(d)]) continue;
    const std::span<double> x = position(d);
    const std::size_t n = x.size();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] = wrap_coordinate(x[i], boxlen);
  }
}

template class ParticleSet<1>;
template class ParticleSet<2>;
template class ParticleSet<3>;

}  // namespace kosmo::particles
