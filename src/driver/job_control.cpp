#include "driver/job_control.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

namespace kosmo::driver {

JobControl::JobControl(const core::ParameterSet& params, MPI_Comm comm, std::chrono::steady_clock::time_point run_start,
                       std::vector<long long> snapshot_steps)
    : comm_(comm), file_(params.get_string("RUN_PARAMS", "jobcontrolfile")), snapshot_steps_(std::move(snapshot_steps)), start_(run_start) {
  MPI_Comm_rank(comm_, &rank_);
  const double walltime_hours = params.get_real("OUTPUT_PARAMS", "walltime_hrs");
  if (walltime_hours > 0.0) deadline_seconds_ = walltime_hours * 3600.0 - params.get_real("OUTPUT_PARAMS", "minutes_dump") * 60.0;
}

JobDecision JobControl::check(long long step) {
  // 0 nothing, 1 output, 2 output and stop (command file), 3 output and stop (wall clock), 4 output
  // (a snapshot step), 5 output and stop (the last snapshot step). Every rank knows the step: only
  // the clock and the file are rank 0's.
  int action = 0;
  if (rank_ == 0) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (deadline_seconds_ >= 0.0 && elapsed >= deadline_seconds_) action = 3;
    std::error_code error;
    if (action == 0 && !file_.empty() && std::filesystem::exists(file_, error)) {
      std::ifstream in(file_);
      std::string word;
      while (in >> word) {
        if (word == "stop") action = 2;
        if (word == "output" && action == 0) action = 1;
      }
      in.close();
      std::filesystem::rename(file_, file_ + ".done", error);  // acts once; a failure just repeats it
    }
  }
  MPI_Bcast(&action, 1, MPI_INT, 0, comm_);
  if (action == 0 && std::find(snapshot_steps_.begin(), snapshot_steps_.end(), step) != snapshot_steps_.end())
    action = step == snapshot_steps_.back() ? 5 : 4;
  JobDecision decision;
  decision.write_output = action > 0;
  decision.stop = action == 2 || action == 3 || action == 5;
  if (action == 1) decision.reason = "output requested in " + file_;
  if (action == 2) decision.reason = "stop requested in " + file_;
  if (action == 3) decision.reason = "wall-clock limit (walltime_hrs - minutes_dump) reached";
  if (action == 4) decision.reason = "snapshot after step " + std::to_string(step) + " (--snapshot-steps)";
  if (action == 5) decision.reason = "snapshot and stop after step " + std::to_string(step) + " (--snapshot-steps)";
  return decision;
}

}  // namespace kosmo::driver
