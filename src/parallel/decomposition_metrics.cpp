// Partners, ghost ratio, surface to volume and imbalance of a G^3 owner map (seeds/000 §8.6).
#include "parallel/decomposition_metrics.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace kosmo::parallel {

DecompositionMetrics measure_decomposition(std::span<const std::int32_t> owner, std::span<const double> weight,
                                           int grid, int nrank) {
  KOSMO_REQUIRE(grid >= 1, "measure_decomposition: the grid size must be >= 1, got " << grid);
  KOSMO_REQUIRE(nrank >= 1, "measure_decomposition: the number of ranks must be >= 1, got " << nrank);
  const auto g = static_cast<std::size_t>(grid);
  const std::size_t cells = g * g * g;
  KOSMO_REQUIRE(owner.size() == cells && weight.size() == cells, "measure_decomposition: expected "
                                                                     << cells << " owners and weights, got "
                                                                     << owner.size() << " and " << weight.size());
  // Validate first: the face pass below indexes per-rank arrays by the neighbours' owners too.
  for (std::size_t c = 0; c < cells; ++c)
    KOSMO_REQUIRE(owner[c] >= 0 && owner[c] < nrank,
                  "measure_decomposition: cell " << c << " has owner " << owner[c] << " outside [0, " << nrank << ")");
  std::vector<long long> owned(nrank, 0), boundary_cells(nrank, 0), faces(nrank, 0);
  std::vector<double> load(nrank, 0.0);
  std::vector<std::uint8_t> is_boundary(cells, 0);
  // Each unordered pair of touching ranks, packed as (min << 32 | max); consecutive duplicates are
  // dropped on the fly (a wall repeats the same pair along its whole length), the rest sorted.
  std::vector<std::uint64_t> pairs;
  auto touch = [&](std::size_t a, std::size_t b) {
    const std::int32_t ra = owner[a], rb = owner[b];
    if (ra == rb) return;
    ++faces[ra];
    ++faces[rb];
    is_boundary[a] = is_boundary[b] = 1;
    const std::uint64_t pair = (std::uint64_t(std::min(ra, rb)) << 32) | std::uint64_t(std::max(ra, rb));
    if (pairs.empty() || pairs.back() != pair) pairs.push_back(pair);
  };
  for (std::size_t k = 0, c = 0; k < g; ++k)
    for (std::size_t j = 0; j < g; ++j)
      for (std::size_t i = 0; i < g; ++i, ++c) {
        const std::int32_t r = owner[c];
        ++owned[r];
        load[r] += weight[c];
        // Periodic +x, +y, +z neighbours: every face of the torus visited exactly once.
        touch(c, (k * g + j) * g + (i + 1) % g);
        touch(c, (k * g + (j + 1) % g) * g + i);
        touch(c, (((k + 1) % g) * g + j) * g + i);
      }
  for (std::size_t c = 0; c < cells; ++c) boundary_cells[owner[c]] += is_boundary[c];
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<int> partners(nrank, 0);
  for (std::uint64_t pair : pairs) {
    ++partners[pair >> 32];
    ++partners[pair & 0xffffffffu];
  }

  DecompositionMetrics metrics;
  double total_load = 0.0, max_load = 0.0, ghost_sum = 0.0, surface_sum = 0.0, partner_sum = 0.0;
  int occupied = 0;
  for (int r = 0; r < nrank; ++r) {
    partner_sum += partners[r];
    metrics.partners_max = std::max(metrics.partners_max, partners[r]);
    total_load += load[r];
    max_load = std::max(max_load, load[r]);
    if (owned[r] == 0) {
      ++metrics.empty_ranks;
      continue;
    }
    ++occupied;
    ghost_sum += static_cast<double>(boundary_cells[r]) / static_cast<double>(owned[r]);
    surface_sum += static_cast<double>(faces[r]) / static_cast<double>(owned[r]);
  }
  metrics.partners_mean = partner_sum / nrank;
  metrics.imbalance = total_load > 0.0 ? max_load / (total_load / nrank) : 0.0;
  metrics.ghost_ratio = occupied > 0 ? ghost_sum / occupied : 0.0;
  metrics.surface_to_volume = occupied > 0 ? surface_sum / occupied : 0.0;
  return metrics;
}

}  // namespace kosmo::parallel
