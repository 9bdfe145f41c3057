#pragma once
// Spatial hash binning of supernova blasts (seeds/000 §6.2): a uniform grid of n_bin bins per axis
// over the box of the cells searched (a rank's own cells plus an r_max halo), with
// n_bin = max[1, min(128, floor(L / r_max))] per axis (eq. 11), so a bin is at least r_max wide and
// every blast that reaches a cell sits in one of the 3^3 bins around the cell's bin. The blasts of
// a bin are threaded in a linked list (head per bin, next per blast). A flag per bin says whether
// any of its 27 neighbours holds a blast, so cells far from every supernova cost one load.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace kosmo::feedback {

// One periodic image of a supernova event: its position (unused axes 0) and the event's slot in
// the identity-sorted event list; `image` numbers the event's images (0 the event itself).
struct BlastImage {
  std::array<double, 3> position{};
  std::int32_t event = 0;
  std::int32_t image = 0;
};

class SupernovaBins {
 public:
  static constexpr int max_bins_per_axis = 128;  // seeds/000 eq. 11

  // Bins over [lo, hi) (axes with lo == hi get one bin) for blasts of radius `rmax`.
  SupernovaBins(const std::array<double, 3>& lo, const std::array<double, 3>& hi, double rmax, std::span<const BlastImage> images);

  const std::array<int, 3>& bins_per_axis() const { return bins_; }

  // Calls visit(i) for every image i in the 27 bins around x's bin (positions outside the box
  // use the nearest bin, which still neighbours every bin a blast reaching x can sit in).
  template <class Visit>
  void for_each_candidate(const std::array<double, 3>& x, Visit&& visit) const {
    std::array<int, 3> b{};
    for (int d = 0; d < 3; ++d) b[d] = bin_along(d, x[d]);
    if (!neighbourhood_occupied(flat(b))) return;
    for (int i = b[0] - 1; i <= b[0] + 1; ++i) {
      if (i < 0 || i >= bins_[0]) continue;
      for (int j = b[1] - 1; j <= b[1] + 1; ++j) {
        if (j < 0 || j >= bins_[1]) continue;
        for (int k = b[2] - 1; k <= b[2] + 1; ++k) {
          if (k < 0 || k >= bins_[2]) continue;
          for (std::int32_t n = head_[flat({i, j, k})]; n >= 0; n = next_[static_cast<std::size_t>(n)]) visit(n);
        }
      }
    }
  }

 private:
  int bin_along(int axis, double x) const {
    const double u = (x - lo_[axis]) * inverse_width_[axis];
    if (!(u > 0.0)) return 0;
    return std::min(bins_[axis] - 1, static_cast<int>(u));
  }
  // One bit per bin, so the flags of a 128^3 grid (256 KB) stay in cache while most cells test them.
  bool neighbourhood_occupied(std::size_t bin) const { return (neighbourhood_occupied_[bin >> 6] >> (bin & 63)) & 1U; }
  std::size_t flat(const std::array<int, 3>& b) const {
    return (static_cast<std::size_t>(b[0]) * static_cast<std::size_t>(bins_[1]) + static_cast<std::size_t>(b[1])) *
               static_cast<std::size_t>(bins_[2]) +
           static_cast<std::size_t>(b[2]);
  }

  std::array<double, 3> lo_{};
  std::array<double, 3> inverse_width_{};
  std::array<int, 3> bins_{1, 1, 1};
  std::vector<std::int32_t> head_;  // first image of each bin, -1 when empty
  std::vector<std::int32_t> next_;  // next image of the same bin, -1 at the end
  std::vector<std::uint64_t> neighbourhood_occupied_;
};

}  // namespace kosmo::feedback
