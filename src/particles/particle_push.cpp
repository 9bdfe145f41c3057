#include "particles/particle_push.hpp"

namespace kosmo::particles {

namespace {

// level < 0 selects every particle.
template <int D>
void kick_selected(ParticleSet<D>& particles, double dt, int level) {
  const std::size_t n = particles.size();
  const std::int8_t* particle_level = particles.level().data();
  for (int d = 0; d < D; ++d) {
    double* v = particles.velocity(d).data();
    const double* g = particles.acceleration(d).data();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      if (level < 0 || particle_level[i] == level) v[i] += g[i] * dt;
  }
}

template <int D>
void drift_selected(ParticleSet<D>& particles, double dt, double boxlen,
                    const std::type_identity_t<std::array<bool, D>>& periodic, int level) {
  const std::size_t n = particles.size();
  const std::int8_t* particle_level = particles.level().data();
  for (int d = 0; d < D; ++d) {
    double* x = particles.position(d).data();
    const double* v = particles.velocity(d).data();
    const bool wrap = periodic[static_cast<std::size_t>(d)];
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      if (level >= 0 && particle_level[i] != level) continue;
      x[i] += v[i] * dt;
      if (wrap) x[i] = wrap_coordinate(x[i], boxlen);
    }
  }
}

}  // namespace

template <int D>
void kick(ParticleSet<D>& particles, double dt) {
  kick_selected<D>(particles, dt, -1);
}

template <int D>
void kick(ParticleSet<D>& particles, double dt, int level) {
  kick_selected<D>(particles, dt, level);
}

template <int D>
void drift(ParticleSet<D>& particles, double dt, double boxlen,
           const std::type_identity_t<std::array<bool, D>>& periodic) {
  drift_selected<D>(particles, dt, boxlen, periodic, -1);
}

template <int D>
void drift(ParticleSet<D>& particles, double dt, double boxlen,
           const std::type_identity_t<std::array<bool, D>>& periodic, int level) {
  drift_selected<D>(particles, dt, boxlen, periodic, level);
}

#define KOSMO_INSTANTIATE_PUSH(D)                                                                            \
  template void kick<D>(ParticleSet<D>&, double);                                                            \
  template void kick<D>(ParticleSet<D>&, double, int);                                                       \
  template void drift<D>(ParticleSet<D>&, double, double, const std::type_identity_t<std::array<bool, D>>&); \
  template void drift<D>(ParticleSet<D>&, double, double, const std::type_identity_t<std::array<bool, D>>&, int);
KOSMO_INSTANTIATE_PUSH(1)
KOSMO_INSTANTIATE_PUSH(2)
KOSMO_INSTANTIATE_PUSH(3)
#undef KOSMO_INSTANTIATE_PUSH

}  // namespace kosmo::particles
