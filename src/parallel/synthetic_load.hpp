#pragma once
// Synthetic cell weights on a periodic G^3 unit box for the `kosmo decompose` dry run and the
// decomposition tests: uniform, or the 20 Gaussian clusters of seeds/000 §8.6.3 (amplitude 10-100,
// width sigma = 0.02-0.10, on a unit background). Plus the cost source that answers the k-section
// wall placement from a 3-D prefix sum of such a grid.
#include <cstdint>
#include <span>
#include <vector>

#include "parallel/ksection_tree.hpp"

namespace kosmo::parallel {

struct GaussianCluster {
  std::array<double, 3> centre{};  // in the unit box
  double amplitude = 0.0;          // peak weight above the background
  double sigma = 0.0;              // in box units
};

// The 20 clusters of seeds/000 §8.6.3, drawn reproducibly from `seed` (a fixed 64-bit generator and
// our own uniform mapping, so the same seed gives the same clusters with any standard library).
std::vector<GaussianCluster> random_clusters(std::uint64_t seed, int count = 20);

// Weight 1 in every cell; cell (i, j, k) at flat index (k G + j) G + i.
std::vector<double> uniform_load(int grid);

// 1 + sum_c A_c exp(-r^2 / (2 sigma_c^2)) at each cell centre, r the periodic (minimum-image)
// distance to the cluster centre.
std::vector<double> clustered_load(int grid, std::span<const GaussianCluster> clusters);

// Histograms of a G^3 weight grid over the unit box, each bin in O(1) from a 3-D prefix sum. A cell
// belongs to the box and bin holding its centre.
class GridCostSource final : public CostSource {
 public:
  GridCostSource(std::span<const double> weights, int grid);
  void histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) override;

  // Sum of the weights of cells [i0, i1) x [j0, j1) x [k0, k1).
  double block_sum(std::array<long long, 3> begin, std::array<long long, 3> end) const;

 private:
  int grid_;
  std::vector<double> prefix_;  // (G + 1)^3, prefix_[0, *, *] = ... = 0
};

}  // namespace kosmo::parallel
