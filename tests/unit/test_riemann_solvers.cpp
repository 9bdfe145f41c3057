// Riemann solvers on rotated faces (src/hydro/riemann_*.hpp): the exact solver against Toro's tables,
// consistency with the physical flux, contacts, wave-speed bounds, upwinding of passive scalars and
// transverse velocities, mirror symmetry, and the rotation into and out of the face layout.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hydro/hydro_settings.hpp"
#include "hydro/riemann_exact.hpp"
#include "hydro/riemann_face.hpp"
#include "hydro/riemann_hll.hpp"
#include "hydro/riemann_hllc.hpp"
#include "hydro/riemann_llf.hpp"

namespace kosmo::hydro {
namespace {

using FaceSolver = void (*)(const double*, const double*, double*, int, const SchemeSettings&);
struct NamedSolver {
  const char* name;
  FaceSolver solve;
};
const NamedSolver kSolvers[] = {
    {"llf", riemann_llf}, {"hll", riemann_hll}, {"hllc", riemann_hllc}, {"exact", riemann_exact}};

double sound(double rho, double p, double gamma = 1.4) { return std::sqrt(gamma * p / rho); }

// ---------------------------------------------------------------------------------------------
// Exact solver: Toro, Riemann Solvers and Numerical Methods (3rd ed.), Tables 4.1-4.3, gamma = 1.4.
struct ToroTest {
  double rl, ul, pl, rr, ur, pr;
  double pstar, ustar, rho_star_l, rho_star_r;  // as tabulated
  double tol_p, tol_u, tol_rho;                 // half a unit of the last tabulated digit (tests 1-4)
};
const ToroTest kToro[] = {
    {1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 0.30313, 0.92745, 0.42632, 0.26557, 5e-6, 5e-6, 5e-6},
    {1.0, -2.0, 0.4, 1.0, 2.0, 0.4, 0.00189, 0.00000, 0.02185, 0.02185, 5e-6, 5e-6, 5e-6},
    {1.0, 0.0, 1000.0, 1.0, 0.0, 0.01, 460.894, 19.5975, 0.57506, 5.99924, 5e-4, 5e-5, 5e-6},
    {1.0, 0.0, 0.01, 1.0, 0.0, 100.0, 46.0950, -6.19633, 5.99242, 0.57511, 5e-5, 5e-6, 5e-6},
    // Test 5: an independent bisection to round-off gives p* = 1691.6470, u* = 8.689774 from Toro's
    // (rounded) input data, 4e-6 and 3e-6 from the table, so this row is held to 2e-5 relative.
    {5.99924, 19.5975, 460.894, 5.99242, -6.19633, 46.0950, 1691.64, 8.68975, 14.2823, 31.0426, 0.03, 2e-4, 5e-5},
};

TEST(ExactRiemann, StarStatesMatchToroTable42) {
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE("Toro test " + std::to_string(i + 1));
    const ToroTest& t = kToro[i];
    const RiemannStarState star = exact_star_state(t.rl, t.ul, t.pl, t.rr, t.ur, t.pr, 1.4);
    EXPECT_NEAR(star.p, t.pstar, t.tol_p * 1.01);
    EXPECT_NEAR(star.u, t.ustar, t.tol_u * 1.01);
    // Star densities either side of the contact (Toro Table 4.3).
    double rho, u, p;
    sample_exact_riemann(t.rl, t.ul, t.pl, t.rr, t.ur, t.pr, 1.4, star, star.u - 1e-9, rho, u, p);
    EXPECT_NEAR(rho, t.rho_star_l, t.tol_rho * 1.01);
    EXPECT_NEAR(p, star.p, 1e-12 * star.p);
    sample_exact_riemann(t.rl, t.ul, t.pl, t.rr, t.ur, t.pr, 1.4, star, star.u + 1e-9, rho, u, p);
    EXPECT_NEAR(rho, t.rho_star_r, t.tol_rho * 1.01);
    EXPECT_NEAR(u, star.u, 1e-12 * (1.0 + std::fabs(star.u)));
  }
}

TEST(ExactRiemann, FaceSolverConvergesWithinNiterRiemann) {
  // The per-face solver with RAMSES' default niter_riemann = 10 reaches the tabulated star state.
  SchemeSettings s;
  s.riemann = RiemannSolver::exact;
  for (const ToroTest& t : kToro) {
    // 1-D states (nvar = 3) in arrays sized for 3-D, which keeps GCC 12's -Warray-bounds quiet.
    const double l[5] = {t.rl, t.ul, t.pl, 0.0, 0.0}, r[5] = {t.rr, t.ur, t.pr, 0.0, 0.0};
    double f[5];
    riemann_exact(l, r, f, 3, s);
    double rho, u, p;
    sample_exact_riemann(t.rl, t.ul, t.pl, t.rr, t.ur, t.pr, 1.4, 0.0, rho, u, p);
    const double e = p / 0.4 + 0.5 * rho * u * u;
    EXPECT_NEAR(f[0], rho * u, 1e-10 * (1.0 + std::fabs(rho * u)));
    EXPECT_NEAR(f[1], rho * u * u + p, 1e-10 * (1.0 + rho * u * u + p));
    EXPECT_NEAR(f[2], u * (e + p), 1e-10 * (1.0 + std::fabs(u * (e + p))));
  }
}

TEST(ExactRiemann, SodProfileHasTheExpectedWaves) {
  // Sod at t = 0.2 around x0 = 0.5: undisturbed left state, rarefaction fan, star plateaus, right state.
  const RiemannStarState star = exact_star_state(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4);
  double rho, u, p;
  sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, star, -2.0, rho, u, p);
  EXPECT_EQ(rho, 1.0);
  EXPECT_EQ(u, 0.0);
  sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, star, 3.0, rho, u, p);
  EXPECT_EQ(rho, 0.125);
  EXPECT_EQ(p, 0.1);
  // Inside the fan the flow is isentropic: p / rho^gamma equals the left value, and u + 2c/(gamma-1)
  // (the Riemann invariant, Toro eq. 4.55) is constant.
  const double s_fan = -0.6;
  sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, star, s_fan, rho, u, p);
  EXPECT_NEAR(p / std::pow(rho, 1.4), 1.0, 1e-13);
  EXPECT_NEAR(u + 2.0 * sound(rho, p) / 0.4, 2.0 * sound(1.0, 1.0) / 0.4, 1e-13);
  EXPECT_NEAR(u - s_fan, sound(rho, p), 1e-13);  // the characteristic through the point is x/t = u - c
  // Shock speed from Rankine-Hugoniot (Toro eq. 4.59): just behind and just ahead.
  const double shock = 0.0 + sound(0.125, 0.1) * std::sqrt(1.2 / 1.4 * star.p / 0.1 + 0.2 / 1.4);
  sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, star, shock - 1e-9, rho, u, p);
  EXPECT_NEAR(rho, 0.26557, 5e-6);
  sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, 1.4, star, shock + 1e-9, rho, u, p);
  EXPECT_EQ(rho, 0.125);
}

TEST(ExactRiemann, VacuumGeneratingDataAreRejected) {
  EXPECT_THROW(exact_star_state(1.0, -20.0, 0.4, 1.0, 20.0, 0.4, 1.4), kosmo::Error);
  EXPECT_THROW(exact_star_state(-1.0, 0.0, 0.4, 1.0, 0.0, 0.4, 1.4), kosmo::Error);
}

// ---------------------------------------------------------------------------------------------
// Every solver: consistency, contacts, bounds, upwinding, symmetry.

// A random rotated state with nt transverse velocities and np passive scalars.
std::vector<double> random_state(std::mt19937_64& rng, int nt, int np, double mach_max) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> w(static_cast<std::size_t>(3 + nt + np));
  w[0] = 0.05 + 2.0 * unit(rng);
  w[2] = 0.01 + 5.0 * unit(rng);
  const double c = sound(w[0], w[2]);
  w[1] = (2.0 * unit(rng) - 1.0) * mach_max * c;
  for (int k = 0; k < nt; ++k) w[static_cast<std::size_t>(3 + k)] = (2.0 * unit(rng) - 1.0) * 2.0 * c;
  for (int n = 0; n < np; ++n) w[static_cast<std::size_t>(3 + nt + n)] = unit(rng);
  return w;
}

double flux_scale(const std::vector<double>& w) {
  double v2 = w[1] * w[1];
  for (std::size_t k = 3; k < w.size(); ++k) v2 += w[k] * w[k];
  const double c = sound(w[0], w[2]);
  return w[0] * (c + std::sqrt(v2)) * (c * c + v2) + w[2];
}

TEST(RiemannSolvers, IdenticalStatesGiveThePhysicalFlux) {
  std::mt19937_64 rng(12345);
  for (int nt = 0; nt <= 2; ++nt) {
    for (int np = 0; np <= 2; ++np) {
      SchemeSettings s;
      s.npassive = np;
      const int nv = 3 + nt + np;
      for (int trial = 0; trial < 50; ++trial) {
        const std::vector<double> w = random_state(rng, nt, np, 3.0);  // sub- and supersonic
        std::vector<double> expected(static_cast<std::size_t>(nv)), got(static_cast<std::size_t>(nv));
        euler_flux(w.data(), expected.data(), nv, s);
        const double scale = flux_scale(w);
        for (const NamedSolver& solver : kSolvers) {
          solver.solve(w.data(), w.data(), got.data(), nv, s);
          for (int v = 0; v < nv; ++v) {
            EXPECT_NEAR(got[static_cast<std::size_t>(v)], expected[static_cast<std::size_t>(v)], 1e-13 * scale)
                << solver.name << " nt=" << nt << " np=" << np << " var=" << v;
          }
        }
      }
    }
  }
}

TEST(RiemannSolvers, PhysicalFluxMatchesTheEulerEquations) {
  SchemeSettings s;
  s.npassive = 1;
  const double w[6] = {2.0, 0.5, 3.0, -0.25, 1.5, 0.7};  // rho, u, p, v, w, scalar
  double f[6];
  euler_flux(w, f, 6, s);
  const double e = 3.0 / 0.4 + 0.5 * 2.0 * (0.25 + 0.0625 + 2.25);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_DOUBLE_EQ(f[1], 2.0 * 0.25 + 3.0);
  EXPECT_DOUBLE_EQ(f[2], 0.5 * (e + 3.0));
  EXPECT_DOUBLE_EQ(f[3], -0.25);
  EXPECT_DOUBLE_EQ(f[4], 1.5);
  EXPECT_DOUBLE_EQ(f[5], 0.7);
}

TEST(RiemannSolvers, HllcAndExactKeepAStationaryContactExactly) {
  SchemeSettings s;
  s.npassive = 1;
  // rho, u = 0, p equal; transverse shear and a passive scalar jump across the contact.
  const double l[6] = {1.0, 0.0, 0.7, 0.3, -0.2, 1.0};
  const double r[6] = {0.05, 0.0, 0.7, -0.9, 0.4, 0.0};
  for (FaceSolver solve : {FaceSolver(riemann_hllc), FaceSolver(riemann_exact)}) {
    double f[6];
    solve(l, r, f, 6, s);
    EXPECT_EQ(f[0], 0.0);
    EXPECT_DOUBLE_EQ(f[1], 0.7);  // p* from a weighted mean of equal pressures: round-off only
    EXPECT_EQ(f[2], 0.0);
    EXPECT_EQ(f[3], 0.0);
    EXPECT_EQ(f[4], 0.0);
    EXPECT_EQ(f[5], 0.0);
  }
  // LLF and HLL smear it: for u = 0 both reduce to -max(c_L, c_R) (rho_R - rho_L) / 2 (Toro eqs.
  // 10.21, 10.56 with S_L = -S_R = -max c).
  const double cmax = std::fmax(sound(1.0, 0.7), sound(0.05, 0.7));
  for (FaceSolver solve : {FaceSolver(riemann_llf), FaceSolver(riemann_hll)}) {
    double f[6];
    solve(l, r, f, 6, s);
    EXPECT_NEAR(f[0], -0.5 * cmax * (0.05 - 1.0), 1e-15);
    EXPECT_NEAR(f[1], 0.7, 1e-15);
  }
}

TEST(RiemannSolvers, MovingContactCarriesScalarsAndShearFromUpwind) {
  SchemeSettings s;
  s.npassive = 2;
  for (const double u : {0.4, -0.4}) {
    SCOPED_TRACE("u = " + std::to_string(u));
    const double l[7] = {1.0, u, 0.7, 0.3, -0.2, 1.0, 0.25};
    const double r[7] = {0.05, u, 0.7, -0.9, 0.4, 0.0, 0.75};
    const double* up = u > 0 ? l : r;
    // Contact-resolving solvers: exactly the upwind state's flux.
    for (FaceSolver solve : {FaceSolver(riemann_hllc), FaceSolver(riemann_exact)}) {
      double f[7];
      solve(l, r, f, 7, s);
      EXPECT_NEAR(f[0], up[0] * u, 1e-14);
      EXPECT_NEAR(f[1], up[0] * u * u + 0.7, 1e-14);
      for (int n = 3; n < 7; ++n) EXPECT_NEAR(f[n], f[0] * up[n], 1e-15) << "var " << n;
    }
    // Every solver: a scalar uniform across the face is carried by the mass flux.
    double lu[7], ru[7];
    for (int v = 0; v < 7; ++v) lu[v] = l[v], ru[v] = r[v];
    lu[5] = ru[5] = 0.3;
    for (const NamedSolver& solver : kSolvers) {
      double f[7];
      solver.solve(lu, ru, f, 7, s);
      EXPECT_NEAR(f[5], 0.3 * f[0], 1e-15) << solver.name;
    }
    // HLL resolves a moving contact better than LLF (smaller dissipation), both bounded by the jump.
    double f_llf[7], f_hll[7];
    riemann_llf(l, r, f_llf, 7, s);
    riemann_hll(l, r, f_hll, 7, s);
    const double exact = up[0] * u;
    EXPECT_LT(std::fabs(f_hll[0] - exact), std::fabs(f_llf[0] - exact));
    const double cmax = std::fmax(sound(1.0, 0.7), sound(0.05, 0.7)) + std::fabs(u);
    EXPECT_LE(std::fabs(f_llf[0] - exact), 0.5 * cmax * (1.0 - 0.05) + 1e-15);
  }
}

TEST(RiemannSolvers, SupersonicFlowTakesTheUpwindFlux) {
  SchemeSettings s;
  const double l[5] = {1.0, 3.0, 1.0, 0.2, -0.1};  // Mach 2.5 to the right
  const double r[5] = {0.5, 2.5, 0.4, 0.0, 0.3};   // also supersonic
  double fl[5];
  euler_flux(l, fl, 5, s);
  for (FaceSolver solve : {FaceSolver(riemann_hll), FaceSolver(riemann_hllc), FaceSolver(riemann_exact)}) {
    double f[5];
    solve(l, r, f, 5, s);
    for (int v = 0; v < 5; ++v) EXPECT_NEAR(f[v], fl[v], 1e-14 * (1.0 + std::fabs(fl[v]))) << "var " << v;
  }
  // The mirrored problem takes the right flux.
  const double ml[5] = {0.5, -2.5, 0.4, 0.0, 0.3}, mr[5] = {1.0, -3.0, 1.0, 0.2, -0.1};
  double fr[5];
  euler_flux(mr, fr, 5, s);
  for (FaceSolver solve : {FaceSolver(riemann_hll), FaceSolver(riemann_hllc), FaceSolver(riemann_exact)}) {
    double f[5];
    solve(ml, mr, f, 5, s);
    for (int v = 0; v < 5; ++v) EXPECT_NEAR(f[v], fr[v], 1e-14 * (1.0 + std::fabs(fr[v]))) << "var " << v;
  }
  // LLF keeps its central dissipation, which here is (|u| + c)_max (U_R - U_L) / 2 away from F_L.
  double f[5], fr_right[5];
  riemann_llf(l, r, f, 5, s);
  euler_flux(r, fr_right, 5, s);
  const double cmax = std::fmax(3.0 + sound(1.0, 1.0), 2.5 + sound(0.5, 0.4));
  EXPECT_NEAR(f[0], 0.5 * (fl[0] + fr_right[0]) - 0.5 * cmax * (0.5 - 1.0), 1e-14);
}

TEST(RiemannSolvers, SodFacesFluxesBracketTheExactGodunovFlux) {
  SchemeSettings s;
  const double l[5] = {1.0, 0.0, 1.0, 0.0, 0.0}, r[5] = {0.125, 0.0, 0.1, 0.0, 0.0};  // nvar = 3
  double exact[5];
  riemann_exact(l, r, exact, 3, s);
  // x/t = 0 lies in the left star region of Sod's problem (Toro Table 4.3: rho*_L = 0.42632).
  EXPECT_NEAR(exact[0], 0.42632 * 0.92745, 1e-5);
  for (FaceSolver solve : {FaceSolver(riemann_llf), FaceSolver(riemann_hll), FaceSolver(riemann_hllc)}) {
    double f[5];
    solve(l, r, f, 3, s);
    // Approximate fluxes differ from Godunov's by their dissipation, but not by more than 40 % on this problem, and
    // transport mass, momentum and energy in the right direction.
    for (int v = 0; v < 3; ++v) {
      EXPECT_GT(f[v], 0.0);
      EXPECT_NEAR(f[v], exact[v], 0.4 * exact[v]) << "var " << v;
    }
  }
}

TEST(RiemannSolvers, MirrorImageNegatesMassAndEnergyFluxes) {
  std::mt19937_64 rng(777);
  SchemeSettings s;
  s.npassive = 1;
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<double> l = random_state(rng, 2, 1, 2.0), r = random_state(rng, 2, 1, 2.0);
    std::vector<double> ml = r, mr = l;  // x -> -x swaps the sides and flips the normal velocity
    ml[1] = -ml[1], mr[1] = -mr[1];
    const double scale = std::fmax(flux_scale(l), flux_scale(r));
    for (const NamedSolver& solver : kSolvers) {
      double f[6], g[6];
      solver.solve(l.data(), r.data(), f, 6, s);
      solver.solve(ml.data(), mr.data(), g, 6, s);
      EXPECT_NEAR(g[0], -f[0], 1e-12 * scale) << solver.name;
      EXPECT_NEAR(g[1], f[1], 1e-12 * scale) << solver.name;
      EXPECT_NEAR(g[2], -f[2], 1e-12 * scale) << solver.name;
      for (int n = 3; n < 6; ++n) EXPECT_NEAR(g[n], -f[n], 1e-12 * scale) << solver.name << " var " << n;
    }
  }
}

TEST(RiemannSolvers, FloorsKeepNegativeInputsFinite) {
  SchemeSettings s;
  const double l[5] = {-1.0, 0.0, -3.0, 0.0, 0.0}, r[5] = {1.0, 0.0, 1.0, 0.0, 0.0};
  for (const NamedSolver& solver : kSolvers) {
    double f[5];
    solver.solve(l, r, f, 5, s);
    for (double v : f) EXPECT_TRUE(std::isfinite(v)) << solver.name;
  }
}

TEST(RiemannSolvers, WrongVariableCountIsRejected) {
  SchemeSettings s;
  s.npassive = 2;
  const double w[8] = {1, 0, 1, 0, 0, 0, 0, 0};
  double f[8];
  EXPECT_THROW(riemann_hllc(w, w, f, 8, s), kosmo::Error);  // would be 3 transverse velocities
  EXPECT_THROW(riemann_llf(w, w, f, 4, s), kosmo::Error);
}

// ---------------------------------------------------------------------------------------------
// Face layout and names.

template <int D>
void check_rotation_round_trip() {
  const int np = 2, nv = D + 2 + np;
  std::vector<double> q(static_cast<std::size_t>(nv));
  for (int v = 0; v < nv; ++v) q[static_cast<std::size_t>(v)] = 1.0 + 0.37 * v;
  for (int d = 0; d < D; ++d) {
    std::vector<double> w(static_cast<std::size_t>(nv)), back(static_cast<std::size_t>(nv), -1.0);
    rotate_to_face<D>(q.data(), 1, d, np, w.data());
    EXPECT_EQ(w[0], q[0]);
    EXPECT_EQ(w[1], q[static_cast<std::size_t>(1 + d)]);
    EXPECT_EQ(w[2], q[static_cast<std::size_t>(D + 1)]);
    rotate_from_face<D>(w.data(), d, np, 1.0, back.data(), 1);
    EXPECT_EQ(back, q) << "D=" << D << " d=" << d;
  }
}

TEST(FaceLayout, RotationRoundTrips) {
  check_rotation_round_trip<1>();
  check_rotation_round_trip<2>();
  check_rotation_round_trip<3>();
}

TEST(FaceLayout, TransverseAxesFollowRamses) {
  // RAMSES cmpflxm (ln, lt1, lt2): x -> (y, z), y -> (x, z), z -> (x, y).
  const double q[6] = {1.0, 10.0, 20.0, 30.0, 4.0, 0.5};  // rho, vx, vy, vz, p, s
  double w[6];
  rotate_to_face<3>(q, 1, 1, 1, w);
  EXPECT_EQ(w[1], 20.0);
  EXPECT_EQ(w[2], 4.0);
  EXPECT_EQ(w[3], 10.0);
  EXPECT_EQ(w[4], 30.0);
  EXPECT_EQ(w[5], 0.5);
  rotate_to_face<3>(q, 1, 2, 1, w);
  EXPECT_EQ(w[1], 30.0);
  EXPECT_EQ(w[3], 10.0);
  EXPECT_EQ(w[4], 20.0);
  // A strided (structure-of-arrays) source and the flux scale factor.
  const double soa[12] = {1.0, 0, 10.0, 0, 20.0, 0, 30.0, 0, 4.0, 0, 0.5, 0};
  rotate_to_face<3>(soa, 2, 0, 1, w);
  EXPECT_EQ(w[1], 10.0);
  EXPECT_EQ(w[3], 20.0);
  double out[12] = {};
  rotate_from_face<3>(w, 0, 1, 2.0, out, 2);
  for (int v = 0; v < 6; ++v) EXPECT_EQ(out[2 * v], 2.0 * soa[2 * v]);
}

TEST(RiemannSolverNames, ParseRamsesNames) {
  EXPECT_EQ(riemann_solver_from_name("llf"), RiemannSolver::llf);
  EXPECT_EQ(riemann_solver_from_name("hll"), RiemannSolver::hll);
  EXPECT_EQ(riemann_solver_from_name("HLLC "), RiemannSolver::hllc);
  EXPECT_EQ(riemann_solver_from_name("exact"), RiemannSolver::exact);
  for (RiemannSolver r : {RiemannSolver::llf, RiemannSolver::hll, RiemannSolver::hllc, RiemannSolver::exact}) {
    EXPECT_EQ(riemann_solver_from_name(riemann_solver_name(r)), r);
  }
  try {
    riemann_solver_from_name("roe");
    ADD_FAILURE() << "no exception";
  } catch (const kosmo::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'roe'"), std::string::npos) << what;
    EXPECT_NE(what.find("hllc"), std::string::npos) << what;
  }
  EXPECT_EQ(nvar(3, 2), 7);
  EXPECT_EQ(nvar(1, 0), 3);
}

}  // namespace
}  // namespace kosmo::hydro
