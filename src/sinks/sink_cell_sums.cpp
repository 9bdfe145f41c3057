#include "sinks/sink_cell_sums.hpp"

#include "parallel/gather_everywhere.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace kosmo::sinks {
void SinkCellSums::add(std::uint64_t sink, int level, std::uint64_t key, int child, const double* values) {
  identities_.insert(identities_.end(), {sink, static_cast<std::uint64_t>(level), key, static_cast<std::uint64_t>(child)});
  values_.insert(values_.end(), values, values + width_);
}

std::vector<double> SinkCellSums::sum(std::size_t sink_count, MPI_Comm comm, bool distributed) const {
  const std::vector<std::uint64_t> identities = distributed ? parallel::gather_everywhere(identities_, comm) : identities_;
  const std::vector<double> values = distributed ? parallel::gather_everywhere(values_, comm) : values_;
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
