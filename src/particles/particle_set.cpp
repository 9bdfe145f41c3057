#include "particles/particle_set.hpp"

#include <cmath>
#include <type_traits>

#include "core/error.hpp"

namespace kosmo::particles {

template <int D>
void ParticleSet<D>::reserve(std::size_t count) {
  for (int d = 0; d < D; ++d) {
    position_[static_cast<std::size_t>(d)].reserve(count);
    velocity_[static_cast<std::size_t>(d)].reserve(count);
    acceleration_[static_cast<std::size_t>(d)].reserve(count);
    pending_kick_[static_cast<std::size_t>(d)].reserve(count);
  }
  pending_half_dt_.reserve(count);
  mass_.reserve(count);
  id_.reserve(count);
  level_.reserve(count);
  family_.reserve(count);
  oct_.reserve(count);
}

template <int D>
void ParticleSet<D>::clear() {
  for (int d = 0; d < D; ++d) {
    position_[static_cast<std::size_t>(d)].clear();
    velocity_[static_cast<std::size_t>(d)].clear();
    acceleration_[static_cast<std::size_t>(d)].clear();
    pending_kick_[static_cast<std::size_t>(d)].clear();
  }
  pending_half_dt_.clear();
  mass_.clear();
  id_.clear();
  level_.clear();
  family_.clear();
  oct_.clear();
  oct_offsets_.clear();
  sorted_ = false;
}

template <int D>
std::size_t ParticleSet<D>::add(const Particle& particle) {
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    position_[axis].push_back(particle.position[axis]);
    velocity_[axis].push_back(particle.velocity[axis]);
    acceleration_[axis].push_back(0.0);
    pending_kick_[axis].push_back(particle.pending_kick[axis]);
  }
  pending_half_dt_.push_back(particle.pending_half_dt);
  mass_.push_back(particle.mass);
  id_.push_back(particle.id);
  level_.push_back(0);
  family_.push_back(particle.family);
  oct_.push_back(core::no_oct);
  sorted_ = false;
  return mass_.size() - 1;
}

template <int D>
typename ParticleSet<D>::Particle ParticleSet<D>::get(std::size_t index) const {
  KOSMO_REQUIRE(index < size(), "particles: index " << index << " out of range (" << size() << " particles)");
  Particle particle;
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    particle.position[axis] = position_[axis][index];
    particle.velocity[axis] = velocity_[axis][index];
    particle.pending_kick[axis] = pending_kick_[axis][index];
  }
  particle.pending_half_dt = pending_half_dt_[index];
  particle.mass = mass_[index];
  particle.id = id_[index];
  particle.family = family_[index];
  return particle;
}

template <int D>
void ParticleSet<D>::remove(std::size_t index) {
  KOSMO_REQUIRE(index < size(), "particles: remove(" << index << ") out of range (" << size() << " particles)");
  const std::size_t last = size() - 1;
  auto move_last = [&](auto& values) {
    values[index] = values[last];
    values.pop_back();
  };
  for (int d = 0; d < D; ++d) {
    move_last(position_[static_cast<std::size_t>(d)]);
    move_last(velocity_[static_cast<std::size_t>(d)]);
    move_last(acceleration_[static_cast<std::size_t>(d)]);
    move_last(pending_kick_[static_cast<std::size_t>(d)]);
  }
  move_last(pending_half_dt_);
  move_last(mass_);
  move_last(id_);
  move_last(level_);
  move_last(family_);
  move_last(oct_);
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
  auto apply = [&](auto& values) {
    std::remove_reference_t<decltype(values)> moved(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) moved[i] = values[order[i]];
    values.swap(moved);
  };
  for (int d = 0; d < D; ++d) {
    apply(position_[static_cast<std::size_t>(d)]);
    apply(velocity_[static_cast<std::size_t>(d)]);
    apply(acceleration_[static_cast<std::size_t>(d)]);
    apply(pending_kick_[static_cast<std::size_t>(d)]);
  }
  apply(pending_half_dt_);
  apply(mass_);
  apply(id_);
  apply(level_);
  apply(family_);
  apply(oct_);
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
                      << id_[i] << " has oct " << o << " (pool of " << oct_capacity << " octs)");
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
    std::vector<double>& x = position_[static_cast<std::size_t>(d)];
    const std::size_t n = x.size();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] = wrap_coordinate(x[i], boxlen);
  }
}

template class ParticleSet<1>;
template class ParticleSet<2>;
template class ParticleSet<3>;

}  // namespace kosmo::particles
