#pragma once
// `kosmo bench agn`: the AGN feedback kernels average_AGN and AGN_blast (sinks/agn_kernels.hpp) with
// the spatial hash binning of seeds/000 §6.2 and with the all-pairs scan, side by side at about
// 30 000 simultaneous AGN (seeds/000 §6.3: 30x and 14x at about 32 000), on the adaptive cell set of
// `kosmo bench feedback` (driver/bench_cell_set.hpp); one JSON object per routine on stdout
// (docs/galaxy.md "AGN feedback").
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

// `repeats` timings of each routine and search; the medians are reported.
void bench_agn(MPI_Comm comm, std::ostream& out, int repeats);

}  // namespace kosmo::driver
