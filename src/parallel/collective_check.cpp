#include "parallel/collective_check.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"

namespace kosmo::parallel {

bool any_rank(MPI_Comm comm, bool condition) {
  int local = condition ? 1 : 0, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, comm);
  return global != 0;
}

void require_on_all_ranks(MPI_Comm comm, bool ok, const std::string& message_if_failed) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nrank);
  const int mine = ok ? nrank : rank;
  int first_failed = nrank;
  MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == nrank) return;
  int length = rank == first_failed ? static_cast<int>(message_if_failed.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first_failed, comm);
  std::string message(static_cast<std::size_t>(length), '\0');
  if (rank == first_failed) message = message_if_failed;
  MPI_Bcast(message.data(), length, MPI_CHAR, first_failed, comm);
  throw CollectiveError("rank " + std::to_string(first_failed) + ": " + message);
}

}  // namespace kosmo::parallel
