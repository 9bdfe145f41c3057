#pragma once
// A fully refined level of the distributed octree as one dense array on every rank (seeds/000
// §5.2.1): below about 256^3 cells the base-level Poisson solve gathers the level to every rank
// with a single MPI_Allreduce and solves it there, instead of redistributing it into FFT slabs.
// Each cell has exactly one owner and every other rank adds 0 to it, so the gathered array is the
// same bits on any number of ranks.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "core/error.hpp"
#include "core/oct_tree.hpp"

namespace kosmo::parallel {

// Cells per axis of `level` when the coarse grid is cubic (nx = ny = nz), which the FFT needs.
template <int D, class Key>
long long uniform_level_cells_per_axis(const core::OctTree<D, Key>& tree, int level) {
  const auto extent = tree.extent(level);
  for (int d = 1; d < D; ++d)
    KOSMO_REQUIRE(extent[d] == extent[0], "uniform level: the coarse grid must be cubic (nx = ny = nz) for a dense solve");
  return 2 * static_cast<long long>(extent[0]);
}

// Dense index of integer cell coordinates, x fastest.
template <int D, class Coordinates>
std::size_t dense_index(const Coordinates& c, long long n) {
  std::size_t index = 0;
  for (int d = D - 1; d >= 0; --d) index = index * static_cast<std::size_t>(n) + static_cast<std::size_t>(c[d]);
  return index;
}

// Writes this rank's owned cells of `level` of `field` into their places of the dense n^D array,
// leaving the other entries as they are. No MPI. One key decode per oct, not per cell (a 256^3 level
// has 16.7 M cells).
template <int D, class Key>
void place_owned_cells(const core::OctTree<D, Key>& tree, int level, int field, long long n, double* dense) {
  using Tree = core::OctTree<D, Key>;
  const auto& octs = tree.octs_at_level(level);
  const double* values = tree.field(field);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < octs.size(); ++i) {
    const auto oct = tree.coordinates(octs[i]);
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      auto x = oct;
      for (int d = 0; d < D; ++d) x[d] = 2 * x[d] + ((c >> d) & 1);
      dense[dense_index<D>(x, n)] = values[Tree::cell_index(octs[i], c)];
    }
  }
}

// Every cell of `level` (which must exist everywhere) of `field`, as n^D values on every rank.
// Collective.
template <int D, class Key>
std::vector<double> gather_uniform_level(const core::OctTree<D, Key>& tree, int level, int field, MPI_Comm comm) {
  using Tree = core::OctTree<D, Key>;
  const long long n = uniform_level_cells_per_axis(tree, level);
  std::size_t cells = 1;
  for (int d = 0; d < D; ++d) cells *= static_cast<std::size_t>(n);
  std::vector<double> dense(cells, 0.0);
  const long long owned = static_cast<long long>(tree.octs_at_level(level).size()) * Tree::cells_per_oct;
  place_owned_cells(tree, level, field, n, dense.data());
  long long total = 0;
  MPI_Allreduce(&owned, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  KOSMO_REQUIRE(static_cast<std::size_t>(total) == cells,
                "uniform level: level " << level << " holds " << total << " cells, not the " << cells << " of a full level");
  MPI_Allreduce(MPI_IN_PLACE, dense.data(), static_cast<int>(cells), MPI_DOUBLE, MPI_SUM, comm);
  return dense;
}

// Writes the dense array back into `field` on every owned and ghost cell of `level`. No MPI.
template <int D, class Key>
void scatter_uniform_level(core::OctTree<D, Key>& tree, int level, int field, long long n, const double* dense) {
  using Tree = core::OctTree<D, Key>;
  double* values = tree.field(field);
  for (const auto* octs : {&tree.octs_at_level(level), &tree.ghost_octs_at_level(level)}) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < octs->size(); ++i) {
      const auto oct = tree.coordinates((*octs)[i]);
      for (int c = 0; c < Tree::cells_per_oct; ++c) {
        auto x = oct;
        for (int d = 0; d < D; ++d) x[d] = 2 * x[d] + ((c >> d) & 1);
        values[Tree::cell_index((*octs)[i], c)] = dense[dense_index<D>(x, n)];
      }
    }
  }
}

template <int D, class Key>
void scatter_uniform_level(core::OctTree<D, Key>& tree, int level, int field, const std::vector<double>& dense) {
  scatter_uniform_level<D, Key>(tree, level, field, uniform_level_cells_per_axis(tree, level), dense.data());
}

}  // namespace kosmo::parallel
