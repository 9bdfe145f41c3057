#pragma once
// This process's rank in MPI_COMM_WORLD and the number of ranks, for the MPI tests.
#include <mpi.h>

namespace kosmo::test {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

}  // namespace kosmo::test
