#include "driver/bench_fof.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <ostream>
#include <vector>

#include "sinks/friends_of_friends.hpp"
#include "sinks/friends_of_friends_clustered_points.hpp"
#include "sinks/friends_of_friends_partition.hpp"

namespace kosmo::driver {
namespace {

using sinks::FriendsOfFriendsBackend;

// Linking length r_merge·Δx_min with RAMSES' r_merge = 4 cells at levelmax 13 (box units).
constexpr double kLinkingLength = 4.0 / 8192.0;
constexpr std::uint64_t kSeed = 20260407;
constexpr std::int64_t kBruteForceLimit = 100000;
constexpr std::int64_t kBruteForceRepeatLimit = 10000;

struct Timing {
  double wall = 0.0, cpu = 0.0;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Result {
  Timing median;
  std::vector<std::int64_t> labels;
};

Result run(const sinks::ClusteredPoints& points, FriendsOfFriendsBackend backend, int repeats) {
  std::vector<Timing> timings;
  Result result;
  for (int r = 0; r < repeats; ++r) {
    const double cpu = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    result.labels = sinks::friends_of_friends_groups(points.view(), kLinkingLength, backend);
    timings.push_back(
        {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), process_cpu_seconds() - cpu});
  }
  auto middle = [&](double Timing::*field) {
    std::vector<double> values;
    for (const Timing& t : timings) values.push_back(t.*field);
    std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2), values.end());
    return values[values.size() / 2];
  };
  result.median = {middle(&Timing::wall), middle(&Timing::cpu)};
  return result;
}

const char* name(FriendsOfFriendsBackend backend) {
  switch (backend) {
    case FriendsOfFriendsBackend::brute_force:
      return "brute_force";
    case FriendsOfFriendsBackend::tree:
      return "tree";
    case FriendsOfFriendsBackend::cell_list:
      return "cell_list";
    case FriendsOfFriendsBackend::automatic:
      break;
  }
  return "automatic";
}

void print(std::ostream& out, FriendsOfFriendsBackend backend, std::int64_t n, int repeats, const Result& result,
           const Result* brute, const char* reference, bool identical) {
  char speedup[64] = "null", cpu_speedup[64] = "null";
  if (brute != nullptr) {
    std::snprintf(speedup, sizeof speedup, "%.1f", brute->median.wall / result.median.wall);
    std::snprintf(cpu_speedup, sizeof cpu_speedup, "%.1f", brute->median.cpu / result.median.cpu);
  }
  char line[640];
  std::snprintf(line, sizeof line,
                "{\"bench\": \"fof\", \"backend\": \"%s\", \"points\": %lld, \"linking_length\": %.6g, \"threads\": "
                "%d, \"repeats\": %d, "
                "\"seconds\": %.6f, \"cpu_seconds\": %.6f, \"groups\": %lld, \"speedup_vs_brute\": %s, "
                "\"cpu_speedup_vs_brute\": %s, "
                "\"reference\": \"%s\", \"partition_identical\": %s}\n",
                name(backend), static_cast<long long>(n), kLinkingLength, omp_get_max_threads(), repeats,
                result.median.wall, result.median.cpu, static_cast<long long>(sinks::count_groups(result.labels)),
                speedup, cpu_speedup, reference, identical ? "true" : "false");
  out << line << std::flush;
}

}  // namespace

void bench_fof(MPI_Comm comm, std::ostream& out, int repeats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (std::int64_t n = 100; n <= 1000000; n *= 10) {
    const sinks::ClusteredPoints points = sinks::clustered_points(n, kLinkingLength, kSeed);
    const bool with_brute = n <= kBruteForceLimit;
    const int brute_repeats = n <= kBruteForceRepeatLimit ? repeats : 1;
    const Result tree = run(points, FriendsOfFriendsBackend::tree, repeats);
    const Result cell_list = run(points, FriendsOfFriendsBackend::cell_list, repeats);
    Result brute;
    if (with_brute) brute = run(points, FriendsOfFriendsBackend::brute_force, brute_repeats);
    const std::vector<std::int64_t>& reference = with_brute ? brute.labels : tree.labels;
    const char* reference_name = with_brute ? "brute_force" : "tree";
    if (rank != 0) continue;
    if (with_brute)
      print(out, FriendsOfFriendsBackend::brute_force, n, brute_repeats, brute, &brute, reference_name, true);
    print(out, FriendsOfFriendsBackend::tree, n, repeats, tree, with_brute ? &brute : nullptr, reference_name,
          sinks::same_partition(tree.labels, reference));
    print(out, FriendsOfFriendsBackend::cell_list, n, repeats, cell_list, with_brute ? &brute : nullptr, reference_name,
          sinks::same_partition(cell_list.labels, reference));
  }
}

}  // namespace kosmo::driver
