#pragma once
// The contract between the module that decides which supernovae go off (star formation: a star
// particle older than t_sne) and the module that injects them into the gas (feedback: RAMSES
// average_SN + Sedov_blast, or thermal injection), seeds/000 §6.1. The producer finds the sink among
// the run's modules in its connect() (dynamic_cast) and hands it this rank's events during its
// source_terms(level, dt); the sink is registered after the producer, so its own source_terms of
// the same level step injects them. Events are those of the producer's own particles; sending the
// blasts that cross a domain wall to the ranks they overlap is the sink's job.
#include <array>
#include <cstdint>
#include <span>

namespace kosmo::feedback {

struct SupernovaEvent {
  std::array<double, 3> position{};  // code units (unused components 0 below three dimensions)
  std::array<double, 3> velocity{};  // of the exploding star, code units
  double ejected_mass = 0.0;         // code mass units, returned to the gas
  double energy = 0.0;               // code energy units (mass × velocity²)
  double ejected_metal_mass = 0.0;   // code mass units: yield × ejected mass plus the star's own metals
  std::int64_t identity = 0;         // the star's identity: orders every sum so results do not depend on ranks
};

class SupernovaSink {
 public:
  virtual ~SupernovaSink() = default;
  // Events of this rank's stars for the level step being taken (may be called with none).
  virtual void add_supernova_events(int level, std::span<const SupernovaEvent> events) = 0;
};

}  // namespace kosmo::feedback
