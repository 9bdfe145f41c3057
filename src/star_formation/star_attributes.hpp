#pragma once
// The attributes of star particles, registered on the run's particle set by the star formation
// module (particles/particle_attributes.hpp): every output format and restart carries them. Other
// families hold 0 in them. Names as RAMSES' part_file_descriptor.txt gives them where RAMSES has
// them (birth_time, metallicity), so yt reads them as particle_birth_time, particle_metallicity.
#include "particles/particle_set.hpp"

namespace kosmo::star_formation {

struct StarAttributeIds {
  int birth_time = -1, birth_time_proper = -1, initial_mass = -1, metallicity = -1, exploded = -1;
};

template <int D>
StarAttributeIds register_star_attributes(particles::ParticleSet<D>& set) {
  using particles::AttributeType;
  using particles::particle_attribute;
  StarAttributeIds ids;
  // RAMSES tp: the code time of birth (super-comoving conformal time in a cosmological run).
  ids.birth_time = set.add_attribute(particle_attribute("birth_time", AttributeType::float64, "code_time", "star_formation"));
  // RAMSES texp at birth: the code time, or the cosmic time from today in units of 1/H0.
  ids.birth_time_proper = set.add_attribute(particle_attribute("birth_time_proper", AttributeType::float64, "code_time", "star_formation"));
  ids.initial_mass = set.add_attribute(particle_attribute("initial_mass", AttributeType::float64, "code_mass", "star_formation"));
  ids.metallicity = set.add_attribute(particle_attribute("metallicity", AttributeType::float64, "dimensionless", "star_formation"));
  // 1 once the star's supernovae went off (feedback/supernova_event.hpp).
  ids.exploded = set.add_attribute(particle_attribute("exploded", AttributeType::int8, "", "star_formation"));
  return ids;
}

}  // namespace kosmo::star_formation
