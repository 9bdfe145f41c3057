// The MUSCL-Hancock oct kernel (see muscl_hancock.hpp): RAMSES hydro/umuscl.f90 (ctoprim, uslope,
// trace, cmpflxm) restricted to the cells one oct needs, templated on dimension, slope limiter and
// Riemann solver, and instantiated here for D = 1, 2, 3.
//
// Three stages:
//   1. conservative -> primitive on the cells the slopes read;
//   2. on every trace cell ("lane"): limited slopes along every axis, then the Hancock half step of
//      the centre value, stored structure-of-arrays (centre_, slope_);
//   3. on every face: the two face states (centre +- slope / 2 along the face normal), the Riemann
//      solver, and the rotated flux back in conservative order times dt/dx.
// Stages 1 and 2 loop over runs of cells contiguous along x and stage 3 solves all faces from
// structure-of-arrays inputs, so the compiler vectorises them; face states are formed only where a
// Riemann problem needs them.
#include "hydro/muscl_hancock.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "hydro/equation_of_state.hpp"
#include "hydro/riemann_exact.hpp"
#include "hydro/riemann_face.hpp"
#include "hydro/riemann_hll.hpp"
#include "hydro/riemann_hllc.hpp"
#include "hydro/riemann_llf.hpp"
#include "hydro/slope_limiters.hpp"

namespace kosmo::hydro {

template <int D>
MusclScratch<D>::MusclScratch(int nvar) : nvar_(nvar) {
  using Block = OctBlock<D>;
  KOSMO_REQUIRE(nvar >= D + 2, "hydro: MusclScratch<" << D << "> needs nvar >= " << D + 2 << ", got " << nvar);
  const auto n = static_cast<std::size_t>(nvar);
  q_.assign(n * Block::cells, 0.0);
  centre_.assign(n * trace_cells, 0.0);
  slope_.assign(n * D * trace_cells, 0.0);

  // Rows along x through the trace cells. Core rows: the other coordinates inside the oct, x = 0..3.
  // Slab rows: one other coordinate at 0 or 3 (beside the oct), the rest inside, x = 1..2.
  std::array<int, Block::cells> lane_of{};
  lane_of.fill(-1);
  int lanes = 0;
  auto add_run = [&](std::vector<Run>& runs, const std::array<int, D>& c, int length) {
    runs.push_back({Block::index(c), lanes, length});
    for (int k = 0; k < length; ++k) {
      lane_cell_[static_cast<std::size_t>(lanes)] = Block::index(c) + k;
      lane_of[static_cast<std::size_t>(Block::index(c) + k)] = lanes++;
    }
  };
  for (int t = 0; t < Block::transverse; ++t) {
    std::array<int, D> c{};
    for (int e = 1; e < D; ++e) c[e] = 1 + ((t >> (e - 1)) & 1);
    add_run(core_runs_, c, 4);
  }
  for (int e = 1; e < D; ++e) {
    for (int side = 0; side < 2; ++side) {
      for (int t = 0; t < (1 << (D - 2 > 0 ? D - 2 : 0)); ++t) {
        std::array<int, D> c{};
        c[0] = 1;
        for (int k = 0, a = 1; a < D; ++a) {
          if (a != e) c[a] = 1 + ((t >> k++) & 1);
        }
        c[e] = side == 0 ? 0 : 3;
        add_run(slab_runs_, c, 2);
      }
    }
  }
  KOSMO_REQUIRE(lanes == trace_cells, "hydro: internal error, " << lanes << " trace cells");

  // Face (d, f, t) separates the cells at c_d = f and f + 1 whose other coordinates are given by t.
  for (int d = 0; d < D; ++d) {
    for (int f = 0; f < 3; ++f) {
      for (int t = 0; t < Block::transverse; ++t) {
        std::array<int, D> c{};
        for (int k = 0, e = 0; e < D; ++e) {
          if (e != d) c[e] = 1 + ((t >> k++) & 1);
        }
        c[d] = f;
        const int left = lane_of[static_cast<std::size_t>(Block::index(c))];
        c[d] = f + 1;
        const int right = lane_of[static_cast<std::size_t>(Block::index(c))];
        KOSMO_REQUIRE(left >= 0 && right >= 0, "hydro: internal error, face without trace cells");
        left_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(f * Block::transverse + t)] = left;
        right_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(f * Block::transverse + t)] = right;
      }
    }
  }

  // Cells whose primitive variables the slopes read, per stencil, as runs along x.
  std::array<std::vector<char>, 3> needed;
  for (auto& v : needed) v.assign(Block::cells, 0);
  for (const int index : lane_cell_) {
    needed[0][static_cast<std::size_t>(index)] = 1;
    for (int d = 0; d < D; ++d) {
      for (int o = -1; o <= 1; ++o) needed[1][static_cast<std::size_t>(index + o * Block::stride(d))] = 1;
    }
    constexpr int neighbours = D == 1 ? 3 : (D == 2 ? 9 : 27);
    for (int k = 0; k < neighbours; ++k) {
      int offset = 0, code = k;
      for (int d = 0; d < D; ++d, code /= 3) offset += (code % 3 - 1) * Block::stride(d);
      needed[2][static_cast<std::size_t>(index + offset)] = 1;
    }
  }
  for (int s = 0; s < 3; ++s) {
    for (int row = 0; row < Block::cells; row += Block::width) {
      for (int x = 0; x < Block::width; ++x) {
        if (!needed[s][static_cast<std::size_t>(row + x)]) continue;
        int length = 1;
        while (x + length < Block::width && needed[s][static_cast<std::size_t>(row + x + length)]) ++length;
        convert_runs_[s].push_back({row + x, -1, length});
        x += length;
      }
    }
  }
}

namespace {

// Riemann solvers as small value types, so the kernel is instantiated once per solver and the face
// loop calls an inline function (no per-face dispatch).
struct LlfSolver {
  GasConstants g;
  FaceFlux operator()(const FaceInput& l, const FaceInput& r) const { return llf_flux(l, r, g); }
};
struct HllSolver {
  GasConstants g;
  FaceFlux operator()(const FaceInput& l, const FaceInput& r) const { return hll_flux(l, r, g); }
};
struct HllcSolver {
  GasConstants g;
  FaceFlux operator()(const FaceInput& l, const FaceInput& r) const { return hllc_flux(l, r, g); }
};
struct ExactSolver {
  GasConstants g;
  detail::ExactGamma e;
  int niter;
  FaceFlux operator()(const FaceInput& l, const FaceInput& r) const { return exact_flux(l, r, g, e, niter); }
};

}  // namespace

namespace detail {

template <int D>
struct MusclKernel {
  using Block = OctBlock<D>;
  using Run = typename MusclScratch<D>::Run;
  static constexpr int C = Block::cells;
  static constexpr int L = MusclScratch<D>::trace_cells;
  static constexpr int F = Block::faces;
  static constexpr int NF = D * F;  // faces of all axes
  static constexpr int NH = D + 2;  // Euler variables: rho, v_0 .. v_{D-1}, p
  static constexpr int P = D + 1;   // pressure index

  static constexpr std::array<std::ptrdiff_t, D> strides() {
    std::array<std::ptrdiff_t, D> s{};
    for (int d = 0; d < D; ++d) s[static_cast<std::size_t>(d)] = Block::stride(d);
    return s;
  }

  // Stage 2a on one run of N cells: limited slopes of every variable along every axis (RAMSES uslope).
  template <SlopeType S, int N>
  static void run_slopes(const double* q, int start, int lane, int nvar, double* slope) {
    for (int v = 0; v < nvar; ++v) {
      const double* qv = q + v * C + start;
      double* sv = slope + v * D * L + lane;
      if constexpr (S == SlopeType::positivity) {
        positivity_slopes<D, N>(qv, strides(), sv, L);
      } else {
        for (int d = 0; d < D; ++d) {
          constexpr std::array<std::ptrdiff_t, D> st = strides();
          const std::ptrdiff_t s = st[static_cast<std::size_t>(d)];
#pragma omp simd
          for (int k = 0; k < N; ++k) sv[d * L + k] = limited_slope<S>(qv[k] - qv[k - s], qv[k + s] - qv[k]);
        }
      }
    }
  }

  // Stage 2b on one run: the Hancock half step at the centre (RAMSES trace), with the time derivatives
  // of the primitive variables from the quasi-linear Euler equations and the slopes of ALL directions
  // (unsplit): dq/dt = -v.grad q - grad p / rho (velocities), -rho div v (density), -gamma p div v
  // (pressure), -v.grad s (passive scalars); times dt/dx because the slopes are undivided.
  template <int N>
  static void run_predictor(const double* q, const double* slope, int start, int lane, int nvar, double half_dtdx,
                            double gamma, double* centre) {
#pragma omp simd
    for (int k = 0; k < N; ++k) {
      const int c = start + k, i = lane + k;
      double w[NH], dq[NH][D];
      for (int v = 0; v < NH; ++v) {
        w[v] = q[v * C + c];
        for (int d = 0; d < D; ++d) dq[v][d] = slope[(v * D + d) * L + i];
      }
      double div = 0.0;
      for (int d = 0; d < D; ++d) div += dq[1 + d][d];
      const double inv_rho = 1.0 / w[0];
      for (int v = 0; v < NH; ++v) {
        double src = 0.0;
        for (int d = 0; d < D; ++d) src -= w[1 + d] * dq[v][d];
        if (v == 0) src -= div * w[0];
        if (v >= 1 && v <= D) src -= dq[P][v - 1] * inv_rho;
        if (v == P) src -= div * gamma * w[P];
        centre[v * L + i] = w[v] + half_dtdx * src;
      }
    }
    for (int n = NH; n < nvar; ++n) {
#pragma omp simd
      for (int k = 0; k < N; ++k) {
        const int c = start + k, i = lane + k;
        double src = 0.0;
        for (int d = 0; d < D; ++d) src -= q[(1 + d) * C + c] * slope[(n * D + d) * L + i];
        centre[n * L + i] = q[n * C + c] + half_dtdx * src;
      }
    }
  }

  // Stage 3b: the Riemann solver on every face, structure-of-arrays in and out. A function of its own
  // so that the solver is inlined and the loop vectorised (LLF, HLL and HLLC are branch-free).
  template <class Solver>
  static void solve_faces(const Solver& solver, const double (&in)[2][4][NF], double (&out)[5][NF]) {
#pragma omp simd
    for (int face = 0; face < NF; ++face) {
      const FaceFlux f = solver(FaceInput{in[0][0][face], in[0][1][face], in[0][2][face], in[0][3][face]},
                                FaceInput{in[1][0][face], in[1][1][face], in[1][2][face], in[1][3][face]});
      out[0][face] = f.mass;
      out[1][face] = f.momentum;
      out[2][face] = f.energy;
      out[3][face] = f.weight_left;
      out[4][face] = f.weight_right;
    }
  }

  template <SlopeType S, class Solver>
  static void fluxes(const Solver& solver, const GasConstants& g, double dtdx, const double* u,
                     MusclScratch<D>& scratch, double* flux) {
    const int nvar = scratch.nvar_;
    const int npassive = nvar - NH;
    double* q = scratch.q_.data();
    double* centre = scratch.centre_.data();
    double* slope = scratch.slope_.data();

    // 1. Primitive variables (RAMSES ctoprim) where the slopes will read them.
    constexpr int stencil = S == SlopeType::first_order ? 0 : (S == SlopeType::positivity ? 2 : 1);
    for (const Run& run : scratch.convert_runs_[stencil]) {
      const double* ur = u + run.start;
      double* qr = q + run.start;
#pragma omp simd
      for (int k = 0; k < run.length; ++k) conservative_to_primitive_euler<D>(ur + k, C, qr + k, C, g);
      for (int n = NH; n < nvar; ++n) {
        for (int k = 0; k < run.length; ++k) qr[n * C + k] = ur[n * C + k] / qr[k];
      }
    }

    // 2. Slopes and Hancock predictor on the trace cells.
    if constexpr (S == SlopeType::first_order) {
      for (int v = 0; v < nvar; ++v) {
        for (int i = 0; i < L; ++i) centre[v * L + i] = q[v * C + scratch.lane_cell_[static_cast<std::size_t>(i)]];
      }
    } else {
      const double half_dtdx = 0.5 * dtdx;
      for (const Run& run : scratch.core_runs_) run_slopes<S, 4>(q, run.start, run.lane, nvar, slope);
      for (const Run& run : scratch.slab_runs_) run_slopes<S, 2>(q, run.start, run.lane, nvar, slope);
      for (const Run& run : scratch.core_runs_) {
        run_predictor<4>(q, slope, run.start, run.lane, nvar, half_dtdx, g.gamma, centre);
      }
      for (const Run& run : scratch.slab_runs_) {
        run_predictor<2>(q, slope, run.start, run.lane, nvar, half_dtdx, g.gamma, centre);
      }
    }

    // 3. Riemann problems (RAMSES cmpflxm). Face states: the left cell's high face and the right
    // cell's low face along the normal; RAMSES trace falls back to the cell's own density when the
    // predicted one is below smallr.
    auto face_value = [&](int v, int d, int lane, double side) {
      if constexpr (S == SlopeType::first_order) {
        (void)d, (void)side;
        return centre[v * L + lane];
      } else {
        return centre[v * L + lane] + side * slope[(v * D + d) * L + lane];
      }
    };
    alignas(64) double in[2][4][NF];  // [side][rho, u_n, p, |v_t|^2][face]
    alignas(64) double vt[2][D > 1 ? D - 1 : 1][NF];
    for (int d = 0; d < D; ++d) {
      for (int j = 0; j < F; ++j) {
        const int face = d * F + j;
        const int lanes[2] = {scratch.left_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(j)],
                              scratch.right_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(j)]};
        for (int side = 0; side < 2; ++side) {
          const int a = lanes[side];
          const double h = side == 0 ? 0.5 : -0.5;
          const double rho = face_value(0, d, a, h);
          in[side][0][face] = rho < g.smallr ? q[scratch.lane_cell_[static_cast<std::size_t>(a)]] : rho;
          in[side][1][face] = face_value(1 + d, d, a, h);
          in[side][2][face] = face_value(P, d, a, h);
          double vt2 = 0.0;
          for (int k = 0; k < D - 1; ++k) {
            const double v = face_value(1 + transverse_axis(d, k), d, a, h);
            vt[side][k][face] = v;
            vt2 += v * v;
          }
          in[side][3][face] = vt2;
        }
      }
    }
    alignas(64) double out[5][NF];  // mass, momentum, energy, weight_left, weight_right
    solve_faces(solver, in, out);
    for (int d = 0; d < D; ++d) {
      for (int j = 0; j < F; ++j) {
        const int face = d * F + j;
        double* o = flux + face * nvar;
        o[0] = out[0][face] * dtdx;
        o[1 + d] = out[1][face] * dtdx;
        o[P] = out[2][face] * dtdx;
        const double wl = out[3][face] * dtdx, wr = out[4][face] * dtdx;
        for (int k = 0; k < D - 1; ++k) o[1 + transverse_axis(d, k)] = wl * vt[0][k][face] + wr * vt[1][k][face];
        if (npassive > 0) {
          const int a = scratch.left_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(j)];
          const int b = scratch.right_lane_[static_cast<std::size_t>(d)][static_cast<std::size_t>(j)];
          for (int n = NH; n < nvar; ++n) o[n] = wl * face_value(n, d, a, 0.5) + wr * face_value(n, d, b, -0.5);
        }
      }
    }
  }

  template <class Solver>
  static void dispatch_slope(const SchemeSettings& s, const Solver& solver, const GasConstants& g, double dtdx,
                             const double* u, MusclScratch<D>& scratch, double* flux) {
    switch (s.slope_type) {
      case SlopeType::first_order: return fluxes<SlopeType::first_order>(solver, g, dtdx, u, scratch, flux);
      case SlopeType::minmod: return fluxes<SlopeType::minmod>(solver, g, dtdx, u, scratch, flux);
      case SlopeType::moncen: return fluxes<SlopeType::moncen>(solver, g, dtdx, u, scratch, flux);
      case SlopeType::positivity: return fluxes<SlopeType::positivity>(solver, g, dtdx, u, scratch, flux);
    }
    KOSMO_FAIL("hydro: unsupported slope_type " << static_cast<int>(s.slope_type));
  }

  static void run(const SchemeSettings& s, double dtdx, const double* u, MusclScratch<D>& scratch, double* flux) {
    const GasConstants g(s);
    switch (s.riemann) {
      case RiemannSolver::llf: return dispatch_slope(s, LlfSolver{g}, g, dtdx, u, scratch, flux);
      case RiemannSolver::hll: return dispatch_slope(s, HllSolver{g}, g, dtdx, u, scratch, flux);
      case RiemannSolver::hllc: return dispatch_slope(s, HllcSolver{g}, g, dtdx, u, scratch, flux);
      case RiemannSolver::exact:
        return dispatch_slope(s, ExactSolver{g, ExactGamma(s.gamma), s.niter_riemann}, g, dtdx, u, scratch, flux);
    }
    KOSMO_FAIL("hydro: unsupported Riemann solver " << static_cast<int>(s.riemann));
  }
};

}  // namespace detail

template <int D>
void muscl_hancock_fluxes(const SchemeSettings& s, double dt_over_dx, const double* u, MusclScratch<D>& scratch,
                          double* flux) {
  KOSMO_REQUIRE(scratch.nvar() == nvar(D, s.npassive), "hydro: MusclScratch<" << D << "> was sized for nvar = "
                                                                              << scratch.nvar() << " but the settings give "
                                                                              << nvar(D, s.npassive));
  detail::MusclKernel<D>::run(s, dt_over_dx, u, scratch, flux);
}

template class MusclScratch<1>;
template class MusclScratch<2>;
template class MusclScratch<3>;
template void muscl_hancock_fluxes<1>(const SchemeSettings&, double, const double*, MusclScratch<1>&, double*);
template void muscl_hancock_fluxes<2>(const SchemeSettings&, double, const double*, MusclScratch<2>&, double*);
template void muscl_hancock_fluxes<3>(const SchemeSettings&, double, const double*, MusclScratch<3>&, double*);

}  // namespace kosmo::hydro
