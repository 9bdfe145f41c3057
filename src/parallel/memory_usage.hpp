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

// Makes the C library map every allocation of at least `threshold_bytes` from the system and return
// it when freed (glibc mallopt M_MMAP_THRESHOLD, which also stops glibc from raising the threshold
// each time such a block is freed, as it does by default up to 32 MiB). Without it the arrays of
// an output, a regrid or a solve, once freed, stay in the process's heap and are counted in its
// resident memory until something reuses them (docs/performance.md, "Bytes per oct"). Returns
// false where the C library has no such setting.
bool return_large_blocks_to_system(std::size_t threshold_bytes);

}  // namespace kosmo::parallel
