#pragma once
// Part of the octree multigrid (octree_multigrid.cpp): one multigrid level's cached operator
// (MgLevel) and the kernels that loop over its octs: red-black Gauss-Seidel, residual and its norm,
// restriction of the residual, prolongation of the correction (seeds/000 §5.1, App. D). No MPI: the
// solver refreshes the ghosts between them. Included by octree_multigrid.cpp only.
//
// Results do not depend on the thread count, bit for bit: a colour of red-black Gauss-Seidel reads
// only the other colour (face neighbours differ in the parity of their coordinate sum), restriction and
// prolongation are maps, and every sum is accumulated per oct and then added serially in list order.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/oct_tree.hpp"
#include "gravity/octree_multigrid_sinks.hpp"

namespace kosmo::gravity::octree_multigrid_detail {

// Neighbour codes of the caches (non-negative entries are tree cell indices).
inline constexpr CellIndex kZero = -1;  // homogeneous Dirichlet neighbour: contributes 0
inline constexpr CellIndex kSelf = -2;  // zero-gradient wall: the missing cell equals the cell itself
template <int D>
inline constexpr int kStencil = D == 1 ? 3 : (D == 2 ? 9 : 27);

struct Coefficients {
  double h2 = 0.0, inverse_h2 = 0.0;
  double inverse_diagonal = 0.0, h2_over_diagonal = 0.0;  // of a cell with 2D active neighbours: 1 / 2D, h^2 / 2D
};

inline Coefficients coefficients(double h, int dimension) {
  Coefficients k;
  k.h2 = h * h;
  k.inverse_h2 = 1.0 / k.h2;
  k.inverse_diagonal = 1.0 / (2 * dimension);
  k.h2_over_diagonal = k.h2 / (2 * dimension);
  return k;
}

// One multigrid level: the tree level `level` restricted to its active cells.
//
// Most octs are "regular": every cell active and every face neighbour of every cell an active cell
// (no wall, no missing or inactive neighbour). A regular oct's neighbours are its own cells and the
// cells of its 2D face-neighbour octs, so the sweeps compute them from face_octs (2D indices per oct)
// instead of reading 2^D * 2D cached cell indices, and skip the code tests. The other octs keep the
// per-cell table of codes; both paths add the same values in the same order, hence the same bits.
template <int D>
struct MgLevel {
  int level = 0;
  int value_field = -1;  // phi on the solved level, the correction e below
  Coefficients k;
  std::vector<OctIndex> octs;                                 // owned octs with at least one active cell, Morton order
  std::vector<std::uint8_t> active;                           // per oct: bit c set when cell c is active
  std::vector<std::array<OctIndex, kDirections<D>>> face_octs;  // per oct: the oct across each face (or no_oct, kOutside)
  std::vector<std::int32_t> block;                            // per oct: -1 when regular, else its block of `neighbours`
  std::vector<CellIndex> neighbours;  // per irregular oct, cell and direction 2 * axis + side: index or code
  // per irregular oct and cell: the diagonal of L_h h^2 (2D, less the zero-gradient faces, plus the
  // mask weights of a coarse level's masked neighbours: see build_neighbours), 1 / diagonal, h^2 / diagonal
  std::vector<double> diagonal, inverse_diagonal, h2_over_diagonal;
  std::vector<OctIndex> reset_octs;       // owned and ghost octs with an active cell: e = 0 before a visit
  std::vector<CellIndex> father_stencil;  // per oct: the 3^D level-1 cells around its father (prolongation)
};

// The neighbour across face `dir` of cell c of a regular oct o (see MgLevel).
template <int D>
inline CellIndex regular_neighbour(OctIndex o, const std::array<OctIndex, kDirections<D>>& face, int c, int dir) {
  const int axis = dir / 2;
  const OctIndex source = ((c >> axis) & 1) == (dir & 1) ? face[static_cast<std::size_t>(dir)] : o;
  return CellIndex{source} * kCells<D> + (c ^ (1 << axis));
}

// Offset index k = sum_d (o_d + 1) 3^d of the 3^D neighbourhood, o_d in {-1, 0, 1}.
template <int D>
constexpr int stencil_index(const std::array<int, D>& offset) {
  int k = 0, step = 1;
  for (int d = 0; d < D; ++d, step *= 3) k += (offset[d] + 1) * step;
  return k;
}

template <int D>
bool outside_box(const core::OctTree<D, core::MortonKey>& tree, int level, const typename core::OctTree<D, core::MortonKey>::Coordinates& c,
                 int axis) {
  const std::int64_t n = 2 * tree.extent(level)[static_cast<std::size_t>(axis)];
  return !tree.geometry().periodic[static_cast<std::size_t>(axis)] && (c[static_cast<std::size_t>(axis)] < 0 || c[static_cast<std::size_t>(axis)] >= n);
}

// Red-black Gauss-Seidel on the active cells of one colour (parity of the cell's coordinate sum; an
// oct's coordinates are doubled in its cells', so the parity is that of the child index's popcount).
// The colour is a template parameter so that the regular path's cell loop unrolls to its 2^(D-1) cells.
template <int D, bool Reciprocal, int Colour>
void sweep(const MgLevel<D>& m, double* x, const double* f) {
  const auto n = static_cast<std::ptrdiff_t>(m.octs.size());
  const double inverse_diagonal = m.k.inverse_diagonal, h2_over_diagonal = m.k.h2_over_diagonal;
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const OctIndex o = m.octs[static_cast<std::size_t>(i)];
    const std::int32_t block = m.block[static_cast<std::size_t>(i)];
    if (block < 0) {
      const auto& face = m.face_octs[static_cast<std::size_t>(i)];
      for (int c = 0; c < kCells<D>; ++c) {
        if ((std::popcount(static_cast<unsigned>(c)) & 1) != Colour) continue;
        double sum = 0.0;
        for (int j = 0; j < kDirections<D>; ++j) sum += x[regular_neighbour<D>(o, face, c, j)];
        const CellIndex cell = CellIndex{o} * kCells<D> + c;
        if constexpr (Reciprocal) {
          x[cell] = inverse_diagonal * sum - h2_over_diagonal * f[cell];
        } else {
          x[cell] = (sum - m.k.h2 * f[cell]) / kDirections<D>;
        }
      }
      continue;
    }
    const unsigned bits = m.active[static_cast<std::size_t>(i)];
    for (int c = 0; c < kCells<D>; ++c) {
      if ((std::popcount(static_cast<unsigned>(c)) & 1) != Colour || ((bits >> c) & 1u) == 0) continue;
      const CellIndex cell = CellIndex{o} * kCells<D> + c;
      const auto slot = static_cast<std::size_t>(block) * kCells<D> + static_cast<std::size_t>(c);
      const CellIndex* nb = m.neighbours.data() + slot * kDirections<D>;
      double sum = 0.0;
      for (int j = 0; j < kDirections<D>; ++j)
        if (nb[j] >= 0) sum += x[nb[j]];
      // seeds/000 eq. (17): phi = (sum_j phi_j - h^2 f) / diagonal, the diagonal 2D reduced by the
      // zero-gradient faces (their neighbour is the cell itself) and raised by masked neighbours.
      if constexpr (Reciprocal) {
        x[cell] = m.inverse_diagonal[slot] * sum - m.h2_over_diagonal[slot] * f[cell];
      } else {
        x[cell] = (sum - m.k.h2 * f[cell]) / m.diagonal[slot];
      }
    }
  }
}

template <int D, bool Reciprocal>
void sweep(const MgLevel<D>& m, int colour, double* x, const double* f) {
  if (colour == 0) {
    sweep<D, Reciprocal, 0>(m, x, f);
  } else {
    sweep<D, Reciprocal, 1>(m, x, f);
  }
}

// r = f - L_h x on the active cells; returns sum r^2 when WithNorm (per-oct partials, summed serially).
template <int D, bool Reciprocal, bool WithNorm>
double residual(const MgLevel<D>& m, const double* x, const double* f, double* r) {
  const auto n = static_cast<std::ptrdiff_t>(m.octs.size());
  std::vector<double> partial(WithNorm ? static_cast<std::size_t>(n) : 0);
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const OctIndex o = m.octs[static_cast<std::size_t>(i)];
    const std::int32_t block = m.block[static_cast<std::size_t>(i)];
    const unsigned bits = m.active[static_cast<std::size_t>(i)];
    double norm2 = 0.0;
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;
      const CellIndex cell = CellIndex{o} * kCells<D> + c;
      double sum = 0.0;
      double diagonal = kDirections<D>;
      if (block < 0) {
        const auto& face = m.face_octs[static_cast<std::size_t>(i)];
        for (int j = 0; j < kDirections<D>; ++j) sum += x[regular_neighbour<D>(o, face, c, j)];
      } else {
        const auto slot = static_cast<std::size_t>(block) * kCells<D> + static_cast<std::size_t>(c);
        const CellIndex* nb = m.neighbours.data() + slot * kDirections<D>;
        for (int j = 0; j < kDirections<D>; ++j)
          if (nb[j] >= 0) sum += x[nb[j]];
        diagonal = m.diagonal[slot];
      }
      const double laplacian_h2 = sum - diagonal * x[cell];
      if constexpr (Reciprocal) {
        r[cell] = f[cell] - laplacian_h2 * m.k.inverse_h2;
      } else {
        r[cell] = f[cell] - laplacian_h2 / m.k.h2;
      }
      if constexpr (WithNorm) norm2 += r[cell] * r[cell];
    }
    if constexpr (WithNorm) partial[static_cast<std::size_t>(i)] = norm2;
  }
  double total = 0.0;
  for (double p : partial) total += p;
  return total;
}

// The unfused norm pass: the same cells in the same order as the fused loop, so the same value.
template <int D>
double norm2_pass(const MgLevel<D>& m, const double* r) {
  const auto n = static_cast<std::ptrdiff_t>(m.octs.size());
  std::vector<double> partial(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const unsigned bits = m.active[static_cast<std::size_t>(i)];
    double norm2 = 0.0;
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;
      const double v = r[CellIndex{m.octs[static_cast<std::size_t>(i)]} * kCells<D> + c];
      norm2 += v * v;
    }
    partial[static_cast<std::size_t>(i)] = norm2;
  }
  double total = 0.0;
  for (double p : partial) total += p;
  return total;
}

// coarse rhs = mean of the 2^D children's residuals, an inactive child counting 0 (RAMSES
// restrict_residual: the residual of a masked cell is 0). Children may be ghosts: the caller has
// refreshed the fine residual first.
template <int D>
void restrict_residual(const core::OctTree<D, core::MortonKey>& tree, const MgLevel<D>& coarse, const double* fine_residual,
                       const double* mask, double* coarse_rhs) {
  const auto n = static_cast<std::ptrdiff_t>(coarse.octs.size());
  constexpr double weight = 1.0 / kCells<D>;
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const unsigned bits = coarse.active[static_cast<std::size_t>(i)];
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;
      const CellIndex cell = CellIndex{coarse.octs[static_cast<std::size_t>(i)]} * kCells<D> + c;
      const OctIndex son = tree.son(cell);
      double sum = 0.0;
      for (int child = 0; child < kCells<D>; ++child) {
        const CellIndex fine = CellIndex{son} * kCells<D> + child;
        if (mask[fine] > 0.0) sum += fine_residual[fine];
      }
      coarse_rhs[cell] = weight * sum;
    }
  }
}

// fine x += P e_coarse: cell-centred (tri)linear interpolation, weight 3/4 on the father's side and
// 1/4 on the neighbour's per axis (RAMSES interpolate_and_correct: 27/9/3/1 over 64 in 3-D), reading
// the father's 3^D neighbourhood, where inactive or missing cells count 0.
template <int D>
void prolong_and_correct(const MgLevel<D>& fine, const double* coarse_e, double* x) {
  const auto n = static_cast<std::ptrdiff_t>(fine.octs.size());
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(n) >= kParallelOcts)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const unsigned bits = fine.active[static_cast<std::size_t>(i)];
    const CellIndex* stencil = fine.father_stencil.data() + i * kStencil<D>;
    for (int c = 0; c < kCells<D>; ++c) {
      if (((bits >> c) & 1u) == 0) continue;
      double correction = 0.0;
      for (int corner = 0; corner < kCells<D>; ++corner) {
        std::array<int, D> offset{};
        double weight = 1.0;
        for (int d = 0; d < D; ++d) {
          const bool towards_neighbour = (corner >> d) & 1;
          offset[static_cast<std::size_t>(d)] = towards_neighbour ? (((c >> d) & 1) ? 1 : -1) : 0;
          weight *= towards_neighbour ? 0.25 : 0.75;
        }
        const CellIndex source = stencil[stencil_index<D>(offset)];
        if (source >= 0) correction += weight * coarse_e[source];
      }
      x[CellIndex{fine.octs[static_cast<std::size_t>(i)]} * kCells<D> + c] += correction;
    }
  }
}

}  // namespace kosmo::gravity::octree_multigrid_detail
