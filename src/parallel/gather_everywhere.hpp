#pragma once
// Every rank's items on every rank, in rank order: one MPI_Allgather of the counts and one
// MPI_Allgatherv of the items. For the small per-step lists (new stars, sink candidates, seeded
// tracer cells, sink cell sums) that every rank then sorts into the same global order, so that the
// result does not depend on the rank count.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace kosmo::parallel {

template <class T>
MPI_Datatype mpi_datatype_of() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else static_assert(sizeof(T) == 0, "gather_everywhere: no MPI datatype for this item type");
}

template <class T>
std::vector<T> gather_everywhere(const std::vector<T>& local, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int count = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<T> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  const MPI_Datatype type = mpi_datatype_of<T>();
  MPI_Allgatherv(local.data(), count, type, all.data(), counts.data(), offsets.data(), type, comm);
  return all;
}

}  // namespace kosmo::parallel
