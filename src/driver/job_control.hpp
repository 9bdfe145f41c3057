#pragma once
// Job control between coarse steps (RAMSES walltime_hrs / minutes_dump, and a command file the
// user edits while the run goes on). Rank 0 reads the clock and the file; every rank gets the same
// decision, so all ranks write the same snapshot and stop together.
#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/parameters.hpp"

namespace kosmo::driver {

struct JobDecision {
  bool write_output = false;  // write a snapshot after this step
  bool stop = false;          // then end the run
  std::string reason;         // for the log
};

class JobControl {
 public:
  // &OUTPUT_PARAMS walltime_hrs (< 0: no limit), minutes_dump (the snapshot is written that many
  // minutes before the limit) and jobcontrolfile ('' : none).
  // The wall clock counts from `run_start` (the job's start, as the batch system counts it).
  // `snapshot_steps` (increasing; kosmo run --snapshot-steps): a snapshot after each of these coarse
  // steps, and the run's end after the last.
  JobControl(const core::ParameterSet& params, MPI_Comm comm, std::chrono::steady_clock::time_point run_start,
             std::vector<long long> snapshot_steps = {});

  // Called after every coarse step (`step`: the steps done) by every rank (collective: one MPI_Bcast).
  //  - `step` one of the snapshot steps: write a snapshot, and stop after the last;
  //  - wall clock past walltime_hrs - minutes_dump: write a snapshot and stop;
  //  - jobcontrolfile holding a line "stop": write a snapshot and stop; "output": write a snapshot
  //    and go on. The file is renamed to <name>.done once read, so a command acts once.
  JobDecision check(long long step);

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  double deadline_seconds_ = -1.0;
  std::string file_;
  std::vector<long long> snapshot_steps_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kosmo::driver
