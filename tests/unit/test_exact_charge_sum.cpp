// Exact CIC share sums (particles/exact_charge_sum.hpp): the same shares summed in any grouping and
// order, as ranks and ghost exchanges group them, give the same bits; a floating-point sum of the
// same shares does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "particles/exact_charge_sum.hpp"

using kosmo::particles::ExactChargeSum;

namespace {

// The limbs of `shares` split into `groups` contiguous partial sums (one per "rank"), the partial
// limbs added as doubles in the given order of the groups, as the reverse exchange adds them.
double grouped_sum(const ExactChargeSum& exact, const std::vector<double>& shares, int groups, bool reverse) {
  std::vector<std::pair<double, double>> partial;
  const std::size_t per = (shares.size() + static_cast<std::size_t>(groups) - 1) / static_cast<std::size_t>(groups);
  for (std::size_t first = 0; first < shares.size(); first += per) {
    ExactChargeSum::Integer sum = 0;
    for (std::size_t i = first; i < std::min(shares.size(), first + per); ++i) sum += exact.quantise(shares[i]);
    partial.emplace_back(ExactChargeSum::low_limb(sum), ExactChargeSum::high_limb(sum));
  }
  if (reverse) std::reverse(partial.begin(), partial.end());
  double low = 0.0, high = 0.0;
  for (const auto& [l, h] : partial) {
    low += l;
    high += h;
  }
  return exact.value(low, high);
}

}  // namespace

TEST(ExactChargeSum, AnyGroupingGivesTheSameBits) {
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> weight(0.0, 1.0);
  std::vector<double> shares(100000);
  for (double& s : shares) s = 0.37 * weight(random) * weight(random) * weight(random);  // mass 0.37 times a CIC weight
  const ExactChargeSum exact(0.37);
  const double one_rank = grouped_sum(exact, shares, 1, false);
  for (int groups : {2, 3, 7, 64})
    for (bool reverse : {false, true}) EXPECT_EQ(grouped_sum(exact, shares, groups, reverse), one_rank) << groups << " groups";
  // Floating-point partial sums of the same shares change with the grouping (the reason for the
  // fixed point), and the exact sum is the true sum to the rounding of the shares.
  auto float_sum = [&](int groups) {
    const std::size_t per = (shares.size() + static_cast<std::size_t>(groups) - 1) / static_cast<std::size_t>(groups);
    double total = 0.0;
    for (std::size_t first = 0; first < shares.size(); first += per) {
      double partial = 0.0;
      for (std::size_t i = first; i < std::min(shares.size(), first + per); ++i) partial += shares[i];
      total += partial;
    }
    return total;
  };
  bool float_differs = false;
  for (int groups : {2, 3, 7, 64}) float_differs = float_differs || float_sum(groups) != float_sum(1);
  EXPECT_TRUE(float_differs);
  long double reference = 0.0L;
  for (double s : shares) reference += s;
  EXPECT_LT(std::fabs(static_cast<double>(reference) - one_rank), 1e-13 * one_rank);
}

TEST(ExactChargeSum, UnitIsAPowerOfTwoAboveTheLargestCharge) {
  const ExactChargeSum exact(0.37);  // top 0.5
  EXPECT_EQ(exact.unit(), std::ldexp(0.5, -ExactChargeSum::fraction_bits));
  // A share comes back to within half a unit.
  const ExactChargeSum::Integer q = exact.quantise(0.37);
  EXPECT_LE(std::fabs(exact.value(ExactChargeSum::low_limb(q), ExactChargeSum::high_limb(q)) - 0.37), 0.5 * exact.unit());
}
