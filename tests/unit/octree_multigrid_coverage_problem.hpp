#pragma once
// A periodic box whose base level (levels 1..base fully refined) is refined one level further over a
// chosen fraction of its cells: the case in which the octree multigrid of the refined level used to
// converge poorly or diverge (docs/gravity.md, "Refined levels covering most of a periodic box").
// Shared by tests/unit/test_octree_multigrid_coverage.cpp and tests/mpi/test_distributed_octree_multigrid_coverage.cpp.
//
// The reference is the same discrete problem (the solved level's 2D+1-point Laplacian, with the
// coarse potential interpolated at coarse-fine faces by gravity/coarse_interpolation.hpp, as the
// solver does) solved by unpreconditioned conjugate gradients on a dense array: no multigrid, no
// octree neighbour tables, so it cannot share the solver's mistakes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "core/oct_tree.hpp"
#include "gravity/coarse_interpolation.hpp"

namespace kosmo::gravity::test {

using CoverageTree = core::OctTree<3, core::MortonKey>;

// smooth: the refined region is a thresholded sum of long-wavelength modes (a few large unrefined
// regions, as a refinement criterion on a smooth density gives); speckled: a thresholded per-cell
// hash (isolated unrefined cells scattered through the box, as particle-count refinement m_refine=2
// gives in a cosmological box where most cells hold about one particle).
// clumpy: a thresholded field of modes up to 4 wavelengths per box (unrefined regions of a few base
// cells, some connected, some isolated).
enum class CoverageShape { smooth, speckled, clumpy };

inline double coverage_field(CoverageShape shape, const std::array<double, 3>& x, const std::array<std::int64_t, 3>& cell) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  if (shape == CoverageShape::smooth) {
    return std::sin(two_pi * x[0] + 0.3) * std::cos(two_pi * x[1] - 1.1) + 0.7 * std::sin(two_pi * (x[1] + x[2]) + 2.0) +
           0.5 * std::cos(two_pi * (2.0 * x[0] - x[2]) + 0.4) + 0.4 * std::sin(two_pi * (x[0] + 3.0 * x[1] + x[2]) + 1.3);
  }
  if (shape == CoverageShape::clumpy) {
    double sum = 0.0;
    for (int a = -4; a <= 4; ++a)
      for (int b = -4; b <= 4; ++b)
        for (int c = 0; c <= 4; ++c) {
          const int k2 = a * a + b * b + c * c;
          if (k2 == 0 || k2 > 16) continue;
          const double phase = 0.7 * a + 1.9 * b * b + 2.3 * c + 0.37 * a * b * c;  // fixed pseudo-random phases
          sum += std::cos(two_pi * (a * x[0] + b * x[1] + c * x[2]) + phase) / std::sqrt(static_cast<double>(k2));
        }
    return sum;
  }
  std::uint64_t h = static_cast<std::uint64_t>(cell[0]) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(cell[1]) * 0xC2B2AE3D27D4EB4Full ^
                    static_cast<std::uint64_t>(cell[2]) * 0x165667B19E3779F9ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<double>(h >> 11) / 9007199254740992.0;  // [0, 1)
}

// The continuum potential: its Laplacian is the source, its values on the base level the coarse
// potential. The constant and the long mode make the Dirichlet values far from zero-mean, so the
// smooth error modes the V-cycle struggled with are present from the first cycle.
inline double coverage_potential(const std::array<double, 3>& x) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  return std::sin(two_pi * x[0]) * std::sin(two_pi * x[1]) * std::sin(two_pi * x[2]) + 0.5 * std::cos(two_pi * (x[0] + 2.0 * x[1] - x[2])) + 1.0;
}
inline double coverage_source(const std::array<double, 3>& x) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  return -3.0 * two_pi * two_pi * std::sin(two_pi * x[0]) * std::sin(two_pi * x[1]) * std::sin(two_pi * x[2]) -
         0.5 * 6.0 * two_pi * two_pi * std::cos(two_pi * (x[0] + 2.0 * x[1] - x[2]));
}

struct CoverageProblem {
  CoverageTree tree;
  int phi = -1, rhs = -1;
  int base = 0;           // levels 1..base are full; base + 1 (and base + 2 after refine_again) refined
  double coverage = 0.0;  // fraction of the base level's cells that are refined
};

// Periodic unit box, levels 1..base full, level base + 1 on the `fraction` of base cells where the
// coverage field is largest (every base cell has its 26 neighbours, so the 2:1 rule refuses none).
// phi = coverage_potential on levels <= base, 0 on base + 1 (cold start); rhs = coverage_source.
inline CoverageProblem build_coverage_problem(int base, double fraction, CoverageShape shape, int levelmax = 0) {
  CoverageTree::Geometry g;
  g.levelmax = std::max(levelmax, base + 1);
  g.coarse_cells = {1, 1, 1};
  g.periodic = {true, true, true};
  g.boxlen = 1.0;
  CoverageProblem p{CoverageTree(g)};
  p.base = base;
  for (int l = 1; l < base; ++l) {
    std::vector<core::CellIndex> cells;
    for (core::OctIndex o : p.tree.octs_at_level(l))
      for (int c = 0; c < CoverageTree::cells_per_oct; ++c) cells.push_back(CoverageTree::cell_index(o, c));
    for (core::CellIndex cell : cells) p.tree.create_son(cell);
    p.tree.rebuild_level_lists();
  }
  std::vector<std::pair<double, core::CellIndex>> ranked;
  for (core::OctIndex o : p.tree.octs_at_level(base))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      const auto i = p.tree.cell_coordinates(cell);
      ranked.emplace_back(coverage_field(shape, p.tree.cell_centre(cell), {i[0], i[1], i[2]}), cell);
    }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  const auto refined = static_cast<std::size_t>(std::lround(fraction * static_cast<double>(ranked.size())));
  for (std::size_t i = 0; i < refined; ++i) p.tree.create_son(ranked[i].second);
  p.tree.rebuild_level_lists();
  p.coverage = static_cast<double>(refined) / static_cast<double>(ranked.size());
  p.phi = p.tree.add_field(core::scalar_field("phi"));
  p.rhs = p.tree.add_field(core::scalar_field("rhs"));
  for (int l = 1; l <= g.levelmax; ++l)
    for (core::OctIndex o : p.tree.octs_at_level(l))
      for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
        const core::CellIndex cell = CoverageTree::cell_index(o, c);
        const auto x = p.tree.cell_centre(cell);
        p.tree.field(p.rhs)[cell] = coverage_source(x);
        p.tree.field(p.phi)[cell] = l <= base ? coverage_potential(x) : 0.0;
      }
  return p;
}

// Refines the `fraction` of the level-(base+1) cells where the coverage field (of the cell's
// coordinates scrambled, so that the pattern is not the base level's) is largest, among those whose
// 26 neighbours exist (the 2:1 rule); rhs = coverage_source and phi = 0 on the new level. Returns the
// fraction of level-(base+1) cells refined.
inline double refine_again(CoverageProblem& p, double fraction, CoverageShape shape) {
  const int level = p.base + 1;
  std::vector<std::pair<double, core::CellIndex>> ranked;
  std::size_t cells = 0;
  for (core::OctIndex o : p.tree.octs_at_level(level))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      ++cells;
      bool graded = true;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) graded = graded && p.tree.cell_neighbour(cell, {dx, dy, dz}) != core::no_cell;
      if (!graded) continue;
      const auto i = p.tree.cell_coordinates(cell);
      ranked.emplace_back(coverage_field(shape, p.tree.cell_centre(cell), {7 * i[0] + 3, 5 * i[1] + 1, 3 * i[2] + 2}), cell);
    }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  const auto refined = std::min(ranked.size(), static_cast<std::size_t>(std::lround(fraction * static_cast<double>(cells))));
  for (std::size_t i = 0; i < refined; ++i) p.tree.create_son(ranked[i].second);
  p.tree.rebuild_level_lists();
  for (core::OctIndex o : p.tree.octs_at_level(level + 1))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      p.tree.field(p.rhs)[cell] = coverage_source(p.tree.cell_centre(cell));
      p.tree.field(p.phi)[cell] = 0.0;
    }
  return static_cast<double>(refined) / static_cast<double>(cells);
}

// The solved level as a dense n^3 array (x fastest): 1 where the level-(base+1) cell exists.
struct DenseLevel {
  int n = 0;
  std::vector<char> active;
  std::vector<double> values;
  std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    auto wrap = [&](std::int64_t v) { return static_cast<std::size_t>(((v % n) + n) % n); };
    return (wrap(z) * static_cast<std::size_t>(n) + wrap(y)) * static_cast<std::size_t>(n) + wrap(x);
  }
};

// The discrete solution of L_h phi = rhs on `level` of `p` (above the base; the whole tree on one
// rank), with the Dirichlet values at its coarse-fine faces interpolated from phi at level - 1, by
// conjugate gradients on -L_h (symmetric positive definite: every connected part of the level touches
// a coarse-fine face) to a relative residual of 1e-13.
inline DenseLevel reference_solution(const CoverageProblem& p, int level) {
  DenseLevel d;
  d.n = 1 << level;
  const auto cells = static_cast<std::size_t>(d.n) * static_cast<std::size_t>(d.n) * static_cast<std::size_t>(d.n);
  d.active.assign(cells, 0);
  std::vector<double> b(cells, 0.0);
  const double h = p.tree.cell_size(level), inverse_h2 = 1.0 / (h * h);
  const double* phi = p.tree.field(p.phi);
  for (core::OctIndex o : p.tree.octs_at_level(level))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      const auto i = p.tree.cell_coordinates(cell);
      d.active[d.index(i[0], i[1], i[2])] = 1;
    }
  // b = -(rhs - sum of the Dirichlet neighbours / h^2): the system -L_h phi = b on the active cells.
  for (core::OctIndex o : p.tree.octs_at_level(level))
    for (int c = 0; c < CoverageTree::cells_per_oct; ++c) {
      const core::CellIndex cell = CoverageTree::cell_index(o, c);
      const auto i = p.tree.cell_coordinates(cell);
      double dirichlet = 0.0;
      for (int axis = 0; axis < 3; ++axis)
        for (int step : {-1, 1}) {
          auto y = i;
          y[static_cast<std::size_t>(axis)] += step;
          if (d.active[d.index(y[0], y[1], y[2])]) continue;
          CoverageTree::Coordinates coarse{};
          std::array<double, 3> offset{};
          for (int k = 0; k < 3; ++k) {
            const std::int64_t v = ((y[static_cast<std::size_t>(k)] % d.n) + d.n) % d.n;
            coarse[static_cast<std::size_t>(k)] = v >> 1;
            offset[static_cast<std::size_t>(k)] = (v & 1) ? 0.25 : -0.25;
          }
          double value = 0.0;
          coarse_potential<3, core::MortonKey>(p.tree, level - 1, coarse, offset, phi, value);
          dirichlet += value;
        }
      b[d.index(i[0], i[1], i[2])] = -(p.tree.field(p.rhs)[cell] - dirichlet * inverse_h2);
    }
  auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {  // y = -L_h x, x = 0 off the level
    for (std::int64_t z = 0; z < d.n; ++z)
      for (std::int64_t v = 0; v < d.n; ++v)
        for (std::int64_t u = 0; u < d.n; ++u) {
          const std::size_t k = d.index(u, v, z);
          if (!d.active[k]) {
            y[k] = 0.0;
            continue;
          }
          const double sum = x[d.index(u - 1, v, z)] + x[d.index(u + 1, v, z)] + x[d.index(u, v - 1, z)] + x[d.index(u, v + 1, z)] +
                             x[d.index(u, v, z - 1)] + x[d.index(u, v, z + 1)];
          y[k] = (6.0 * x[k] - sum) * inverse_h2;
        }
  };
  auto dot = [](const std::vector<double>& a, const std::vector<double>& c) {
    double s = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * c[k];
    return s;
  };
  d.values.assign(cells, 0.0);
  std::vector<double> r = b, direction = b, q(cells, 0.0);
  double rr = dot(r, r);
  const double target = 1e-26 * rr;
  for (int iteration = 0; iteration < 20 * d.n * d.n && rr > target; ++iteration) {
    apply(direction, q);
    const double alpha = rr / dot(direction, q);
    for (std::size_t k = 0; k < cells; ++k) {
      d.values[k] += alpha * direction[k];
      r[k] -= alpha * q[k];
    }
    const double next = dot(r, r);
    for (std::size_t k = 0; k < cells; ++k) direction[k] = r[k] + (next / rr) * direction[k];
    rr = next;
  }
  return d;
}

}  // namespace kosmo::gravity::test
