#pragma once
// Particles of a non-cosmological run (RAMSES filetype='ascii', pm/init_part.f90): the text file
// initfile(1)/ic_part, one particle per line, ndim positions, ndim velocities and the mass, in code
// units. Ids count the particles from 1 in file order.
#include "core/parameters.hpp"
#include "particles/particle_set.hpp"

namespace kosmo::driver {

// kosmo::Error naming the file (and the line) when it is missing or a line does not hold 2 ndim + 1
// numbers or a position lies outside the box.
template <int D>
particles::ParticleSet<D> read_ascii_particles(const core::ParameterSet& params);

}  // namespace kosmo::driver
