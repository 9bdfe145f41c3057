#pragma once
// `kosmo bench io`: write and read back kosmo snapshots of a uniform 3-D hydro mesh on however many
// ranks run it; one JSON object per mesh size on stdout (docs/outputs.md, "Throughput").
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

void bench_io(MPI_Comm comm, std::ostream& out);

}  // namespace kosmo::driver
