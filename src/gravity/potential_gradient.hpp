#pragma once
// Gravitational acceleration g = -grad(phi) with RAMSES' five-point centred difference (force_fine):
// along each axis
//   g = -[ (4/3) (phi(i+1) - phi(i-1)) / (2 h) - (1/3) (phi(i+2) - phi(i-2)) / (4 h) ],
// fourth order on smooth fields. Pure functions, no MPI and no mesh types: the stencil itself
// (FivePointGradient, which octree_acceleration.hpp applies on the AMR levels) and its application on
// a dense periodic grid (what the unit tests measure the stencil's order and the PM force with).
#include <array>
#include <cstddef>
#include <vector>

namespace kosmo::gravity {

// The five-point stencil for cells of width h.
class FivePointGradient {
 public:
  explicit FivePointGradient(double h) : near_(4.0 / 3.0 / (2.0 * h)), far_(1.0 / 3.0 / (4.0 * h)) {}
  // g along the axis from phi at the shifts -2, -1, +1 and +2 along it.
  double acceleration(double minus2, double minus1, double plus1, double plus2) const {
    return -(near_ * (plus1 - minus1) - far_ * (plus2 - minus2));
  }

 private:
  double near_, far_;
};

// g along `axis` at the cell with integer coordinates `cell` of an n^D periodic grid of spacing h.
template <int D>
double acceleration(const std::vector<double>& phi, long long n, double h, const std::array<long long, D>& cell, int axis) {
  auto at = [&](long long shift) {
    std::array<long long, D> c = cell;
    c[axis] = ((c[axis] + shift) % n + n) % n;
    std::size_t index = 0;
    for (int d = D - 1; d >= 0; --d) index = index * static_cast<std::size_t>(n) + static_cast<std::size_t>(c[d]);
    return phi[index];
  };
  return FivePointGradient(h).acceleration(at(-2), at(-1), at(1), at(2));
}

}  // namespace kosmo::gravity
