#pragma once
// Exact sums of cloud-in-cell shares, whatever the order of the additions. A deposit adds the
// shares m w of many particles into a cell, some on the owner rank and some into ghost copies that
// the reverse exchange adds afterwards; in floating point the result depends on that grouping,
// hence on the rank count (docs/parallel.md: results independent of the rank count). Here each
// share is rounded once to a fixed point, an integer multiple of unit = M 2^-52 with M the
// smallest power of two >= the largest charge of the run (the same on every rank), and integers
// add exactly in any order. A cell's sum travels as two limbs of 42 bits, each an integer held
// exactly in a double: a share is below 2^52 units, a cell gathers fewer than 2^32 shares, so the
// sum stays below 2^84, and adding the limbs of up to 2^11 partial sums (owner and ghost copies)
// stays below 2^53. The limbs are put together exactly (128-bit integer) and converted to double
// once. The rounding of a share is at most unit / 2, 2^-53 of the largest charge.
#include <cmath>
#include <cstdint>

namespace kosmo::particles {

class ExactChargeSum {
 public:
  using Integer = unsigned __int128;
  static constexpr int fraction_bits = 52;
  static constexpr int limb_bits = 42;

  // `largest_charge`: the largest charge any rank deposits (> 0; 1 when there is none).
  explicit ExactChargeSum(double largest_charge) {
    const double top = largest_charge > 0.0 ? std::exp2(std::ceil(std::log2(largest_charge))) : 1.0;
    unit_ = std::ldexp(top, -fraction_bits);
    per_unit_ = 1.0 / unit_;  // a power of two: exact
  }

  Integer quantise(double share) const { return static_cast<Integer>(static_cast<std::uint64_t>(share * per_unit_ + 0.5)); }
  static double low_limb(Integer sum) { return static_cast<double>(static_cast<std::uint64_t>(sum & low_mask)); }
  static double high_limb(Integer sum) { return static_cast<double>(static_cast<std::uint64_t>(sum >> limb_bits)); }
  // The sum the limbs hold (each an exact integer, as the reverse exchange leaves them).
  double value(double low, double high) const {
    const Integer sum = (static_cast<Integer>(static_cast<std::uint64_t>(high)) << limb_bits) + static_cast<Integer>(static_cast<std::uint64_t>(low));
    return static_cast<double>(sum) * unit_;
  }
  double unit() const { return unit_; }

 private:
  static constexpr Integer low_mask = (static_cast<Integer>(1) << limb_bits) - 1;
  double unit_ = 1.0, per_unit_ = 1.0;
};

}  // namespace kosmo::particles
