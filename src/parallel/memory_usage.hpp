#pragma once
// Resident memory of this process and its minimum and maximum over the ranks of a communicator
// (seeds/000 App. C: writemem_minmax, reported at each coarse step).
#include <mpi.h>

#include <cstddef>

namespace kosmo::parallel {

// Resident set size of this process in bytes (Linux /proc/self/statm); 0 where unavailable.
std::size_t resident_bytes();

struct MemoryRange {
  double min_bytes = 0.0;
  double max_bytes = 0.0;
};

// Collective: every rank of `comm` must call it.
MemoryRange resident_memory_range(MPI_Comm comm);

}  // namespace kosmo::parallel
