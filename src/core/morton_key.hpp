#pragma once
// Morton (Z-order) keys of octs: seeds/000 §4.2 eq. 9 and Appendix A.
// Bit b of axis d lands at bit D*b + d of the key, so the parent key is key >> D and the child
// key is (key << D) | child, child = cx + 2 cy + 4 cz (RAMSES' cell order inside an oct).
// 64-bit keys hold 21 bits per axis, 128-bit keys 42 bits per axis, whatever D is (seeds/000 §4.2).
#include <array>
#include <cstdint>

namespace kosmo::core {

using UInt128 = unsigned __int128;

#if KOSMO_MORTON_BITS == 128
using MortonKey = UInt128;
#else
using MortonKey = std::uint64_t;
#endif

template <class Key>
inline constexpr int morton_bits_per_axis = sizeof(Key) == 8 ? 21 : 42;

namespace morton_detail {

// Spread the low 21 bits of v so that bit b moves to bit D*b (magic-mask bit tricks).
template <int D>
constexpr std::uint64_t spread21(std::uint64_t v) {
  v &= 0x1fffffULL;
  if constexpr (D == 3) {
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
  } else if constexpr (D == 2) {
    v = (v | v << 16) & 0x0000ffff0000ffffULL;
    v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
    v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;
    v = (v | v << 2) & 0x3333333333333333ULL;
    v = (v | v << 1) & 0x5555555555555555ULL;
  }
  return v;
}

// Inverse of spread21: gather every D-th bit back into the low 21 bits.
template <int D>
constexpr std::uint64_t compact21(std::uint64_t v) {
  if constexpr (D == 3) {
    v &= 0x1249249249249249ULL;
    v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ULL;
    v = (v ^ (v >> 4)) & 0x100f00f00f00f00fULL;
    v = (v ^ (v >> 8)) & 0x1f0000ff0000ffULL;
    v = (v ^ (v >> 16)) & 0x1f00000000ffffULL;
    v = (v ^ (v >> 32)) & 0x1fffffULL;
  } else if constexpr (D == 2) {
    v &= 0x5555555555555555ULL;
    v = (v ^ (v >> 1)) & 0x3333333333333333ULL;
    v = (v ^ (v >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
    v = (v ^ (v >> 4)) & 0x00ff00ff00ff00ffULL;
    v = (v ^ (v >> 8)) & 0x0000ffff0000ffffULL;
    v = (v ^ (v >> 16)) & 0x1fffffULL;
  } else {
    v &= 0x1fffffULL;
  }
  return v;
}

}  // namespace morton_detail

// Encode/decode and key arithmetic for D-dimensional integer coordinates.
template <int D, class Key = MortonKey>
struct MortonCodec {
  static_assert(D >= 1 && D <= 3, "kosmo supports 1, 2 and 3 dimensions");
  static_assert(sizeof(Key) == 8 || sizeof(Key) == 16, "Morton keys are 64 or 128 bits");
  using Coordinates = std::array<std::int64_t, D>;

  static constexpr int bits_per_axis = morton_bits_per_axis<Key>;
  static constexpr std::int64_t coordinate_limit = std::int64_t{1} << bits_per_axis;
  static constexpr int children = 1 << D;

  static constexpr Key encode(const Coordinates& c) {
    Key key = 0;
    for (int d = 0; d < D; ++d) {
      const auto v = static_cast<std::uint64_t>(c[d]);
      key |= Key{morton_detail::spread21<D>(v)} << d;
      if constexpr (sizeof(Key) == 16) {
        // The upper 21 bits of each axis fill the key's bits from 21*D upwards.
        key |= (Key{morton_detail::spread21<D>(v >> 21)} << (21 * D)) << d;
      }
    }
    return key;
  }

  static constexpr Coordinates decode(Key key) {
    Coordinates c{};
    for (int d = 0; d < D; ++d) {
      std::uint64_t v = morton_detail::compact21<D>(static_cast<std::uint64_t>(key >> d));
      if constexpr (sizeof(Key) == 16) {
        v |= morton_detail::compact21<D>(static_cast<std::uint64_t>(key >> (21 * D + d))) << 21;
      }
      c[d] = static_cast<std::int64_t>(v);
    }
    return c;
  }

  static constexpr Key parent(Key key) { return key >> D; }
  static constexpr Key child(Key key, int child_index) { return (key << D) | Key(child_index); }
  static constexpr int child_index(Key key) { return static_cast<int>(key & Key(children - 1)); }

  // Key of the oct displaced by `offset` (each component any integer) at a level whose extent
  // along axis d is extent[d]. Periodic axes wrap (seeds/000 Algorithm 2); on a non-periodic axis
  // a displacement out of the box returns false.
  static constexpr bool offset_key(Key key, const std::array<int, D>& offset, const Coordinates& extent,
                                   const std::array<bool, D>& periodic, Key& result) {
    Coordinates c = decode(key);
    for (int d = 0; d < D; ++d) {
      std::int64_t v = c[d] + offset[d];
      if (v < 0 || v >= extent[d]) {
        if (!periodic[d]) return false;
        v %= extent[d];
        if (v < 0) v += extent[d];
      }
      c[d] = v;
    }
    result = encode(c);
    return true;
  }

  // Face neighbour in direction dir = 2*axis + (0 for -, 1 for +), the RAMSES nbor order.
  static constexpr bool neighbour_key(Key key, int dir, const Coordinates& extent,
                                      const std::array<bool, D>& periodic, Key& result) {
    std::array<int, D> offset{};
    offset[dir / 2] = (dir % 2 == 0) ? -1 : 1;
    return offset_key(key, offset, extent, periodic, result);
  }
};

}  // namespace kosmo::core
