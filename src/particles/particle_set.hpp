#pragma once
// Particle storage (ARCHITECTURE §4 particles/; docs/cosmology.md): structure of arrays, one array per
// attribute and per axis, as RAMSES' pm_commons (xp, vp, mp, idp, levelp, typep%family) without its
// per-grid linked lists (headp/nextp). Instead every particle records `oct`, the finest oct whose
// cell contains it (particle_locate.hpp), and sort_by_oct() reorders the arrays by oct index with a
// stable counting sort so that the particles of oct o are the contiguous range [begin(o), end(o)).
//
// Positions are in code length units inside [0, boxlen) on periodic axes (wrap_positions).
// `acceleration` is per-particle scratch written by the CIC interpolation (RAMSES move_fine keeps
// it in a local array) and read by kick(); it is not part of the particle's persistent state.
// `pending_kick` and `pending_half_dt` are: the kick-drift-kick leapfrog ends each step with a
// provisional second half kick, pending_kick = g_old * pending_half_dt, which the next step replaces
// by one with the new force (driver/level_particles.hpp). They travel with the particle (migration,
// restarts) so that a particle changing rank or level keeps its leapfrog exact.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/morton_hash.hpp"

namespace kosmo::particles {

// RAMSES particle family codes (pm_commons.f90: FAM_TRACER_GAS = 0, FAM_DM = 1, FAM_STAR = 2,
// FAM_CLOUD = 3; sinks are represented by their cloud particles), stored in one byte as RAMSES does.
enum class Family : std::int8_t { tracer = 0, dark_matter = 1, star = 2, sink = 3 };

template <int D>
class ParticleSet {
  static_assert(D >= 1 && D <= 3, "ParticleSet is instantiated for D = 1, 2, 3");

 public:
  using Vector = std::array<double, D>;

  // One particle's state, for add() and get().
  struct Particle {
    Vector position{};
    Vector velocity{};
    double mass = 0.0;
    std::int64_t id = 0;
    Family family = Family::dark_matter;
    Vector pending_kick{};
    double pending_half_dt = 0.0;
  };

  std::size_t size() const { return mass_.size(); }
  bool empty() const { return mass_.empty(); }
  void reserve(std::size_t count);
  void clear();

  // Appends a particle (not yet located: oct = no_oct, level = 0) and returns its index.
  std::size_t add(const Particle& particle);
  Particle get(std::size_t index) const;
  // Swap-remove: the last particle moves into `index` (O(1), order not preserved).
  void remove(std::size_t index);
  // Compaction: removes every particle whose flag is non-zero, keeping the order of the others.
  // Returns the number removed.
  std::size_t remove_flagged(std::span<const std::uint8_t> flags);

  // --- structure-of-arrays access -------------------------------------------------------------
  std::span<double> position(int axis) { return position_[static_cast<std::size_t>(axis)]; }
  std::span<const double> position(int axis) const { return position_[static_cast<std::size_t>(axis)]; }
  std::span<double> velocity(int axis) { return velocity_[static_cast<std::size_t>(axis)]; }
  std::span<const double> velocity(int axis) const { return velocity_[static_cast<std::size_t>(axis)]; }
  std::span<double> acceleration(int axis) { return acceleration_[static_cast<std::size_t>(axis)]; }
  std::span<const double> acceleration(int axis) const { return acceleration_[static_cast<std::size_t>(axis)]; }
  std::span<double> pending_kick(int axis) { return pending_kick_[static_cast<std::size_t>(axis)]; }
  std::span<const double> pending_kick(int axis) const { return pending_kick_[static_cast<std::size_t>(axis)]; }
  std::span<double> pending_half_dt() { return pending_half_dt_; }
  std::span<const double> pending_half_dt() const { return pending_half_dt_; }
  std::span<double> mass() { return mass_; }
  std::span<const double> mass() const { return mass_; }
  std::span<std::int64_t> id() { return id_; }
  std::span<const std::int64_t> id() const { return id_; }
  std::span<std::int8_t> level() { return level_; }
  std::span<const std::int8_t> level() const { return level_; }
  std::span<Family> family() { return family_; }
  std::span<const Family> family() const { return family_; }
  std::span<core::OctIndex> oct() { return oct_; }
  std::span<const core::OctIndex> oct() const { return oct_; }

  // --- per-oct ranges -------------------------------------------------------------------------
  // Stable counting sort of all particles by `oct` (every particle must be located; octs index a
  // pool of `oct_capacity` slots). Afterwards the particles of oct o are [oct_begin(o), oct_end(o)).
  // Adding or removing particles invalidates the ranges.
  void sort_by_oct(std::size_t oct_capacity);
  template <class Tree>
  void sort_by_oct(const Tree& tree) {
    sort_by_oct(tree.oct_capacity());
  }
  bool sorted_by_oct() const { return sorted_; }
  std::size_t oct_begin(core::OctIndex o) const { return oct_offsets_[static_cast<std::size_t>(o)]; }
  std::size_t oct_end(core::OctIndex o) const { return oct_offsets_[static_cast<std::size_t>(o) + 1]; }

  // Moves every position into [0, boxlen) along the periodic axes (RAMSES move_fine's periodic
  // wrap); non-periodic axes are left alone.
  void wrap_positions(double boxlen, const std::array<bool, D>& periodic);

 private:
  // Applies `order` (new index -> old index) to every array.
  void permute(const std::vector<std::size_t>& order);

  std::array<std::vector<double>, D> position_;
  std::array<std::vector<double>, D> velocity_;
  std::array<std::vector<double>, D> acceleration_;
  std::array<std::vector<double>, D> pending_kick_;
  std::vector<double> pending_half_dt_;
  std::vector<double> mass_;
  std::vector<std::int64_t> id_;
  std::vector<std::int8_t> level_;
  std::vector<Family> family_;
  std::vector<core::OctIndex> oct_;
  std::vector<std::size_t> oct_offsets_;  // oct_capacity + 1 entries after sort_by_oct
  bool sorted_ = false;
};

// Periodic wrap of one coordinate into [0, boxlen): the result is never boxlen itself, even when
// x is a tiny negative number whose sum with boxlen rounds up to boxlen.
inline double wrap_coordinate(double x, double boxlen) {
  if (x >= 0.0 && x < boxlen) return x;
  double wrapped = x - boxlen * std::floor(x / boxlen);
  if (wrapped >= boxlen) wrapped -= boxlen;
  if (wrapped < 0.0) wrapped = 0.0;
  return wrapped;
}

extern template class ParticleSet<1>;
extern template class ParticleSet<2>;
extern template class ParticleSet<3>;

}  // namespace kosmo::particles
