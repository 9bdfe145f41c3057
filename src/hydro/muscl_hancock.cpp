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
  density_.assign(trace_cells, 0.0);

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
  // Along x the three faces of a core row have consecutive lanes; along y or z the two faces at
  // x = 1, 2 do. Runs of faces follow those, numbered axis by axis.
  auto lane_at = [&](const std::array<int, D>& c) {
    const int lane = lane_of[static_cast<std::size_t>(Block::index(c))];
    KOSMO_REQUIRE(lane >= 0, "hydro: internal error, face without trace cell");
    return lane;
  };
  for (int d = 0; d < D; ++d) {
    int face = d * Block::faces;
    const int run_length = d == 0 ? 3 : 2;
    for (int t = 0; t < Block::transverse; ++t) {
      for (int f = 0; f < 3; ++f) {
        std::array<int, D> c{};
        for (int k = 0, e = 0; e < D; ++e) {
          if (e != d) c[e] = 1 + ((t >> k++) & 1);
        }
        // The first face of a run: f = 0 along x; x = 1 (bit 0 of t clear) along y and z.
        const bool first = d == 0 ? f == 0 : (t & 1) == 0;
        if (!first) continue;
        c[d] = f;
        const int left = lane_at(c);
        c[d] = f + 1;
        const int right = lane_at(c);
        face_runs_[static_cast<std::size_t>(d)].push_back({face, left, right});
        for (int k = 0; k < run_length; ++k) {
          // Run member k: f + k along x, x = 1 + k (t + k) along y and z.
          const int fk = d == 0 ? f + k : f, tk = d == 0 ? t : t + k;
          std::array<int, D> ck = c;
          for (int j = 0, e = 0; e < D; ++e) {
            if (e != d) ck[e] = 1 + ((tk >> j++) & 1);
          }
          ck[d] = fk;
          KOSMO_REQUIRE(lane_at(ck) == left + k, "hydro: internal error, face run lanes not consecutive");
          ck[d] = fk + 1;
          KOSMO_REQUIRE(lane_at(ck) == right + k, "hydro: internal error, face run lanes not consecutive");
          face_slot_[static_cast<std::size_t>(face++)] = Block::slot(d, fk, tk);
        }
      }
    }
    KOSMO_REQUIRE(face == (d + 1) * Block::faces, "hydro: internal error, " << face << " faces");
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

template <int D>
std::vector<int> MusclScratch<D>::cells_read(SlopeType slope_type) const {
  const int stencil = slope_type == SlopeType::first_order ? 0 : (slope_type == SlopeType::positivity ? 2 : 1);
  std::vector<int> cells;
  for (const Run& run : convert_runs_[static_cast<std::size_t>(stencil)]) {
    for (int k = 0; k < run.length; ++k) cells.push_back(run.start + k);
  }
  return cells;
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
                            double gamma, double* centre, double* density) {
#pragma omp simd
    for (int k = 0; k < N; ++k) {
      const int c = start + k, i = lane + k;
      double w[NH], dq[NH][D];
      for (int v = 0; v < NH; ++v) {
        w[v] = q[v * C + c];
        for (int d = 0; d < D; ++d) dq[v][d] = slope[(v * D + d) * L + i];
      }
      density[i] = w[0];
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

  // Stage 3a on one run of N faces along axis d whose cells on one side (h = +1/2: the left cells'
  // high faces, h = -1/2: the right cells' low faces) are consecutive lanes: face state = centre +
  // h * slope. RAMSES trace falls back to the cell's own density when the predicted one is below
  // smallr. in_side points at [rho, u_n, p, |v_t|^2][NF] of that side, vt_side at [D - 1][NF].
  template <SlopeType S, int N>
  static void gather_faces(int d, int face, int lane, double h, const double* centre, const double* slope,
                           const double* rho_cell, double smallr, double* __restrict in_side,
                           double* __restrict vt_side) {
    const double hs = S == SlopeType::first_order ? 0.0 : h;
    auto c = [&](int v) { return centre + v * L + lane; };
    auto s = [&](int v) { return slope + (v * D + d) * L + lane; };
    const double *c_rho = c(0), *s_rho = s(0), *c_u = c(1 + d), *s_u = s(1 + d), *c_p = c(P), *s_p = s(P);
    const double* r0 = rho_cell + lane;
    for (int k = 0; k < N; ++k) {
      const double rho = c_rho[k] + hs * s_rho[k];
      const double fallback = r0[k];
      in_side[face + k] = rho < smallr ? fallback : rho;
      in_side[NF + face + k] = c_u[k] + hs * s_u[k];
      in_side[2 * NF + face + k] = c_p[k] + hs * s_p[k];
    }
    double vt2[N] = {};
    for (int t = 0; t < D - 1; ++t) {
      const int e = 1 + transverse_axis(d, t);
      const double *c_v = c(e), *s_v = s(e);
      for (int k = 0; k < N; ++k) {
        const double v = c_v[k] + hs * s_v[k];
        vt_side[t * NF + face + k] = v;
        vt2[k] += v * v;
      }
    }
    for (int k = 0; k < N; ++k) in_side[3 * NF + face + k] = vt2[k];
  }

  // Stage 3b: the Riemann solver on every face, structure-of-arrays in (rho, u_n, p, |v_t|^2 of the
  // left then the right states) and out (mass, momentum, energy, weight_left, weight_right). A
  // function of its own, on restrict-qualified flat arrays and a local copy of the solver, so that
  // the solver is inlined and GCC vectorises the loop (LLF, HLL and HLLC are branch-free). No
  // "omp simd" here: GCC 12 then fails to vectorise the aggregate FaceInput/FaceFlux temporaries.
  template <class Solver>
  static void solve_faces(const Solver& solver, const double* __restrict in, double* __restrict out) {
    const Solver local = solver;
    for (int face = 0; face < NF; ++face) {
      const FaceFlux f = local(FaceInput{in[face], in[NF + face], in[2 * NF + face], in[3 * NF + face]},
                               FaceInput{in[4 * NF + face], in[5 * NF + face], in[6 * NF + face], in[7 * NF + face]});
      out[face] = f.mass;
      out[NF + face] = f.momentum;
      out[2 * NF + face] = f.energy;
      out[3 * NF + face] = f.weight_left;
      out[4 * NF + face] = f.weight_right;
    }
  }

  // RAMSES' pressure-fix face terms (cmpflxm's tmp): the mean normal velocity of the two face
  // states, and the internal energy e = p / (gamma - 1) carried with the mass flux like a passive
  // scalar of specific value p / (rho (gamma - 1)) (the solvers' floored rho and p), both times
  // dt/dx, stored after the nvar conservative fluxes of each face.
  static void pressure_fix_face_terms(const GasConstants& g, double dtdx, const double* in, const double* out,
                                      const MusclScratch<D>& scratch, int nvar, double* flux) {
    auto specific_internal_energy = [&g](double rho, double p) {
      const double r = std::max(rho, g.smallr);
      return std::max(p, r * g.smallp) * g.inv_gamma_minus_one / r;
    };
    for (int face = 0; face < NF; ++face) {
      double* o = flux + scratch.face_slot_[static_cast<std::size_t>(face)] * (nvar + 2);
      const double el = specific_internal_energy(in[face], in[2 * NF + face]);
      const double er = specific_internal_energy(in[4 * NF + face], in[6 * NF + face]);
      o[nvar] = 0.5 * (in[NF + face] + in[5 * NF + face]) * dtdx;
      o[nvar + 1] = (out[3 * NF + face] * el + out[4 * NF + face] * er) * dtdx;
    }
  }

  template <SlopeType S, class Solver>
  static void fluxes(const Solver& solver, const GasConstants& g, double dtdx, const double* u, const double* gravity,
                     double half_dt, bool pressure_fix, MusclScratch<D>& scratch, double* flux) {
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
      // RAMSES ctoprim's gravity predictor step: v += g dt / 2 on every cell, before the slopes,
      // so that slopes, trace and face states all see the time-centred velocity. Skipped entirely
      // without gravity, which keeps those fluxes bit-identical to the gravity-free kernel.
      if (gravity != nullptr) {
        const double* gr = gravity + run.start;
        for (int d = 0; d < D; ++d) {
#pragma omp simd
          for (int k = 0; k < run.length; ++k) qr[(1 + d) * C + k] += gr[d * C + k] * half_dt;
        }
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
        run_predictor<4>(q, slope, run.start, run.lane, nvar, half_dtdx, g.gamma, centre, scratch.density_.data());
      }
      for (const Run& run : scratch.slab_runs_) {
        run_predictor<2>(q, slope, run.start, run.lane, nvar, half_dtdx, g.gamma, centre, scratch.density_.data());
      }
    }

    // 3. Riemann problems (RAMSES cmpflxm) on every face, in face-run order.
    alignas(64) double in[2][4][NF];  // [side][rho, u_n, p, |v_t|^2][face]
    alignas(64) double vt[2][D > 1 ? D - 1 : 1][NF];
    const double* rho_cell = S == SlopeType::first_order ? centre : scratch.density_.data();
    for (int d = 0; d < D; ++d) {
      for (const auto& run : scratch.face_runs_[static_cast<std::size_t>(d)]) {
        for (int side = 0; side < 2; ++side) {
          const int lane = side == 0 ? run.left_lane : run.right_lane;
          const double h = side == 0 ? 0.5 : -0.5;
          if (d == 0) {
            gather_faces<S, 3>(d, run.face, lane, h, centre, slope, rho_cell, g.smallr, &in[side][0][0],
                               &vt[side][0][0]);
          } else {
            gather_faces<S, 2>(d, run.face, lane, h, centre, slope, rho_cell, g.smallr, &in[side][0][0],
                               &vt[side][0][0]);
          }
        }
      }
    }
    alignas(64) double out[5][NF];  // mass, momentum, energy, weight_left, weight_right
    solve_faces(solver, &in[0][0][0], &out[0][0]);

    // Back to conservative order, times dt/dx. Carried quantities (transverse momenta, passive
    // scalars) are weight_left a_L + weight_right a_R.
    const int width = nvar + (pressure_fix ? 2 : 0);
    if (pressure_fix) pressure_fix_face_terms(g, dtdx, &in[0][0][0], &out[0][0], scratch, nvar, flux);
    for (int d = 0; d < D; ++d) {
      for (int face = d * F; face < (d + 1) * F; ++face) {
        double* o = flux + scratch.face_slot_[static_cast<std::size_t>(face)] * width;
        o[0] = out[0][face] * dtdx;
        o[1 + d] = out[1][face] * dtdx;
        o[P] = out[2][face] * dtdx;
        const double wl = out[3][face] * dtdx, wr = out[4][face] * dtdx;
        for (int k = 0; k < D - 1; ++k) o[1 + transverse_axis(d, k)] = wl * vt[0][k][face] + wr * vt[1][k][face];
      }
      if (npassive > 0) {
        for (const auto& run : scratch.face_runs_[static_cast<std::size_t>(d)]) {
          const int length = d == 0 ? 3 : 2;
          for (int k = 0; k < length; ++k) {
            const int face = run.face + k, a = run.left_lane + k, b = run.right_lane + k;
            double* o = flux + scratch.face_slot_[static_cast<std::size_t>(face)] * width;
            const double wl = out[3][face] * dtdx, wr = out[4][face] * dtdx;
            for (int n = NH; n < nvar; ++n) {
              const double sl = centre[n * L + a], sr = centre[n * L + b];
              if constexpr (S == SlopeType::first_order) {
                o[n] = wl * sl + wr * sr;
              } else {
                o[n] = wl * (sl + 0.5 * slope[(n * D + d) * L + a]) + wr * (sr - 0.5 * slope[(n * D + d) * L + b]);
              }
            }
          }
        }
      }
    }
  }

  template <class Solver>
  static void dispatch_slope(const SchemeSettings& s, const Solver& solver, const GasConstants& g, double dtdx,
                             const double* u, const double* gravity, double half_dt, MusclScratch<D>& scratch,
                             double* flux) {
    switch (s.slope_type) {
      case SlopeType::first_order:
        return fluxes<SlopeType::first_order>(solver, g, dtdx, u, gravity, half_dt, s.pressure_fix, scratch, flux);
      case SlopeType::minmod:
        return fluxes<SlopeType::minmod>(solver, g, dtdx, u, gravity, half_dt, s.pressure_fix, scratch, flux);
      case SlopeType::moncen:
        return fluxes<SlopeType::moncen>(solver, g, dtdx, u, gravity, half_dt, s.pressure_fix, scratch, flux);
      case SlopeType::positivity:
        return fluxes<SlopeType::positivity>(solver, g, dtdx, u, gravity, half_dt, s.pressure_fix, scratch, flux);
    }
    KOSMO_FAIL("hydro: unsupported slope_type " << static_cast<int>(s.slope_type));
  }

  static void run(const SchemeSettings& s, double dtdx, const double* u, const double* gravity, double half_dt,
                  MusclScratch<D>& scratch, double* flux) {
    const GasConstants g(s);
    switch (s.riemann) {
      case RiemannSolver::llf:
        return dispatch_slope(s, LlfSolver{g}, g, dtdx, u, gravity, half_dt, scratch, flux);
      case RiemannSolver::hll:
        return dispatch_slope(s, HllSolver{g}, g, dtdx, u, gravity, half_dt, scratch, flux);
      case RiemannSolver::hllc:
        return dispatch_slope(s, HllcSolver{g}, g, dtdx, u, gravity, half_dt, scratch, flux);
      case RiemannSolver::exact:
        return dispatch_slope(s, ExactSolver{g, ExactGamma(s.gamma), s.niter_riemann}, g, dtdx, u, gravity, half_dt, scratch, flux);
    }
    KOSMO_FAIL("hydro: unsupported Riemann solver " << static_cast<int>(s.riemann));
  }
};

}  // namespace detail

template <int D>
void muscl_hancock_fluxes(const SchemeSettings& s, double dt_over_dx, const double* u, MusclScratch<D>& scratch,
                          double* flux, const double* gravity, double dt) {
  KOSMO_REQUIRE(scratch.nvar() == nvar(D, s.npassive), "hydro: MusclScratch<"
                                                           << D << "> was sized for nvar = " << scratch.nvar()
                                                           << " but the settings give " << nvar(D, s.npassive));
  detail::MusclKernel<D>::run(s, dt_over_dx, u, gravity, 0.5 * dt, scratch, flux);
}

template class MusclScratch<1>;
template class MusclScratch<2>;
template class MusclScratch<3>;
template void muscl_hancock_fluxes<1>(const SchemeSettings&, double, const double*, MusclScratch<1>&, double*,
                                           const double*, double);
template void muscl_hancock_fluxes<2>(const SchemeSettings&, double, const double*, MusclScratch<2>&, double*,
                                           const double*, double);
template void muscl_hancock_fluxes<3>(const SchemeSettings&, double, const double*, MusclScratch<3>&, double*,
                                           const double*, double);

}  // namespace kosmo::hydro
