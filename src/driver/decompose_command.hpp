#pragma once
// `kosmo decompose --nrank N [--ordering ksection|hilbert] [--grid G] [--load uniform|clusters]
// [--seed S]`: a dry run of the domain decomposition (seeds/000 §2, §8.6) on a synthetic weighted
// periodic G^3 grid, without launching N processes. Prints one JSON object on one line.
#include <iosfwd>
#include <string>
#include <vector>

namespace kosmo::driver {

struct DecomposeOptions {
  int nrank = 0;                      // required
  std::string ordering = "ksection";  // or "hilbert"
  int grid = 256;
  std::string load = "uniform";  // or "clusters" (the 20 Gaussian clusters of seeds/000 §8.6.3)
  unsigned long long seed = 42;  // cluster positions, amplitudes and widths
};

// `arguments` are the words after `decompose` (a leading "decompose" is skipped too). Throws
// kosmo::Error naming the bad flag or value.
DecomposeOptions parse_decompose_options(const std::vector<std::string>& arguments);

// Parses, runs the dry run, writes the JSON line to `out`; returns the process exit code (0).
int decompose_command(const std::vector<std::string>& arguments, std::ostream& out);

std::string decompose_usage();

}  // namespace kosmo::driver
