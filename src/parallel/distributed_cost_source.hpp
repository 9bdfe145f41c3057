#pragma once
// The cost source of a real run (seeds/000 §2.2 step 3): every rank bins the cells it holds into
// the histograms of one tree level, and a single MPI_Allreduce per level sums them over ranks, so
// every rank places the same walls without any rank seeing the whole mesh.
#include <mpi.h>

#include <array>
#include <span>
#include <vector>

#include "parallel/ksection_tree.hpp"

namespace kosmo::parallel {

class DistributedCostSource final : public CostSource {
 public:
  // This rank's cells: centres (3 per cell, in the tree's domain coordinates) and costs.
  DistributedCostSource(MPI_Comm comm, std::vector<std::array<double, 3>> centres, std::vector<double> costs);

  void histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) override;

 private:
  static bool inside(const Box& box, const std::array<double, 3>& x);

  MPI_Comm comm_;
  std::vector<std::array<double, 3>> centres_;
  std::vector<double> costs_;
  // Request each cell fell into at the previous call. KSectionTree::build asks level by level and
  // splits every node into the same number of children stored contiguously, so a cell's next
  // request is one of the children of its previous one: k box tests instead of a scan of all
  // requests.
  std::vector<int> previous_request_;
  std::size_t previous_count_ = 0;
};

}  // namespace kosmo::parallel
