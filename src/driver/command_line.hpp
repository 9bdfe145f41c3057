#pragma once
// The binary's command line: `kosmo run [NAMELIST] [--ndim D] [--patch DIR] [--snapshot-steps N,M,...]`, `kosmo check NAMELIST`, `kosmo bench NAME [--steps N] [--case C]`,
// `kosmo decompose ...`, `kosmo grafic NAMELIST DIRECTORY`, `kosmo help`, `kosmo version`.
#include <string>
#include <vector>

namespace kosmo::driver {

struct CommandLine {
  std::string command;   // "run", "check", "bench", "decompose", "help", "version"
  std::string namelist;  // empty: the built-in showcase problem
  int ndim = 0;          // 0: not given on the command line
  std::string patch;     // --patch DIR: a user patch (docs/patches.md); empty: none given
  // --snapshot-steps N,M,...: a snapshot after each of these coarse steps and the run's end after
  // the last (job control known in advance: trial runs and tests of unchanged namelists); empty: none.
  std::vector<long long> snapshot_steps;
  std::string bench;     // `kosmo bench NAME`: which benchmark
  int steps = 0;         // --steps N for benchmarks (0: the benchmark's default)
  std::string bench_case;  // --case NAME: `kosmo bench scaling` runs only this case
  std::vector<std::string> passthrough;  // `kosmo decompose ...`, `kosmo grafic ...`: its own arguments, parsed by that command
};

// Throws kosmo::Error with a usage hint on anything it does not understand.
CommandLine parse_command_line(const std::vector<std::string>& arguments);
std::string usage();

}  // namespace kosmo::driver
