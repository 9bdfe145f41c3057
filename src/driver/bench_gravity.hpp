#pragma once
// `kosmo bench gravity [--np N]`: the base-level Poisson solve on the distributed mesh with each
// solver (FFT gathered or in FFTW-MPI slabs, seeds/000 §5.2; octree multigrid, §5.1) on a random
// density at 64^3, 128^3 and 256^3; one JSON object per line on stdout (see docs/gravity.md).
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

void bench_gravity(MPI_Comm comm, std::ostream& out);

}  // namespace kosmo::driver
