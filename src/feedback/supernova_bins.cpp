#include "feedback/supernova_bins.hpp"

#include <algorithm>
#include <cmath>

namespace kosmo::feedback {

SupernovaBins::SupernovaBins(const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax,
                             std::span<const BlastImage> images)
    : lo_(lo) {
  for (int d = 0; d < 3; ++d) {
    const double length = hi[d] - lo[d];
    // eq. 11: the bins are at least rmax wide, and at most 128 per axis bound the memory.
    const double fit = rmax > 0.0 ? std::floor(length / rmax) : static_cast<double>(max_bins_per_axis);
    bins_[d] = length > 0.0 ? static_cast<int>(std::max(1.0, std::min(static_cast<double>(max_bins_per_axis), fit))) : 1;
    inverse_width_[d] = length > 0.0 ? static_cast<double>(bins_[d]) / length : 0.0;
  }
  const std::size_t total = static_cast<std::size_t>(bins_[0]) * static_cast<std::size_t>(bins_[1]) * static_cast<std::size_t>(bins_[2]);
  head_.assign(total, -1);
  neighbourhood_occupied_.assign((total + 63) / 64, 0);
  next_.assign(images.size(), -1);
  for (int d = 0; d < 3; ++d) super_bins_[d] = ((bins_[d] - 1) >> super_bin_shift) + 1;
  super_bin_occupied_.assign(static_cast<std::size_t>(super_bins_[0]) * static_cast<std::size_t>(super_bins_[1]) *
                                 static_cast<std::size_t>(super_bins_[2]),
                             0);
  // Pushed in reverse so each list runs in image order (the order does not change the results,
  // which are sorted by event, but it keeps the lists reproducible).
  for (std::size_t n = images.size(); n-- > 0;) {
    std::array<int, 3> b{};
    for (int d = 0; d < 3; ++d) b[d] = bin_along(d, images[n].position[d]);
    const std::size_t f = flat(b);
    next_[n] = head_[f];
    head_[f] = static_cast<std::int32_t>(n);
    super_bin_occupied_[flat_super({b[0] >> super_bin_shift, b[1] >> super_bin_shift, b[2] >> super_bin_shift})] = 1;
    for (int i = std::max(0, b[0] - 1); i <= std::min(bins_[0] - 1, b[0] + 1); ++i)
      for (int j = std::max(0, b[1] - 1); j <= std::min(bins_[1] - 1, b[1] + 1); ++j)
        for (int k = std::max(0, b[2] - 1); k <= std::min(bins_[2] - 1, b[2] + 1); ++k) {
          const std::size_t bin = flat({i, j, k});
          neighbourhood_occupied_[bin >> 6] |= std::uint64_t{1} << (bin & 63);
        }
  }
}

}  // namespace kosmo::feedback
