#pragma once
// Errors that must be raised on every rank at once: if one rank finds a problem in a step that
// precedes a collective operation, all ranks have to stop together or the others hang.
#include <mpi.h>

#include <string>

namespace kosmo::parallel {

// True on every rank when `condition` holds on at least one rank.
bool any_rank(MPI_Comm comm, bool condition);

// Throws kosmo::Error on every rank when `ok` is false on any rank. The message of the lowest
// failing rank is broadcast, so every rank reports the same cause.
void require_on_all_ranks(MPI_Comm comm, bool ok, const std::string& message_if_failed);

}  // namespace kosmo::parallel
