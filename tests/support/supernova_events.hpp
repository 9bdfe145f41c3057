#pragma once
// Hand-made supernova events for the feedback tests (seeds/000 §6): a reproducible set scattered
// over the box, some overlapping, some across the periodic faces, each with its own identity.
#include <array>
#include <cstdint>
#include <vector>

#include "feedback/supernova_event.hpp"

namespace kosmo::test_support {

inline std::vector<feedback::SupernovaEvent> scattered_supernovae(int count, double energy, double mass) {
  std::vector<feedback::SupernovaEvent> events;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto uniform = [&state] {  // splitmix64: the same numbers on every platform
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  for (int i = 0; i < count; ++i) {
    feedback::SupernovaEvent e;
    for (int d = 0; d < 3; ++d) e.position[d] = uniform();
    for (int d = 0; d < 3; ++d) e.velocity[d] = 0.2 * (uniform() - 0.5);
    e.ejected_mass = mass * (0.5 + uniform());
    e.energy = energy * (0.5 + uniform());
    e.ejected_metal_mass = 0.1 * e.ejected_mass;
    e.identity = 1000 + 7 * i;
    events.push_back(e);
  }
  // Two on one another, one across the corner of the periodic box, one on the mid-plane wall of a
  // two-rank k-section.
  events[1].position = events[0].position;
  events[1].position[0] += 0.01;
  events[2].position = {0.995, 0.004, 0.998};
  events[3].position = {0.5, 0.37, 0.61};
  return events;
}

}  // namespace kosmo::test_support
