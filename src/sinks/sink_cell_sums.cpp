#include "sinks/sink_cell_sums.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace kosmo::sinks {
namespace {

template <class T>
std::vector<T> gather_everywhere(const std::vector<T>& local, MPI_Datatype type, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int count = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<T> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(local.data(), count, type, all.data(), counts.data(), offsets.data(), type, comm);
  return all;
}

}  // namespace

void SinkCellSums::add(std::uint64_t sink, int level, std::uint64_t key, int child, const double* values) {
  identities_.insert(identities_.end(), {sink, static_cast<std::uint64_t>(level), key, static_cast<std::uint64_t>(child)});
  values_.insert(values_.end(), values, values + width_);
}

std::vector<double> SinkCellSums::sum(std::size_t sink_count, MPI_Comm comm, bool distributed) const {
  const std::vector<std::uint64_t> identities = distributed ? gather_everywhere(identities_, MPI_UINT64_T, comm) : identities_;
  const std::vector<double> values = distributed ? gather_everywhere(values_, MPI_DOUBLE, comm) : values_;
  const std::size_t count = identities.size() / 4;
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto identity = [&](std::size_t i) {
    return std::array<std::uint64_t, 4>{identities[4 * i], identities[4 * i + 1], identities[4 * i + 2], identities[4 * i + 3]};
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return identity(a) < identity(b); });
  const auto width = static_cast<std::size_t>(width_);
  std::vector<double> sums(sink_count * width, 0.0);
  for (std::size_t i : order) {
    const std::size_t sink = static_cast<std::size_t>(identities[4 * i]);
    for (std::size_t k = 0; k < width; ++k) sums[sink * width + k] += values[i * width + k];
  }
  return sums;
}

}  // namespace kosmo::sinks
