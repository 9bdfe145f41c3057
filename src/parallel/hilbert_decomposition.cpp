#include "parallel/hilbert_decomposition.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "parallel/hilbert_curve.hpp"

namespace kosmo::parallel {
namespace {

constexpr std::uint64_t key_count = std::uint64_t{1} << (3 * HilbertDecomposition::order);

}  // namespace

HilbertDecomposition::HilbertDecomposition(const Box& domain, std::vector<std::uint64_t> bounds)
    : domain_(domain), bounds_(std::move(bounds)) {
  side_ = std::max({domain.extent(0), domain.extent(1), domain.extent(2)});
}

HilbertDecomposition HilbertDecomposition::from_bounds(const Box& domain, std::vector<std::uint64_t> bounds) {
  KOSMO_REQUIRE(bounds.size() >= 2 && bounds.front() == 0 && bounds.back() == key_count &&
                    std::is_sorted(bounds.begin(), bounds.end()),
                "Hilbert decomposition: stored bound keys are not a sorted cover of the curve");
  return HilbertDecomposition(domain, std::move(bounds));
}

std::uint64_t HilbertDecomposition::key(std::array<double, 3> point) const {
  std::array<std::uint32_t, 3> cell{};
  const double cells = static_cast<double>(1u << order);
  for (int d = 0; d < 3; ++d) {
    const double extent = domain_.extent(d);
    double x = std::fmod(point[d] - domain_.lo[d], extent);
    if (x < 0.0) x += extent;
    const double scaled = std::floor(x / side_ * cells);
    cell[d] = static_cast<std::uint32_t>(std::clamp(scaled, 0.0, cells - 1.0));
  }
  return hilbert_key(cell, order);
}

int HilbertDecomposition::owner_of_key(std::uint64_t key) const {
  // Rank r owns [bounds_[r], bounds_[r + 1]).
  const auto it = std::upper_bound(bounds_.begin() + 1, bounds_.end() - 1, key);
  return static_cast<int>(it - (bounds_.begin() + 1));
}

HilbertDecomposition HilbertDecomposition::uniform(int nrank, const Box& domain) {
  KOSMO_REQUIRE(nrank >= 1, "Hilbert decomposition: nrank must be >= 1");
  HilbertDecomposition probe(domain, {0, key_count});
  // A uniform sample of the domain, 64 points along each non-degenerate axis.
  std::vector<std::uint64_t> keys;
  std::array<int, 3> n{};
  for (int d = 0; d < 3; ++d) n[d] = domain.extent(d) >= 1e-6 * probe.side_ ? 64 : 1;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const std::array<int, 3> index{i, j, k};
        std::array<double, 3> p{};
        for (int d = 0; d < 3; ++d) p[d] = domain.lo[d] + (index[d] + 0.5) / n[d] * domain.extent(d);
        keys.push_back(probe.key(p));
      }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> bounds(static_cast<std::size_t>(nrank) + 1, 0);
  bounds.back() = key_count;
  for (int r = 1; r < nrank; ++r) bounds[static_cast<std::size_t>(r)] = keys[keys.size() * static_cast<std::size_t>(r) / static_cast<std::size_t>(nrank)];
  return HilbertDecomposition(domain, std::move(bounds));
}

HilbertDecomposition HilbertDecomposition::balanced(MPI_Comm comm, const Box& domain, std::span<const std::array<double, 3>> points,
                                                    std::span<const double> costs) {
  int nrank = 1;
  MPI_Comm_size(comm, &nrank);
  HilbertDecomposition probe(domain, {0, key_count});
  std::vector<std::pair<std::uint64_t, double>> items;
  items.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) items.emplace_back(probe.key(points[i]), costs[i]);
  std::sort(items.begin(), items.end());
  std::vector<double> prefix(items.size() + 1, 0.0);
  for (std::size_t i = 0; i < items.size(); ++i) prefix[i + 1] = prefix[i] + items[i].second;
  double total = prefix.back();
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  auto local_cost_below = [&](std::uint64_t key) {
    const auto it = std::lower_bound(items.begin(), items.end(), std::make_pair(key, -1e300));
    return prefix[static_cast<std::size_t>(it - items.begin())];
  };
  // Bisection of all N - 1 bounds at once: invariant cost(< lo) < target <= cost(< hi).
  const auto m = static_cast<std::size_t>(std::max(nrank - 1, 0));
  std::vector<std::uint64_t> lo(m, 0), hi(m, key_count);
  std::vector<double> below(m);
  for (int bit = 0; bit <= 3 * order && m > 0; ++bit) {
    for (std::size_t r = 0; r < m; ++r) below[r] = local_cost_below(lo[r] + (hi[r] - lo[r]) / 2);
    MPI_Allreduce(MPI_IN_PLACE, below.data(), static_cast<int>(m), MPI_DOUBLE, MPI_SUM, comm);
    for (std::size_t r = 0; r < m; ++r) {
      const std::uint64_t mid = lo[r] + (hi[r] - lo[r]) / 2;
      const double target = total * static_cast<double>(r + 1) / nrank;
      if (hi[r] - lo[r] <= 1) continue;
      if (below[r] >= target) hi[r] = mid;
      else lo[r] = mid;
    }
  }
  std::vector<std::uint64_t> bounds(static_cast<std::size_t>(nrank) + 1, 0);
  bounds.back() = key_count;
  for (std::size_t r = 0; r < m; ++r) bounds[r + 1] = std::max(hi[r], bounds[r]);
  return HilbertDecomposition(domain, std::move(bounds));
}

std::vector<int> HilbertDecomposition::ranks_overlapping(const Box& box) const {
  std::vector<int> ranks;
  struct Cube {
    int depth;
    std::array<std::uint32_t, 3> index;  // sub-cube coordinates at this depth
  };
  for (const Box& piece : periodic_images(box, domain_)) {
    std::vector<Cube> stack{{0, {0, 0, 0}}};
    while (!stack.empty()) {
      const Cube cube = stack.back();
      stack.pop_back();
      const double width = side_ / static_cast<double>(1u << cube.depth);
      bool overlaps = true;
      for (int d = 0; d < 3; ++d) {
        const double lo = domain_.lo[d] + cube.index[d] * width;
        overlaps = overlaps && piece.lo[d] < lo + width && lo < piece.hi[d] && lo < domain_.hi[d];
      }
      if (!overlaps) continue;
      // The sub-cube's keys are one contiguous range: the prefix property of the curve.
      const int shift = 3 * (order - cube.depth);
      const std::uint64_t first = hilbert_key(cube.index, std::max(cube.depth, 1)) << shift;
      const std::uint64_t first_key = cube.depth == 0 ? 0 : first;
      const std::uint64_t last_key = cube.depth == 0 ? key_count - 1 : first_key + (std::uint64_t{1} << shift) - 1;
      const int r0 = owner_of_key(first_key), r1 = owner_of_key(last_key);
      if (r0 == r1 || cube.depth == order) {
        for (int r = r0; r <= r1; ++r) ranks.push_back(r);
        continue;
      }
      for (int child = 0; child < 8; ++child) {
        Cube c{cube.depth + 1, {}};
        for (int d = 0; d < 3; ++d) c.index[d] = 2 * cube.index[d] + ((child >> d) & 1);
        stack.push_back(c);
      }
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace kosmo::parallel
