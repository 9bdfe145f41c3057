#pragma once
// Gravitational acceleration g = -grad(phi) from a potential on a periodic uniform grid, with
// RAMSES' five-point centred difference (force_fine): along each axis
//   g = -[ (4/3) (phi(i+1) - phi(i-1)) / (2 h) - (1/3) (phi(i+2) - phi(i-2)) / (4 h) ],
// fourth order on smooth fields. Pure function on a dense array (x fastest), no MPI and no mesh
// types: the base-level solve has the whole level on every rank (parallel/uniform_level.hpp).
#include <array>
#include <cstddef>
#include <vector>

namespace kosmo::gravity {

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
  const double a = 4.0 / 3.0 / (2.0 * h), b = 1.0 / 3.0 / (4.0 * h);
  return -(a * (at(1) - at(-1)) - b * (at(2) - at(-2)));
}

}  // namespace kosmo::gravity
