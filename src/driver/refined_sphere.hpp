#pragma once
// The built-in demo problem 'refined_sphere': a mesh refined from levelmin to levelmax inside the
// geometric region of &REFINE_PARAMS, with a smooth analytic 'density' field, written as a snapshot.
#include <mpi.h>

#include <iosfwd>

#include "core/parameters.hpp"

namespace kosmo::driver {

template <int D>
void run_refined_sphere(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log);

}  // namespace kosmo::driver
