#include "parallel/distributed_cost_source.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace kosmo::parallel {

DistributedCostSource::DistributedCostSource(MPI_Comm comm, std::vector<std::array<double, 3>> centres, std::vector<double> costs)
    : comm_(comm), centres_(std::move(centres)), costs_(std::move(costs)), previous_request_(centres_.size(), -1) {
  KOSMO_REQUIRE(centres_.size() == costs_.size(), "distributed cost source: " << centres_.size() << " centres but "
                                                                              << costs_.size() << " costs");
}

bool DistributedCostSource::inside(const Box& box, const std::array<double, 3>& x) {
  for (int d = 0; d < 3; ++d)
    if (x[d] < box.lo[d] || x[d] >= box.hi[d]) return false;
  return true;
}

void DistributedCostSource::histograms(std::span<const HistogramRequest> requests, std::vector<double>& costs) {
  std::vector<std::size_t> offsets(requests.size() + 1, 0);
  for (std::size_t r = 0; r < requests.size(); ++r) offsets[r + 1] = offsets[r] + static_cast<std::size_t>(std::max(0, requests[r].bins));
  std::vector<double> local(offsets.back(), 0.0);
  const bool children_of_previous = previous_count_ > 0 && requests.size() % previous_count_ == 0;
  const std::size_t k = children_of_previous ? requests.size() / previous_count_ : 0;
  for (std::size_t c = 0; c < centres_.size(); ++c) {
    int found = -1;
    if (children_of_previous && previous_request_[c] >= 0) {
      const std::size_t first = static_cast<std::size_t>(previous_request_[c]) * k;
      for (std::size_t r = first; r < first + k; ++r)
        if (inside(requests[r].box, centres_[c])) {
          found = static_cast<int>(r);
          break;
        }
    }
    if (found < 0) {  // first level, or an unexpected request layout: scan
      for (std::size_t r = 0; r < requests.size(); ++r)
        if (inside(requests[r].box, centres_[c])) {
          found = static_cast<int>(r);
          break;
        }
    }
    previous_request_[c] = found;
    if (found < 0) continue;
    const HistogramRequest& request = requests[static_cast<std::size_t>(found)];
    if (request.bins <= 0) continue;
    const int axis = request.axis;
    const double width = request.box.extent(axis) / request.bins;
    int bin = static_cast<int>(std::floor((centres_[c][axis] - request.box.lo[axis]) / width));
    bin = std::clamp(bin, 0, request.bins - 1);
    local[offsets[static_cast<std::size_t>(found)] + static_cast<std::size_t>(bin)] += costs_[c];
  }
  previous_count_ = requests.size();
  // seeds/000 §2.2 step 3: one reduction for the whole level.
  costs.assign(local.size(), 0.0);
  MPI_Allreduce(local.data(), costs.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, comm_);
}

}  // namespace kosmo::parallel
