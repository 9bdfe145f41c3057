#pragma once
// `kosmo run`: the time loop over coarse steps with RAMSES-style logs, snapshots
// at the requested times and the timer table at the end.
#include <mpi.h>

#include <iosfwd>

#include "core/parameters.hpp"

namespace kosmo::driver {

template <int D>
void run_simulation(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log);

}  // namespace kosmo::driver
