// RAMSES' region initial conditions (hydro/init_flow_fine.f90 region_condinit + hydro/condinit.f90):
// the Sod tube and Sedov namelists RAMSES ships, overlapping regions, region norms, point deposits.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parameters.hpp"
#include "hydro/initial_regions.hpp"

namespace kosmo::hydro {
namespace {

constexpr double kGamma = 1.4;
constexpr double kSmallr = 1e-10;
constexpr double kSmallc = 1e-10;

// RAMSES namelist/tube1d.nml, the blocks that matter here.
const char* const kTube = R"(
&RUN_PARAMS
hydro=.true.
/
&INIT_PARAMS
nregion=2
region_type(1)='square'
region_type(2)='square'
x_center=0.25,0.75
length_x=0.5,0.5
d_region=1.0,0.125
u_region=0.0,0.0
p_region=1.0,0.1
/
)";

template <int D>
std::array<double, D + 2> state(const std::vector<InitRegion>& regions, const std::array<double, D>& x, double dx,
                                double gamma = kGamma) {
  std::array<double, D + 2> u{};
  region_initial_state<D>(regions, gamma, kSmallr, kSmallc, 0, x, dx, u.data());
  return u;
}

InitRegion square(double xc, double yc, double zc, double length, double exponent, double d, double p) {
  InitRegion r;
  r.type = "square";
  r.x_center = xc, r.y_center = yc, r.z_center = zc;
  r.length_x = r.length_y = r.length_z = length;
  r.exp_region = exponent;
  r.d = d, r.p = p;
  return r;
}

InitRegion point(double xc, double yc, double zc, double d, double p) {
  InitRegion r;
  r.type = "point";
  r.x_center = xc, r.y_center = yc, r.z_center = zc;
  r.length_x = r.length_y = r.length_z = 1.0;
  r.exp_region = 10.0;
  r.d = d, r.p = p;
  return r;
}

TEST(InitialRegions, ReadFromTheRamsesTubeNamelist) {
  const std::vector<InitRegion> regions = init_regions(core::ParameterSet::from_text(kTube, "tube1d.nml"));
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].type, "square");
  EXPECT_EQ(regions[1].type, "square");
  EXPECT_EQ(regions[1].x_center, 0.75);
  EXPECT_EQ(regions[1].length_x, 0.5);
  EXPECT_EQ(regions[1].length_y, 1e10);  // RAMSES' default: unbounded along the axes not given
  EXPECT_EQ(regions[1].exp_region, 2.0);
  EXPECT_EQ(regions[1].d, 0.125);
  EXPECT_EQ(regions[1].p, 0.1);
}

TEST(InitialRegions, OnlyTheFirstNregionRegionsAndTheirTypes) {
  const std::vector<InitRegion> regions = init_regions(core::ParameterSet::from_text(
      "&RUN_PARAMS hydro=T /\n&INIT_PARAMS nregion=3 region_type(2)='point' region_type(4)='point' /", "t.nml"));
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[0].type, "square");
  EXPECT_EQ(regions[1].type, "point");
  EXPECT_EQ(regions[2].type, "square");
  EXPECT_TRUE(init_regions(core::ParameterSet::from_text("&RUN_PARAMS hydro=T /", "t.nml")).empty());
}

TEST(InitialRegions, SodTubeIn1D) {
  const std::vector<InitRegion> regions = init_regions(core::ParameterSet::from_text(kTube, "tube1d.nml"));
  const int n = 64;
  const double dx = 1.0 / n;
  for (int i = 0; i < n; ++i) {
    const double x = (i + 0.5) * dx;
    const auto u = state<1>(regions, {x}, dx);
    const bool left = x < 0.5;
    EXPECT_EQ(u[0], left ? 1.0 : 0.125) << x;
    EXPECT_EQ(u[1], 0.0) << x;
    EXPECT_DOUBLE_EQ(u[2], (left ? 1.0 : 0.1) / (kGamma - 1.0)) << x;
  }
}

TEST(InitialRegions, SodTubeIn3DIsASlab) {
  // The tube namelist run in 3-D: length_y and length_z keep RAMSES' 1e10, so the regions are slabs.
  const std::vector<InitRegion> regions = init_regions(core::ParameterSet::from_text(kTube, "tube1d.nml"));
  EXPECT_EQ((state<3>(regions, {0.1, 0.9, 0.3}, 0.1)[0]), 1.0);
  EXPECT_EQ((state<3>(regions, {0.9, 0.05, 0.95}, 0.1)[0]), 0.125);
  EXPECT_DOUBLE_EQ((state<3>(regions, {0.9, 0.05, 0.95}, 0.1)[4]), 0.1 / (kGamma - 1.0));
}

TEST(InitialRegions, BackgroundWithoutRegionsIsRamsesTinyState) {
  const auto u = state<2>({}, {0.3, 0.4}, 0.1);
  EXPECT_EQ(u[0], kSmallr);
  EXPECT_EQ(u[1], 0.0);
  EXPECT_EQ(u[2], 0.0);
  EXPECT_DOUBLE_EQ(u[3], kSmallr * kSmallc * kSmallc / kGamma / (kGamma - 1.0));
  // A cell on the edge of a region (r = 1) is outside: RAMSES tests r < 1.
  const auto edge = state<1>({square(0.25, 0, 0, 0.5, 2.0, 1.0, 1.0)}, {0.5}, 0.1);
  EXPECT_EQ(edge[0], kSmallr);
}

TEST(InitialRegions, LaterSquareOverridesEarlierWhereTheyOverlap) {
  const std::vector<InitRegion> regions = {square(0.5, 0.5, 0.5, 10.0, 10.0, 1.0, 1.0),
                                           square(0.5, 0.5, 0.5, 0.5, 10.0, 2.0, 3.0),
                                           square(0.75, 0.5, 0.5, 0.5, 10.0, 4.0, 5.0)};
  EXPECT_EQ((state<2>(regions, {0.05, 0.05}, 0.1)[0]), 1.0);  // first region only
  EXPECT_EQ((state<2>(regions, {0.35, 0.5}, 0.1)[0]), 2.0);   // first and second
  EXPECT_EQ((state<2>(regions, {0.6, 0.5}, 0.1)[0]), 4.0);    // all three: the last wins
  EXPECT_DOUBLE_EQ((state<2>(regions, {0.6, 0.5}, 0.1)[3]), 5.0 / (kGamma - 1.0));
  EXPECT_EQ((state<2>(regions, {0.95, 0.5}, 0.1)[0]), 4.0);  // first and third
}

TEST(InitialRegions, ExpRegionTwoIsAnEllipsoidTenAndAboveABox) {
  const std::array<double, 2> corner = {0.5 + 0.2, 0.5 + 0.2};  // 2|dx|/L = 0.8 along both axes
  const std::array<double, 2> on_axis = {0.5 + 0.24, 0.5};
  EXPECT_FALSE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 2.0, 1, 1), corner));  // sqrt(0.8^2 + 0.8^2) > 1
  EXPECT_TRUE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 2.0, 1, 1), on_axis));
  EXPECT_TRUE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 10.0, 1, 1), corner));  // max(0.8, 0.8) < 1
  EXPECT_TRUE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 20.0, 1, 1), corner));
  // Just below 10 the p-norm still applies: (0.96^9.99 + 0.96^9.99)^(1/9.99) = 1.03 > 1; at 10 the max, 0.96.
  const std::array<double, 2> far_corner = {0.5 + 0.24, 0.5 + 0.24};
  EXPECT_FALSE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 9.99, 1, 1), far_corner));
  EXPECT_TRUE(inside_square_region<2>(square(0.5, 0.5, 0, 0.5, 10.0, 1, 1), far_corner));
  // A sphere in 3-D: the norm uses every axis.
  EXPECT_TRUE(inside_square_region<3>(square(0.5, 0.5, 0.5, 0.5, 2.0, 1, 1), {0.6, 0.6, 0.6}));
  EXPECT_FALSE(inside_square_region<3>(square(0.5, 0.5, 0.5, 0.5, 2.0, 1, 1), {0.65, 0.65, 0.65}));
}

TEST(InitialRegions, SquareSetsVelocityAsMomentumAndKineticEnergy) {
  InitRegion r = square(0.5, 0.5, 0.5, 10.0, 10.0, 2.0, 3.0);
  r.u = 1.5, r.v = -2.0, r.w = 0.5;
  const auto u3 = state<3>({r}, {0.5, 0.5, 0.5}, 0.1);
  EXPECT_EQ(u3[0], 2.0);
  EXPECT_EQ(u3[1], 3.0);
  EXPECT_EQ(u3[2], -4.0);
  EXPECT_EQ(u3[3], 1.0);
  EXPECT_DOUBLE_EQ(u3[4], 0.5 * 2.0 * (1.5 * 1.5 + 4.0 + 0.25) + 3.0 / (kGamma - 1.0));
  // In 1-D only u_region exists (RAMSES: v and w only for NDIM > 1, > 2).
  const auto u1 = state<1>({r}, {0.5}, 0.1);
  EXPECT_EQ(u1[1], 3.0);
  EXPECT_DOUBLE_EQ(u1[2], 0.5 * 2.0 * 1.5 * 1.5 + 3.0 / (kGamma - 1.0));
  // Passive scalars start at 0.
  std::array<double, 7> with_scalars{};
  with_scalars.fill(-1.0);
  region_initial_state<3>({r}, kGamma, kSmallr, kSmallc, 2, {0.5, 0.5, 0.5}, 0.1, with_scalars.data());
  EXPECT_EQ(with_scalars[5], 0.0);
  EXPECT_EQ(with_scalars[6], 0.0);
}

// Totals over a uniform grid of n^D cells in [0, 1]^D: mass and total energy times the cell volume.
template <int D>
std::array<double, 2> totals(const std::vector<InitRegion>& regions, int n) {
  const double dx = 1.0 / n;
  const double volume = std::pow(dx, D);
  double mass = 0.0, energy = 0.0;
  long long cells = 1;
  for (int d = 0; d < D; ++d) cells *= n;
  for (long long c = 0; c < cells; ++c) {
    std::array<double, D> x{};
    long long rest = c;
    for (int d = 0; d < D; ++d) {
      x[static_cast<std::size_t>(d)] = (static_cast<double>(rest % n) + 0.5) * dx;
      rest /= n;
    }
    const auto u = state<D>(regions, x, dx);
    mass += u[0] * volume;
    energy += u[D + 1] * volume;
  }
  return {mass, energy};
}

template <int D>
void expect_point_deposit_is_exact(const std::array<double, 3>& where) {
  const double d_point = 0.25, p_point = 0.4;  // RAMSES sedov: E = p_region / (gamma - 1) = 1
  const std::vector<InitRegion> regions = {square(0.5, 0.5, 0.5, 10.0, 10.0, 1.0, 1e-5),
                                           point(where[0], where[1], where[2], d_point, p_point)};
  const auto [mass, energy] = totals<D>(regions, 8);
  EXPECT_NEAR(mass, 1.0 + d_point, 1e-13) << "D=" << D << " point " << where[0] << "," << where[1];
  EXPECT_NEAR(energy, 1e-5 / (kGamma - 1.0) + p_point / (kGamma - 1.0), 1e-13)
      << "D=" << D << " point " << where[0] << "," << where[1];
}

TEST(InitialRegions, SedovPointDepositsExactlyItsEnergyWhereverThePointIs) {
  // At a cell centre (one cell takes it all), on a cell corner (2^D cells share it), anywhere.
  const std::vector<std::array<double, 3>> points = {
      {0.5625, 0.5625, 0.5625}, {0.5, 0.5, 0.5}, {0.3071, 0.6813, 0.4442}, {0.125, 0.7, 0.81}, {0.0626, 0.9374, 0.5}};
  for (const auto& p : points) {
    expect_point_deposit_is_exact<1>(p);
    expect_point_deposit_is_exact<2>(p);
    expect_point_deposit_is_exact<3>(p);
  }
}

TEST(InitialRegions, PointAtACellCentreGoesToThatCellAlone) {
  const double dx = 1.0 / 8;
  const std::vector<InitRegion> regions = {point(0.5625, 0.5625, 0.5625, 0.0, 0.4)};
  const double cell_energy = state<3>(regions, {0.5625, 0.5625, 0.5625}, dx)[4];
  EXPECT_NEAR(cell_energy * dx * dx * dx, 0.4 / (kGamma - 1.0), 1e-14);
  EXPECT_LT((state<3>(regions, {0.6875, 0.5625, 0.5625}, dx)[4]), 1e-25);  // the neighbour keeps the background
}

TEST(InitialRegions, RamsesSedov3dPutsAnEighthOfTheBlastInTheBox) {
  // namelist/sedov3d.nml: the point sits on the corner (0, 0, 0) of the box; the cloud is not wrapped.
  const std::vector<InitRegion> regions = {square(0.5, 0.5, 0.5, 10.0, 10.0, 1.0, 1e-5), point(0, 0, 0, 0.0, 0.4)};
  const auto [mass, energy] = totals<3>(regions, 8);
  EXPECT_NEAR(mass, 1.0, 1e-13);
  EXPECT_NEAR(energy, (1e-5 + 0.4 / 8.0) / (kGamma - 1.0), 1e-13);
}

TEST(InitialRegions, PointAddsVelocityWithItsWeight) {
  InitRegion p = point(0.5, 0.5, 0, 0.0, 0.0);  // on the corner of four cells: weight 1/4 each
  p.u = 2.0;
  const std::vector<InitRegion> regions = {square(0.5, 0.5, 0.5, 10.0, 10.0, 1.0, 1.0), p};
  const auto u = state<2>(regions, {0.375, 0.625}, 0.25);
  EXPECT_DOUBLE_EQ(u[1], 1.0 * 2.0 * 0.25);  // momentum = rho * (0 + u_region * w)
  EXPECT_EQ(u[2], 0.0);
}

// var_region(i, n) from a namelist (Fortran order, region fastest), and its use: a 'square' region
// sets the concentration inside it, rho s is stored; a 'point' region sets it in every cell, inside
// its cloud or not, as RAMSES region_condinit does.
TEST(InitialRegions, VarRegionSetsPassiveScalars) {
  const core::ParameterSet params = core::ParameterSet::from_text(
      "&RUN_PARAMS\nhydro=.true.\n/\n&INIT_PARAMS\nnregion=2\nregion_type(1)='square'\nregion_type(2)='square'\nx_center=0.25,0.75\n"
      "length_x=0.5,0.5\nd_region=1.0,0.125\np_region=1.0,0.1\nvar_region=0.0,1.0\nvar_region(2,2)=0.5\n/\n",
      "scalars.nml");
  const std::vector<InitRegion> regions = init_regions(params);
  EXPECT_EQ(regions[1].scalar(0), 1.0);
  EXPECT_EQ(regions[1].scalar(1), 0.5);  // var_region(2, 2)
  EXPECT_EQ(regions[0].scalar(1), 0.0);
  EXPECT_EQ(passive_scalar_count(params), 2);
  std::array<double, 5> u{};
  region_initial_state<1>(regions, kGamma, kSmallr, kSmallc, 2, {0.8}, 0.1, u.data());
  EXPECT_EQ(u[3], 0.125 * 1.0);
  EXPECT_EQ(u[4], 0.125 * 0.5);
  region_initial_state<1>(regions, kGamma, kSmallr, kSmallc, 2, {0.2}, 0.1, u.data());
  EXPECT_EQ(u[3], 0.0);

  InitRegion far = point(0.9, 0, 0, 0.0, 0.0);
  far.scalars = {0.25};
  region_initial_state<1>({square(0.5, 0, 0, 10.0, 10.0, 2.0, 1.0), far}, kGamma, kSmallr, kSmallc, 1, {0.1}, 0.1, u.data());
  EXPECT_EQ(u[3], 2.0 * 0.25);  // outside the point's cloud, yet set
}

TEST(InitialRegions, UnknownRegionTypeIsAnError) {
  InitRegion r;
  r.type = "circle";
  std::array<double, 3> u{};
  EXPECT_THROW(region_initial_state<1>({r}, kGamma, kSmallr, kSmallc, 0, {0.5}, 0.1, u.data()), kosmo::Error);
}

}  // namespace
}  // namespace kosmo::hydro
