#pragma once
// Sums per sink of values that cells of several ranks contribute (the gas of an accretion zone,
// what each cell gave to the sink), the same to the last bit on any rank count and thread count
// (docs/parallel.md): every rank gathers every contribution and adds them in the order of the
// contributing cells' identities (sink, level, Morton key, child), which no partition changes.
// Accretion zones hold tens of cells per sink, so gathering them costs little next to a level step.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace kosmo::sinks {

class SinkCellSums {
 public:
  explicit SinkCellSums(int width) : width_(width) {}
  int width() const { return width_; }
  // One cell's contribution to sink `sink`: `width` values.
  void add(std::uint64_t sink, int level, std::uint64_t key, int child, const double* values);
  // Every rank's contributions summed per sink in cell-identity order: sums[sink * width + k].
  // Collective over `comm` when `distributed`.
  std::vector<double> sum(std::size_t sink_count, MPI_Comm comm, bool distributed) const;

 private:
  int width_;
  std::vector<std::uint64_t> identities_;  // 4 per contribution: sink, level, key, child
  std::vector<double> values_;             // width per contribution
};

}  // namespace kosmo::sinks
