#pragma once
// `kosmo bench gravity`: the periodic base-level Poisson solvers (FFT, seeds/000 §5.2; multigrid
// V-cycle, §5.1) on a random neutral density at 64^3, 128^3 and 256^3; one JSON object per line on
// stdout (see docs/gravity.md). One MPI rank: the solvers have no MPI yet.
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

void bench_gravity(MPI_Comm comm, std::ostream& out);

}  // namespace kosmo::driver
