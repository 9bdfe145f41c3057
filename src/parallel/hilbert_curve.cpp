// 3-D Hilbert keys (Skilling 2004) and RAMSES-style key-range decomposition.
#include "parallel/hilbert_curve.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace kosmo::parallel {

namespace {

void check_order(int order) {
  KOSMO_REQUIRE(order >= 1 && order <= 21, "Hilbert curve: order must be in [1, 21], got " << order);
}

}  // namespace

std::uint64_t hilbert_key(std::array<std::uint32_t, 3> x, int order) {
  check_order(order);
  const std::uint32_t top = 1u << (order - 1);
  // Skilling's AxestoTranspose: undo excess work, then Gray-encode.
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const std::uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; ++i) x[i] ^= x[i - 1];
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  for (int i = 0; i < 3; ++i) x[i] ^= t;
  // The transposed form holds the key's bits round-robin over the three words, most significant first.
  std::uint64_t key = 0;
  for (int bit = order - 1; bit >= 0; --bit)
    for (int i = 0; i < 3; ++i) key = (key << 1) | ((x[i] >> bit) & 1u);
  return key;
}

std::array<std::uint32_t, 3> hilbert_coords(std::uint64_t key, int order) {
  check_order(order);
  std::array<std::uint32_t, 3> x{0, 0, 0};
  for (int bit = order - 1; bit >= 0; --bit)
    for (int i = 0; i < 3; ++i) x[i] |= static_cast<std::uint32_t>((key >> (3 * bit + 2 - i)) & 1u) << bit;
  // Skilling's TransposetoAxes: Gray-decode, then undo excess work.
  const std::uint32_t end = 2u << (order - 1);
  std::uint32_t t = x[2] >> 1;
  for (int i = 2; i > 0; --i) x[i] ^= x[i - 1];
  x[0] ^= t;
  for (std::uint32_t q = 2; q != end; q <<= 1) {
    const std::uint32_t p = q - 1;
    for (int i = 2; i >= 0; --i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  return x;
}

std::vector<std::int32_t> hilbert_ranks_in_key_order(std::span<const double> cost, int nrank) {
  KOSMO_REQUIRE(nrank >= 1, "Hilbert decomposition: the number of ranks must be >= 1, got " << nrank);
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  std::vector<std::int32_t> rank(cost.size(), 0);
  if (!(total > 0.0)) {  // no cost anywhere: equal item counts
    for (std::size_t i = 0; i < cost.size(); ++i)
      rank[i] = static_cast<std::int32_t>(static_cast<double>(i) * nrank / static_cast<double>(cost.size()));
    return rank;
  }
  double before = 0.0;
  for (std::size_t i = 0; i < cost.size(); ++i) {
    const double middle = before + 0.5 * cost[i];
    rank[i] = static_cast<std::int32_t>(std::min<double>(nrank - 1, std::floor(middle / total * nrank)));
    before += cost[i];
  }
  return rank;
}

std::vector<std::int32_t> hilbert_owner_map(std::span<const double> cost, int grid, int nrank) {
  KOSMO_REQUIRE(grid >= 1, "Hilbert owner map: the grid size must be >= 1, got " << grid);
  const auto g = static_cast<std::size_t>(grid);
  const std::size_t cells = g * g * g;
  KOSMO_REQUIRE(cost.size() == cells, "Hilbert owner map: expected " << cells << " cell costs, got " << cost.size());
  int order = 1;
  while ((std::size_t{1} << order) < g) ++order;
  // Cells in key order. On a power-of-two grid the key is a bijection onto [0, G^3): bucket directly.
  std::vector<std::uint32_t> cell_in_key_order(cells);
  if ((std::size_t{1} << order) == g) {
    for (std::size_t k = 0, c = 0; k < g; ++k)
      for (std::size_t j = 0; j < g; ++j)
        for (std::size_t i = 0; i < g; ++i, ++c)
          cell_in_key_order[hilbert_key({std::uint32_t(i), std::uint32_t(j), std::uint32_t(k)}, order)] =
              static_cast<std::uint32_t>(c);
  } else {
    std::vector<std::uint64_t> key(cells);
    for (std::size_t k = 0, c = 0; k < g; ++k)
      for (std::size_t j = 0; j < g; ++j)
        for (std::size_t i = 0; i < g; ++i, ++c)
          key[c] = hilbert_key({std::uint32_t(i), std::uint32_t(j), std::uint32_t(k)}, order);
    std::iota(cell_in_key_order.begin(), cell_in_key_order.end(), 0u);
    std::sort(cell_in_key_order.begin(), cell_in_key_order.end(),
              [&key](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
  }
  std::vector<double> ordered_cost(cells);
  for (std::size_t n = 0; n < cells; ++n) ordered_cost[n] = cost[cell_in_key_order[n]];
  const std::vector<std::int32_t> rank = hilbert_ranks_in_key_order(ordered_cost, nrank);
  std::vector<std::int32_t> owner(cells);
  for (std::size_t n = 0; n < cells; ++n) owner[cell_in_key_order[n]] = rank[n];
  return owner;
}

}  // namespace kosmo::parallel
