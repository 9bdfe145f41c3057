// The k-section tree built from cells spread over the ranks (one MPI_Allreduce of histograms per
// level) is the same tree as the one built from the whole grid in one process.
#include <gtest/gtest.h>
#include <mpi.h>

#include "parallel/distributed_cost_source.hpp"
#include "parallel/synthetic_load.hpp"

using namespace kosmo::parallel;

TEST(DistributedCostSource, TreeEqualsTheSingleProcessTree) {
  int rank = 0, nrank = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nrank);
  constexpr int grid = 32;
  const std::vector<double> weights = clustered_load(grid, random_clusters(7, 20));
  // Cells dealt to ranks round-robin in blocks of 17: every rank holds scattered pieces.
  std::vector<std::array<double, 3>> centres;
  std::vector<double> costs;
  for (int i = 0; i < grid * grid * grid; ++i) {
    if ((i / 17) % nrank != rank) continue;
    const int x = i % grid, y = (i / grid) % grid, z = i / (grid * grid);
    centres.push_back({(x + 0.5) / grid, (y + 0.5) / grid, (z + 0.5) / grid});
    costs.push_back(weights[static_cast<std::size_t>(i)]);
  }
  for (int decomposition_ranks : {12, 64, 96}) {
    DistributedCostSource distributed(MPI_COMM_WORLD, centres, costs);
    GridCostSource whole(weights, grid);
    WallSettings settings;
    settings.bins_per_domain = grid;
    const KSectionTree a = KSectionTree::build(decomposition_ranks, Box{}, distributed, settings);
    const KSectionTree b = KSectionTree::build(decomposition_ranks, Box{}, whole, settings);
    ASSERT_EQ(a.node_count(), b.node_count());
    for (int node = 0; node < a.node_count(); ++node) {
      const auto wa = a.walls(node), wb = b.walls(node);
      ASSERT_EQ(wa.size(), wb.size());
      for (std::size_t j = 0; j < wa.size(); ++j) ASSERT_EQ(wa[j], wb[j]) << "node " << node << " wall " << j;
    }
  }
}
