#pragma once
// The attributes of sink particles (family sink, RAMSES FAM_CLOUD's sinks), registered on the sink
// module's own particle set (particles/particle_attributes.hpp): position, velocity, mass and
// identity are the set's own; these are RAMSES' per-sink arrays (pm_commons.f90).
#include "particles/particle_set.hpp"

namespace kosmo::sinks {

struct SinkAttributeIds {
  int birth_time = -1, accreted_mass = -1, accretion_rate = -1, agn_energy = -1;
};

template <int D>
SinkAttributeIds register_sink_attributes(particles::ParticleSet<D>& set) {
  using particles::AttributeType;
  using particles::particle_attribute;
  SinkAttributeIds ids;
  // RAMSES tsink: the code time the sink was made (merging_timescale counts from it).
  ids.birth_time = set.add_attribute(particle_attribute("birth_time", AttributeType::float64, "code_time", "sinks"));
  // RAMSES dmfsink: the gas mass accreted since birth (mergers add theirs).
  ids.accreted_mass = set.add_attribute(particle_attribute("accreted_mass", AttributeType::float64, "code_mass", "sinks"));
  // RAMSES dMsink_overdt: the rate of the last accretion step.
  ids.accretion_rate = set.add_attribute(particle_attribute("accretion_rate", AttributeType::float64, "code_mass/code_time", "sinks"));
  // The AGN energy reservoir (RAMSES delta_mass times the feedback energy per mass): 0 until AGN
  // feedback fills it.
  ids.agn_energy = set.add_attribute(particle_attribute("agn_energy", AttributeType::float64, "code_mass*code_velocity**2", "sinks"));
  return ids;
}

}  // namespace kosmo::sinks
