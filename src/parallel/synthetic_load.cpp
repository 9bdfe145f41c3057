// Synthetic loads of seeds/000 §8.6.3 and the prefix-sum cost source of the decompose dry run.
#include "parallel/synthetic_load.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"

namespace kosmo::parallel {

namespace {

double unit_uniform(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

std::size_t cell_count(int grid) {
  KOSMO_REQUIRE(grid >= 1, "synthetic load: the grid size must be >= 1, got " << grid);
  const auto g = static_cast<std::size_t>(grid);
  return g * g * g;
}

// First cell whose centre (i + 1/2) / G is >= x.
long long first_cell(double x, int grid) {
  return std::clamp(static_cast<long long>(std::ceil(x * grid - 0.5)), 0LL, static_cast<long long>(grid));
}

}  // namespace

std::vector<GaussianCluster> random_clusters(std::uint64_t seed, int count) {
  KOSMO_REQUIRE(count >= 0, "random_clusters: count must be >= 0, got " << count);
  std::mt19937_64 engine(seed);
  std::vector<GaussianCluster> clusters(count);
  for (GaussianCluster& cluster : clusters) {
    for (double& x : cluster.centre) x = unit_uniform(engine);
    cluster.amplitude = 10.0 + 90.0 * unit_uniform(engine);  // seeds/000 §8.6.3: 10-100
    cluster.sigma = 0.02 + 0.08 * unit_uniform(engine);      // seeds/000 §8.6.3: 0.02-0.10
  }
  return clusters;
}

std::vector<double> uniform_load(int grid) { return std::vector<double>(cell_count(grid), 1.0); }

std::vector<double> clustered_load(int grid, std::span<const GaussianCluster> clusters) {
  std::vector<double> weight(cell_count(grid), 1.0);
  const auto g = static_cast<std::size_t>(grid);
  // The Gaussian is separable: exp(-r^2/2s^2) = e_x(i) e_y(j) e_z(k), so one 1-D table per axis
  // makes the whole grid cost one multiply-add per cell and cluster.
  std::array<std::vector<double>, 3> profile;
  for (const GaussianCluster& cluster : clusters) {
    for (int d = 0; d < 3; ++d) {
      profile[d].resize(g);
      for (std::size_t i = 0; i < g; ++i) {
        double dx = (static_cast<double>(i) + 0.5) / grid - cluster.centre[d];
        dx -= std::round(dx);  // minimum image: sigma <= 0.1 leaves other images below e^-12
        profile[d][i] = std::exp(-dx * dx / (2.0 * cluster.sigma * cluster.sigma));
      }
    }
    for (std::size_t k = 0, c = 0; k < g; ++k)
      for (std::size_t j = 0; j < g; ++j) {
        const double yz = cluster.amplitude * profile[2][k] * profile[1][j];
        for (std::size_t i = 0; i < g; ++i, ++c) weight[c] += yz * profile[0][i];
      }
  }
  return weight;
}

GridCostSource::GridCostSource(std::span<const double> weights, int grid) : grid_(grid) {
  const std::size_t cells = cell_count(grid);
  KOSMO_REQUIRE(weights.size() == cells, "GridCostSource: expected " << cells << " weights, got " << weights.size());
  const auto g = static_cast<std::size_t>(grid), p = g + 1;
  prefix_.assign(p * p * p, 0.0);
  for (std::size_t k = 0; k < g; ++k)
    for (std::size_t j = 0; j < g; ++j)
      for (std::size_t i = 0; i < g; ++i) {
        const auto at = [p](std::size_t a, std::size_t b, std::size_t c) { return (c * p + b) * p + a; };
        prefix_[at(i + 1, j + 1, k + 1)] = weights[(k * g + j) * g + i] + prefix_[at(i, j + 1, k + 1)] +
                                           prefix_[at(i + 1, j, k + 1)] + prefix_[at(i + 1, j + 1, k)] -
                                           prefix_[at(i, j, k + 1)] - prefix_[at(i, j + 1, k)] -
                                           prefix_[at(i + 1, j, k)] + prefix_[at(i, j, k)];
      }
}

double GridCostSource::block_sum(std::array<long long, 3> b, std::array<long long, 3> e) const {
  for (int d = 0; d < 3; ++d)
    if (e[d] <= b[d]) return 0.0;
  const auto p = static_cast<long long>(grid_) + 1;
  const auto at = [this, p](long long a, long long bb, long long c) { return prefix_[(c * p + bb) * p + a]; };
  return at(e[0], e[1], e[2]) - at(b[0], e[1], e[2]) - at(e[0], b[1], e[2]) - at(e[0], e[1], b[2]) +
         at(b[0], b[1], e[2]) + at(b[0], e[1], b[2]) + at(e[0], b[1], b[2]) - at(b[0], b[1], b[2]);
}

void GridCostSource::histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) {
  for (const HistogramRequest& request : requests) {
    std::array<long long, 3> begin{}, end{};
    for (int d = 0; d < 3; ++d) {
      begin[d] = first_cell(request.box.lo[d], grid_);
      end[d] = first_cell(request.box.hi[d], grid_);
    }
    const int axis = request.axis;
    const double lo = request.box.lo[axis], width = request.box.extent(axis) / std::max(1, request.bins);
    for (int b = 0; b < request.bins; ++b) {
      std::array<long long, 3> bin_begin = begin, bin_end = end;
      bin_begin[axis] = std::max(begin[axis], first_cell(lo + b * width, grid_));
      bin_end[axis] = b + 1 == request.bins ? end[axis] : std::min(end[axis], first_cell(lo + (b + 1) * width, grid_));
      costs.push_back(block_sum(bin_begin, bin_end));
    }
  }
}

}  // namespace kosmo::parallel
