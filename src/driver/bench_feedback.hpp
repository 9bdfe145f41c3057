#pragma once
// `kosmo bench feedback`: RAMSES' average_SN and Sedov_blast with the spatial hash binning of
// seeds/000 §6.2 and with the all-pairs scan, side by side on an adaptive cell set like seeds/000
// §6.3's (levelmin 7 to levelmax 10, about 2000 simultaneous supernovae in the refined regions);
// one JSON object per routine on stdout (docs/galaxy.md "Supernova feedback").
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

// `repeats` timings of each routine and search; the medians are reported.
void bench_feedback(MPI_Comm comm, std::ostream& out, int repeats);

}  // namespace kosmo::driver
