// Morton keys against the bit-by-bit reference of seeds/000 Algorithm 1, and neighbour keys
// against plain integer arithmetic with periodic wrap (Algorithm 2).
#include <gtest/gtest.h>

#include "core/morton_key.hpp"
#include "mesh_test_types.hpp"

using namespace kosmo;
using namespace kosmo::core;

namespace {

template <int D, class Key>
Key reference_encode(const std::array<std::int64_t, D>& c, int bits) {
  Key key = 0;
  for (int b = 0; b < bits; ++b)
    for (int d = 0; d < D; ++d) key |= Key((c[d] >> b) & 1) << (D * b + d);
  return key;
}

template <class Case>
class MortonKeyTest : public ::testing::Test {};
TYPED_TEST_SUITE(MortonKeyTest, test::MeshCases);

TYPED_TEST(MortonKeyTest, EncodeMatchesBitLoopAndRoundTrips) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Codec = MortonCodec<D, Key>;
  const int bits = Codec::bits_per_axis;
  EXPECT_EQ(bits, sizeof(Key) == 8 ? 21 : 42);
  std::uint64_t state = 12345;
  for (int trial = 0; trial < 200000; ++trial) {
    typename Codec::Coordinates c{};
    for (int d = 0; d < D; ++d) {
      state = test::splitmix64(state);
      // Mix full-width coordinates with small ones and the extremes.
      const int width = trial % 4 == 0 ? 1 + static_cast<int>(state % bits) : bits;
      c[d] = static_cast<std::int64_t>(state >> 7) & ((std::int64_t{1} << width) - 1);
      if (trial == 0) c[d] = Codec::coordinate_limit - 1;
      if (trial == 1) c[d] = 0;
    }
    const Key key = Codec::encode(c);
    ASSERT_TRUE(key == (reference_encode<D, Key>(c, bits))) << "trial " << trial;
    ASSERT_EQ(Codec::decode(key), c) << "trial " << trial;
  }
}

TYPED_TEST(MortonKeyTest, ParentAndChildFollowFromShifts) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Codec = MortonCodec<D, Key>;
  std::uint64_t state = 99;
  for (int trial = 0; trial < 10000; ++trial) {
    typename Codec::Coordinates c{};
    for (int d = 0; d < D; ++d) {
      state = test::splitmix64(state);
      c[d] = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(Codec::coordinate_limit / 2));
    }
    const Key key = Codec::encode(c);
    for (int child = 0; child < (1 << D); ++child) {
      const Key k = Codec::child(key, child);
      typename Codec::Coordinates expected{};
      for (int d = 0; d < D; ++d) expected[d] = 2 * c[d] + ((child >> d) & 1);
      ASSERT_EQ(Codec::decode(k), expected);
      ASSERT_TRUE(Codec::parent(k) == key);
      ASSERT_EQ(Codec::child_index(k), child);
    }
  }
}

TYPED_TEST(MortonKeyTest, NeighbourKeysWrapPeriodicallyAndStopAtWalls) {
  constexpr int D = TypeParam::D;
  using Key = typename TypeParam::Key;
  using Codec = MortonCodec<D, Key>;
  std::uint64_t state = 7;
  for (int trial = 0; trial < 20000; ++trial) {
    typename Codec::Coordinates extent{}, c{};
    for (int d = 0; d < D; ++d) {
      state = test::splitmix64(state);
      // Extents of the form 2^(l-1) * n with n = 1..5, including the widest level.
      const int shift = static_cast<int>(state % static_cast<std::uint64_t>(Codec::bits_per_axis - 2));
      extent[d] = static_cast<std::int64_t>(1 + (state >> 20) % 3) << shift;
      state = test::splitmix64(state);
      c[d] = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(extent[d]));
      if (trial % 5 == 0) c[d] = (trial % 2) ? extent[d] - 1 : 0;  // on the walls
    }
    const Key key = Codec::encode(c);
    for (int dir = 0; dir < 2 * D; ++dir) {
      const int axis = dir / 2, step = dir % 2 ? 1 : -1;
      std::array<bool, D> periodic{};
      periodic.fill(true);
      Key n = 0;
      ASSERT_TRUE(Codec::neighbour_key(key, dir, extent, periodic, n));
      auto expected = c;
      expected[axis] = ((c[axis] + step) % extent[axis] + extent[axis]) % extent[axis];
      ASSERT_EQ(Codec::decode(n), expected);
      periodic.fill(false);
      const bool inside = c[axis] + step >= 0 && c[axis] + step < extent[axis];
      ASSERT_EQ(Codec::neighbour_key(key, dir, extent, periodic, n), inside);
      if (inside) {
        ASSERT_EQ(Codec::decode(n), expected);
      }
    }
  }
}

}  // namespace
