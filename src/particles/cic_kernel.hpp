#pragma once
// The cloud-in-cell kernel (Hockney & Eastwood 1988 §5-3; RAMSES cic_amr and move_fine): a particle
// is a uniform cube of the level's cell width h centred on it, overlapping the 2^D cells whose
// centres surround it. Along axis d, with s = x / h - 1/2, the cloud covers the cells
// i = floor(s) (weight 1 - f, RAMSES dg) and i + 1 (weight f, RAMSES dd), f = s - floor(s); the
// weight of a corner is the product over axes. Pure maths: no mesh types, no MPI.
#include <array>
#include <cmath>
#include <cstdint>

namespace kosmo::particles {

template <int D>
struct CicCloud {
  static constexpr int corners = 1 << D;
  std::array<std::int64_t, D> lower{};  // integer coordinates of the lower cell along each axis
  std::array<double, D> upper{};        // weight of the upper cell along each axis (RAMSES dd)

  // Corner c takes the upper cell along axis d when bit d of c is set (RAMSES' cell order).
  double weight(int corner) const {
    double w = 1.0;
    for (int d = 0; d < D; ++d) w *= ((corner >> d) & 1) ? upper[d] : 1.0 - upper[d];
    return w;
  }
  std::array<std::int64_t, D> coordinates(int corner) const {
    std::array<std::int64_t, D> c = lower;
    for (int d = 0; d < D; ++d) c[d] += (corner >> d) & 1;
    return c;
  }
};

// Cloud of a particle at `position` on a grid of cell width `h` whose cell i spans [i h, (i+1) h).
// x / h is the same expression the particle locator uses, so the cloud's cells are always the
// particle's own cell and its neighbours.
template <int D>
CicCloud<D> cic_cloud(const std::array<double, D>& position, double h) {
  CicCloud<D> cloud;
  for (int d = 0; d < D; ++d) {
    const double s = position[d] / h - 0.5;
    const double floor_s = std::floor(s);
    cloud.lower[d] = static_cast<std::int64_t>(floor_s);
    cloud.upper[d] = s - floor_s;
  }
  return cloud;
}

// Integer cell coordinate of `x` on a grid of width h with n cells (clamped to [0, n) so that a
// position that rounds onto the upper box edge stays in the last cell).
inline std::int64_t cell_coordinate(double x, double h, std::int64_t n) {
  const auto c = static_cast<std::int64_t>(std::floor(x / h));
  return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

}  // namespace kosmo::particles
