#pragma once
// Periodic multigrid Poisson solve on a uniform grid: RAMSES' V-cycle (seeds/000 §5.1.1) with the
// cuRAMSES optimisations of §5.1.1 items 2-3 and App. D.2, each behind a flag so its effect can be
// measured. It inverts the same (2D+1)-point Laplacian, with the same zero-mean convention, as
// PeriodicFftPoisson (fft_poisson.hpp), so the two converge to the same discrete answer:
//   L_h phi = f - <f>,   <phi> = 0,   (L_h phi)_i = (sum of the 2D neighbours - 2D phi_i) / h^2.
// This is the base-level (uniform, periodic) solver only: no AMR levels, no coarse-fine boundaries,
// no MPI (a distributed solve is counted, not performed: see MultigridReport::ghost_refreshes).
// Arrays hold n^D values, row-major with x fastest; n is a power of two.
#include <cstddef>
#include <memory>
#include <vector>

namespace kosmo::gravity {

enum class Prolongation {
  // Cell-centred (bi/tri)linear interpolation, weights 3/4 and 1/4 per axis: RAMSES'
  // interpolate_and_correct_fine (its 27/64, 9/64, 3/64, 1/64 stencil) and the default.
  linear,
  // Injection of the parent's correction into its 2^D children (no neighbour reads). With averaging
  // restriction the transfer orders sum to 2, not more than the operator's order 2, and the V-cycle is
  // not robust: with one pre and one post sweep its reduction per V-cycle falls as n grows (3-D: 1.7
  // at 16^3, 1.2 at 64^3, against 5.2-5.5 for linear; test_multigrid_periodic.cpp).
  constant,
};

struct MultigridSettings {
  double epsilon = 1e-4;         // RAMSES `epsilon`: stop when ||r||_2 / ||f - <f>||_2 < epsilon
  int max_vcycles = 50;          // give up (converged = false) after this many V-cycles
  int pre_smoothing_sweeps = 2;  // RAMSES ngs_fine / ngs_coarse
  int post_smoothing_sweeps = 2;
  Prolongation prolongation = Prolongation::linear;
  // (a) seeds/000 §5.1.1 item 2, App. D.2: red and black half-sweeps fused into one pass over the
  // grid. Same arithmetic, so the same phi bit for bit; it saves a pass over memory here and, in a
  // distributed solve, the ghost refresh between the colours (counted in ghost_refreshes).
  bool merged_red_black = true;
  // (b) seeds/000 §5.1.1 item 3, App. D.2: the convergence residual and its squared norm in one loop
  // instead of a residual pass followed by a norm pass.
  bool fused_residual_norm = true;
  // (c) seeds/000 App. D.2 eq. (17): multiply by precomputed 1/(2D), h^2/(2D) and 1/h^2 instead of
  // dividing by 2D and h^2 in every cell. Changes phi by round-off only.
  bool precomputed_reciprocal = true;
};

struct MultigridReport {
  int vcycles = 0;
  bool converged = false;
  double source_norm = 0.0;           // ||f - <f>||_2
  double relative_residual = 0.0;     // ||r||_2 / ||f - <f>||_2 after the last V-cycle
  double reduction_per_vcycle = 0.0;  // geometric mean of ||r_before|| / ||r_after|| over the V-cycles
  double seconds = 0.0;               // wall-clock time of solve()
  // Not a communication: this solver has no MPI. It is a counter the solver increments at each
  // point where a distributed implementation of the same V-cycle would refresh ghost cells of phi
  // (after each colour, or after each merged sweep; and before each linear prolongation, whose
  // stencil reads neighbouring coarse cells). Restriction reads only a cell's own children, and the
  // norms are reductions, so neither is counted. Summed over all levels and V-cycles.
  long long ghost_refreshes = 0;
  std::vector<double> relative_residual_history;  // after each V-cycle
};

template <int D>
class PeriodicMultigrid {
  static_assert(D >= 1 && D <= 3, "PeriodicMultigrid is instantiated for D = 1, 2, 3");

 public:
  // Allocates the level hierarchy n, n/2, ..., 2 once; the solver is reusable.
  PeriodicMultigrid(int n, double h, MultigridSettings settings = {});
  ~PeriodicMultigrid();
  PeriodicMultigrid(PeriodicMultigrid&&) noexcept;
  PeriodicMultigrid& operator=(PeriodicMultigrid&&) noexcept;
  PeriodicMultigrid(const PeriodicMultigrid&) = delete;
  PeriodicMultigrid& operator=(const PeriodicMultigrid&) = delete;

  // f and phi each hold n^D values; they may alias. Starts from phi = 0; returns phi with zero mean.
  MultigridReport solve(const double* f, double* phi);

  int n() const { return n_; }
  double h() const { return h_; }
  const MultigridSettings& settings() const { return settings_; }
  // Ghost refreshes one V-cycle needs with these settings (the per-V-cycle share of the report's count).
  long long ghost_refreshes_per_vcycle() const;

 private:
  struct Impl;
  int n_;
  double h_;
  MultigridSettings settings_;
  std::unique_ptr<Impl> impl_;
};

// ||(f - <f>) - L_h phi||_2 / ||f - <f>||_2 on a periodic n^D grid (any n >= 1): how well phi solves
// the discrete equation, computed the same way whichever solver produced it. 0 when f is uniform.
template <int D>
double periodic_relative_residual(int n, double h, const double* f, const double* phi);

extern template class PeriodicMultigrid<1>;
extern template class PeriodicMultigrid<2>;
extern template class PeriodicMultigrid<3>;
extern template double periodic_relative_residual<1>(int, double, const double*, const double*);
extern template double periodic_relative_residual<2>(int, double, const double*, const double*);
extern template double periodic_relative_residual<3>(int, double, const double*, const double*);

}  // namespace kosmo::gravity
