#pragma once
// A fresh directory for the tests of all ranks of MPI_COMM_WORLD: rank 0 creates it (mkdtemp) and
// broadcasts its name; removal waits for every rank first. Collective.
#include <mpi.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kosmo::test {

inline std::filesystem::path make_shared_temporary_directory(const std::string& prefix) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string path;
  if (rank == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory " + pattern);
    path = pattern;
  }
  int length = static_cast<int>(path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(length));
  MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

inline void remove_shared_temporary_directory(const std::filesystem::path& directory) {
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::filesystem::remove_all(directory);
}

}  // namespace kosmo::test
