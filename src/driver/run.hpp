#pragma once
// `kosmo run`: parameters, then the problem they name, in the dimension they ask for.
#include <mpi.h>

#include <iosfwd>
#include <vector>

#include "core/parameters.hpp"
#include "driver/command_line.hpp"

namespace kosmo::driver {

// Reads the namelist (or the built-in one) and applies --ndim. Every rank reads the same text, so
// a bad file fails identically everywhere before any work.
core::ParameterSet load_run_parameters(const CommandLine& line);

// Runs the problem; throws kosmo::Error on bad input. `snapshot_steps`: --snapshot-steps (job_control.hpp).
void run(const core::ParameterSet& params, MPI_Comm comm, std::ostream& log, const std::vector<long long>& snapshot_steps = {});

}  // namespace kosmo::driver
