#pragma once
// `kosmo bench fof`: the friends-of-friends sink merger's backends (seeds/000 §6.4, Fig. 5) on
// clustered sinks, N = 10² to 10⁶; one JSON object per backend and N on stdout (docs/galaxy.md
// "Sink merging (friends of friends)").
#include <mpi.h>

#include <iosfwd>

namespace kosmo::driver {

// `repeats` timings of the tree and cell-list backends (medians reported); brute force up to 10⁵
// points, timed `repeats` times up to 10⁴ and once above.
void bench_fof(MPI_Comm comm, std::ostream& out, int repeats);

}  // namespace kosmo::driver
