#pragma once
// Quality of a domain decomposition on a periodic G^3 owner map (seeds/000 §8.6.1, §8.6.3):
// communication partners, ghost ratio, surface to volume and load imbalance. One O(G^3) pass over
// the +x, +y, +z faces of every cell with flat arrays, so N = 10^5 ranks on 256^3 stays cheap.
#include <cstdint>
#include <span>

namespace kosmo::parallel {

struct DecompositionMetrics {
  // Partners of rank r: distinct other ranks owning a cell face-adjacent (periodic) to one of r's
  // cells. Mean and max over all ranks.
  double partners_mean = 0.0;
  int partners_max = 0;
  // W_max / W_mean, W_r the summed weight of r's cells and W_mean = W_total / N_rank.
  double imbalance = 0.0;
  // Per rank: (owned cells with at least one face neighbour on another rank) / (owned cells);
  // averaged over the ranks that own cells.
  double ghost_ratio = 0.0;
  // Per rank: (faces between one of r's cells and a cell of another rank) / (owned cells), each
  // such face counted once for each of the two ranks; averaged over the ranks that own cells.
  // In cell-face units: a cube of n^3 cells inside the domain has 6 n^2 / n^3 = 6 / n.
  double surface_to_volume = 0.0;
  int empty_ranks = 0;  // ranks owning no cell (excluded from the two averages above)
};

// `owner` holds the rank of cell (i, j, k) at flat index (k G + j) G + i, each in [0, nrank);
// `weight` the same cells' costs.
DecompositionMetrics measure_decomposition(std::span<const std::int32_t> owner, std::span<const double> weight,
                                           int grid, int nrank);

}  // namespace kosmo::parallel
