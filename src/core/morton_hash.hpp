#pragma once
// Per-level open-addressing hash table, Morton key -> oct index (seeds/000 §4.2, Appendix B).
//
// Hash of eq. 15, linear probing, power-of-two capacity, fill kept <= 0.7 by doubling,
// incremental insert/erase (backward-shift deletion, so no tombstones accumulate) and a full
// rebuild after pool compaction.
//
// Memory: a slot holds the 32-bit oct index and a 32-bit tag (the upper half of the hash), 8 bytes,
// instead of seeds/000's 20-byte key+index slot. The full key is read from the oct pool only when
// the tag matches, so a lookup still touches the pool at most once in practice. With the fill
// between 0.35 and 0.7 this costs 11-23 bytes per oct for either key width, against 28 in §4.2.
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/morton_key.hpp"

namespace kosmo::core {

using OctIndex = std::int32_t;
inline constexpr OctIndex no_oct = -1;

template <class Key>
class MortonHash {
 public:
  static constexpr double max_fill = 0.7;

  // seeds/000 eq. 15; 128-bit keys are first folded to 64 bits by XOR of their halves.
  static constexpr std::uint64_t hash(Key key) {
    std::uint64_t h;
    if constexpr (sizeof(Key) == 16) {
      h = static_cast<std::uint64_t>(key) ^ static_cast<std::uint64_t>(key >> 64);
    } else {
      h = static_cast<std::uint64_t>(key);
    }
    const std::uint64_t t = ((h * 2654435761ULL) ^ (h >> 16)) * 0x9E3779B97F4A7C15ULL;
    return t ^ (t >> 13);
  }

  MortonHash() { reset(16); }

  std::size_t size() const { return count_; }
  std::size_t capacity() const { return slots_.size(); }
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }
  double fill() const { return static_cast<double>(count_) / static_cast<double>(slots_.size()); }

  // Oct holding `key`, or no_oct. `keys` is the pool's key array (keys[oct] = key of oct).
  OctIndex find(Key key, std::span<const Key> keys) const {
    const std::uint64_t h = hash(key);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.oct == no_oct) return no_oct;
      if (s.tag == tag && keys[static_cast<std::size_t>(s.oct)] == key) return s.oct;
    }
  }

  // keys[oct] must already equal the key being inserted.
  void insert(OctIndex oct, std::span<const Key> keys) {
    if (static_cast<double>(count_ + 1) > max_fill * static_cast<double>(slots_.size())) {
      grow(keys);
    }
    place(oct, keys);
    ++count_;
  }

  // Removes the entry of `key` (which must be present); keys[oct] must still hold it.
  void erase(Key key, std::span<const Key> keys) {
    const std::uint64_t h = hash(key);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    std::size_t hole = h & mask_;
    for (;; hole = (hole + 1) & mask_) {
      const Slot& s = slots_[hole];
      KOSMO_REQUIRE(s.oct != no_oct, "MortonHash::erase: key not present");
      if (s.tag == tag && keys[static_cast<std::size_t>(s.oct)] == key) break;
    }
    // Backward-shift deletion: move later entries of the probe run into the hole whenever their
    // home slot does not lie cyclically in (hole, j].
    for (std::size_t j = (hole + 1) & mask_;; j = (j + 1) & mask_) {
      const Slot& s = slots_[j];
      if (s.oct == no_oct) break;
      const std::size_t home = hash(keys[static_cast<std::size_t>(s.oct)]) & mask_;
      const bool home_in_range = (hole <= j) ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!home_in_range) {
        slots_[hole] = s;
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --count_;
  }

  // Full rebuild from a list of octs (after compaction), sized for max_fill.
  void rebuild(std::span<const OctIndex> octs, std::span<const Key> keys) {
    std::size_t cap = 16;
    while (static_cast<double>(octs.size()) > max_fill * static_cast<double>(cap)) cap *= 2;
    reset(cap);
    for (OctIndex o : octs) place(o, keys);
    count_ = octs.size();
  }

 private:
  struct Slot {
    OctIndex oct = no_oct;
    std::uint32_t tag = 0;
  };

  void reset(std::size_t capacity) {
    std::vector<Slot>(capacity).swap(slots_);
    mask_ = capacity - 1;
    count_ = 0;
  }

  void place(OctIndex oct, std::span<const Key> keys) {
    const std::uint64_t h = hash(keys[static_cast<std::size_t>(oct)]);
    std::size_t i = h & mask_;
    while (slots_[i].oct != no_oct) i = (i + 1) & mask_;
    slots_[i] = Slot{oct, static_cast<std::uint32_t>(h >> 32)};
  }

  void grow(std::span<const Key> keys) {
    std::vector<Slot> old;
    old.swap(slots_);
    const std::size_t n = count_;
    reset(old.size() * 2);
    for (const Slot& s : old) {
      if (s.oct != no_oct) place(s.oct, keys);
    }
    count_ = n;
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

}  // namespace kosmo::core
