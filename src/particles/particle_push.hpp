#pragma once
// Kick and drift of the kick-drift-kick leapfrog (issue 6 item 2; RAMSES move_fine / synchro_fine):
//   kick:  v += g dt   with g the interpolated acceleration stored in the particle set,
//   drift: x += v dt   followed by the periodic wrap into [0, boxlen).
// Each comes for all particles or for the particles of one level (RAMSES levelp), as the level
// subcycling needs. OpenMP over particles; element-wise, so thread-count independent.
#include <array>
#include <type_traits>

#include "particles/particle_set.hpp"

namespace kosmo::particles {

template <int D>
void kick(ParticleSet<D>& particles, double dt);
template <int D>
void kick(ParticleSet<D>& particles, double dt, int level);

template <int D>
void drift(ParticleSet<D>& particles, double dt, double boxlen,
           const std::type_identity_t<std::array<bool, D>>& periodic);
template <int D>
void drift(ParticleSet<D>& particles, double dt, double boxlen,
           const std::type_identity_t<std::array<bool, D>>& periodic, int level);

}  // namespace kosmo::particles
