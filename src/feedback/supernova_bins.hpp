#pragma once
// Spatial hash binning of supernova blasts (seeds/000 §6.2): a uniform grid of n_bin bins per axis
// over the box of the cells searched (a rank's own cells plus an r_max halo), with
// n_bin = max[1, min(128, floor(L / r_max))] per axis (eq. 11), so a bin is at least r_max wide and
// every blast that reaches a cell sits in one of the 3^3 bins around the cell's bin. The blasts of
// a bin are threaded in a linked list (head per bin, next per blast). The search asks for a box
// (an oct's or a group of octs' cell centres grown by r_max) rather than a point: the bins the box
// overlaps are a subset of the union of its cells' 27-bin neighbourhoods. A flag per bin says
// whether any of its 27 neighbours holds a blast, and one per super-bin of 8^3 bins whether it
// holds one, so the octs far from every supernova — most of the mesh — cost a bit or two.
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

  // False when no blast image lies in [box_lo, box_hi] (true may still find none): one bit per
  // super-bin of 8^3 bins, so a box of a few bins costs a few bits.
  bool may_hold_blast(const std::array<double, 3>& box_lo, const std::array<double, 3>& box_hi) const {
    std::array<int, 3> first{}, last{};
    for (int d = 0; d < 3; ++d) {
      first[d] = bin_along(d, box_lo[d]) >> super_bin_shift;
      last[d] = bin_along(d, box_hi[d]) >> super_bin_shift;
    }
    for (int i = first[0]; i <= last[0]; ++i)
      for (int j = first[1]; j <= last[1]; ++j)
        for (int k = first[2]; k <= last[2]; ++k)
          if (super_bin_occupied_[flat_super({i, j, k})]) return true;
    return false;
  }

  // Whether [box_lo, box_hi] overlaps at most three bins along every axis.
  bool spans_at_most_three_bins(const std::array<double, 3>& box_lo, const std::array<double, 3>& box_hi) const {
    for (int d = 0; d < 3; ++d)
      if (bin_along(d, box_hi[d]) - bin_along(d, box_lo[d]) > 2) return false;
    return true;
  }

  // Calls visit(i) for every image i in the bins that [box_lo, box_hi] overlaps (an oct's cell
  // centres grown by r_max: a subset of the union of its cells' 27-bin neighbourhoods). Ends after
  // one bit when the box spans at most three bins per axis and none of them holds a blast, as the
  // octs far from every supernova — most of the mesh — do.
  template <class Visit>
  void for_each_candidate_in(const std::array<double, 3>& box_lo, const std::array<double, 3>& box_hi, Visit&& visit) const {
    std::array<int, 3> first{}, last{};
    bool narrow = true;
    for (int d = 0; d < 3; ++d) {
      first[d] = bin_along(d, box_lo[d]);
      last[d] = bin_along(d, box_hi[d]);
      narrow = narrow && last[d] - first[d] <= 2;
    }
    if (narrow) {
      std::array<int, 3> middle{};
      for (int d = 0; d < 3; ++d) middle[d] = std::min(first[d] + 1, bins_[d] - 1);
      if (!neighbourhood_occupied(flat(middle))) return;
    }
    for (int i = first[0]; i <= last[0]; ++i)
      for (int j = first[1]; j <= last[1]; ++j)
        for (int k = first[2]; k <= last[2]; ++k)
          for (std::int32_t n = head_[flat({i, j, k})]; n >= 0; n = next_[static_cast<std::size_t>(n)]) visit(n);
  }

 private:
  int bin_along(int axis, double x) const {
    const double u = (x - lo_[axis]) * inverse_width_[axis];
    if (!(u > 0.0)) return 0;
    return std::min(bins_[axis] - 1, static_cast<int>(u));
  }
  // One bit per bin, so the flags of a 128^3 grid (256 KB) stay in cache while most cells test them.
  bool neighbourhood_occupied(std::size_t bin) const { return (neighbourhood_occupied_[bin >> 6] >> (bin & 63)) & 1U; }
  static constexpr int super_bin_shift = 3;  // 8 bins per super-bin and axis
  std::size_t flat_super(const std::array<int, 3>& s) const {
    return (static_cast<std::size_t>(s[0]) * static_cast<std::size_t>(super_bins_[1]) + static_cast<std::size_t>(s[1])) *
               static_cast<std::size_t>(super_bins_[2]) +
           static_cast<std::size_t>(s[2]);
  }
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
  std::array<int, 3> super_bins_{1, 1, 1};
  std::vector<std::uint8_t> super_bin_occupied_;  // a blast image lies in the super-bin
};

}  // namespace kosmo::feedback
