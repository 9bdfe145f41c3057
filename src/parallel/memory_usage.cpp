#include "parallel/memory_usage.hpp"

#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fstream>

namespace kosmo::parallel {

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t total_pages = 0, resident_pages = 0;
  if (!(statm >> total_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

MemoryRange resident_memory_range(MPI_Comm comm) {
  const double mine = static_cast<double>(resident_bytes());
  MemoryRange range;
  MPI_Allreduce(&mine, &range.min_bytes, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&mine, &range.max_bytes, 1, MPI_DOUBLE, MPI_MAX, comm);
  return range;
}

bool return_large_blocks_to_system(std::size_t threshold_bytes) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
  return mallopt(M_MMAP_THRESHOLD, static_cast<int>(threshold_bytes)) == 1;
#else
  (void)threshold_bytes;
  return false;
#endif
}

}  // namespace kosmo::parallel
