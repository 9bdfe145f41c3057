#include "io/ramses_sink_clouds.hpp"

#include <cstdint>
#include <type_traits>
#include <variant>

#include "io/snapshot_particles.hpp"

namespace kosmo::io {
namespace {

constexpr std::int8_t cloud_family = 3;  // RAMSES FAM_CLOUD

// `clouds` shaped as `like`: the same attributes and restart fields, the clouds' own values where
// they have an attribute of that name and type, 0 elsewhere.
SnapshotParticles shaped_like(const SnapshotParticles& like, const SnapshotParticles& clouds) {
  SnapshotParticles shaped = clouds;
  shaped.attributes.clear();
  shaped.restart_fields.clear();
  shaped.units = like.units;
  const std::size_t n = clouds.size();
  for (const auto& field : like.restart_fields) shaped.restart_fields.push_back({field.name, std::vector<double>(n, 0.0)});
  for (const auto& attribute : like.attributes) {
    ParticleAttributeArray array = attribute;
    std::visit([n](auto& values) { values.assign(n, 0); }, array.values);
    for (const auto& own : clouds.attributes)
      if (own.name == attribute.name && own.values.index() == attribute.values.index()) array.values = own.values;
    shaped.attributes.push_back(std::move(array));
  }
  return shaped;
}

}  // namespace

SnapshotParticles particles_with_clouds(const SnapshotParticles* particles, const SnapshotParticles& clouds) {
  if (particles == nullptr) {
    SnapshotParticles own = clouds;
    for (auto& attribute : own.attributes)
      if (attribute.name == "birth_time") attribute.units = "code_time";
    return own;
  }
  SnapshotParticles all = *particles;
  append_particles(all, shaped_like(*particles, clouds));
  return all;
}

void remove_cloud_particles(SnapshotParticles& particles) {
  const std::size_t n = particles.size();
  const auto compact = [&](auto& values) {
    std::size_t to = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (particles.family[i] != cloud_family) values[to++] = values[i];
    values.resize(to);
  };
  for (std::size_t d = 0; d < 3; ++d) {
    if (particles.position[d].size() == n) compact(particles.position[d]);
    if (particles.velocity[d].size() == n) compact(particles.velocity[d]);
  }
  compact(particles.mass);
  compact(particles.id);
  compact(particles.level);
  for (auto& field : particles.restart_fields) compact(field.values);
  for (auto& attribute : particles.attributes) std::visit(compact, attribute.values);
  compact(particles.family);  // last: the others test it
}

}  // namespace kosmo::io
