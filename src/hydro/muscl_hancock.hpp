#pragma once
// Unsplit second-order MUSCL-Hancock fluxes for ONE oct (RAMSES hydro/umuscl.f90: ctoprim, uslope,
// trace, cmpflxm; Toro, Riemann Solvers and Numerical Methods, 3rd ed., §14.4 for the 1-D scheme).
// The mesh gathers the oct and its 3^D - 1 neighbours into a 6^D block; this kernel knows nothing of
// the mesh or of MPI, and returns the time-integrated fluxes through the 3 x 2^(D-1) faces per axis
// that bound or split the oct's 2^D cells.
//
// Block layout. Local coordinate c in -1..4 along each axis is stored at c + 1; axis 0 varies
// fastest: index = sum_d (c_d + 1) 6^d. The oct's own cells are c in {1, 2} on every axis.
// u[var * OctBlock<D>::cells + index] holds CONSERVATIVE variables [rho, rho v_0.., E, rho s_0..].
//
// Flux layout. flux[OctBlock<D>::slot(d, f, t) * nvar + var] with slot = (d * 3 + f) * 2^(D-1) + t is
// F * dt / dx in conservative order through face f along axis d (f = 0: local 0|1, 1: 1|2, 2: 2|3) at
// transverse position t, whose bit k is (c_e - 1) for the k-th axis e != d in increasing order. A cell
// at local c (all c_d in {1, 2}) updates as u -= sum_d (F[d][f = c_d][t] - F[d][f = c_d - 1][t]).
// With the pressure fix (SchemeSettings::pressure_fix) each face holds flux_width = nvar + 2 values:
// the nvar fluxes, then the mean normal velocity of the face states and the internal-energy flux,
// both times dt/dx (RAMSES cmpflxm's tmp array); `nvar` above then reads flux_width.
//
// Work done per call (only what the 2^D cells need): primitive variables on the cells the slopes
// read, slopes and the Hancock predictor on the 2^D cells plus the 2 x 2^(D-1) cells beyond each
// face plane (32 cells in 3-D), then D x 3 x 2^(D-1) Riemann problems (36 in 3-D). The solver and the
// slope limiter are dispatched once per call to a kernel templated on both.
//
// Gravity (optional). gravity[d * OctBlock<D>::cells + index] is the acceleration g_d of block cell
// `index`, gathered like u (nullptr: no gravity, and the fluxes are bit for bit those of the kernel
// without this argument). When given, the primitive velocity of every cell the slopes read becomes
// v + g dt / 2 before the slopes and the Hancock trace: RAMSES' "gravity predictor step" in ctoprim
// (hydro/umuscl.f90, q(ivx+d) += gravin(d) dt / 2, dt the level time step). The half step time-centres
// the force inside the face states, so that in hydrostatic balance the pressure-gradient term of the
// trace (-grad p / rho dt / 2) and the gravity term cancel and the Riemann solvers see fluid at rest.
// The kernel adds no source term to the fluxes: the momentum and energy kicks are the caller's
// (HydroSolver::gravity_kick, RAMSES synchro_hydro_fine).
#include <array>
#include <vector>

#include "hydro/hydro_settings.hpp"

namespace kosmo::hydro {

template <int D>
struct OctBlock {
  static_assert(D >= 1 && D <= 3, "kosmo is 1-, 2- or 3-D");
  static constexpr int width = 6;  // local cell coordinate c in -1..4 stored at c + 1
  static constexpr int cells = D == 1 ? 6 : (D == 2 ? 36 : 216);
  static constexpr int transverse = 1 << (D - 1);  // faces per face-plane of the oct
  static constexpr int faces = 3 * transverse;     // faces per dimension
  static constexpr int flux_slots = D * faces;     // flux holds flux_slots * flux_width doubles

  static constexpr int stride(int d) { return d == 0 ? 1 : (d == 1 ? width : width * width); }
  // Local coordinates in -1..4 -> block index.
  static constexpr int index(const std::array<int, D>& local) {
    int i = 0;
    for (int d = 0; d < D; ++d) i += (local[d] + 1) * stride(d);
    return i;
  }
  // Transverse position of local coordinates (other axes in {1, 2}) for faces along axis d.
  static constexpr int transverse_index(int d, const std::array<int, D>& local) {
    int t = 0, bit = 0;
    for (int e = 0; e < D; ++e) {
      if (e == d) continue;
      t |= (local[e] - 1) << bit;
      ++bit;
    }
    return t;
  }
  static constexpr int slot(int d, int f, int t) { return (d * 3 + f) * transverse + t; }
};

template <int D>
class MusclScratch;

namespace detail {
template <int D>
struct MusclKernel;  // the implementation, in muscl_hancock.cpp
}  // namespace detail

// dt is the time step dt_over_dx was formed with; only the gravity predictor reads it.
template <int D>
void muscl_hancock_fluxes(const SchemeSettings& s, double dt_over_dx, const double* u, MusclScratch<D>& scratch,
                          double* flux, const double* gravity = nullptr, double dt = 0.0);

// Per-thread work arrays sized for D and nvar: allocate once per thread, reuse for every oct.
template <int D>
class MusclScratch {
 public:
  // Cells whose predicted states feed the oct's faces: the 2^D own cells and the 2^(D-1) cells on
  // each side of the oct along each axis.
  static constexpr int trace_cells = (1 << D) * (1 + D);

  explicit MusclScratch(int nvar);
  int nvar() const { return nvar_; }

  // Block indices of the cells the kernel reads for a slope type, in increasing order; a gather may
  // leave the others unset. Slope type 0 reads the trace cells (the 2^D own cells and the 2^(D-1)
  // cells beyond each face plane; 32 in 3-D), types 1 and 2 also their face neighbours (80 cells,
  // touching the face and edge neighbour octs), type 3 their whole 3^D neighbourhoods (160 cells,
  // touching corner neighbour octs too).
  std::vector<int> cells_read(SlopeType slope_type) const;

 private:
  friend struct detail::MusclKernel<D>;

  // A run of cells contiguous along x (block index start, first lane, length): the kernel's loops run
  // along these so that the compiler can vectorise them.
  struct Run {
    int start, lane, length;
  };

  int nvar_;
  std::vector<double> q_;                     // primitive block, same layout as u
  std::vector<double> centre_;                // [var * trace_cells + lane]: Hancock-predicted q(t + dt/2) at the centre
  std::vector<double> slope_;                 // [(var * D + d) * trace_cells + lane]: limited undivided slopes
  std::vector<Run> core_runs_;                // rows of 4 trace cells (x = 0..3) through the oct
  std::vector<Run> slab_runs_;                // rows of 2 trace cells (x = 1..2) beside the oct along y or z
  std::vector<double> density_;               // [lane]: the cell's own density, RAMSES' fallback for face states
  std::array<int, trace_cells> lane_cell_{};  // block index of each lane
  // Faces in runs whose left (and right) cells are consecutive lanes: per axis, runs of 3 faces along
  // x (f = 0..2 of one row) or of 2 faces (x = 1, 2) along y and z. Faces are numbered in run order
  // inside the kernel; face_slot_ maps that number to the flux slot d * faces + f * transverse + t.
  struct FaceRun {
    int face, left_lane, right_lane;
  };
  std::array<std::vector<FaceRun>, D> face_runs_;
  std::array<int, D * OctBlock<D>::faces> face_slot_{};
  std::array<std::vector<Run>, 3> convert_runs_;  // cells to convert: no slopes, face stencil, 3^D stencil
};

extern template class MusclScratch<1>;
extern template class MusclScratch<2>;
extern template class MusclScratch<3>;
extern template void muscl_hancock_fluxes<1>(const SchemeSettings&, double, const double*, MusclScratch<1>&, double*,
                                                  const double*, double);
extern template void muscl_hancock_fluxes<2>(const SchemeSettings&, double, const double*, MusclScratch<2>&, double*,
                                                  const double*, double);
extern template void muscl_hancock_fluxes<3>(const SchemeSettings&, double, const double*, MusclScratch<3>&, double*,
                                                  const double*, double);

}  // namespace kosmo::hydro
