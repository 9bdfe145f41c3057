// The Hilbert key-range decomposition of runs with ordering='hilbert': ownership is a function of
// the key, ranges are contiguous and cover the curve, and the partner search finds every rank a
// box touches (checked against a dense sample of the box).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "parallel/hilbert_decomposition.hpp"

using kosmo::parallel::Box;
using kosmo::parallel::HilbertDecomposition;

namespace {

Box unit_box() { return Box{{0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}}; }

TEST(HilbertDecomposition, UniformBoundsSplitTheCurveEvenly) {
  const auto h = HilbertDecomposition::uniform(7, unit_box());
  ASSERT_EQ(h.nrank(), 7);
  EXPECT_EQ(h.bounds().front(), 0u);
  EXPECT_TRUE(std::is_sorted(h.bounds().begin(), h.bounds().end()));
  // Owners of a uniform sample: each rank gets 1/7 of it within the sample's granularity.
  std::vector<int> count(7, 0);
  const int n = 32;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) ++count[static_cast<std::size_t>(h.owner({(i + 0.5) / n, (j + 0.5) / n, (k + 0.5) / n}))];
  for (int c : count) EXPECT_NEAR(c, n * n * n / 7.0, 0.03 * n * n * n / 7.0);
}

TEST(HilbertDecomposition, OwnerFollowsTheKeyRanges) {
  const auto h = HilbertDecomposition::uniform(5, unit_box());
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int t = 0; t < 10000; ++t) {
    const std::array<double, 3> p{u(random), u(random), u(random)};
    const int r = h.owner(p);
    const auto key = h.key(p);
    EXPECT_LE(h.bounds()[static_cast<std::size_t>(r)], key);
    EXPECT_LT(key, h.bounds()[static_cast<std::size_t>(r) + 1]);
    // Periodic images have the same owner.
    EXPECT_EQ(h.owner({p[0] + 1.0, p[1] - 1.0, p[2]}), r);
  }
}

TEST(HilbertDecomposition, PartnerSearchFindsEveryRankInASampledBox) {
  const auto h = HilbertDecomposition::uniform(12, unit_box());
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> u(-0.2, 1.0), w(0.01, 0.4);
  for (int t = 0; t < 200; ++t) {
    Box box;
    for (int d = 0; d < 3; ++d) {
      box.lo[d] = u(random);
      box.hi[d] = box.lo[d] + w(random);
    }
    const auto found = h.ranks_overlapping(box);
    ASSERT_TRUE(std::is_sorted(found.begin(), found.end()));
    const int n = 24;
    std::set<int> sampled;
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const std::array<int, 3> index{i, j, k};
          std::array<double, 3> p{};
          for (int d = 0; d < 3; ++d) p[d] = box.lo[d] + (index[d] + 0.5) / n * (box.hi[d] - box.lo[d]);
          sampled.insert(h.owner(p));
        }
    for (int r : sampled) EXPECT_TRUE(std::binary_search(found.begin(), found.end(), r)) << "rank " << r << " missed";
  }
  EXPECT_EQ(h.ranks_overlapping(unit_box()).size(), 12u);
}

}  // namespace
