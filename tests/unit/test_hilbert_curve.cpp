// Hilbert keys (the reference ordering kept beside the k-section tree, ARCHITECTURE §2): a
// bijection onto [0, 8^order) whose consecutive keys are face-adjacent cells, and the cost-balanced
// key-range decomposition of RAMSES' cmp_cpu_map.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "core/error.hpp"
#include "parallel/hilbert_curve.hpp"

using namespace kosmo;
using namespace kosmo::parallel;

TEST(HilbertCurve, BijectionWithFaceAdjacentSuccessors) {
  for (int order = 1; order <= 5; ++order) {
    const std::uint32_t n = 1u << order;
    const std::uint64_t count = std::uint64_t(n) * n * n;
    std::vector<int> seen(count, 0);
    for (std::uint32_t z = 0; z < n; ++z)
      for (std::uint32_t y = 0; y < n; ++y)
        for (std::uint32_t x = 0; x < n; ++x) {
          const std::uint64_t key = hilbert_key({x, y, z}, order);
          ASSERT_LT(key, count);
          ++seen[key];
          ASSERT_EQ(hilbert_coords(key, order), (std::array<std::uint32_t, 3>{x, y, z}));
        }
    for (std::uint64_t key = 0; key < count; ++key) ASSERT_EQ(seen[key], 1);
    for (std::uint64_t key = 0; key + 1 < count; ++key) {
      const auto a = hilbert_coords(key, order), b = hilbert_coords(key + 1, order);
      int distance = 0;
      for (int d = 0; d < 3; ++d) distance += std::abs(static_cast<int>(a[d]) - static_cast<int>(b[d]));
      ASSERT_EQ(distance, 1) << "order " << order << " key " << key;
    }
  }
}

TEST(HilbertCurve, FirstOctantsAreContiguousKeyRanges) {
  // Each of the 8 octants of the cube is one contiguous eighth of the key range.
  const int order = 4;
  const std::uint32_t n = 16;
  for (std::uint32_t z = 0; z < n; ++z)
    for (std::uint32_t y = 0; y < n; ++y)
      for (std::uint32_t x = 0; x < n; ++x) {
        const std::uint64_t octant = hilbert_key({x, y, z}, order) >> (3 * (order - 1));
        const std::uint64_t corner = hilbert_key({x / 8 * 8, y / 8 * 8, z / 8 * 8}, order) >> (3 * (order - 1));
        ASSERT_EQ(octant, corner);
      }
  EXPECT_THROW(hilbert_key({0, 0, 0}, 0), Error);
  EXPECT_THROW(hilbert_key({0, 0, 0}, 22), Error);
  EXPECT_EQ(hilbert_coords(hilbert_key({123456, 7, 2097151}, 21), 21),
            (std::array<std::uint32_t, 3>{123456, 7, 2097151}));
}

TEST(HilbertDecomposition, ContiguousCostBalancedRanges) {
  std::vector<double> cost(1000, 1.0);
  for (int i = 100; i < 200; ++i) cost[i] = 10.0;
  const std::vector<std::int32_t> rank = hilbert_ranks_in_key_order(cost, 7);
  std::vector<double> load(7, 0.0);
  for (std::size_t i = 0; i < cost.size(); ++i) {
    if (i > 0) {
      ASSERT_TRUE(rank[i] == rank[i - 1] || rank[i] == rank[i - 1] + 1);  // contiguous ranges
    }
    load[rank[i]] += cost[i];
  }
  EXPECT_EQ(rank.front(), 0);
  EXPECT_EQ(rank.back(), 6);
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / 7;
  for (double l : load) EXPECT_NEAR(l, mean, 10.0);  // within one heavy item
}

TEST(HilbertDecomposition, OwnerMapOnPowerOfTwoAndOtherGrids) {
  for (int grid : {16, 12}) {
    const std::size_t cells = static_cast<std::size_t>(grid) * grid * grid;
    const std::vector<std::int32_t> owner = hilbert_owner_map(std::vector<double>(cells, 1.0), grid, 8);
    std::vector<int> count(8, 0);
    for (std::int32_t r : owner) ++count[r];
    for (int c : count) EXPECT_EQ(c, static_cast<int>(cells / 8)) << grid;
  }
  // On 16^3 with 8 ranks, each rank owns exactly one octant of the cube.
  const std::vector<std::int32_t> owner = hilbert_owner_map(std::vector<double>(4096, 1.0), 16, 8);
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(owner[(k * 16 + j) * 16 + i], owner[(k / 8 * 8 * 16 + j / 8 * 8) * 16 + i / 8 * 8]);
      }
}
