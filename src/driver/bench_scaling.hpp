#pragma once
// `kosmo bench scaling`: strong scaling on this machine. Three cases — the adaptive 3-D Sedov blast
// (levelmin 5 -> levelmax 8, to t = 3e-3), a short 64^3 dark-matter box and a short showcase box —
// each run at 1x1, 2x1 and 1x2 (ranks x threads) by launching `mpirun -np R` on this binary with
// OMP_NUM_THREADS=T in a temporary directory. Each run leaves run_summary.json (driver/run_summary);
// the bench prints one JSON object per run: case, ranks, threads, seconds (wall, launch included),
// cpu_seconds, speedup against 1x1 of the same case, peak memory, the timers, and per rank per
// coarse step the messages and bytes of each exchange kind (docs/benchmarks.md).
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/json_value.hpp"

namespace kosmo::driver {

struct ScalingCase {
  std::string name;
  std::string namelist;
};

struct ScalingLayout {
  int ranks = 1;
  int threads = 1;
};

struct ScalingOptions {
  std::string only_case;  // empty: every case
  int steps = 0;          // > 0: nstepmax of the two cosmological cases (else their defaults)
};

// The cases, their namelists complete (the Sedov blast runs to its end time, the boxes to nstepmax).
std::vector<ScalingCase> scaling_cases(int steps);
// 1x1 first: the others' speedups are against it.
std::vector<ScalingLayout> scaling_layouts();

// The bench's line for one run from the run's summary (run_summary.json); `baseline_seconds` is the
// 1x1 wall time of the same case (0: unknown; then the speedup is null, or 1 for the 1x1 run itself).
std::string scaling_result_json(const std::string& case_name, ScalingLayout layout, double seconds, double baseline_seconds,
                                const JsonValue& summary);

// Runs the cases (rank 0 of nothing: a plain process, before MPI is initialised) and prints one line
// per run to `out`; progress and failures go to `err`. Returns false if any run failed.
bool bench_scaling(const ScalingOptions& options, std::ostream& out, std::ostream& err);

}  // namespace kosmo::driver
