#pragma once
// Free-space (isolated) Poisson solve on a uniform 3-D grid by zero-padded FFT convolution
// (Hockney & Eastwood 1988, ch. 6; the isolated counterpart of the periodic base-level solver of
// seeds/000 §5.2): a non-periodic box has no discrete eigenbasis the FFT diagonalises, so the source
// is placed in one corner of a (2n)^3 grid of zeros and convolved cyclically with the free-space
// Green's function sampled on that grid. With a period of 2n every source-target offset
// -(n-1)..(n-1) of the real box maps to exactly one image, so the cyclic convolution restricted to
// the original n^3 corner is the aperiodic one: no periodic images.
//
//   phi_i = sum_j W(i - j) f_j,   W(m) = -h^3 / (4 pi h |m|)                      for m != 0,
//                                 W(0) = -h^2 (3 ln(2 + sqrt 3) - pi / 2) / (4 pi),
//
// i.e. phi = G * f with G(r) = -1/(4 pi r), the Green's function of the continuum Laplacian
// (L phi = f, so with f = 4 pi G rho the potential is -G M / r far away). Each cell's source is a
// point at its centre for the other cells (midpoint quadrature of the Poisson integral) and a
// uniform cube for itself: W(0) is the exact potential at the centre of a uniform cube of side h,
// -(1/(4 pi)) times the integral of 1/r over the cube, 3 ln(2 + sqrt 3) - pi/2 = 2.3800774... in
// units of h^2 (Hockney & Eastwood set the self term by a similar cell-averaging argument). The
// quadrature is second order for smooth sources: the self term is exact for a constant source, the
// linear part cancels by symmetry, and away from the origin 1/r is harmonic, so the midpoint rule's
// h^2 term vanishes there. Unlike the periodic solver this is NOT the inverse of the 7-point
// Laplacian (both are second-order approximations of the continuum potential), and no mean is
// removed: an isolated source need not be neutral.
//
// No MPI and no mesh types: the caller gathers the level into a dense array (row-major, x fastest).
#include <memory>

namespace kosmo::gravity {

// 3 ln(2 + sqrt 3) - pi/2: the integral of 1/|r| over the unit cube centred on the origin.
double unit_cube_inverse_distance_integral();

// The convolution weight W(m) above for an integer cell offset m = (dx, dy, dz) on a grid of spacing h.
double free_space_green_weight(long long dx, long long dy, long long dz, double h);

class IsolatedFftPoisson {
 public:
  // Plans once on the (2n)^3 padded grid (FFTW_ESTIMATE, omp_get_max_threads() threads) and
  // transforms the Green's function once; the solver is reusable. Memory: (2n)^3 reals plus
  // 2 x (2n)^2 (n+1) complex-sized arrays (about 24 n^3 doubles).
  IsolatedFftPoisson(int n, double h);
  ~IsolatedFftPoisson();
  IsolatedFftPoisson(IsolatedFftPoisson&&) noexcept;
  IsolatedFftPoisson& operator=(IsolatedFftPoisson&&) noexcept;
  IsolatedFftPoisson(const IsolatedFftPoisson&) = delete;
  IsolatedFftPoisson& operator=(const IsolatedFftPoisson&) = delete;

  // f and phi each hold n^3 values, row-major with x fastest; they may alias.
  void solve(const double* f, double* phi);

  int n() const { return n_; }
  double h() const { return h_; }

 private:
  struct Impl;
  int n_;
  double h_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kosmo::gravity
