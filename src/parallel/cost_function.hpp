#pragma once
// Memory-weighted load-balance cost of seeds/000 §2.3: a cell carries its share of its oct's memory
// (eq. 5) plus the memory of the particles and the work of the sinks attached to the oct (eq. 4).
// Pure functions, no mesh types, so the load balancer and its tests share one definition.
#include <algorithm>

#include "core/error.hpp"

namespace kosmo::parallel {

// Bytes per oct slot, seeds/000 eq. 5: 2^D cells x (uold + unew = 2 nvar doubles + 52 bytes of
// gravity and AMR bookkeeping) + 48 bytes per oct. nvar = 6 -> 1232 B, nvar = 14 -> 2256 B in 3-D.
constexpr double grid_memory_weight(int ndim, int nvar) {
  return static_cast<double>(1 << ndim) * (2.0 * nvar * 8.0 + 52.0) + 48.0;
}

struct MemoryWeights {
  double w_grid = 0.0;    // bytes per oct (eq. 5 unless the user overrides it)
  double w_part = 12.0;   // per particle slot (seeds/000 §2.3 default)
  double w_sink = 500.0;  // computational weight per sink (seeds/000 §2.3 default)
};

// mem_weight_grid = 0 selects the automatic eq. 5; a positive value overrides it (seeds/000 §2.3).
inline MemoryWeights memory_weights(int ndim, int nvar, double mem_weight_grid = 0.0, double w_part = 12.0,
                                    double w_sink = 500.0) {
  KOSMO_REQUIRE(ndim >= 1 && ndim <= 3, "memory_weights: ndim must be 1, 2 or 3, got " << ndim);
  KOSMO_REQUIRE(nvar >= 1, "memory_weights: nvar must be >= 1, got " << nvar);
  KOSMO_REQUIRE(mem_weight_grid >= 0.0, "memory_weights: mem_weight_grid must be >= 0, got " << mem_weight_grid);
  return {mem_weight_grid > 0.0 ? mem_weight_grid : grid_memory_weight(ndim, nvar), w_part, w_sink};
}

// Cost of one cell of an oct holding n_part particles and n_sink sinks, seeds/000 eq. 4: the oct's
// cost spread evenly over its 2^D cells.
constexpr double cell_cost(int ndim, const MemoryWeights& weights, long long n_part, long long n_sink) {
  return (weights.w_grid + static_cast<double>(n_part) * weights.w_part +
          static_cast<double>(n_sink) * weights.w_sink) /
         static_cast<double>(1 << ndim);
}

// Time blend of seeds/000 eq. 6 / eq. 12: 1 + alpha (t_local / t_mean - 1), clamped to [0.5, 2] so
// one noisy timing cannot trigger a runaway rebalance.
inline double time_blend_factor(double alpha, double t_local, double t_mean) {
  if (alpha == 0.0 || t_mean <= 0.0) return 1.0;
  return std::clamp(1.0 + alpha * (t_local / t_mean - 1.0), 0.5, 2.0);
}

}  // namespace kosmo::parallel
