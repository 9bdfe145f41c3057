#pragma once
// The end of a run: peak resident memory (getrusage ru_maxrss, max over ranks), CPU time, the
// timers and, per exchange kind and rank, the messages, bytes and time spent waiting. Printed in the
// log and written as run_summary.json in the run's directory, which `kosmo bench scaling` reads
// (docs/benchmarks.md).
#include <mpi.h>

#include <ostream>
#include <string>
#include <vector>

#include "core/timers.hpp"
#include "parallel/sparse_exchange.hpp"

namespace kosmo::driver {

// One kind of exchange: a name for the report ("ghost_refresh", "mesh_changes", ...) and this
// rank's totals.
struct ExchangeKindTotals {
  std::string name;
  parallel::ExchangeStats stats;
};

struct RunFigures {
  long long coarse_steps = 0;
  double wall_seconds = 0.0;
  const core::Timers* timers = nullptr;  // rank 0's are reported
  std::vector<ExchangeKindTotals> exchanges;  // same kinds, same order, on every rank
};

// The distributed mesh's exchanges by kind (parallel::DistributedMeshStats): ghost refreshes of
// cell fields (owners -> ghosts), refinement flags, reverse accumulations (ghosts -> owners, and
// keyed records such as reflux contributions), and redistributions after mesh changes.
template <class Mesh>
std::vector<ExchangeKindTotals> mesh_exchange_kinds(const Mesh& mesh) {
  const auto& s = mesh.stats();
  return {{"ghost_refresh", s.forward},
          {"flags", s.flags},
          {"reverse_accumulate", s.reverse},
          {"mesh_changes", s.mesh_changes},
          {"redistribution", s.redistribute}};
}

// This process's peak resident set size in bytes (getrusage ru_maxrss).
double peak_resident_bytes();
// This process's CPU time (user + system, all threads) in seconds.
double process_cpu_seconds();

// Collective. Rank 0 prints the summary to `log` and writes `json_path` (empty: no file).
void report_run_summary(const RunFigures& figures, MPI_Comm comm, std::ostream& log, const std::string& json_path = "run_summary.json");

}  // namespace kosmo::driver
