#pragma once
// Between the particle set and the writers' plain arrays (io/snapshot_data.hpp), driven by the set's
// attribute registry (particles/particle_attributes.hpp): the particle module's first six
// attributes fill RAMSES' standard arrays, every further attribute in snapshots becomes one
// SnapshotParticles::attributes entry per component, and restart-only float64 state becomes
// restart_fields, so a module's new attribute reaches every writer with no edit here.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/error.hpp"

#include "io/snapshot_data.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

namespace particle_snapshot_detail {

// The SnapshotParticles array holding component `component` of standard attribute `id` (an id up
// to ParticleSet::family_id), as a pointer of the attribute's type (const when `particles` is).
template <int D, class Particles>
auto standard_array(Particles& particles, int id, int component) {
  using Set = particles::ParticleSet<D>;
  constexpr bool read_only = std::is_const_v<Particles>;
  using Doubles = std::conditional_t<read_only, const std::vector<double>, std::vector<double>>;
  using Int64s = std::conditional_t<read_only, const std::vector<std::int64_t>, std::vector<std::int64_t>>;
  using Int8s = std::conditional_t<read_only, const std::vector<std::int8_t>, std::vector<std::int8_t>>;
  using Array = std::variant<Doubles*, Int64s*, Int8s*>;
  const auto axis = static_cast<std::size_t>(component);
  switch (id) {
    case Set::position_id: return Array(&particles.position[axis]);
    case Set::velocity_id: return Array(&particles.velocity[axis]);
    case Set::mass_id: return Array(&particles.mass);
    case Set::identity_id: return Array(&particles.id);
    case Set::level_id: return Array(&particles.level);
    case Set::family_id: return Array(&particles.family);
  }
  KOSMO_FAIL("particles: attribute id " << id << " is not one of the standard arrays");
}

template <int D>
bool is_standard(int id) {
  return id <= particles::ParticleSet<D>::family_id;
}

}  // namespace particle_snapshot_detail

template <int D>
io::SnapshotParticles snapshot_particles(const particles::ParticleSet<D>& set) {
  namespace detail = particle_snapshot_detail;
  io::SnapshotParticles out;
  const particles::ParticleAttributeRegistry& registry = set.attributes();
  for (int id = 0; id < registry.size(); ++id) {
    const particles::ParticleAttributeInfo& info = registry.info(id);
    for (int c = 0; c < info.components; ++c) {
      const std::string name = particles::component_name(info, c);
      const particles::AttributeArray& values = set.array(id, c);
      if (detail::is_standard<D>(id)) {
        std::visit([&](auto* target) { *target = std::get<std::remove_pointer_t<decltype(target)>>(values); },
                   detail::standard_array<D>(out, id, c));
        // The standard arrays keep RAMSES' names in the files: identity, level (levelp in part_ files).
        out.units.push_back({name, info.units, info.comoving_exponent});
      } else if (info.in_snapshots) {
        io::ParticleAttributeArray attribute;
        attribute.name = name;
        attribute.units = info.units;
        attribute.comoving_exponent = info.comoving_exponent;
        attribute.in_restarts = info.in_restarts;
        std::visit([&](const auto& v) { attribute.values = v; }, values);
        out.attributes.push_back(std::move(attribute));
      } else if (info.in_restarts) {
        // Restart-only state (the leapfrog's provisional half kick, driver/level_particles.hpp), so a
        // restart continues the orbit exactly.
        const auto* doubles = std::get_if<std::vector<double>>(&values);
        KOSMO_REQUIRE(doubles != nullptr, "particles: restart-only attribute '" << info.name << "' must be float64");
        out.restart_fields.push_back({name, *doubles});
        out.units.push_back({name, info.units, info.comoving_exponent});
      }
    }
  }
  return out;
}

// Fills the empty `set` (whose registry holds every attribute the run's modules registered) from a
// snapshot's particles: the standard arrays, then every array of the file by name. `file` names the
// snapshot in errors. An array the file marks for restarts that no attribute of the run has (a
// RAMSES output's birth_time in a run without star formation, say) is refused: this run could not
// carry it forward. Attributes the file lacks start at 0.
template <int D>
void particles_from_snapshot(const io::SnapshotParticles& in, const std::string& file, particles::ParticleSet<D>& set) {
  namespace detail = particle_snapshot_detail;
  KOSMO_REQUIRE(set.empty(), "restart from " << file << ": the particle set to fill already holds " << set.size() << " particles");
  const std::size_t n = in.size();
  const particles::ParticleAttributeRegistry& registry = set.attributes();
  // Which attribute array each of the file's further arrays goes to.
  struct Match {
    int id = -1, component = 0;
    const io::ParticleValues* values = nullptr;
    const std::vector<double>* doubles = nullptr;
  };
  std::vector<Match> matches;
  const auto match = [&](const std::string& name, bool in_restarts, std::size_t size, Match found) {
    KOSMO_REQUIRE(size == n, "restart from " << file << ": particle field '" << name << "' has " << size << " values for " << n
                                             << " particles");
    if (!registry.find_array(name, found.id, found.component)) {
      KOSMO_REQUIRE(!in_restarts, "restart from " << file << ": the particles carry a field '" << name
                                                  << "' that this run's particles do not have (no module registered it)");
      return;
    }
    if (!registry.info(found.id).in_restarts || detail::is_standard<D>(found.id)) return;
    matches.push_back(found);
  };
  for (const auto& field : in.restart_fields) match(field.name, true, field.values.size(), {-1, 0, nullptr, &field.values});
  for (const auto& attribute : in.attributes) match(attribute.name, attribute.in_restarts, attribute.size(), {-1, 0, &attribute.values, nullptr});

  set.reserve(n);
  for (std::size_t i = 0; i < n; ++i) set.add(typename particles::ParticleSet<D>::Particle{});
  for (int id = 0; id < registry.size() && detail::is_standard<D>(id); ++id) {
    if (!registry.info(id).in_restarts) continue;  // the level: found again by locating the particle
    for (int c = 0; c < registry.info(id).components; ++c)
      std::visit(
          [&](auto* from) {
            using Value = typename std::remove_cv_t<std::remove_pointer_t<decltype(from)>>::value_type;
            KOSMO_REQUIRE(from->size() == n, "restart from " << file << ": particle field '"
                                                             << particles::component_name(registry.info(id), c) << "' has "
                                                             << from->size() << " values for " << n << " particles");
            const std::span<Value> to = set.template values<Value>(id, c);
            std::copy(from->begin(), from->end(), to.begin());
          },
          detail::standard_array<D>(in, id, c));
  }
  for (const Match& m : matches) {
    const std::string& name = registry.info(m.id).name;
    if (m.doubles != nullptr) {
      const auto* target = std::get_if<std::vector<double>>(&set.array(m.id, m.component));
      KOSMO_REQUIRE(target != nullptr, "restart from " << file << ": particle field of '" << name << "' is float64 in the file");
      std::copy(m.doubles->begin(), m.doubles->end(), set.template values<double>(m.id, m.component).begin());
      continue;
    }
    std::visit(
        [&](const auto& from) {
          using Value = typename std::decay_t<decltype(from)>::value_type;
          KOSMO_REQUIRE(std::holds_alternative<std::vector<Value>>(set.array(m.id, m.component)),
                        "restart from " << file << ": the file stores '" << name << "' with another type than this run");
          std::copy(from.begin(), from.end(), set.template values<Value>(m.id, m.component).begin());
        },
        *m.values);
  }
}

// The same into a new set holding the particle module's attributes only.
template <int D>
particles::ParticleSet<D> particles_from_snapshot(const io::SnapshotParticles& in, const std::string& file) {
  particles::ParticleSet<D> set;
  particles_from_snapshot(in, file, set);
  return set;
}

}  // namespace kosmo::driver
