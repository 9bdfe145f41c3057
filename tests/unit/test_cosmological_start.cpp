// The gas of a cosmological start on cells finer than the initial-condition grid
// (driver/cosmological_initial_conditions.hpp): RAMSES' prolongation of the files' cells, so linear
// fields are reproduced exactly, a cell's children keep its mass and momentum, and the limiter
// flattens extrema; and a generator lattice coarser than the mesh (ic_lattice) builds both.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>

#include "core/parameters.hpp"
#include "driver/cosmological_initial_conditions.hpp"

using namespace kosmo;

namespace {

constexpr int kGrid = 8;

std::size_t index_of(int i, int j, int k) { return static_cast<std::size_t>(i + kGrid * (j + kGrid * k)); }

// A start whose gas density rises linearly along x (except across the periodic seam), with a
// uniform velocity along y and a pressure peaked in the x = 3 plane.
driver::CosmologicalStart linear_start(core::InterpolationType interpolation) {
  driver::CosmologicalStart start;
  start.n = kGrid;
  start.interpolation = interpolation;
  const std::size_t cells = static_cast<std::size_t>(kGrid) * kGrid * kGrid;
  start.density.resize(cells);
  start.pressure.resize(cells);
  for (auto& v : start.velocity) v.assign(cells, 0.0);
  for (int k = 0; k < kGrid; ++k)
    for (int j = 0; j < kGrid; ++j)
      for (int i = 0; i < kGrid; ++i) {
        const std::size_t c = index_of(i, j, k);
        start.density[c] = 1.0 + 0.1 * i;
        start.velocity[1][c] = -0.3;
        start.pressure[c] = i == 3 ? 2.0 : 1.0;
      }
  return start;
}

std::array<double, 5> state(const driver::CosmologicalStart& start, const std::array<double, 3>& x, double dx) {
  std::array<double, 5> q{};
  start.gas_state(x, 1.0, dx, q.data());
  return q;
}

}  // namespace

TEST(CosmologicalStart, FinerCellsReproduceLinearFieldsAndKeepMassAndMomentum) {
  for (const auto type : {core::InterpolationType::minmod, core::InterpolationType::moncen, core::InterpolationType::central}) {
    const driver::CosmologicalStart start = linear_start(type);
    const double h = 1.0 / kGrid;
    for (int level = 1; level <= 2; ++level) {  // cells half and a quarter of a grid cell wide
      const int per_axis = 1 << level;
      const double dx = h / per_axis;
      for (int i = 1; i < kGrid - 1; ++i) {  // away from the periodic seam of the linear ramp
        double mass = 0.0, momentum_y = 0.0;
        for (int a = 0; a < per_axis; ++a)
          for (int b = 0; b < per_axis; ++b)
            for (int c = 0; c < per_axis; ++c) {
              const std::array<double, 3> x{i * h + (a + 0.5) * dx, 2 * h + (b + 0.5) * dx, 5 * h + (c + 0.5) * dx};
              const auto q = state(start, x, dx);
              EXPECT_NEAR(q[0], 1.0 + 0.1 * (x[0] / h - 0.5), 1e-14) << "linear density, type " << static_cast<int>(type);
              EXPECT_NEAR(q[2], -0.3, 1e-14);
              mass += q[0];
              momentum_y += q[0] * q[2];
            }
        const double children = std::pow(per_axis, 3);
        EXPECT_NEAR(mass / children, start.density[index_of(i, 2, 5)], 1e-14);
        EXPECT_NEAR(momentum_y / children, -0.3 * start.density[index_of(i, 2, 5)], 1e-14);
      }
    }
    // The pressure peak at x = 3: the limited slopes (minmod, moncen) are zero there, so the fine
    // cells keep the peak value; unlimited central slopes are zero too (equal neighbours).
    for (double offset : {0.25, 0.75}) {
      const auto q = state(start, {(3 + offset) * h, 0.5 * h, 0.5 * h}, h / 2);
      EXPECT_DOUBLE_EQ(q[4], 2.0);
    }
    // Next to the peak the limiters differ: at x = 2 (left 1, right 2) minmod's slope is 0, moncen's
    // min(2 * 0, ...) is 0 too, central's is 0.5.
    const auto beside = state(start, {(2 + 0.75) * h, 0.5 * h, 0.5 * h}, h / 2);
    EXPECT_DOUBLE_EQ(beside[4], type == core::InterpolationType::central ? 1.125 : 1.0);
  }
}

TEST(CosmologicalStart, CellsAsCoarseAsTheGridTakeItsValues) {
  const driver::CosmologicalStart start = linear_start(core::InterpolationType::central);
  const double h = 1.0 / kGrid;
  const auto same = state(start, {4.9 * h, 0.1 * h, 7.5 * h}, h);
  EXPECT_DOUBLE_EQ(same[0], start.density[index_of(4, 0, 7)]);
  const auto coarser = state(start, {4.9 * h, 0.1 * h, 7.5 * h}, 2 * h);
  EXPECT_DOUBLE_EQ(coarser[0], start.density[index_of(4, 0, 7)]);
}

TEST(CosmologicalStart, GeneratorLatticeCoarserThanTheMesh) {
  const core::ParameterSet params = core::ParameterSet::from_text(
      "&RUN_PARAMS\ncosmo=.true.\npic=.true.\npoisson=.true.\nhydro=.true.\nndim=3\n/\n&AMR_PARAMS\nlevelmin=4\nlevelmax=4\n/\n"
      "&INIT_PARAMS\nfiletype='gaussian'\nic_lattice=8\nboxlen_ini=20.0\n/\n&HYDRO_PARAMS\ngamma=1.6666666666666667\n/\n",
      "lattice.nml");
  const driver::CosmologicalStart start = driver::cosmological_start(params);
  EXPECT_EQ(start.n, 8);
  EXPECT_EQ(start.particles.size(), 512u);
  ASSERT_EQ(start.density.size(), 512u);
  // The 16^3 mesh's cells, eight to a lattice cell, hold the lattice cell's gas mass.
  const double h = 1.0 / 8.0;
  for (int i = 0; i < 8; ++i) {
    double mass = 0.0;
    for (int child = 0; child < 8; ++child) {
      const std::array<double, 3> x{(i + 0.25 + 0.5 * (child & 1)) * h, (3 + 0.25 + 0.5 * ((child >> 1) & 1)) * h,
                                    (6 + 0.25 + 0.5 * ((child >> 2) & 1)) * h};
      mass += state(start, x, h / 2)[0];
    }
    EXPECT_NEAR(mass / 8.0, start.density[static_cast<std::size_t>(i + 8 * (3 + 8 * 6))], 1e-15);
  }
}
