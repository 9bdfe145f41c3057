// The shock tube along x, y and the diagonal in 2-D and 3-D reproduces the 1-D profile. A
// periodic double tube (left state for 0.25 <= s < 0.75, right state elsewhere, s = k . x mod 1
// with k = e_x, e_y, (1,1) or (1,1,1)) keeps every direction periodic; it is stopped before the
// waves of the two interfaces meet. Along a diagonal with |k| = sqrt(D'), the solution at time t
// equals the 1-D solution in s at time |k| t (Euler is invariant under x -> a x, t -> a t).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "physics/hydro_test_support.hpp"

using namespace kosmo;

namespace {

std::string periodic_namelist(int ndim, int level) {
  return "&RUN_PARAMS\nhydro=.true.\nndim=" + std::to_string(ndim) + "\n/\n&AMR_PARAMS\nlevelmin=" + std::to_string(level) +
         "\nlevelmax=" + std::to_string(level) + "\n/\n&HYDRO_PARAMS\ngamma=1.4\ncourant_factor=0.8\nslope_type=2\nriemann='hllc'\n/\n";
}

template <int D>
std::vector<test::LeafCell<D>> run_double_tube(int level, const std::array<int, D>& k, double t) {
  const auto params = core::ParameterSet::from_text(periodic_namelist(D, level), "double_tube.nml");
  driver::Simulation<D> sim(params);
  sim.set_initial_condition([k](const std::array<double, D>& x, double, double* q) {
    double s = 0.0;
    for (int d = 0; d < D; ++d) s += k[d] * x[d];
    s -= std::floor(s);
    const bool left = s >= 0.25 && s < 0.75;
    q[0] = left ? 1.0 : 0.125;
    for (int d = 0; d < D; ++d) q[1 + d] = 0.0;
    q[D + 1] = left ? 1.0 : 0.1;
  });
  sim.initialise();
  test::advance_to(sim, t);
  return test::leaf_cells(sim);
}

// The 1-D reference: density on `n` cells of the unit s-interval.
std::vector<double> reference_1d(int level, double t) {
  std::vector<double> rho(std::size_t{1} << level);
  for (const auto& cell : run_double_tube<1>(level, {1}, t)) rho[static_cast<std::size_t>(cell.x[0] / cell.dx)] = cell.q[0];
  return rho;
}

// Periodic linear interpolation of cell-centred values at s in [0, 1).
double interpolate(const std::vector<double>& rho, double s) {
  const double n = static_cast<double>(rho.size());
  double f = s * n - 0.5;
  f -= n * std::floor(f / n);
  const auto i = static_cast<std::size_t>(std::floor(f));
  const double w = f - std::floor(f);
  return (1 - w) * rho[i % rho.size()] + w * rho[(i + 1) % rho.size()];
}

// L1 (per unit volume) of the multi-D density minus the 1-D profile, and the 1-D profile's own
// total variation scale for reference.
template <int D>
double l1_difference(const std::vector<test::LeafCell<D>>& cells, const std::array<int, D>& k, const std::vector<double>& rho1d) {
  double sum = 0.0, volume = 0.0;
  for (const auto& cell : cells) {
    double s = 0.0;
    for (int d = 0; d < D; ++d) s += k[d] * cell.x[d];
    s -= std::floor(s);
    const double v = std::pow(cell.dx, D);
    sum += std::fabs(cell.q[0] - interpolate(rho1d, s)) * v;
    volume += v;
  }
  return sum / volume;
}

constexpr double kTime = 0.08;

// Density of a uniform-grid run indexed by integer cell coordinates, axes permuted by `order`.
template <int D>
std::vector<double> density_grid(const std::vector<test::LeafCell<D>>& cells, int n, const std::array<int, D>& order) {
  std::vector<double> grid(cells.size());
  for (const auto& cell : cells) {
    std::size_t index = 0;
    for (int d = D - 1; d >= 0; --d) index = index * static_cast<std::size_t>(n) + static_cast<std::size_t>(cell.x[order[d]] / cell.dx);
    grid[index] = cell.q[0];
  }
  return grid;
}

TEST(ShockTubeDirections, AxisAlignedTubesInTwoAndThreeDimensionsGiveTheOneDProfile) {
  const auto rho7 = reference_1d(7, kTime);
  const auto along_x = run_double_tube<2>(7, {1, 0}, kTime);
  const auto along_y = run_double_tube<2>(7, {0, 1}, kTime);
  // The multi-D Courant step is shorter (signal speeds add over dimensions, RAMSES cmpdt), so the
  // profiles differ from 1-D by time-step-dependent diffusion only. Measured: 1.28e-3 (2-D, 128
  // cells), 5.6e-3 (3-D, 32 cells); bounds +50 %.
  const double x2 = l1_difference<2>(along_x, {1, 0}, rho7);
  EXPECT_LT(x2, 2e-3);
  // x and y are the same computation: identical numbers after swapping the axes.
  EXPECT_EQ(density_grid<2>(along_x, 128, {0, 1}), density_grid<2>(along_y, 128, {1, 0}));
  const auto rho5 = reference_1d(5, kTime);
  const auto along_x3 = run_double_tube<3>(5, {1, 0, 0}, kTime);
  const auto along_z3 = run_double_tube<3>(5, {0, 0, 1}, kTime);
  const double x3 = l1_difference<3>(along_x3, {1, 0, 0}, rho5);
  EXPECT_LT(x3, 8.5e-3);
  EXPECT_EQ(density_grid<3>(along_x3, 32, {0, 1, 2}), density_grid<3>(along_z3, 32, {2, 1, 0}));
  RecordProperty("l1_difference_x_2d", std::to_string(x2));
  RecordProperty("l1_difference_x_3d", std::to_string(x3));
}

TEST(ShockTubeDirections, DiagonalTubesReproduceTheOneDProfile) {
  // Grid spacing along s is dx for the diagonal too (cell centres project onto multiples of dx).
  const auto rho2 = reference_1d(7, std::sqrt(2.0) * kTime);
  const double diagonal_2d = l1_difference<2>(run_double_tube<2>(7, {1, 1}, kTime), {1, 1}, rho2);
  const auto rho3 = reference_1d(6, std::sqrt(3.0) * kTime);
  const double diagonal_3d = l1_difference<3>(run_double_tube<3>(6, {1, 1, 1}, kTime), {1, 1, 1}, rho3);
  RecordProperty("l1_difference_diagonal_2d", std::to_string(diagonal_2d));
  RecordProperty("l1_difference_diagonal_3d", std::to_string(diagonal_3d));
  // Bounds: measured 7.0e-3 (2-D, 128^2) and 5.1e-3 (3-D, 64^3) plus ~50 %; the density jumps are
  // O(1) and the difference is confined to the few cells that resolve each wave.
  EXPECT_LT(diagonal_2d, 1.05e-2);
  EXPECT_LT(diagonal_3d, 7.7e-3);
}

}  // namespace
