#pragma once
// `kosmo run`: the time loop over coarse steps with RAMSES-style logs, snapshots
// at the requested times and the timer table at the end.
#include <mpi.h>

#include <iosfwd>

#include "core/parameters.hpp"

namespace kosmo::driver {

class PatchLibrary;

// `patch`: the run's user patch (driver/patch_library.hpp), or nullptr.
template <int D>
void run_simulation(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log, const PatchLibrary* patch = nullptr);

}  // namespace kosmo::driver
