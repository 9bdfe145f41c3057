#pragma once
// `kosmo bench hydro`: the uniform 64^3 Sedov blast and an adaptive Sedov blast (levelmin 5 to
// levelmax 8), timed over a fixed number of coarse steps; one JSON object per case on stdout.
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

void bench_hydro(MPI_Comm comm, std::ostream& out, int coarse_steps);

}  // namespace kosmo::driver
