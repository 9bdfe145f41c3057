// The MUSCL-Hancock oct kernel (src/hydro/muscl_hancock.hpp) and its building blocks (equation of
// state, slope limiters, Courant step): uniform blocks, 1-D profiles in 2-D and 3-D blocks, mirror
// symmetry, and Sod's shock tube run by a small 1-D driver against the exact solution.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hydro/courant.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/hydro_settings.hpp"
#include "hydro/muscl_hancock.hpp"
#include "hydro/riemann_exact.hpp"
#include "hydro/riemann_face.hpp"
#include "hydro/slope_limiters.hpp"

namespace kosmo::hydro {
namespace {

constexpr RiemannSolver kAllSolvers[] = {RiemannSolver::llf, RiemannSolver::hll, RiemannSolver::hllc,
                                         RiemannSolver::exact};
constexpr SlopeType kAllSlopes[] = {SlopeType::first_order, SlopeType::minmod, SlopeType::moncen,
                                    SlopeType::positivity};

std::string label(const SchemeSettings& s) {
  return std::string(riemann_solver_name(s.riemann)) + " slope_type " + std::to_string(static_cast<int>(s.slope_type));
}

template <int D>
std::array<int, D> coords_of(int index) {
  std::array<int, D> c{};
  for (int d = 0; d < D; ++d, index /= OctBlock<D>::width) c[d] = index % OctBlock<D>::width - 1;
  return c;
}

// A conservative block from a primitive-valued function of the local coordinates.
template <int D, class F>
std::vector<double> make_block(const SchemeSettings& s, F&& primitive_at) {
  constexpr int C = OctBlock<D>::cells;
  const int nv = nvar(D, s.npassive);
  const GasConstants g(s);
  std::vector<double> u(static_cast<std::size_t>(nv * C)), q(static_cast<std::size_t>(nv));
  for (int index = 0; index < C; ++index) {
    primitive_at(coords_of<D>(index), q.data());
    primitive_to_conservative<D>(q.data(), 1, u.data() + index, C, s.npassive, g);
  }
  return u;
}

template <int D>
std::vector<double> fluxes(const SchemeSettings& s, double dtdx, const std::vector<double>& u) {
  const int nv = nvar(D, s.npassive);
  MusclScratch<D> scratch(nv);
  std::vector<double> flux(static_cast<std::size_t>(OctBlock<D>::flux_slots * nv), -999.0);
  muscl_hancock_fluxes<D>(s, dtdx, u.data(), scratch, flux.data());
  return flux;
}

// ---------------------------------------------------------------------------------------------
// Block layout.

TEST(OctBlock, LayoutConstants) {
  static_assert(OctBlock<1>::cells == 6 && OctBlock<2>::cells == 36 && OctBlock<3>::cells == 216);
  static_assert(OctBlock<3>::transverse == 4 && OctBlock<3>::faces == 12 && OctBlock<1>::faces == 3);
  static_assert(OctBlock<3>::index({-1, -1, -1}) == 0 && OctBlock<3>::index({4, 4, 4}) == 215);
  static_assert(OctBlock<3>::index({1, 2, 1}) == 2 + 3 * 6 + 2 * 36);
  // Faces along y at local x = 2, z = 1: bit 0 (x) set, bit 1 (z) clear.
  static_assert(OctBlock<3>::transverse_index(1, {2, 0, 1}) == 1);
  static_assert(OctBlock<3>::transverse_index(0, {0, 1, 2}) == 2);
  static_assert(OctBlock<3>::slot(2, 1, 3) == (2 * 3 + 1) * 4 + 3);
  EXPECT_THROW(MusclScratch<3>(4), kosmo::Error);
}

// ---------------------------------------------------------------------------------------------
// Uniform flow: every face carries the same flux, bit for bit, so no cell changes.

template <int D>
void check_uniform_block() {
  for (RiemannSolver r : kAllSolvers) {
    for (SlopeType st : kAllSlopes) {
      SchemeSettings s;
      s.riemann = r;
      s.slope_type = st;
      s.npassive = 1;
      const int nv = nvar(D, 1);
      const double prim[6] = {1.3, 0.4, -0.25, 0.3, 0.8, 0.6};  // rho, v.., p, s (first D velocities used)
      auto state = [&](const std::array<int, D>&, double* q) {
        q[0] = prim[0];
        for (int d = 0; d < D; ++d) q[1 + d] = prim[1 + d];
        q[D + 1] = prim[4];
        q[D + 2] = prim[5];
      };
      const double dtdx = 0.3;
      const std::vector<double> flux = fluxes<D>(s, dtdx, make_block<D>(s, state));
      for (int d = 0; d < D; ++d) {
        // Physical flux of the uniform state along d, rotated back.
        std::vector<double> q(static_cast<std::size_t>(nv)), w(static_cast<std::size_t>(nv)),
            fw(static_cast<std::size_t>(nv)), expected(static_cast<std::size_t>(nv));
        state({}, q.data());
        rotate_to_face<D>(q.data(), 1, d, 1, w.data());
        euler_flux(w.data(), fw.data(), nv, s);
        rotate_from_face<D>(fw.data(), d, 1, dtdx, expected.data(), 1);
        const int first = OctBlock<D>::slot(d, 0, 0);
        for (int ft = 0; ft < OctBlock<D>::faces; ++ft) {
          for (int v = 0; v < nv; ++v) {
            const double f = flux[static_cast<std::size_t>((first + ft) * nv + v)];
            EXPECT_EQ(f, flux[static_cast<std::size_t>(first * nv + v)]) << label(s) << " d=" << d << " face " << ft;
            EXPECT_NEAR(f, expected[static_cast<std::size_t>(v)], 1e-14) << label(s) << " d=" << d << " var " << v;
          }
        }
      }
    }
  }
}

TEST(MusclHancock, UniformBlockHasEqualFluxesOnAllFaces) {
  check_uniform_block<1>();
  check_uniform_block<2>();
  check_uniform_block<3>();
}

// ---------------------------------------------------------------------------------------------
// A 1-D profile along x in a 2-D or 3-D block gives x-fluxes independent of y, z and equal to the
// 1-D kernel's, and no mass flux across y or z faces.

void profile(double x, double* q1) {  // rho, vx, p, s at local x
  q1[0] = 1.0 + 0.6 * std::tanh(2.0 * (x - 1.4)) + (x > 2.5 ? 0.3 : 0.0);
  q1[1] = 0.4 * std::sin(1.3 * x) - 0.1;
  q1[2] = 0.9 + 0.5 * std::cos(0.9 * x) + (x > 0.5 ? 0.0 : 0.4);
  q1[3] = x < 1.6 ? 1.0 : 0.2 * x;
}

template <int D>
void check_profile_matches_1d() {
  for (RiemannSolver r : kAllSolvers) {
    for (SlopeType st : kAllSlopes) {
      SchemeSettings s;
      s.riemann = r;
      s.slope_type = st;
      s.npassive = 1;
      const double dtdx = 0.2;
      const std::vector<double> f1 =
          fluxes<1>(s, dtdx, make_block<1>(s, [](const std::array<int, 1>& c, double* q) { profile(c[0], q); }));
      const std::vector<double> fd = fluxes<D>(s, dtdx, make_block<D>(s, [](const std::array<int, D>& c, double* q) {
                                                 double q1[4];
                                                 profile(c[0], q1);
                                                 q[0] = q1[0];
                                                 q[1] = q1[1];
                                                 for (int d = 1; d < D; ++d) q[1 + d] = 0.0;
                                                 q[D + 1] = q1[2];
                                                 q[D + 2] = q1[3];
                                               }));
      const int n1 = nvar(1, 1), nd = nvar(D, 1);
      for (int f = 0; f < 3; ++f) {
        const double* ref = f1.data() + OctBlock<1>::slot(0, f, 0) * n1;
        const double scale = std::fabs(ref[0]) + std::fabs(ref[1]) + std::fabs(ref[2]) + 1e-300;
        for (int t = 0; t < OctBlock<D>::transverse; ++t) {
          const double* got = fd.data() + OctBlock<D>::slot(0, f, t) * nd;
          EXPECT_NEAR(got[0], ref[0], 1e-14 * scale) << label(s) << " face " << f << " t " << t;
          EXPECT_NEAR(got[1], ref[1], 1e-14 * scale) << label(s);
          for (int d = 1; d < D; ++d) EXPECT_EQ(got[1 + d], 0.0) << label(s);
          EXPECT_NEAR(got[D + 1], ref[2], 1e-14 * scale) << label(s);
          EXPECT_NEAR(got[D + 2], ref[3], 1e-14 * scale) << label(s);
        }
      }
      for (int d = 1; d < D; ++d) {
        for (int ft = 0; ft < OctBlock<D>::faces; ++ft) {
          EXPECT_EQ(fd[static_cast<std::size_t>((OctBlock<D>::slot(d, 0, 0) + ft) * nd)], 0.0) << label(s);
        }
      }
    }
  }
}

TEST(MusclHancock, OneDimensionalProfileGivesTheOneDimensionalFluxes) {
  check_profile_matches_1d<2>();
  check_profile_matches_1d<3>();
}

// ---------------------------------------------------------------------------------------------
// Mirror symmetry x -> -x: the mirrored block's x-fluxes through mirrored faces have opposite mass,
// energy, transverse-momentum and scalar fluxes and equal normal-momentum fluxes.

template <int D>
void check_mirror_symmetry() {
  std::mt19937_64 rng(2024 + D);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  constexpr int C = OctBlock<D>::cells;
  for (RiemannSolver r : kAllSolvers) {
    for (SlopeType st : kAllSlopes) {
      SchemeSettings s;
      s.riemann = r;
      s.slope_type = st;
      s.npassive = 1;
      const int nv = nvar(D, 1);
      std::vector<double> prim(static_cast<std::size_t>(nv * C));
      for (int index = 0; index < C; ++index) {
        prim[static_cast<std::size_t>(index)] = 0.2 + unit(rng);
        for (int d = 0; d < D; ++d) prim[static_cast<std::size_t>((1 + d) * C + index)] = unit(rng) - 0.5;
        prim[static_cast<std::size_t>((D + 1) * C + index)] = 0.1 + unit(rng);
        prim[static_cast<std::size_t>((D + 2) * C + index)] = unit(rng);
      }
      auto original = [&](const std::array<int, D>& c, double* q) {
        const int index = OctBlock<D>::index(c);
        for (int v = 0; v < nv; ++v) q[v] = prim[static_cast<std::size_t>(v * C + index)];
      };
      auto mirrored = [&](const std::array<int, D>& c, double* q) {
        std::array<int, D> m = c;
        m[0] = 3 - c[0];
        original(m, q);
        q[1] = -q[1];
      };
      const std::vector<double> f = fluxes<D>(s, 0.25, make_block<D>(s, original));
      const std::vector<double> g = fluxes<D>(s, 0.25, make_block<D>(s, mirrored));
      for (int face = 0; face < 3; ++face) {
        for (int t = 0; t < OctBlock<D>::transverse; ++t) {
          const double* a = f.data() + OctBlock<D>::slot(0, face, t) * nv;
          const double* b = g.data() + OctBlock<D>::slot(0, 2 - face, t) * nv;
          for (int v = 0; v < nv; ++v) {
            const double expected = v == 1 ? a[v] : -a[v];
            EXPECT_NEAR(b[v], expected, 1e-12) << label(s) << " D=" << D << " face " << face << " var " << v;
          }
        }
      }
      // Faces along y: mirrored transverse position (bit 0 flips), equal mass flux.
      if constexpr (D > 1) {
        for (int face = 0; face < 3; ++face) {
          for (int t = 0; t < OctBlock<D>::transverse; ++t) {
            const double a = f[static_cast<std::size_t>(OctBlock<D>::slot(1, face, t) * nv)];
            const double b = g[static_cast<std::size_t>(OctBlock<D>::slot(1, face, t ^ 1) * nv)];
            EXPECT_NEAR(b, a, 1e-12) << label(s);
          }
        }
      }
      // Non-trivial data: the mass fluxes are not all zero.
      double total = 0.0;
      for (int i = 0; i < OctBlock<D>::flux_slots; ++i) total += std::fabs(f[static_cast<std::size_t>(i * nv)]);
      EXPECT_GT(total, 1e-3);
    }
  }
}

TEST(MusclHancock, MirrorSymmetryFlipsTheMassFlux) {
  check_mirror_symmetry<1>();
  check_mirror_symmetry<2>();
  check_mirror_symmetry<3>();
}

// ---------------------------------------------------------------------------------------------
// The predictor is unsplit: advecting a linear density with a uniform oblique velocity, the face
// density at t + dt/2 is rho(x_face - v dt/2), which involves the slopes of ALL axes (a directionally
// split predictor would miss the transverse terms). Linear data are not limited by minmod or moncen,
// and HLLC returns the upwind mass flux of a contact exactly.

template <int D>
void check_unsplit_predictor(SlopeType st) {
  SchemeSettings s;
  s.riemann = RiemannSolver::hllc;
  s.slope_type = st;
  const double grad[3] = {0.1, 0.05, -0.03}, vel[3] = {0.3, -0.2, 0.1};
  const double dtdx = 0.4;
  auto density = [&](const std::array<int, D>& c) {
    double rho = 1.0;
    for (int d = 0; d < D; ++d) rho += grad[d] * c[d];
    return rho;
  };
  const std::vector<double> f = fluxes<D>(s, dtdx, make_block<D>(s, [&](const std::array<int, D>& c, double* q) {
                                            q[0] = density(c);
                                            for (int d = 0; d < D; ++d) q[1 + d] = vel[d];
                                            q[D + 1] = 1.0;
                                          }));
  double advection = 0.0;  // v . grad rho, per cell
  for (int d = 0; d < D; ++d) advection += vel[d] * grad[d];
  const int nv = nvar(D, 0);
  for (int d = 0; d < D; ++d) {
    for (int face = 0; face < 3; ++face) {
      for (int t = 0; t < OctBlock<D>::transverse; ++t) {
        std::array<int, D> c{};
        for (int k = 0, e = 0; e < D; ++e) {
          if (e != d) c[e] = 1 + ((t >> k++) & 1);
        }
        c[d] = vel[d] > 0 ? face : face + 1;  // upwind cell
        const double side = vel[d] > 0 ? 0.5 : -0.5;
        const double rho_face = density(c) + side * grad[d] - 0.5 * dtdx * advection;
        const double* got = f.data() + OctBlock<D>::slot(d, face, t) * nv;
        EXPECT_NEAR(got[0], rho_face * vel[d] * dtdx, 1e-14) << "D=" << D << " axis " << d << " face " << face;
        for (int e = 0; e < D; ++e) {
          if (e != d) {
            EXPECT_NEAR(got[1 + e], got[0] * vel[e], 1e-14) << "transverse momentum";
          }
        }
      }
    }
  }
}

TEST(MusclHancock, HancockPredictorIsUnsplit) {
  for (SlopeType st : {SlopeType::minmod, SlopeType::moncen, SlopeType::positivity}) {
    check_unsplit_predictor<1>(st);
    check_unsplit_predictor<2>(st);
    check_unsplit_predictor<3>(st);
  }
}

// The kernel reads only the cells it declares: NaN everywhere else leaves the fluxes unchanged.
template <int D>
void check_cells_read(const std::array<std::size_t, 4>& expected_counts) {
  constexpr int C = OctBlock<D>::cells;
  for (SlopeType st : kAllSlopes) {
    SchemeSettings s;
    s.riemann = RiemannSolver::hllc;
    s.slope_type = st;
    s.npassive = 1;
    const int nv = nvar(D, 1);
    const MusclScratch<D> scratch(nv);
    const std::vector<int> read = scratch.cells_read(st);
    EXPECT_EQ(read.size(), expected_counts[static_cast<std::size_t>(st)]) << "D=" << D << " " << label(s);
    const std::vector<double> full = make_block<D>(s, [](const std::array<int, D>& c, double* q) {
      double x = 0.0;
      for (int d = 0; d < D; ++d) x += (d + 1.3) * c[d];
      q[0] = 1.0 + 0.2 * std::sin(x);
      for (int d = 0; d < D; ++d) q[1 + d] = 0.1 * std::cos(x + d);
      q[D + 1] = 1.0 + 0.1 * std::cos(2.0 * x);
      q[D + 2] = 0.5 + 0.5 * std::sin(3.0 * x);
    });
    std::vector<double> sparse(full.size(), std::nan(""));
    for (const int index : read) {
      for (int v = 0; v < nv; ++v)
        sparse[static_cast<std::size_t>(v * C + index)] = full[static_cast<std::size_t>(v * C + index)];
    }
    const std::vector<double> a = fluxes<D>(s, 0.3, full), b = fluxes<D>(s, 0.3, sparse);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_TRUE(std::isfinite(b[i])) << "D=" << D << " " << label(s) << " flux entry " << i;
      EXPECT_EQ(a[i], b[i]) << "D=" << D << " " << label(s) << " flux entry " << i;
    }
  }
}

TEST(MusclHancock, ReadsOnlyTheDeclaredCells) {
  check_cells_read<1>({4, 6, 6, 6});
  check_cells_read<2>({12, 24, 24, 32});
  check_cells_read<3>({32, 80, 80, 160});
}

TEST(MusclHancock, MismatchedScratchIsRejected) {
  SchemeSettings s;
  s.npassive = 1;
  MusclScratch<3> scratch(5);
  std::vector<double> u(6 * 216, 1.0), flux(36 * 6);
  EXPECT_THROW(muscl_hancock_fluxes<3>(s, 0.1, u.data(), scratch, flux.data()), kosmo::Error);
}

// ---------------------------------------------------------------------------------------------
// Sod's shock tube with a test-only 1-D driver: cells 0..n-1 on [0, 1] with two ghost cells per side
// (zero-gradient copies), each oct of two cells gathers its 6-cell window (copied along the other
// axes when D > 1), and cells update from the oct's own fluxes.

struct SodResult {
  double l1_density;
  double l1_scalar;
  double mass_change;
  std::vector<double> density;
};

constexpr double kSodTime = 0.2;

template <int D>
SodResult run_sod(SchemeSettings s, int n, double courant = 0.8) {
  s.npassive = 1;
  constexpr int C = OctBlock<D>::cells;
  const int nv = nvar(D, 1);
  const int ng = n + 4;
  const double dx = 1.0 / n;
  const GasConstants g(s);
  // u[var * ng + i + 2]: conservative state of cell i (1-D variables: rho, mx, E, rho s).
  std::vector<double> u(static_cast<std::size_t>(4 * ng));
  for (int i = 0; i < n; ++i) {
    const bool left = (i + 0.5) * dx < 0.5;
    const double q[4] = {left ? 1.0 : 0.125, 0.0, left ? 1.0 : 0.1, left ? 1.0 : 0.0};
    primitive_to_conservative<1>(q, 1, u.data() + i + 2, ng, 1, g);
  }
  auto mass = [&] {
    double m = 0.0;
    for (int i = 0; i < n; ++i) m += u[static_cast<std::size_t>(i + 2)] * dx;
    return m;
  };
  const double mass0 = mass();
  MusclScratch<D> scratch(nv);
  std::vector<double> block(static_cast<std::size_t>(nv * C), 0.0),
      flux(static_cast<std::size_t>(OctBlock<D>::flux_slots * nv));
  std::vector<double> next(u.size());
  double t = 0.0;
  while (t < kSodTime) {
    for (int v = 0; v < 4; ++v) {
      double* a = u.data() + v * ng;
      a[0] = a[1] = a[2];
      a[n + 3] = a[n + 2] = a[n + 1];
    }
    double dt = kSodTime - t;
    for (int i = 0; i < n; ++i) dt = std::min(dt, courant_time_step<1>(u.data() + i + 2, ng, dx, courant, s));
    next = u;
    for (int k = 0; k < n / 2; ++k) {
      for (int index = 0; index < C; ++index) {
        const int cell = 2 * k + coords_of<D>(index)[0] + 1;  // ghost-shifted index of local x
        block[static_cast<std::size_t>(index)] = u[static_cast<std::size_t>(cell)];
        block[static_cast<std::size_t>(C + index)] = u[static_cast<std::size_t>(ng + cell)];
        block[static_cast<std::size_t>((D + 1) * C + index)] = u[static_cast<std::size_t>(2 * ng + cell)];
        block[static_cast<std::size_t>((D + 2) * C + index)] = u[static_cast<std::size_t>(3 * ng + cell)];
      }
      muscl_hancock_fluxes<D>(s, dt / dx, block.data(), scratch, flux.data());
      for (int c = 1; c <= 2; ++c) {
        const int cell = 2 * k + c + 1;
        const double* hi = flux.data() + OctBlock<D>::slot(0, c, 0) * nv;
        const double* lo = flux.data() + OctBlock<D>::slot(0, c - 1, 0) * nv;
        const int map[4] = {0, 1, D + 1, D + 2};
        for (int v = 0; v < 4; ++v) next[static_cast<std::size_t>(v * ng + cell)] -= hi[map[v]] - lo[map[v]];
      }
    }
    u.swap(next);
    t += dt;
  }
  SodResult result{0.0, 0.0, mass() - mass0, {}};
  const RiemannStarState star = exact_star_state(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, s.gamma);
  for (int i = 0; i < n; ++i) {
    const double x = (i + 0.5) * dx;
    double rho, vel, p;
    sample_exact_riemann(1.0, 0.0, 1.0, 0.125, 0.0, 0.1, s.gamma, star, (x - 0.5) / kSodTime, rho, vel, p);
    const double density = u[static_cast<std::size_t>(i + 2)];
    const double scalar = u[static_cast<std::size_t>(3 * ng + i + 2)] / density;
    result.l1_density += std::fabs(density - rho) * dx;
    result.l1_scalar += std::fabs(scalar - (x < 0.5 + star.u * kSodTime ? 1.0 : 0.0)) * dx;
    result.density.push_back(density);
  }
  return result;
}

// L1 bounds at n = 100 per slope type (rows: 0, 1, 2, 3) and solver (llf, hll, hllc, exact), about
// 25 % above the measured errors (density: 0.0228 0.0168 0.0155 0.0146 | 0.0083 0.0071 0.0064 0.0057 |
// 0.0064 0.0055 0.0048 0.0034, slope_type 3 equal to 2 in 1-D). A scheme that lost its
// second-order reconstruction or its contact resolution would exceed them.
constexpr double kSodDensityBound[4][4] = {{0.029, 0.021, 0.019, 0.018},
                                           {0.0104, 0.0089, 0.0081, 0.0072},
                                           {0.0081, 0.0070, 0.0061, 0.0043},
                                           {0.0081, 0.0070, 0.0061, 0.0043}};
constexpr double kSodScalarBound[4][4] = {{0.059, 0.042, 0.035, 0.035},
                                          {0.028, 0.022, 0.019, 0.019},
                                          {0.020, 0.016, 0.0135, 0.0135},
                                          {0.020, 0.016, 0.0135, 0.0135}};

TEST(SodShockTube, AllSolversAndSlopesConvergeToTheExactSolution) {
  // Besides the error bounds: the observed convergence order over n = 100, 200, 400. Discontinuities
  // limit every scheme to order < 1 in L1; first order smears the contact as n^(-1/2) (measured
  // 0.57-0.66), the second-order limiters reach 0.82-0.97.
  for (SlopeType st : kAllSlopes) {
    for (RiemannSolver r : kAllSolvers) {
      SchemeSettings s;
      s.riemann = r;
      s.slope_type = st;
      const SodResult r100 = run_sod<1>(s, 100), r200 = run_sod<1>(s, 200), r400 = run_sod<1>(s, 400);
      const double order = std::log2(r100.l1_density / r400.l1_density) / 2.0;
      const int is = static_cast<int>(st), ir = static_cast<int>(r);
      std::printf("[ sod      ] %-5s slope_type %d: L1(rho) = %.5f %.5f %.5f, order %.3f, L1(scalar) = %.5f\n",
                  riemann_solver_name(r), is, r100.l1_density, r200.l1_density, r400.l1_density, order, r100.l1_scalar);
      EXPECT_LT(r100.l1_density, kSodDensityBound[is][ir]) << label(s);
      EXPECT_LT(r200.l1_density, r100.l1_density) << label(s);
      EXPECT_LT(r400.l1_density, r200.l1_density) << label(s);
      EXPECT_GT(order, st == SlopeType::first_order ? 0.5 : 0.75) << label(s);
      EXPECT_LT(r100.l1_scalar, kSodScalarBound[is][ir]) << label(s);
      EXPECT_LT(std::fabs(r100.mass_change), 1e-13) << label(s);
    }
  }
}

TEST(SodShockTube, ThreeDimensionalBlocksReproduceTheOneDimensionalRun) {
  for (RiemannSolver r : {RiemannSolver::hllc, RiemannSolver::exact}) {
    SchemeSettings s;
    s.riemann = r;
    s.slope_type = SlopeType::positivity;
    const SodResult one = run_sod<1>(s, 64), three = run_sod<3>(s, 64), two = run_sod<2>(s, 64);
    for (std::size_t i = 0; i < one.density.size(); ++i) {
      EXPECT_NEAR(three.density[i], one.density[i], 1e-13) << label(s) << " cell " << i;
      EXPECT_NEAR(two.density[i], one.density[i], 1e-13) << label(s) << " cell " << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Building blocks: equation of state, slope limiters, Courant step.

TEST(EquationOfState, RoundTripAndRamsesFloors) {
  SchemeSettings s;
  s.npassive = 1;
  const double q[6] = {0.7, 0.3, -1.2, 0.05, 2.5, 0.4};
  double u[6], back[6];
  primitive_to_conservative<3>(q, u, s);
  EXPECT_DOUBLE_EQ(u[4], 2.5 / 0.4 + 0.5 * 0.7 * (0.09 + 1.44 + 0.0025));
  conservative_to_primitive<3>(u, back, s);
  for (int v = 0; v < 6; ++v) EXPECT_NEAR(back[v], q[v], 1e-14) << v;
  // Negative density and internal energy are floored: rho >= smallr, p >= rho smallc^2 / gamma.
  s.smallr = 1e-6;
  s.smallc = 1e-3;
  const double bad[6] = {-1.0, 0.0, 0.0, 0.0, -5.0, 0.0};
  conservative_to_primitive<3>(bad, back, s);
  EXPECT_EQ(back[0], 1e-6);
  EXPECT_NEAR(back[4], 1e-6 * 1e-6 / 1.4, 1e-25);
  EXPECT_NEAR(sound_speed(back[0], back[4], 1.4), 1e-3, 1e-15);
}

TEST(SlopeLimiters, MinmodAndMoncen) {
  EXPECT_EQ(slope_minmod(1.0, 3.0), 1.0);
  EXPECT_EQ(slope_minmod(-1.0, -3.0), -1.0);
  EXPECT_EQ(slope_minmod(1.0, -3.0), 0.0);
  EXPECT_EQ(slope_moncen(1.0, 3.0), 2.0);   // min(2, 6, 2)
  EXPECT_EQ(slope_moncen(1.0, 1.5), 1.25);  // central
  EXPECT_EQ(slope_moncen(-1.0, -9.0), -2.0);
  EXPECT_EQ(slope_moncen(0.0, 1.0), 0.0);
  EXPECT_EQ(limited_slope(SlopeType::first_order, 1.0, 1.0), 0.0);
  EXPECT_EQ(limited_slope<SlopeType::minmod>(2.0, 0.5), 0.5);
}

template <int D>
void check_positivity_limiter() {
  std::mt19937_64 rng(99 + D);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  constexpr int n3 = D == 1 ? 3 : (D == 2 ? 9 : 27);
  std::array<std::ptrdiff_t, D> stride{};
  for (int d = 0; d < D; ++d) stride[d] = d == 0 ? 1 : (d == 1 ? 3 : 9);
  const std::ptrdiff_t centre = D == 1 ? 1 : (D == 2 ? 4 : 13);
  for (int trial = 0; trial < 2000; ++trial) {
    std::array<double, n3> q;
    for (double& v : q) v = unit(rng);
    if (trial % 3 == 0) {  // smooth linear data: unlimited when far from extrema
      for (int k = 0; k < n3; ++k) q[k] = 0.1 * (k % 3) + 0.05 * ((k / 3) % 3) + 0.02 * (k / 9);
    }
    double dq[D];
    positivity_slopes<D>(q.data() + centre, stride, dq);
    const double lo = *std::min_element(q.begin(), q.end()), hi = *std::max_element(q.begin(), q.end());
    for (int corner = 0; corner < (1 << D); ++corner) {
      double value = q[centre];
      for (int d = 0; d < D; ++d) value += ((corner >> d) & 1 ? 0.5 : -0.5) * dq[d];
      EXPECT_GE(value, lo - 1e-15);
      EXPECT_LE(value, hi + 1e-15);
    }
    if (D == 1) {
      EXPECT_DOUBLE_EQ(dq[0], slope_moncen(q[1] - q[0], q[2] - q[1]));
    }
    if (trial % 3 == 0) {
      for (int d = 0; d < D; ++d) EXPECT_NEAR(dq[d], (d == 0 ? 0.1 : (d == 1 ? 0.05 : 0.02)), 1e-15);
    }
  }
}

TEST(SlopeLimiters, PositivityLimiterKeepsCornersWithinTheNeighbourhood) {
  check_positivity_limiter<1>();
  check_positivity_limiter<2>();
  check_positivity_limiter<3>();
}

TEST(CourantStep, FollowsRamsesCmpdt) {
  SchemeSettings s;
  const double q[5] = {2.0, 0.3, -0.4, 0.1, 1.5};
  double u[5];
  primitive_to_conservative<3>(q, u, s);
  const double c = std::sqrt(1.4 * 1.5 / 2.0);
  const double w = 3.0 * c + 0.3 + 0.4 + 0.1;  // RAMSES sums |v_d| + c over the dimensions
  const double dt = courant_time_step<3>(u, 1, 0.01, 0.8, s);
  EXPECT_NEAR(dt, 0.8 * 0.01 / w, 1e-4 * dt);  // RAMSES' 1e-4 gravity-ratio floor shifts it by < 1e-4
  EXPECT_LT(dt, 0.8 * 0.01 / w);
  // Strong gravity shortens the step: dt = dx/w (sqrt(1 + 2 C r) - 1) / r with r = |g| dx / w^2.
  const double g = 50.0;
  const double r = g * 0.01 / (w * w);
  EXPECT_NEAR(courant_time_step<3>(u, 1, 0.01, 0.8, s, g), 0.01 / w * (std::sqrt(1.0 + 1.6 * r) - 1.0) / r, 1e-15);
  // A cell at rest in 1-D: C dx / c.
  const double q1[3] = {1.0, 0.0, 1.0};
  double u1[3];
  primitive_to_conservative<1>(q1, u1, s);
  EXPECT_NEAR(courant_time_step<1>(u1, 1, 0.1, 0.5, s), 0.05 / std::sqrt(1.4), 1e-5);
}

}  // namespace
}  // namespace kosmo::hydro
