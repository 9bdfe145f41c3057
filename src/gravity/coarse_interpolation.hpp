#pragma once
// The potential of a coarser level at a point inside one of its cells (RAMSES interpol_phi): the
// value the multigrid takes as a Dirichlet value at a coarse-fine face and the force stencil takes
// for a missing neighbour oct. Triquadratic Lagrange interpolation on the coarse cell's 3^D
// neighbourhood, third order, so that the fine level's potential (O(h^2)) and its five-point force
// (the interpolation error divided by h) both stay second order across coarse-fine faces; RAMSES'
// trilinear weights make the force there first order. Where the neighbourhood is incomplete (a
// wall, a coarser region), central or one-sided slopes per axis: second order.
//
// Two phases: CoarseNeighbourhood gathers the 3^D values once, then value_at evaluates any point of
// the cell from them without lookups. The force stencil needs all 2^D children of a coarse cell, so
// it gathers once per cell instead of once per child. The 3^D cells lie in at most 2^D octs (a cell
// and its neighbours along an axis span two octs), so the gather looks up each of those octs once
// (NeighbourhoodCells): 8 hash lookups in 3-D instead of one per cell (27), same cells.
#include <array>
#include <cstdint>

#include "core/oct_tree.hpp"

namespace kosmo::gravity {

// The cells of `level` at offsets -1..1 per axis from the cell with coordinates `centre`, as
// OctTree::find_cell finds them (periodic wrap, no_cell outside a non-periodic box or where the oct
// is absent), each of the at most 2^D octs they lie in looked up once, when first asked for.
template <int D, class Key>
class NeighbourhoodCells {
 public:
  using Tree = core::OctTree<D, Key>;

  NeighbourhoodCells(const Tree& tree, int level, const typename Tree::Coordinates& centre) : tree_(tree), level_(level) {
    const auto extent = tree.extent(level);
    for (int d = 0; d < D; ++d) {
      const auto a = static_cast<std::size_t>(d);
      const std::int64_t n = 2 * extent[a];
      const std::int64_t home = centre[a] >> 1;
      oct_coordinate_[a][0] = home;
      for (int t = 0; t < 3; ++t) {
        std::int64_t x = centre[a] + t - 1;
        valid_[a][static_cast<std::size_t>(t)] = true;
        if (x < 0 || x >= n) {
          if (!tree.geometry().periodic[a]) {
            valid_[a][static_cast<std::size_t>(t)] = false;
            continue;
          }
          x %= n;
          if (x < 0) x += n;
        }
        bit_[a][static_cast<std::size_t>(t)] = static_cast<int>(x & 1);
        // A cell and its two neighbours span the home oct and at most one other along an axis.
        const bool home_oct = (x >> 1) == home;
        slot_[a][static_cast<std::size_t>(t)] = home_oct ? 0 : 1;
        if (!home_oct) oct_coordinate_[a][1] = x >> 1;
      }
    }
    looked_up_.fill(false);
  }

  // The cell at `offset` (components in -1..1).
  core::CellIndex cell(const std::array<int, D>& offset) {
    int slots = 0, child = 0;
    for (int d = 0; d < D; ++d) {
      const auto a = static_cast<std::size_t>(d);
      const auto t = static_cast<std::size_t>(offset[a] + 1);
      if (!valid_[a][t]) return core::no_cell;
      slots |= slot_[a][t] << d;
      child |= bit_[a][t] << d;
    }
    const auto s = static_cast<std::size_t>(slots);
    if (!looked_up_[s]) {
      typename Tree::Coordinates oct{};
      for (int d = 0; d < D; ++d) oct[static_cast<std::size_t>(d)] = oct_coordinate_[static_cast<std::size_t>(d)][static_cast<std::size_t>((slots >> d) & 1)];
      octs_[s] = tree_.find_oct(level_, Tree::Codec::encode(oct));
      looked_up_[s] = true;
    }
    return octs_[s] == core::no_oct ? core::no_cell : Tree::cell_index(octs_[s], child);
  }

 private:
  const Tree& tree_;
  int level_;
  std::array<std::array<bool, 3>, D> valid_{};
  std::array<std::array<int, 3>, D> slot_{}, bit_{};
  std::array<std::array<std::int64_t, 2>, D> oct_coordinate_{};
  std::array<core::OctIndex, (1 << D)> octs_{};
  std::array<bool, (1 << D)> looked_up_{};
};

template <int D, class Key>
class CoarseNeighbourhood {
 public:
  using Tree = core::OctTree<D, Key>;
  static constexpr int stencil = D == 1 ? 3 : (D == 2 ? 9 : 27);

  // Gathers phi around the cell with integer coordinates `coarse` at `level`. usable() is false
  // when that cell itself is absent or idle.
  CoarseNeighbourhood(const Tree& tree, int level, const typename Tree::Coordinates& coarse, const double* phi) {
    auto usable = [&](core::CellIndex cell) { return cell != core::no_cell && tree.role(Tree::oct_of(cell)) != core::OctRole::idle; };
    NeighbourhoodCells<D, Key> cells(tree, level, coarse);
    const core::CellIndex centre = cells.cell({});
    usable_ = usable(centre);
    if (!usable_) return;
    centre_ = phi[centre];
    complete_ = true;
    for (int s = 0; s < stencil && complete_; ++s) {
      std::array<int, D> offset{};
      for (int d = 0, rest = s; d < D; ++d, rest /= 3) offset[static_cast<std::size_t>(d)] = rest % 3 - 1;
      const core::CellIndex cell = cells.cell(offset);
      complete_ = usable(cell);
      if (complete_) values_[static_cast<std::size_t>(s)] = phi[cell];
    }
    if (complete_) return;
    for (int d = 0; d < D; ++d) {
      std::array<int, D> plus{}, minus{};
      plus[static_cast<std::size_t>(d)] = 1;
      minus[static_cast<std::size_t>(d)] = -1;
      const core::CellIndex p = cells.cell(plus), m = cells.cell(minus);
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
