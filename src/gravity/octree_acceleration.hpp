#pragma once
// Gravitational acceleration g = -grad(phi) on the cells of one AMR level (RAMSES force_fine), with
// RAMSES' five-point centred difference along each axis (FivePointGradient, potential_gradient.hpp).
// The four values along an axis come from the oct and its face neighbours (in its 6^D block of cells). Where
// a neighbour oct does not exist (coarse-fine boundary) its cells take phi interpolated from the
// coarser level (RAMSES interpol_phi; here triquadratic, coarse_interpolation.hpp). Outside a
// non-periodic box phi is continued linearly.
// Each coarse cell that stands in for a missing neighbour is interpolated once per call, for all
// the fine octs it borders (CoarseChildPotentials), before the plain loop over the level's octs,
// which reads the 2D face neighbours' values through one pointer each (no gathered block).
// No MPI: phi must be valid on the owned and ghost cells of `level` and `level - 1`.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/oct_tree.hpp"
#include "gravity/coarse_interpolation.hpp"
#include "gravity/face_neighbours.hpp"
#include "gravity/potential_gradient.hpp"

namespace kosmo::gravity {

// phi at the 2^D child positions of every coarser cell that stands in for a missing face neighbour
// of an oct of the stencil's level (RAMSES interpol_phi; the cell's own phi where its neighbourhood
// is unusable), each cell interpolated once though up to 2D fine octs border it. Sorted by cell.
template <int D, class Key>
class CoarseChildPotentials {
 public:
  using Tree = core::OctTree<D, Key>;
  using Faces = FaceNeighbours<D, Key>;

  CoarseChildPotentials(const Tree& tree, const Faces& neighbours, int level, const double* phi) {
    const std::size_t n = neighbours.size();
    constexpr auto nfaces = static_cast<std::size_t>(Faces::faces);
    std::vector<core::CellIndex> wanted(n * nfaces, core::no_cell);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      for (int f = 0; f < Faces::faces; ++f)
        if (neighbours.neighbour_oct(i, f) == core::no_oct) wanted[i * nfaces + static_cast<std::size_t>(f)] = neighbours.coarse_cell(i, f);
    wanted.erase(std::remove(wanted.begin(), wanted.end(), core::no_cell), wanted.end());
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    cells_ = std::move(wanted);
    values_.resize(cells_.size() * Tree::cells_per_oct);
#pragma omp parallel for schedule(static)
    for (std::size_t u = 0; u < cells_.size(); ++u) {
      const core::CellIndex coarse = cells_[u];
      const CoarseNeighbourhood<D, Key> interpolation(tree, level - 1, tree.cell_coordinates(coarse), phi);
      for (int c = 0; c < Tree::cells_per_oct; ++c)
        values_[u * Tree::cells_per_oct + static_cast<std::size_t>(c)] = interpolation.usable() ? interpolation.child_value(c) : phi[coarse];
    }
  }

  // The 2^D child values of `coarse`, which must be one of the cells gathered.
  const double* children(core::CellIndex coarse) const {
    const auto at = static_cast<std::size_t>(std::lower_bound(cells_.begin(), cells_.end(), coarse) - cells_.begin());
    return values_.data() + at * Tree::cells_per_oct;
  }

 private:
  std::vector<core::CellIndex> cells_;
  std::vector<double> values_;
};

template <int D, class Key>
void compute_acceleration(core::OctTree<D, Key>& tree, int level, int phi_field, const std::array<int, D>& acceleration_fields) {
  using Tree = core::OctTree<D, Key>;
  const double* phi = tree.field(phi_field);
  const double h = tree.cell_size(level);
  const FivePointGradient gradient(h);
  std::array<double*, D> out{};
  for (int d = 0; d < D; ++d) out[static_cast<std::size_t>(d)] = tree.field(acceleration_fields[static_cast<std::size_t>(d)]);

  // The five-point stencil along an axis reads only the oct's own cells and those of its 2D face
  // neighbours (never an edge or corner neighbour).
  const FaceNeighbours<D, Key> neighbours(tree, level);
  const CoarseChildPotentials<D, Key> coarse_children(tree, neighbours, level, phi);

#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < neighbours.size(); ++i) {
    const core::OctIndex o = neighbours.oct(i);
    // The 2^D values of each face neighbour: the same-level oct's cells, or a missing oct's phi
    // interpolated from the coarser cell it would refine (RAMSES interpol_phi), or none outside a
    // non-periodic box.
    std::array<std::array<const double*, 2>, D> side{};
    for (int d = 0; d < D; ++d)
      for (int s = 0; s < 2; ++s) {
        const core::OctIndex neighbour = neighbours.neighbour_oct(i, 2 * d + s);
        const core::CellIndex coarse = neighbours.coarse_cell(i, 2 * d + s);
        const double* values = nullptr;
        if (neighbour != core::no_oct) {
          values = phi + Tree::cell_index(neighbour, 0);
        } else if (coarse >= 0) {
          values = coarse_children.children(coarse);
        }
        side[static_cast<std::size_t>(d)][static_cast<std::size_t>(s)] = values;
      }
    const double* own = phi + Tree::cell_index(o, 0);
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      for (int d = 0; d < D; ++d) {
        // Along axis d the cells at shifts -2..2 sit at positions p = bit + shift (-2..3) of the
        // row through the three octs: oct p / 2 (floor: -1, 0, 1), child bit p mod 2.
        const int bit = (c >> d) & 1, others = c & ~(1 << d);
        double line[5];  // phi at shifts -2..2
        bool known[5];
        for (int shift = -2; shift <= 2; ++shift) {
          const int position = bit + shift;
          const int oct = position < 0 ? -1 : (position > 1 ? 1 : 0);
          const double* values = oct == 0 ? own : side[static_cast<std::size_t>(d)][oct < 0 ? 0 : 1];
          known[shift + 2] = values != nullptr;
          line[shift + 2] = values ? values[others | ((position - 2 * oct) << d)] : 0.0;
        }
        // Outside a non-periodic box phi is continued linearly from the last two cells inside
        // (zero-gradient continuation would halve the force in the wall cells). The cell itself
        // is always inside; a wall cell has no cell at +-1 or +-2 on that side.
        const auto inside = [&](int shift) { return shift == 0 || known[shift + 2]; };
        for (int sign : {-1, 1}) {
          if (!inside(sign)) {
            const double slope = inside(-sign) ? line[2] - line[2 - sign] : 0.0;
            line[2 + sign] = line[2] + slope;
            line[2 + 2 * sign] = line[2] + 2.0 * slope;
          } else if (!inside(2 * sign)) {
            line[2 + 2 * sign] = 2.0 * line[2 + sign] - line[2];
          }
        }
        out[static_cast<std::size_t>(d)][Tree::cell_index(o, c)] = gradient.acceleration(line[0], line[1], line[3], line[4]);
      }
    }
  }
}

}  // namespace kosmo::gravity
