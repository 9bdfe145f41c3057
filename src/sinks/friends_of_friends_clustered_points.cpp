#include "sinks/friends_of_friends_clustered_points.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kosmo::sinks {
namespace {

// Uniform number in [0, 1) from (seed, stream, counter): splitmix64 of the mixed key.
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + counter * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

double wrap(double x) {
  const double w = x - std::floor(x);
  return w < 1.0 ? w : 0.0;  // -1e-18 wraps to 1.0 in floating point
}

}  // namespace

ClusteredPoints clustered_points(std::int64_t count, double linking_length, std::uint64_t seed,
                                 std::int64_t points_per_clump) {
  const std::int64_t clumps = std::max<std::int64_t>(1, count / std::max<std::int64_t>(1, points_per_clump));
  ClusteredPoints points;
  points.x.resize(static_cast<std::size_t>(count));
  points.y.resize(static_cast<std::size_t>(count));
  points.z.resize(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto clump = static_cast<std::uint64_t>(i % clumps);
    const double sigma = linking_length * (0.3 + 0.7 * uniform(seed, 1, clump));
    double offset[3];
    for (std::uint64_t d = 0; d < 3; ++d) {  // Box–Muller, one normal deviate per axis
      const double u = 1.0 - uniform(seed, 2 + d, static_cast<std::uint64_t>(i));
      const double v = uniform(seed, 5 + d, static_cast<std::uint64_t>(i));
      offset[d] = sigma * std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
    }
    const auto k = static_cast<std::size_t>(i);
    points.x[k] = wrap(uniform(seed, 8, clump) + offset[0]);
    points.y[k] = wrap(uniform(seed, 9, clump) + offset[1]);
    points.z[k] = wrap(uniform(seed, 10, clump) + offset[2]);
  }
  return points;
}

}  // namespace kosmo::sinks
