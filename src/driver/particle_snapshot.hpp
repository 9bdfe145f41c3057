#pragma once
// Between the particle set and the writers' plain arrays (io/snapshot_data.hpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

#include "io/snapshot_data.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

inline std::string pending_kick_name(int axis) { return std::string("pending_kick_") + "xyz"[axis]; }

template <int D>
io::SnapshotParticles snapshot_particles(const particles::ParticleSet<D>& set) {
  io::SnapshotParticles out;
  for (int d = 0; d < D; ++d) {
    const auto axis = static_cast<std::size_t>(d);
    out.position[axis].assign(set.position(d).begin(), set.position(d).end());
    out.velocity[axis].assign(set.velocity(d).begin(), set.velocity(d).end());
  }
  out.mass.assign(set.mass().begin(), set.mass().end());
  out.id.assign(set.id().begin(), set.id().end());
  out.level.assign(set.level().begin(), set.level().end());
  out.family.reserve(set.size());
  for (const particles::Family f : set.family()) out.family.push_back(static_cast<std::int8_t>(f));
  // The leapfrog's provisional half kick (driver/level_particles.hpp), so a restart continues the
  // orbit exactly.
  for (int d = 0; d < D; ++d)
    out.restart_fields.push_back({pending_kick_name(d), std::vector<double>(set.pending_kick(d).begin(), set.pending_kick(d).end())});
  out.restart_fields.push_back({"pending_half_dt", std::vector<double>(set.pending_half_dt().begin(), set.pending_half_dt().end())});
  return out;
}

// `file` names the snapshot in errors. A restart field kosmo does not know (a RAMSES output's
// birth_time, say) is refused: this run could not carry it forward.
template <int D>
particles::ParticleSet<D> particles_from_snapshot(const io::SnapshotParticles& in, const std::string& file) {
  std::array<const std::vector<double>*, D> kicks{};
  const std::vector<double>* half_dt = nullptr;
  for (const auto& field : in.restart_fields) {
    bool known = false;
    for (int d = 0; d < D; ++d)
      if (field.name == pending_kick_name(d)) {
        kicks[static_cast<std::size_t>(d)] = &field.values;
        known = true;
      }
    if (field.name == "pending_half_dt") {
      half_dt = &field.values;
      known = true;
    }
    KOSMO_REQUIRE(known, "restart from " << file << ": the particles carry a field '" << field.name
                                         << "' that kosmo's particles do not have (dark matter only so far)");
    KOSMO_REQUIRE(field.values.size() == in.size(), "restart from " << file << ": particle field '" << field.name << "' has "
                                                                  << field.values.size() << " values for " << in.size()
                                                                  << " particles");
  }
  particles::ParticleSet<D> set;
  set.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    typename particles::ParticleSet<D>::Particle p;
    for (int d = 0; d < D; ++d) {
      const auto axis = static_cast<std::size_t>(d);
      p.position[axis] = in.position[axis][i];
      p.velocity[axis] = in.velocity[axis][i];
    }
    p.mass = in.mass[i];
    p.id = in.id[i];
    p.family = static_cast<particles::Family>(in.family[i]);
    for (int d = 0; d < D; ++d)
      if (kicks[static_cast<std::size_t>(d)]) p.pending_kick[static_cast<std::size_t>(d)] = (*kicks[static_cast<std::size_t>(d)])[i];
    if (half_dt) p.pending_half_dt = (*half_dt)[i];
    set.add(p);
  }
  return set;
}

}  // namespace kosmo::driver
