// RAMSES' hydro refinement criteria per cell: err_grad_d/u/p of hydro_refine
// (hydro/godunov_utils.f90) and m_refine of poisson_refine (amr/flag_utils.f90) without gravity.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/parameters.hpp"
#include "hydro/refinement_criteria.hpp"

namespace kosmo::hydro {
namespace {

template <int D>
RefinePrimitive<D> cell(double rho, std::array<double, D> v, double p) {
  RefinePrimitive<D> q;
  q.rho = rho;
  q.v = v;
  q.p = p;
  return q;
}

GradientCriteria criteria(double d, double u, double p) {
  GradientCriteria c;
  c.err_grad_d = d, c.err_grad_u = u, c.err_grad_p = p;
  return c;
}

TEST(HydroRefinementCriteria, NormalisedJumpIsRamsesFormula) {
  // 2 max(|(r - m) / (r + m + floor)|, |(m - l) / (m + l + floor)|)
  EXPECT_DOUBLE_EQ(normalised_jump(1.0, 1.0, 0.125, 0.0), 2.0 * 0.875 / 1.125);
  EXPECT_DOUBLE_EQ(normalised_jump(0.125, 1.0, 1.0, 0.0), 2.0 * 0.875 / 1.125);
  EXPECT_DOUBLE_EQ(normalised_jump(1.0, 1.0, 1.0, 1e-10), 0.0);
  EXPECT_DOUBLE_EQ(normalised_jump(0.0, 0.0, 0.0, 1e-10), 0.0);  // the floor keeps empty cells finite
  EXPECT_DOUBLE_EQ(normalised_jump(1.0, 2.0, 2.0, 1.0), 2.0 * 1.0 / 4.0);
}

TEST(HydroRefinementCriteria, DensityGradient) {
  const auto left = cell<1>(1.0, {0.0}, 1.0), mid = cell<1>(1.0, {0.0}, 1.0), right = cell<1>(0.9, {0.0}, 1.0);
  const double jump = 2.0 * 0.1 / (1.9 + 1e-10);
  EXPECT_TRUE(gradient_refine<1>(left, mid, right, criteria(jump * 0.99, -1, -1)));
  EXPECT_FALSE(gradient_refine<1>(left, mid, right, criteria(jump * 1.01, -1, -1)));
  EXPECT_FALSE(gradient_refine<1>(left, mid, mid, criteria(0.0, -1, -1)));   // strictly greater: no jump, no flag
  EXPECT_FALSE(gradient_refine<1>(left, mid, right, criteria(-1, -1, -1)));  // off
  EXPECT_FALSE(criteria(-1, -1, -1).any());
  EXPECT_TRUE(criteria(0, -1, -1).any());
}

TEST(HydroRefinementCriteria, PressureGradient) {
  const auto left = cell<2>(1.0, {0.0, 0.0}, 1.0), mid = cell<2>(1.0, {0.0, 0.0}, 0.1),
             right = cell<2>(1.0, {0.0, 0.0}, 0.1);
  EXPECT_TRUE(gradient_refine<2>(left, mid, right, criteria(-1, -1, 1.6)));  // 2 * 0.9 / 1.1 = 1.636
  EXPECT_FALSE(gradient_refine<2>(left, mid, right, criteria(-1, -1, 1.7)));
  EXPECT_FALSE(gradient_refine<2>(left, mid, right, criteria(0.01, -1, -1)));  // density is uniform
}

TEST(HydroRefinementCriteria, VelocityGradientTestsEveryComponentAgainstSoundAndFlowSpeeds) {
  const double gamma = 1.4;
  // A shear: the velocity across the axis jumps; err_grad_u looks at every component.
  const auto left = cell<2>(1.0, {0.0, 0.0}, 1.0 / gamma), mid = cell<2>(1.0, {0.0, 0.0}, 1.0 / gamma),
             right = cell<2>(1.0, {0.0, 0.5}, 1.0 / gamma);  // sound speed 1 everywhere
  const double jump = 2.0 * 0.5 / (1.0 + 1.0 + 0.5 + 0.0 + 1e-10);
  EXPECT_DOUBLE_EQ((velocity_jump<2>(left, mid, right, 1, gamma, 1e-10)), jump);
  EXPECT_DOUBLE_EQ((velocity_jump<2>(left, mid, right, 0, gamma, 1e-10)), 0.0);
  GradientCriteria c = criteria(-1, jump * 0.99, -1);
  c.gamma = gamma;
  EXPECT_TRUE(gradient_refine<2>(left, mid, right, c));
  c.err_grad_u = jump * 1.01;
  EXPECT_FALSE(gradient_refine<2>(left, mid, right, c));
  // In cold gas the sound speed is floored at floor_u.
  const auto cold = cell<1>(1.0, {0.0}, 0.0), moving = cell<1>(1.0, {1e-3}, 0.0);
  EXPECT_DOUBLE_EQ((velocity_jump<1>(cold, cold, moving, 0, gamma, 1e-2)), 2.0 * 1e-3 / (2e-2 + 1e-3 + 1e-2));
}

TEST(HydroRefinementCriteria, ConservativeToRefinePrimitiveAsRamses) {
  const double u[4] = {2.0, 1.0, -3.0, 10.0};  // 2-D: rho, rho u, rho v, E
  const RefinePrimitive<2> q = refine_primitive<2>(u, 1.4, 1e-10);
  EXPECT_EQ(q.rho, 2.0);
  EXPECT_EQ(q.v[0], 0.5);
  EXPECT_EQ(q.v[1], -1.5);
  EXPECT_DOUBLE_EQ(q.p, 0.4 * (10.0 - 0.5 * 2.0 * (0.25 + 2.25)));
  const double empty[3] = {0.0, 0.0, 1.0};
  EXPECT_EQ(refine_primitive<1>(empty, 1.4, 1e-10).rho, 1e-10);  // density floored at smallr
}

TEST(HydroRefinementCriteria, SodDiscontinuityIsFlaggedWithTheTubeNamelistCriteria) {
  const core::ParameterSet params = core::ParameterSet::from_text(
      "&RUN_PARAMS hydro=.true. /\n&REFINE_PARAMS err_grad_d=0.05 err_grad_u=0.05 err_grad_p=0.05 /", "tube1d.nml");
  const GradientCriteria c = gradient_criteria(params);
  EXPECT_EQ(c.err_grad_d, 0.05);
  EXPECT_EQ(c.floor_u, 1e-10);
  EXPECT_EQ(c.gamma, 1.4);
  const double left_u[3] = {1.0, 0.0, 1.0 / 0.4}, right_u[3] = {0.125, 0.0, 0.1 / 0.4};
  const auto l = refine_primitive<1>(left_u, c.gamma, 1e-10), r = refine_primitive<1>(right_u, c.gamma, 1e-10);
  EXPECT_TRUE(gradient_refine<1>(l, l, r, c));   // last cell of the left state
  EXPECT_TRUE(gradient_refine<1>(l, r, r, c));   // first cell of the right state
  EXPECT_FALSE(gradient_refine<1>(l, l, l, c));  // far from the discontinuity
  EXPECT_FALSE(gradient_criteria(core::ParameterSet::from_text("&RUN_PARAMS hydro=T /", "t.nml")).any());
}

TEST(HydroRefinementCriteria, MRefineLevelsStartAtLevelmin) {
  // RAMSES read_params: namelist element 1 is levelmin; levels below levelmin are off.
  std::vector<double> m_refine(100, -1.0);
  m_refine[0] = 8.0, m_refine[1] = 4.0;
  EXPECT_EQ(m_refine_at_level(m_refine, 3, 3), 8.0);
  EXPECT_EQ(m_refine_at_level(m_refine, 3, 4), 4.0);
  EXPECT_EQ(m_refine_at_level(m_refine, 3, 5), -1.0);
  EXPECT_EQ(m_refine_at_level(m_refine, 3, 2), -1.0);
  EXPECT_EQ(m_refine_at_level(m_refine, 3, 200), -1.0);
}

TEST(HydroRefinementCriteria, MassRefineComparesDensityWithMassOverDxCubed) {
  const double dx = 0.5, mass_sph = 0.01;
  const double threshold = 8.0 * mass_sph / (dx * dx * dx);  // 0.64
  EXPECT_TRUE(mass_refine(threshold, dx, 8.0, mass_sph));    // RAMSES: >=
  EXPECT_FALSE(mass_refine(threshold * 0.999, dx, 8.0, mass_sph));
  EXPECT_FALSE(mass_refine(1e30, dx, -1.0, mass_sph));  // -1 = off
  EXPECT_TRUE(mass_refine(0.0, dx, 0.0, mass_sph));     // m_refine = 0 refines everything
  EXPECT_TRUE(mass_refine(1e-20, dx, 5.0, 0.0));        // as does mass_sph = 0
}

}  // namespace
}  // namespace kosmo::hydro
