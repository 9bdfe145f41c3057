// The per-level Morton hash (seeds/000 App. B) against std::unordered_map with 10^6 random keys,
// insertions, deletions and rehashes, and its memory per entry against seeds/000 §4.2's 28 bytes.
#include <gtest/gtest.h>

#include <unordered_map>

#include "core/morton_hash.hpp"
#include "mesh_test_types.hpp"

using namespace kosmo;
using namespace kosmo::core;

namespace {

template <class Key>
class MortonHashTest : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint64_t, UInt128>;
TYPED_TEST_SUITE(MortonHashTest, KeyTypes);

template <class Key>
Key random_key(std::uint64_t& state) {
  state = test::splitmix64(state);
  Key k = state;
  if constexpr (sizeof(Key) == 16) {
    state = test::splitmix64(state);
    k = (k << 62) ^ Key(state);  // 126 significant bits like a 42-bit-per-axis key
  } else {
    k &= (std::uint64_t{1} << 63) - 1;
  }
  return k;
}

struct U128Hasher {
  std::size_t operator()(UInt128 k) const { return std::hash<std::uint64_t>{}(static_cast<std::uint64_t>(k) ^ static_cast<std::uint64_t>(k >> 64) * 31); }
};

TEST(MortonHashFunction, IsEquationFifteen) {
  // eq. 15 written out by hand for one key, and the 128-bit XOR fold.
  const std::uint64_t h = 0x0123456789abcdefULL;
  std::uint64_t t = ((h * 2654435761ULL) ^ (h >> 16)) * 0x9E3779B97F4A7C15ULL;
  t = t ^ (t >> 13);
  EXPECT_EQ(MortonHash<std::uint64_t>::hash(h), t);
  const UInt128 wide = (UInt128{0xfedcba9876543210ULL} << 64) | UInt128{0x1111111111111111ULL};
  EXPECT_EQ(MortonHash<UInt128>::hash(wide), MortonHash<std::uint64_t>::hash(0xfedcba9876543210ULL ^ 0x1111111111111111ULL));
}

TYPED_TEST(MortonHashTest, MillionRandomKeysWithDeletionsAndRehash) {
  using Key = TypeParam;
  constexpr std::size_t n = 1000000;
  std::vector<Key> keys;  // the "pool": keys[oct]
  keys.reserve(n);
  std::unordered_map<Key, OctIndex, std::conditional_t<sizeof(Key) == 16, U128Hasher, std::hash<std::uint64_t>>> reference;
  MortonHash<Key> table;
  std::uint64_t state = 2026;
  std::size_t capacity_changes = 0, last_capacity = table.capacity();
  while (keys.size() < n) {
    const Key k = random_key<Key>(state);
    if (reference.count(k)) continue;
    const auto oct = static_cast<OctIndex>(keys.size());
    keys.push_back(k);
    reference.emplace(k, oct);
    table.insert(oct, keys);
    ASSERT_LE(table.fill(), MortonHash<Key>::max_fill);
    if (table.capacity() != last_capacity) {
      ++capacity_changes;
      ASSERT_EQ(table.capacity(), 2 * last_capacity);
      last_capacity = table.capacity();
    }
  }
  EXPECT_GE(capacity_changes, 16u);
  EXPECT_EQ(table.size(), n);
  // Delete every third key, then check every key, present or not.
  for (std::size_t i = 0; i < n; i += 3) {
    table.erase(keys[i], keys);
    reference.erase(keys[i]);
  }
  EXPECT_EQ(table.size(), reference.size());
  for (std::size_t i = 0; i < n; ++i) {
    const OctIndex found = table.find(keys[i], keys);
    ASSERT_EQ(found, i % 3 == 0 ? no_oct : static_cast<OctIndex>(i)) << "key " << i;
  }
  // Keys never inserted are absent.
  std::uint64_t other = 77;
  for (int i = 0; i < 100000; ++i) {
    const Key k = random_key<Key>(other);
    const auto it = reference.find(k);
    ASSERT_EQ(table.find(k, keys), it == reference.end() ? no_oct : it->second);
  }
  // Re-insert the deleted keys: the probe runs were repaired by backward shifting.
  for (std::size_t i = 0; i < n; i += 3) table.insert(static_cast<OctIndex>(i), keys);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table.find(keys[i], keys), static_cast<OctIndex>(i));
  // Full rebuild from a list (after compaction) gives the same answers.
  std::vector<OctIndex> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = static_cast<OctIndex>(i);
  table.rebuild(all, keys);
  EXPECT_LE(table.fill(), MortonHash<Key>::max_fill);
  EXPECT_GT(table.fill(), MortonHash<Key>::max_fill / 2);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table.find(keys[i], keys), static_cast<OctIndex>(i));
}

TYPED_TEST(MortonHashTest, AtMost28BytesPerEntryAtEverySize) {
  // seeds/000 §4.2: 1.4 x 20 bytes = 28 bytes per grid. Slots here are 8 bytes and the fill stays
  // in (0.35, 0.7], so the worst case right after a doubling is 8 / 0.35 = 22.9 bytes.
  using Key = TypeParam;
  std::vector<Key> keys;
  MortonHash<Key> table;
  std::uint64_t state = 5;
  double worst = 0.0;
  for (std::size_t i = 0; i < 300000; ++i) {
    keys.push_back(random_key<Key>(state));
    table.insert(static_cast<OctIndex>(i), keys);
    if (i >= 100) worst = std::max(worst, static_cast<double>(table.bytes()) / static_cast<double>(table.size()));
  }
  this->RecordProperty("worst_bytes_per_entry", std::to_string(worst));
  EXPECT_LE(worst, 28.0);
}

}  // namespace
