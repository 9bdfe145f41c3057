#pragma once
// Gravitational acceleration g = -grad(phi) on the cells of one AMR level (RAMSES force_fine), with
// RAMSES' five-point centred difference along each axis (FivePointGradient, potential_gradient.hpp).
// The four values along an axis come from the oct and its face neighbours (in its 6^D block of cells). Where
// a neighbour oct does not exist (coarse-fine boundary) its cells take phi interpolated from the
// coarser level (RAMSES interpol_phi; here triquadratic, coarse_interpolation.hpp). Outside a
// non-periodic box phi is continued linearly.
// No MPI: phi must be valid on the owned and ghost cells of `level` and `level - 1`.
#include <array>
#include <optional>
#include <span>

#include "core/oct_stencil_cache.hpp"
#include "core/oct_tree.hpp"
#include "gravity/coarse_interpolation.hpp"
#include "gravity/potential_gradient.hpp"

namespace kosmo::gravity {

template <int D, class Key>
void compute_acceleration(core::OctTree<D, Key>& tree, const core::OctStencilCache<D, Key>& stencil, int level, int phi_field,
                          const std::array<int, D>& acceleration_fields) {
  using Tree = core::OctTree<D, Key>;
  using Stencil = core::OctStencilCache<D, Key>;
  constexpr int width = 6;  // local cell coordinate -2..3 along an axis stored at +2
  constexpr int block_cells = D == 1 ? 6 : (D == 2 ? 36 : 216);
  const double* phi = tree.field(phi_field);
  const double h = tree.cell_size(level);
  const FivePointGradient gradient(h);
  std::array<double*, D> out{};
  for (int d = 0; d < D; ++d) out[static_cast<std::size_t>(d)] = tree.field(acceleration_fields[static_cast<std::size_t>(d)]);
  auto stride = [](int d) { return d == 0 ? 1 : (d == 1 ? width : width * width); };

  // The five-point stencil along an axis reads only the oct's own cells and those of its 2D face
  // neighbours (never an edge or corner neighbour), so only those are gathered.
  std::array<int, 2 * D + 1> gathered{};
  int ngathered = 0;
  for (int k = 0; k < Stencil::neighbours; ++k) {
    int nonzero = 0;
    for (int d = 0; d < D; ++d) nonzero += Stencil::offset_along(k, d) != 0 ? 1 : 0;
    if (nonzero <= 1) gathered[static_cast<std::size_t>(ngathered++)] = k;
  }

#pragma omp parallel
  {
    std::array<double, block_cells> block{};
    std::array<bool, block_cells> present{};
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < stencil.size(); ++i) {
      present.fill(false);
      for (int g = 0; g < ngathered; ++g) {
        const int k = gathered[static_cast<std::size_t>(g)];
        const core::OctIndex neighbour = stencil.neighbour_oct(i, k);
        const core::CellIndex coarse = stencil.coarse_cell(i, k);
        if (neighbour == core::no_oct && coarse < 0) continue;  // outside a non-periodic box
        // A missing neighbour oct takes phi interpolated from the coarser cell it would refine
        // (RAMSES interpol_phi), gathered once for its 2^D children.
        std::optional<CoarseNeighbourhood<D, Key>> interpolation;
        if (neighbour == core::no_oct) interpolation.emplace(tree, level - 1, tree.cell_coordinates(coarse), phi);
        for (int c = 0; c < Tree::cells_per_oct; ++c) {
          int index = 0;
          for (int d = 0; d < D; ++d) index += (2 * (Stencil::offset_along(k, d) + 1) + ((c >> d) & 1)) * stride(d);
          double value = 0.0;
          if (neighbour != core::no_oct) {
            value = phi[Tree::cell_index(neighbour, c)];
          } else {
            value = interpolation->usable() ? interpolation->child_value(c) : phi[coarse];
          }
          block[static_cast<std::size_t>(index)] = value;
          present[static_cast<std::size_t>(index)] = true;
        }
      }
      const core::OctIndex o = stencil.oct(i);
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        int centre = 0;
        for (int d = 0; d < D; ++d) centre += (2 + ((c >> d) & 1)) * stride(d);
        for (int d = 0; d < D; ++d) {
          // Outside a non-periodic box phi is continued linearly from the last two cells inside
          // (zero-gradient continuation would halve the force in the wall cells). The cell itself
          // is always inside; a wall cell has no cell at +-1 or +-2 on that side.
          double line[5];  // phi at shifts -2..2
          bool known[5];
          for (int shift = -2; shift <= 2; ++shift) {
            // Always within the block (the oct's cells sit 2 cells from its edges); the bound
            // check states it for the compiler, which cannot see that d < D.
            const int index = centre + shift * stride(d);
            known[shift + 2] = index >= 0 && index < block_cells && present[static_cast<std::size_t>(index)];
            line[shift + 2] = known[shift + 2] ? block[static_cast<std::size_t>(index)] : 0.0;
          }
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
}

}  // namespace kosmo::gravity
