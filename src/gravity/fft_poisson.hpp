#pragma once
// Direct periodic Poisson solve on a uniform grid by FFT (cuRAMSES, seeds/000 §5.2: the base level,
// where every cell exists and the box is periodic, is solved in one shot instead of by a V-cycle).
//
// Solves the discrete Poisson equation  L_h phi = f  on a periodic n^D grid of spacing h, where L_h is
// the standard (2D+1)-point Laplacian (the operator RAMSES' multigrid smooths), so the FFT solution
// and the multigrid one converge to the same discrete answer:
//   phi_k = f_k / lambda_k,   lambda_k = sum_d (2 cos(2 pi k_d / n) - 2) / h^2 = -4 sum_d sin^2(pi k_d / n) / h^2,
// with phi_0 = 0: the mean of f is removed (periodic Poisson needs a neutral source) and phi has zero mean.
// No MPI and no mesh types: the caller gathers the level into a dense array (row-major, x fastest).
#include <memory>

namespace kosmo::gravity {

template <int D>
class PeriodicFftPoisson {
  static_assert(D >= 1 && D <= 3, "PeriodicFftPoisson is instantiated for D = 1, 2, 3");

 public:
  // Plans once (FFTW_ESTIMATE, fftw_support::plan_real_transforms; threaded with omp_get_max_threads() threads); the solver is reusable.
  PeriodicFftPoisson(int n, double h);
  ~PeriodicFftPoisson();
  PeriodicFftPoisson(PeriodicFftPoisson&&) noexcept;
  PeriodicFftPoisson& operator=(PeriodicFftPoisson&&) noexcept;
  PeriodicFftPoisson(const PeriodicFftPoisson&) = delete;
  PeriodicFftPoisson& operator=(const PeriodicFftPoisson&) = delete;

  // f and phi each hold n^D values, row-major with x fastest; they may alias.
  void solve(const double* f, double* phi);
  // The same solve on the solver's own n^D array (grid()): f in, phi out, no copies. The base-level
  // solver gathers the level's cells straight into it (seeds/000 §5.2.1).
  double* grid();
  void solve_in_place();

  int n() const { return n_; }
  double h() const { return h_; }

 private:
  struct Impl;
  int n_;
  double h_;
  std::unique_ptr<Impl> impl_;
};

extern template class PeriodicFftPoisson<1>;
extern template class PeriodicFftPoisson<2>;
extern template class PeriodicFftPoisson<3>;

}  // namespace kosmo::gravity
