#include "parallel/memory_usage.hpp"

#include <unistd.h>

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

}  // namespace kosmo::parallel
