#pragma once
// The Hilbert-curve ordering RAMSES uses for its domain decomposition (hilbert3d + cmp_cpu_map),
// kept as the reference against the k-section tree (ARCHITECTURE §2, seeds/000 §2): cells are
// ordered along a 3-D Hilbert curve and each rank owns one contiguous key range of equal cost.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace kosmo::parallel {

// Hilbert key of integer cell coordinates (each in [0, 2^order)) on the order-`order` curve,
// 1 <= order <= 21. Consecutive keys are face-adjacent cells. Skilling's transpose algorithm
// (AIP Conf. Proc. 707, 381, 2004) rather than RAMSES' state table: the same curve family, up to
// the orientation of the sub-cubes, and no table to get wrong.
std::uint64_t hilbert_key(std::array<std::uint32_t, 3> coords, int order);

// Inverse of hilbert_key.
std::array<std::uint32_t, 3> hilbert_coords(std::uint64_t key, int order);

// Rank of each item given in key order with its cost: item i goes to the rank whose share
// [r W / N, (r + 1) W / N) of the total cost W holds the midpoint of the item's cumulative cost,
// so ranks own contiguous, cost-balanced key ranges (RAMSES cmp_cpu_map / bound_key).
std::vector<std::int32_t> hilbert_ranks_in_key_order(std::span<const double> cost_in_key_order, int nrank);

// Owner of every cell of a periodic grid^3 mesh (flat index (k grid + j) grid + i) under the
// Hilbert ordering, balanced on `cost` (one value per cell, same indexing). grid need not be a
// power of two: keys come from the enclosing 2^order cube.
std::vector<std::int32_t> hilbert_owner_map(std::span<const double> cost, int grid, int nrank);

}  // namespace kosmo::parallel
