#pragma once
// `kosmo run`: the time loop over coarse steps with RAMSES-style logs, snapshots
// at the requested times and the timer table at the end.
#include <mpi.h>

#include <iosfwd>
#include <vector>

#include "core/parameters.hpp"

namespace kosmo::driver {

class PatchLibrary;

// `patch`: the run's user patch (driver/patch_library.hpp), or nullptr; `snapshot_steps`: kosmo run
// --snapshot-steps (driver/job_control.hpp).
template <int D>
void run_simulation(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log, const PatchLibrary* patch = nullptr,
                    const std::vector<long long>& snapshot_steps = {});

}  // namespace kosmo::driver
