#pragma once
// Particle storage (ARCHITECTURE §4 particles/): structure of arrays, one flat array per registered
// attribute and per axis (particles/particle_attributes.hpp), as RAMSES' pm_commons (xp, vp, mp, idp,
// levelp, typep%family) without its per-grid linked lists (headp/nextp). Instead every particle
// records `oct`, the finest oct whose cell contains it (particle_locate.hpp), and sort_by_oct()
// reorders the arrays by oct index with a stable counting sort so that the particles of oct o are
// the contiguous range [begin(o), end(o)).
//
// The attributes: the constructor registers the particle module's own (position, velocity, mass,
// identity, level, family, then the leapfrog's pending_kick and pending_half_dt, in the order the
// files hold them); other modules add theirs with add_attribute() while the set is empty. Every
// operation that adds, removes or reorders particles handles all of them alike.
//
// Positions are in code length units inside [0, boxlen) on periodic axes (wrap_positions).
// `acceleration` and `oct` are per-particle scratch, not attributes: the CIC interpolation writes
// the acceleration (RAMSES move_fine keeps it in a local array) and kick() reads it; neither is
// written anywhere. `pending_kick` and `pending_half_dt` are restart-only attributes: the
// kick-drift-kick leapfrog ends each step with a provisional second half kick, pending_kick =
// g_old * pending_half_dt, which the next step replaces by one with the new force
// (driver/level_particles.hpp). They travel with the particle (migration, restarts) so that a
// particle changing rank or level keeps its leapfrog exact.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/morton_hash.hpp"
#include "particles/particle_attributes.hpp"

namespace kosmo::particles {

// RAMSES particle family codes (pm_commons.f90: FAM_TRACER_GAS = 0, FAM_DM = 1, FAM_STAR = 2,
// FAM_CLOUD = 3; sinks are represented by their cloud particles), stored in one byte as RAMSES does.
enum class Family : std::int8_t { tracer = 0, dark_matter = 1, star = 2, sink = 3 };

// The values of one array of an attribute (one component), of the attribute's type.
using AttributeArray = std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::int8_t>>;

template <int D>
class ParticleSet {
  static_assert(D >= 1 && D <= 3, "ParticleSet is instantiated for D = 1, 2, 3");

 public:
  using Vector = std::array<double, D>;

  // The particle module's attributes, registered first by the constructor in this order.
  static constexpr int position_id = 0, velocity_id = 1, mass_id = 2, identity_id = 3, level_id = 4, family_id = 5,
                       pending_kick_id = 6, pending_half_dt_id = 7;

  // One particle's core state, for add() and get(); attributes other modules add start at 0.
  struct Particle {
    Vector position{};
    Vector velocity{};
    double mass = 0.0;
    std::int64_t id = 0;
    Family family = Family::dark_matter;
    Vector pending_kick{};
    double pending_half_dt = 0.0;
  };

  ParticleSet();

  // --- attributes -------------------------------------------------------------------------------
  // Registers a further attribute (another module's); only while the set holds no particle.
  // Returns its id for values<T>(id, component).
  int add_attribute(const ParticleAttributeInfo& info);
  const ParticleAttributeRegistry& attributes() const { return attributes_; }
  // Metadata only (see ParticleAttributeRegistry::set_comoving_exponent).
  void set_comoving_exponent(int id, int exponent) { attributes_.set_comoving_exponent(id, exponent); }
  // The values of component `component` of attribute `id`; T must be the attribute's type.
  template <class T>
  std::span<T> values(int id, int component = 0) {
    return typed<T>(array(id, component), id);
  }
  template <class T>
  std::span<const T> values(int id, int component = 0) const {
    return typed<T>(array(id, component), id);
  }
  template <class T>
  std::span<T> values(const std::string& name, int component = 0) {
    return values<T>(attributes_.id(name), component);
  }
  template <class T>
  std::span<const T> values(const std::string& name, int component = 0) const {
    return values<T>(attributes_.id(name), component);
  }
  // The variant itself, for code that handles every type alike (snapshots, migration).
  AttributeArray& array(int id, int component);
  const AttributeArray& array(int id, int component) const;

  std::size_t size() const { return oct_.size(); }
  bool empty() const { return oct_.empty(); }
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
  std::span<double> position(int axis) { return values<double>(position_id, axis); }
  std::span<const double> position(int axis) const { return values<double>(position_id, axis); }
  std::span<double> velocity(int axis) { return values<double>(velocity_id, axis); }
  std::span<const double> velocity(int axis) const { return values<double>(velocity_id, axis); }
  std::span<double> acceleration(int axis) { return acceleration_[static_cast<std::size_t>(axis)]; }
  std::span<const double> acceleration(int axis) const { return acceleration_[static_cast<std::size_t>(axis)]; }
  std::span<double> pending_kick(int axis) { return values<double>(pending_kick_id, axis); }
  std::span<const double> pending_kick(int axis) const { return values<double>(pending_kick_id, axis); }
  std::span<double> pending_half_dt() { return values<double>(pending_half_dt_id); }
  std::span<const double> pending_half_dt() const { return values<double>(pending_half_dt_id); }
  std::span<double> mass() { return values<double>(mass_id); }
  std::span<const double> mass() const { return values<double>(mass_id); }
  std::span<std::int64_t> id() { return values<std::int64_t>(identity_id); }
  std::span<const std::int64_t> id() const { return values<std::int64_t>(identity_id); }
  std::span<std::int8_t> level() { return values<std::int8_t>(level_id); }
  std::span<const std::int8_t> level() const { return values<std::int8_t>(level_id); }
  // The family array is stored as its int8 codes; Family is an enum over std::int8_t (same size
  // and representation), viewed here through the enum.
  std::span<Family> family() {
    const std::span<std::int8_t> codes = values<std::int8_t>(family_id);
    return {reinterpret_cast<Family*>(codes.data()), codes.size()};
  }
  std::span<const Family> family() const {
    const std::span<const std::int8_t> codes = values<std::int8_t>(family_id);
    return {reinterpret_cast<const Family*>(codes.data()), codes.size()};
  }
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
  static_assert(sizeof(Family) == sizeof(std::int8_t) && std::is_same_v<std::underlying_type_t<Family>, std::int8_t>);

  template <class T, class Array>
  auto typed(Array& values, int id) const {
    auto* vector = std::get_if<std::vector<T>>(&values);
    KOSMO_REQUIRE(vector != nullptr, "particles: attribute '" << attributes_.info(id).name << "' is not of the type asked for");
    using Element = std::conditional_t<std::is_const_v<Array>, const T, T>;
    return std::span<Element>(vector->data(), vector->size());
  }
  // Calls visit(values) for every attribute array and every scratch array.
  template <class Visit>
  void for_each_array(Visit&& visit);
  // Applies `order` (new index -> old index) to every array.
  void permute(const std::vector<std::size_t>& order);

  ParticleAttributeRegistry attributes_;
  std::vector<std::vector<AttributeArray>> arrays_;  // [attribute id][component]
  std::array<std::vector<double>, D> acceleration_;
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
