#pragma once
// Errors that must be raised on every rank at once: if one rank finds a problem in a step that
// precedes a collective operation, all ranks have to stop together or the others hang.
#include <mpi.h>

#include <string>

namespace kosmo::parallel {

// True on every rank when `condition` holds on at least one rank.
bool any_rank(MPI_Comm comm, bool condition);

// Throws kosmo::CollectiveError on every rank when `ok` is false on any rank. The message of the
// lowest failing rank is broadcast (prefixed "rank N: "), so every rank reports
// the same cause.
void require_on_all_ranks(MPI_Comm comm, bool ok, const std::string& message_if_failed);

// Runs `step` on this rank, then every rank learns whether it threw anywhere: if so, all ranks
// throw the lowest failing rank's message. Use it around local work that precedes a collective.
template <class Step>
void run_collectively(MPI_Comm comm, Step&& step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& caught) {
    error = caught.what();
    if (error.empty()) error = "unknown error";
  } catch (...) {
    error = "unknown error";
  }
  require_on_all_ranks(comm, error.empty(), error);
}

}  // namespace kosmo::parallel
