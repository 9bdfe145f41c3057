// The multigrid solver on one AMR level of the octree (gravity/octree_multigrid.hpp, seeds/000 §5.1)
// on one rank: against the FFT solve on a fully refined periodic level, second-order convergence to an
// analytic potential through two refined levels with coarse-fine Dirichlet interpolation, and
// independence from the OpenMP thread count, bit for bit.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <vector>

#include "gravity/fft_poisson.hpp"
#include "gravity/octree_multigrid.hpp"

using namespace kosmo;

namespace {

using Tree = core::OctTree<3, core::MortonKey>;
using Position = std::array<double, 3>;
constexpr double kPi = std::numbers::pi;

Tree make_tree(int levelmax, bool periodic) {
  Tree::Geometry g;
  g.levelmax = levelmax;
  g.coarse_cells = {1, 1, 1};
  g.periodic = {periodic, periodic, periodic};
  g.boxlen = 1.0;
  return Tree(g);
}

// Refines every cell of `level` whose centre satisfies `where` and whose 3^3 - 1 same-level
// neighbours exist (RAMSES' 2:1 rule for the sons), then re-sorts the level lists.
void refine(Tree& tree, int level, const std::function<bool(const Position&)>& where) {
  std::vector<core::CellIndex> cells;
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      if (!tree.is_leaf(cell) || !where(tree.cell_centre(cell))) continue;
      bool graded = true;
      for (int dz = -1; dz <= 1 && graded; ++dz)
        for (int dy = -1; dy <= 1 && graded; ++dy)
          for (int dx = -1; dx <= 1 && graded; ++dx)
            if (tree.cell_neighbour(cell, {dx, dy, dz}) == core::no_cell) graded = false;
      if (graded) cells.push_back(cell);
    }
  for (core::CellIndex cell : cells) tree.create_son(cell);
  tree.rebuild_level_lists();
}

void refine_fully(Tree& tree, int up_to_level) {
  for (int l = 1; l < up_to_level; ++l) {
    std::vector<core::CellIndex> cells;
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < Tree::cells_per_oct; ++c) cells.push_back(Tree::cell_index(o, c));
    for (core::CellIndex cell : cells) tree.create_son(cell);
    tree.rebuild_level_lists();
  }
}

template <class F>
void for_each_cell(const Tree& tree, int level, F&& f) {
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) f(Tree::cell_index(o, c));
}

gravity::MultigridCommunication single_rank() { return {}; }

double sine_source(const Position& x) {
  return -12.0 * kPi * kPi * std::sin(2 * kPi * x[0]) * std::sin(2 * kPi * x[1]) * std::sin(2 * kPi * x[2]);
}

struct PeriodicRun {
  gravity::OctreeMultigridReport report;
  std::vector<double> phi;  // dense, x fastest
  double difference_to_fft = 0.0;
};

// Levels 1..5 fully refined in the periodic unit box: level 5 is 32^3 cells.
PeriodicRun periodic_run(const gravity::OctreeMultigridSettings& settings) {
  constexpr int level = 5, n = 32;
  Tree tree = make_tree(level, true);
  refine_fully(tree, level);
  const int phi_field = tree.add_field(core::scalar_field("phi"));
  const int rhs_field = tree.add_field(core::scalar_field("rhs"));
  std::vector<double> f(static_cast<std::size_t>(n * n * n));
  auto dense = [&](core::CellIndex cell) {
    const auto i = tree.cell_coordinates(cell);
    return static_cast<std::size_t>((i[2] * n + i[1]) * n + i[0]);
  };
  for_each_cell(tree, level, [&](core::CellIndex cell) {
    tree.field(rhs_field)[cell] = sine_source(tree.cell_centre(cell));
    f[dense(cell)] = tree.field(rhs_field)[cell];
  });
  gravity::OctreeMultigrid<3> solver(tree, settings, single_rank());
  PeriodicRun run;
  run.report = solver.solve(level, phi_field, rhs_field);
  std::vector<double> reference(f.size());
  gravity::PeriodicFftPoisson<3>(n, tree.cell_size(level)).solve(f.data(), reference.data());
  run.phi.assign(f.size(), 0.0);
  double worst = 0.0, scale = 0.0;
  for_each_cell(tree, level, [&](core::CellIndex cell) {
    run.phi[dense(cell)] = tree.field(phi_field)[cell];
    worst = std::max(worst, std::fabs(tree.field(phi_field)[cell] - reference[dense(cell)]));
    scale = std::max(scale, std::fabs(reference[dense(cell)]));
  });
  run.difference_to_fft = worst / scale;
  return run;
}

TEST(OctreeMultigrid, FullyRefinedPeriodicLevelAgreesWithTheFftSolve) {
  gravity::OctreeMultigridSettings settings;
  settings.epsilon = 1e-10;
  const PeriodicRun run = periodic_run(settings);
  std::printf("  32^3 periodic, 1+1 sweeps: %d V-cycles, reduction %.2f per V-cycle, max |phi - phi_fft| / max |phi_fft| = %.2e\n",
              run.report.vcycles, run.report.reduction_per_vcycle, run.difference_to_fft);
  EXPECT_TRUE(run.report.converged);
  // One pre- and one post-sweep: 4.6 measured (PeriodicMultigrid with 1+1 sweeps: 5.2-5.7).
  EXPECT_GE(run.report.reduction_per_vcycle, 4.0);
  EXPECT_LE(run.difference_to_fft, 1e-8);
  // The mean is zero, as the FFT solution's.
  double mean = 0.0;
  for (double v : run.phi) mean += v;
  EXPECT_LE(std::fabs(mean / static_cast<double>(run.phi.size())), 1e-12);

  // RAMSES' ngs_fine = ngs_coarse = 2.
  gravity::OctreeMultigridSettings two = settings;
  two.pre_smoothing_sweeps = two.post_smoothing_sweeps = 2;
  const PeriodicRun twice = periodic_run(two);
  std::printf("  32^3 periodic, 2+2 sweeps: %d V-cycles, reduction %.2f per V-cycle, max |phi - phi_fft| / max |phi_fft| = %.2e\n",
              twice.report.vcycles, twice.report.reduction_per_vcycle, twice.difference_to_fft);
  EXPECT_GE(twice.report.reduction_per_vcycle, 6.0);
  EXPECT_LE(twice.difference_to_fft, 1e-8);

  // At RAMSES' default epsilon the answer is already within 1e-4 of the exact discrete one.
  const PeriodicRun loose = periodic_run({});
  std::printf("  epsilon = 1e-4: %d V-cycles, max |phi - phi_fft| / max |phi_fft| = %.2e\n", loose.report.vcycles, loose.difference_to_fft);
  EXPECT_TRUE(loose.report.converged);
  EXPECT_LE(loose.difference_to_fft, 1e-4);
}

TEST(OctreeMultigrid, MergedAndFusedVariantsTakeTheSameVcyclesOnOneRank) {
  gravity::OctreeMultigridSettings reference;
  reference.epsilon = 1e-8;
  reference.merged_red_black = false;
  reference.fused_residual_norm = false;
  const PeriodicRun unmerged = periodic_run(reference);
  for (const bool merged : {false, true})
    for (const bool fused : {false, true}) {
      gravity::OctreeMultigridSettings s = reference;
      s.merged_red_black = merged;
      s.fused_residual_norm = fused;
      const PeriodicRun run = periodic_run(s);
      EXPECT_EQ(run.report.vcycles, unmerged.report.vcycles) << "merged " << merged << " fused " << fused;
      // On one rank there is no ghost, so merging changes no arithmetic: the same bits.
      EXPECT_EQ(run.phi, unmerged.phi) << "merged " << merged << " fused " << fused;
      // Exchanges requested at the solved level in one V-cycle (seeds/000 Fig. 3).
      const long long expected = (merged ? 2 : 4) + 1 /* residual */ + 1 /* prolongation */ + (fused ? 1 : 2) /* convergence */;
      EXPECT_EQ(run.report.exchanges_per_vcycle_by_level.at(5), expected) << "merged " << merged << " fused " << fused;
      std::printf("  merged %d fused %d: %d V-cycles, %lld exchanges per V-cycle at the solved level, %lld at level 4\n", merged, fused,
                  run.report.vcycles, run.report.exchanges_per_vcycle_by_level.at(5), run.report.exchanges_per_vcycle_by_level.at(4));
    }
  gravity::OctreeMultigridSettings divide = reference;
  divide.precomputed_reciprocal = false;
  const PeriodicRun divided = periodic_run(divide);
  EXPECT_EQ(divided.report.vcycles, unmerged.report.vcycles);
  EXPECT_LE(divided.difference_to_fft, 1e-6);
}

// The same solver in 1-D and 2-D: a fully refined periodic level against the FFT solve.
template <int D>
double lower_dimension_difference_to_fft(int level, int& vcycles) {
  using TreeD = core::OctTree<D, core::MortonKey>;
  typename TreeD::Geometry g;
  g.levelmax = level;
  for (int d = 0; d < D; ++d) {
    g.coarse_cells[static_cast<std::size_t>(d)] = 1;
    g.periodic[static_cast<std::size_t>(d)] = true;
  }
  TreeD tree(g);
  for (int l = 1; l < level; ++l) {
    std::vector<core::CellIndex> cells;
    for (core::OctIndex o : tree.octs_at_level(l))
      for (int c = 0; c < TreeD::cells_per_oct; ++c) cells.push_back(TreeD::cell_index(o, c));
    for (core::CellIndex cell : cells) tree.create_son(cell);
    tree.rebuild_level_lists();
  }
  const int phi_field = tree.add_field(core::scalar_field("phi"));
  const int rhs_field = tree.add_field(core::scalar_field("rhs"));
  const int n = 1 << level;
  std::vector<double> f(static_cast<std::size_t>(std::pow(n, D)));
  auto dense = [&](core::CellIndex cell) {
    const auto i = tree.cell_coordinates(cell);
    std::size_t index = 0;
    for (int d = D - 1; d >= 0; --d) index = index * static_cast<std::size_t>(n) + static_cast<std::size_t>(i[static_cast<std::size_t>(d)]);
    return index;
  };
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < TreeD::cells_per_oct; ++c) {
      const core::CellIndex cell = TreeD::cell_index(o, c);
      const auto x = tree.cell_centre(cell);
      double value = -4.0 * D * kPi * kPi;
      for (int d = 0; d < D; ++d) value *= std::sin(2 * kPi * x[static_cast<std::size_t>(d)]) + 0.3 * std::cos(6 * kPi * x[static_cast<std::size_t>(d)]);
      tree.field(rhs_field)[cell] = value;
      f[dense(cell)] = value;
    }
  gravity::OctreeMultigridSettings settings;
  settings.epsilon = 1e-10;
  gravity::OctreeMultigrid<D> solver(tree, settings, single_rank());
  const auto report = solver.solve(level, phi_field, rhs_field);
  EXPECT_TRUE(report.converged);
  vcycles = report.vcycles;
  std::vector<double> reference(f.size());
  gravity::PeriodicFftPoisson<D>(n, tree.cell_size(level)).solve(f.data(), reference.data());
  double worst = 0.0, scale = 0.0;
  for (core::OctIndex o : tree.octs_at_level(level))
    for (int c = 0; c < TreeD::cells_per_oct; ++c) {
      const core::CellIndex cell = TreeD::cell_index(o, c);
      worst = std::max(worst, std::fabs(tree.field(phi_field)[cell] - reference[dense(cell)]));
      scale = std::max(scale, std::fabs(reference[dense(cell)]));
    }
  return worst / scale;
}

TEST(OctreeMultigrid, OneAndTwoDimensionalPeriodicLevelsAgreeWithTheFftSolve) {
  int vcycles_1d = 0, vcycles_2d = 0;
  const double one = lower_dimension_difference_to_fft<1>(7, vcycles_1d);
  const double two = lower_dimension_difference_to_fft<2>(6, vcycles_2d);
  std::printf("  1-D 128 cells: %d V-cycles, difference %.2e; 2-D 64^2: %d V-cycles, difference %.2e\n", vcycles_1d, one, vcycles_2d, two);
  EXPECT_LE(one, 1e-8);
  EXPECT_LE(two, 1e-8);
}

// --- AMR: phi = exp(-r^2 / s^2) about the box centre, Dirichlet box walls ----------------------------
constexpr double kWidth = 0.2;

double gaussian(const Position& x) {
  double r2 = 0.0;
  for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.5) * (x[d] - 0.5);
  return std::exp(-r2 / (kWidth * kWidth));
}
double gaussian_laplacian(const Position& x) {
  double r2 = 0.0;
  for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.5) * (x[d] - 0.5);
  const double s2 = kWidth * kWidth;
  return (4.0 * r2 / (s2 * s2) - 6.0 / s2) * std::exp(-r2 / s2);
}
bool within(const Position& x, double radius) {
  double r2 = 0.0;
  for (int d = 0; d < 3; ++d) r2 += (x[d] - 0.5) * (x[d] - 0.5);
  return r2 < radius * radius;
}

struct AmrRun {
  double error_first = 0.0, error_second = 0.0;  // max |phi - exact| on levels base+1, base+2
  double jump = 0.0;                             // max |phi_fine - interpolated coarse phi| at coarse-fine faces of base+2
  long long cells_first = 0, cells_second = 0;
  int vcycles_first = 0, vcycles_second = 0;
  std::vector<double> phi_second;  // level base+2 values in level-list order
};

// Levels 1..base full; base+1 where the cell centre is within 0.32 of the box centre, base+2 within
// 0.2. phi on level `base` is the analytic potential; base+1 and base+2 are solved in turn.
AmrRun amr_run(int base, int threads = 0, gravity::OctreeMultigridSettings settings = {}) {
  const int saved_threads = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  Tree tree = make_tree(base + 2, false);
  refine_fully(tree, base);
  refine(tree, base, [](const Position& x) { return within(x, 0.32); });
  refine(tree, base + 1, [](const Position& x) { return within(x, 0.2); });
  const int phi_field = tree.add_field(core::scalar_field("phi"));
  const int rhs_field = tree.add_field(core::scalar_field("rhs"));
  for (int l = 1; l <= base + 2; ++l)
    for_each_cell(tree, l, [&](core::CellIndex cell) {
      tree.field(rhs_field)[cell] = gaussian_laplacian(tree.cell_centre(cell));
      if (l <= base) tree.field(phi_field)[cell] = gaussian(tree.cell_centre(cell));
    });
  gravity::OctreeMultigrid<3> solver(tree, settings, single_rank());
  solver.set_box_boundary_potential(gaussian);
  AmrRun run;
  const auto first = solver.solve(base + 1, phi_field, rhs_field);
  const auto second = solver.solve(base + 2, phi_field, rhs_field);
  EXPECT_TRUE(first.converged && second.converged);
  run.vcycles_first = first.vcycles;
  run.vcycles_second = second.vcycles;
  const double* phi = tree.field(phi_field);
  for_each_cell(tree, base + 1, [&](core::CellIndex cell) {
    run.error_first = std::max(run.error_first, std::fabs(phi[cell] - gaussian(tree.cell_centre(cell))));
    ++run.cells_first;
  });
  const int fine = base + 2;
  for_each_cell(tree, fine, [&](core::CellIndex cell) {
    run.error_second = std::max(run.error_second, std::fabs(phi[cell] - gaussian(tree.cell_centre(cell))));
    run.phi_second.push_back(phi[cell]);
    ++run.cells_second;
    // At a coarse-fine face: compare with the coarse potential interpolated at this cell's centre
    // (the father cell plus central slopes at the child's +-1/4 offset).
    bool boundary = false;
    for (int axis = 0; axis < 3; ++axis)
      for (int step : {-1, 1}) {
        std::array<int, 3> offset{};
        offset[axis] = step;
        if (tree.cell_neighbour(cell, offset) == core::no_cell) boundary = true;
      }
    if (!boundary) return;
    const core::CellIndex father = tree.father_cell(Tree::oct_of(cell));
    double interpolated = phi[father];
    for (int axis = 0; axis < 3; ++axis) {
      std::array<int, 3> plus{}, minus{};
      plus[axis] = 1;
      minus[axis] = -1;
      const double slope = 0.5 * (phi[tree.cell_neighbour(father, plus)] - phi[tree.cell_neighbour(father, minus)]);
      interpolated += slope * (((Tree::child_of(cell) >> axis) & 1) ? 0.25 : -0.25);
    }
    run.jump = std::max(run.jump, std::fabs(phi[cell] - interpolated));
  });
  omp_set_num_threads(saved_threads);
  return run;
}

TEST(OctreeMultigrid, RefinedLevelsConvergeAtSecondOrderToTheAnalyticPotential) {
  gravity::OctreeMultigridSettings settings;
  settings.epsilon = 1e-10;
  std::vector<AmrRun> runs;
  for (int base : {4, 5}) {
    runs.push_back(amr_run(base, 0, settings));
    const AmrRun& r = runs.back();
    std::printf("  base level %d: level %d (%lld cells, %d V-cycles) max error %.3e; level %d (%lld cells, %d V-cycles) max error %.3e, "
                "coarse-fine jump %.3e\n",
                base, base + 1, r.cells_first, r.vcycles_first, r.error_first, base + 2, r.cells_second, r.vcycles_second, r.error_second,
                r.jump);
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double ratio_first = runs[i - 1].error_first / runs[i].error_first;
    const double ratio_second = runs[i - 1].error_second / runs[i].error_second;
    const double ratio_jump = runs[i - 1].jump / runs[i].jump;
    std::printf("  h halved: error ratio %.2f (first refined level), %.2f (second), jump ratio %.2f\n", ratio_first, ratio_second, ratio_jump);
    EXPECT_GE(ratio_first, 3.0);
    EXPECT_LE(ratio_first, 5.5);
    EXPECT_GE(ratio_second, 3.0);
    EXPECT_LE(ratio_second, 5.5);
    EXPECT_GE(ratio_jump, 2.5);
  }
  // The jump across the coarse-fine boundary is of the size of the discretisation error.
  for (const AmrRun& r : runs) EXPECT_LE(r.jump, 2.0 * std::max(r.error_first, r.error_second));
}

TEST(OctreeMultigrid, ResultDoesNotDependOnTheThreadCount) {
  const AmrRun one = amr_run(4, 1);
  const AmrRun two = amr_run(4, 2);
  ASSERT_EQ(one.phi_second.size(), two.phi_second.size());
  EXPECT_EQ(one.vcycles_second, two.vcycles_second);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < one.phi_second.size(); ++i) differing += one.phi_second[i] == two.phi_second[i] ? 0 : 1;
  EXPECT_EQ(differing, 0u) << "of " << one.phi_second.size() << " cells";

  gravity::OctreeMultigridSettings settings;
  settings.epsilon = 1e-8;
  const int saved_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const PeriodicRun serial = periodic_run(settings);
  omp_set_num_threads(2);
  const PeriodicRun parallel = periodic_run(settings);
  omp_set_num_threads(saved_threads);
  EXPECT_EQ(serial.report.vcycles, parallel.report.vcycles);
  EXPECT_EQ(serial.phi, parallel.phi);
}


// Zero-gradient walls (no boundary potential set): phi = cos(2 pi x) cos(2 pi y) cos(2 pi z) has zero
// normal derivative on the faces of the unit box; the pure-Neumann problem is singular, so phi comes
// back with zero mean, which the exact solution has. Second order: the error falls 4x per halving of h.
TEST(OctreeMultigrid, ZeroGradientWallsConvergeAtSecondOrder) {
  std::vector<double> errors;
  for (int level : {4, 5}) {
    Tree tree = make_tree(level, false);
    refine_fully(tree, level);
    const int phi_field = tree.add_field(core::scalar_field("phi"));
    const int rhs_field = tree.add_field(core::scalar_field("rhs"));
    auto exact = [](const Position& x) { return std::cos(2 * kPi * x[0]) * std::cos(2 * kPi * x[1]) * std::cos(2 * kPi * x[2]); };
    for_each_cell(tree, level, [&](core::CellIndex cell) { tree.field(rhs_field)[cell] = -12.0 * kPi * kPi * exact(tree.cell_centre(cell)); });
    gravity::OctreeMultigridSettings settings;
    settings.epsilon = 1e-10;
    gravity::OctreeMultigrid<3> solver(tree, settings, single_rank());
    const auto report = solver.solve(level, phi_field, rhs_field);
    EXPECT_TRUE(report.converged);
    double error = 0.0;
    for_each_cell(tree, level, [&](core::CellIndex cell) {
      error = std::max(error, std::fabs(tree.field(phi_field)[cell] - exact(tree.cell_centre(cell))));
    });
    std::printf("  zero-gradient walls, level %d: %d V-cycles, reduction %.2f, max error %.3e\n", level, report.vcycles,
                report.reduction_per_vcycle, error);
    errors.push_back(error);
  }
  const double ratio = errors[0] / errors[1];
  std::printf("  h halved: error ratio %.2f\n", ratio);
  EXPECT_GE(ratio, 3.5);
  EXPECT_LE(ratio, 4.5);
}

}  // namespace
