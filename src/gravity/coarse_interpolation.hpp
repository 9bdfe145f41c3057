#pragma once
// The potential of a coarser level at a point inside one of its cells (RAMSES interpol_phi): the
// value the multigrid takes as a Dirichlet value at a coarse-fine face and the force stencil takes
// for a missing neighbour oct. Triquadratic Lagrange interpolation on the coarse cell's 3^D
// neighbourhood, third order, so that the fine level's potential (O(h^2)) and its five-point force
// (the interpolation error divided by h) both stay second order across coarse-fine faces; RAMSES'
// trilinear weights make the force there first order. Where the neighbourhood is incomplete (a
// wall, a coarser region), central or one-sided slopes per axis: second order.
#include <array>

#include "core/oct_tree.hpp"

namespace kosmo::gravity {

// phi at `offset` (per axis, in coarse cell widths from the centre, within [-1/2, 1/2]) of the cell
// with integer coordinates `coarse` at `level`. False when that cell is absent or idle.
template <int D, class Key>
bool coarse_potential(const core::OctTree<D, Key>& tree, int level, const typename core::OctTree<D, Key>::Coordinates& coarse,
                      const std::array<double, D>& offset, const double* phi, double& value) {
  using Tree = core::OctTree<D, Key>;
  auto usable = [&](core::CellIndex cell) { return cell != core::no_cell && tree.role(Tree::oct_of(cell)) != core::OctRole::idle; };
  const core::CellIndex centre = tree.find_cell(level, coarse);
  if (!usable(centre)) return false;
  constexpr int stencil = D == 1 ? 3 : (D == 2 ? 9 : 27);
  std::array<double, stencil> values{};
  bool complete = true;
  for (int s = 0; s < stencil && complete; ++s) {
    auto c = coarse;
    for (int d = 0, rest = s; d < D; ++d, rest /= 3) c[static_cast<std::size_t>(d)] += rest % 3 - 1;
    const core::CellIndex cell = tree.find_cell(level, c);
    complete = usable(cell);
    if (complete) values[static_cast<std::size_t>(s)] = phi[cell];
  }
  if (complete) {
    // Lagrange weights of the nodes -1, 0, 1 at t.
    std::array<std::array<double, 3>, D> weight{};
    for (int d = 0; d < D; ++d) {
      const double t = offset[static_cast<std::size_t>(d)];
      weight[static_cast<std::size_t>(d)] = {0.5 * t * (t - 1.0), 1.0 - t * t, 0.5 * t * (t + 1.0)};
    }
    value = 0.0;
    for (int s = 0; s < stencil; ++s) {
      double w = 1.0;
      for (int d = 0, rest = s; d < D; ++d, rest /= 3) w *= weight[static_cast<std::size_t>(d)][static_cast<std::size_t>(rest % 3)];
      value += w * values[static_cast<std::size_t>(s)];
    }
    return true;
  }
  value = phi[centre];
  for (int d = 0; d < D; ++d) {
    auto plus = coarse, minus = coarse;
    ++plus[static_cast<std::size_t>(d)];
    --minus[static_cast<std::size_t>(d)];
    const core::CellIndex p = tree.find_cell(level, plus), m = tree.find_cell(level, minus);
    double slope = 0.0;  // per coarse cell width
    if (usable(p) && usable(m)) {
      slope = 0.5 * (phi[p] - phi[m]);
    } else if (usable(p)) {
      slope = phi[p] - phi[centre];
    } else if (usable(m)) {
      slope = phi[centre] - phi[m];
    }
    value += slope * offset[static_cast<std::size_t>(d)];
  }
  return true;
}

}  // namespace kosmo::gravity
