#pragma once
// The potential of a coarser level at a point inside one of its cells (RAMSES interpol_phi): the
// value the multigrid takes as a Dirichlet value at a coarse-fine face and the force stencil takes
// for a missing neighbour oct. Triquadratic Lagrange interpolation on the coarse cell's 3^D
// neighbourhood, third order, so that the fine level's potential (O(h^2)) and its five-point force
// (the interpolation error divided by h) both stay second order across coarse-fine faces; RAMSES'
// trilinear weights make the force there first order. Where the neighbourhood is incomplete (a
// wall, a coarser region), central or one-sided slopes per axis: second order.
//
// Two phases: CoarseNeighbourhood gathers the 3^D values once (27 hash lookups in 3-D), then
// value_at evaluates any point of the cell from them without lookups. The force stencil needs all
// 2^D children of a coarse cell, so it gathers once per cell instead of once per child.
#include <array>

#include "core/oct_tree.hpp"

namespace kosmo::gravity {

template <int D, class Key>
class CoarseNeighbourhood {
 public:
  using Tree = core::OctTree<D, Key>;
  static constexpr int stencil = D == 1 ? 3 : (D == 2 ? 9 : 27);

  // Gathers phi around the cell with integer coordinates `coarse` at `level`. usable() is false
  // when that cell itself is absent or idle.
  CoarseNeighbourhood(const Tree& tree, int level, const typename Tree::Coordinates& coarse, const double* phi) {
    auto usable = [&](core::CellIndex cell) { return cell != core::no_cell && tree.role(Tree::oct_of(cell)) != core::OctRole::idle; };
    const core::CellIndex centre = tree.find_cell(level, coarse);
    usable_ = usable(centre);
    if (!usable_) return;
    centre_ = phi[centre];
    complete_ = true;
    for (int s = 0; s < stencil && complete_; ++s) {
      auto c = coarse;
      for (int d = 0, rest = s; d < D; ++d, rest /= 3) c[static_cast<std::size_t>(d)] += rest % 3 - 1;
      const core::CellIndex cell = tree.find_cell(level, c);
      complete_ = usable(cell);
      if (complete_) values_[static_cast<std::size_t>(s)] = phi[cell];
    }
    if (complete_) return;
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
      slopes_[static_cast<std::size_t>(d)] = slope;
    }
  }

  bool usable() const { return usable_; }

  // phi at `offset` (per axis, in coarse cell widths from the centre, within [-1/2, 1/2]).
  double value_at(const std::array<double, D>& offset) const {
    if (complete_) {
      // Lagrange weights of the nodes -1, 0, 1 at t.
      std::array<std::array<double, 3>, D> weight{};
      for (int d = 0; d < D; ++d) {
        const double t = offset[static_cast<std::size_t>(d)];
        weight[static_cast<std::size_t>(d)] = {0.5 * t * (t - 1.0), 1.0 - t * t, 0.5 * t * (t + 1.0)};
      }
      double value = 0.0;
      for (int s = 0; s < stencil; ++s) {
        double w = 1.0;
        for (int d = 0, rest = s; d < D; ++d, rest /= 3) w *= weight[static_cast<std::size_t>(d)][static_cast<std::size_t>(rest % 3)];
        value += w * values_[static_cast<std::size_t>(s)];
      }
      return value;
    }
    double value = centre_;
    for (int d = 0; d < D; ++d) value += slopes_[static_cast<std::size_t>(d)] * offset[static_cast<std::size_t>(d)];
    return value;
  }

  // phi at the centre of child `child` (bit d of child: upper half along axis d), RAMSES interpol_phi.
  double child_value(int child) const {
    std::array<double, D> offset{};
    for (int d = 0; d < D; ++d) offset[static_cast<std::size_t>(d)] = ((child >> d) & 1) ? 0.25 : -0.25;
    return value_at(offset);
  }

 private:
  bool usable_ = false, complete_ = false;
  double centre_ = 0.0;
  std::array<double, stencil> values_{};
  std::array<double, D> slopes_{};
};

// phi at `offset` of the cell with integer coordinates `coarse` at `level`; false (value untouched)
// when that cell is absent or idle.
template <int D, class Key>
bool coarse_potential(const core::OctTree<D, Key>& tree, int level, const typename core::OctTree<D, Key>::Coordinates& coarse,
                      const std::array<double, D>& offset, const double* phi, double& value) {
  const CoarseNeighbourhood<D, Key> neighbourhood(tree, level, coarse, phi);
  if (!neighbourhood.usable()) return false;
  value = neighbourhood.value_at(offset);
  return true;
}

}  // namespace kosmo::gravity
