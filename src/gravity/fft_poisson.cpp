// Periodic FFT Poisson solver (see fft_poisson.hpp): r2c transform, division by the eigenvalues of
// the (2D+1)-point Laplacian, c2r transform (seeds/000 §5.2.1, threaded FFTW via fftw3_omp).
#include "gravity/fft_poisson.hpp"

#include "gravity/fftw_support.hpp"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include "core/error.hpp"

namespace kosmo::gravity {

template <int D>
struct PeriodicFftPoisson<D>::Impl {
  std::size_t n_real = 1;         // n^D
  std::size_t n_half = 1;         // n/2+1: the length of the fastest (x) axis in k-space
  std::size_t plane_stride = 1;   // complex values per z plane (padded: fftw_support::spectrum_plane_stride)
  double norm = 1.0;              // 1/n^D: FFTW transforms are unnormalised
  std::vector<double> lambda_1d;  // per axis: (2 cos(2 pi k / n) - 2) / h^2 for k = 0..n-1
  fftw_support::Buffer<double> real;
  fftw_support::Buffer<fftw_complex> spectrum;
  fftw_support::PlanPair plans;
};

template <int D>
PeriodicFftPoisson<D>::PeriodicFftPoisson(int n, double h) : n_(n), h_(h), impl_(std::make_unique<Impl>()) {
  KOSMO_REQUIRE(n >= 1, "gravity::PeriodicFftPoisson<" << D << ">: grid size n = " << n << " must be >= 1");
  KOSMO_REQUIRE(h > 0.0 && std::isfinite(h),
                "gravity::PeriodicFftPoisson<" << D << ">: spacing h = " << h << " must be positive");
  Impl& s = *impl_;
  const auto un = static_cast<std::size_t>(n);
  s.n_half = un / 2 + 1;
  for (int d = 0; d < D; ++d) s.n_real *= un;
  s.plane_stride = fftw_support::spectrum_plane_stride(D, n);
  s.norm = 1.0 / static_cast<double>(s.n_real);

  // 2 cos(theta) - 2 = -4 sin^2(theta / 2): the sine form has no cancellation at small k.
  s.lambda_1d.resize(un);
  for (std::size_t k = 0; k < un; ++k) {
    const double sine = std::sin(std::numbers::pi * static_cast<double>(k) / n);
    s.lambda_1d[k] = -4.0 * sine * sine / (h * h);
  }

  s.real = fftw_support::allocate<double>(s.n_real, "reals");
  s.spectrum = fftw_support::allocate<fftw_complex>(fftw_support::spectrum_size(D, n), "complex modes");
  std::fill_n(&s.spectrum[0][0], 2 * fftw_support::spectrum_size(D, n), 0.0);  // the padding FFTW never writes
  fftw_support::initialise_threads();
  // FFTW's row-major dims are (z, y, x): the last one is contiguous, matching x fastest.
  s.plans = fftw_support::plan_real_transforms(D, n, s.real.get(), s.spectrum.get(), omp_get_max_threads());
}

template <int D>
PeriodicFftPoisson<D>::~PeriodicFftPoisson() = default;
template <int D>
PeriodicFftPoisson<D>::PeriodicFftPoisson(PeriodicFftPoisson&&) noexcept = default;
template <int D>
PeriodicFftPoisson<D>& PeriodicFftPoisson<D>::operator=(PeriodicFftPoisson&&) noexcept = default;

template <int D>
double* PeriodicFftPoisson<D>::grid() {
  KOSMO_REQUIRE(impl_, "gravity::PeriodicFftPoisson<" << D << ">::grid on a moved-from solver");
  return impl_->real.get();
}

template <int D>
void PeriodicFftPoisson<D>::solve(const double* f, double* phi) {
  KOSMO_REQUIRE(impl_, "gravity::PeriodicFftPoisson<" << D << ">::solve on a moved-from solver");
  Impl& s = *impl_;
  std::copy(f, f + s.n_real, s.real.get());
  solve_in_place();
  std::copy(s.real.get(), s.real.get() + s.n_real, phi);
}

template <int D>
void PeriodicFftPoisson<D>::solve_in_place() {
  KOSMO_REQUIRE(impl_, "gravity::PeriodicFftPoisson<" << D << ">::solve_in_place on a moved-from solver");
  Impl& s = *impl_;
  fftw_execute(s.plans.forward.get());

  // Mode (k_z, k_y, k_x) sits at (k_z plane_stride + k_y n_half + k_x); only the sum of the per-axis
  // eigenvalues matters, so one row of length n_half shares the outer-axes part.
  const auto un = static_cast<std::size_t>(n_);
  std::size_t row_count = 1;
  for (int d = 1; d < D; ++d) row_count *= un;
  const auto rows = static_cast<std::ptrdiff_t>(row_count);
  fftw_complex* spectrum = s.spectrum.get();
  const double* lambda = s.lambda_1d.data();
  const std::size_t n_half = s.n_half, plane_stride = s.plane_stride;
  const double norm = s.norm;
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t row = 0; row < rows; ++row) {
    double lambda_outer = 0.0;
    auto rest = static_cast<std::size_t>(row);
    for (int d = 1; d < D; ++d) {
      lambda_outer += lambda[rest % un];
      rest /= un;
    }
    const std::size_t y = D >= 2 ? static_cast<std::size_t>(row) % un : 0, z = D == 3 ? static_cast<std::size_t>(row) / un : 0;
    fftw_complex* line = spectrum + z * plane_stride + y * n_half;
    for (std::size_t kx = 0; kx < n_half; ++kx) {
      const double eigenvalue = lambda_outer + lambda[kx];
      // The k = 0 mode (eigenvalue exactly 0) is the mean: phi_0 = 0 removes it from the source.
      const double scale = eigenvalue != 0.0 ? norm / eigenvalue : 0.0;
      line[kx][0] *= scale;
      line[kx][1] *= scale;
    }
  }

  fftw_execute(s.plans.backward.get());
}

template class PeriodicFftPoisson<1>;
template class PeriodicFftPoisson<2>;
template class PeriodicFftPoisson<3>;

}  // namespace kosmo::gravity
