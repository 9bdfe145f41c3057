#pragma once
// The six (dimension, key width) combinations every mesh test runs on.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/morton_key.hpp"

namespace kosmo::test {

template <int Dim, class K>
struct MeshCase {
  static constexpr int D = Dim;
  using Key = K;
};

using MeshCases = ::testing::Types<MeshCase<1, std::uint64_t>, MeshCase<2, std::uint64_t>, MeshCase<3, std::uint64_t>,
                                   MeshCase<1, core::UInt128>, MeshCase<2, core::UInt128>, MeshCase<3, core::UInt128>>;

// SplitMix64: deterministic test randomness from an integer seed.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace kosmo::test
