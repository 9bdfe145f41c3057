#pragma once
#include <mpi.h>
// What a run prints about its mesh: one summary line per level and the memory per oct.
#include <string>

#include "core/oct_tree.hpp"

namespace kosmo::driver {

// RAMSES-style lines: " Level  3 has        8 octs        64 cells        56 leaves  dx= 1.2500E-01".
// Counts the octs each rank owns, summed over `comm` (collective) unless comm is MPI_COMM_NULL.
template <int D, class Key>
std::string level_summary(const core::OctTree<D, Key>& tree, MPI_Comm comm = MPI_COMM_NULL);

// Bytes per oct in use by array, and the same mesh with 5 hydro variables in two time levels.
template <int D, class Key>
std::string memory_summary(const core::OctTree<D, Key>& tree);

}  // namespace kosmo::driver
