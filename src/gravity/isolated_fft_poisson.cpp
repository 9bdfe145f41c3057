// Isolated (free-space) FFT Poisson solver (see isolated_fft_poisson.hpp): the source zero-padded
// to (2n)^3, r2c transform, multiplication by the transform of the sampled Green's function, c2r
// transform, the n^3 corner kept (Hockney & Eastwood; seeds/000 §5.2 for the FFTW usage).
#include "gravity/isolated_fft_poisson.hpp"

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

double unit_cube_inverse_distance_integral() {
  // Eight corner cubes of side 1/2; for a unit cube seen from a corner the integral is
  // (3/2) ln((sqrt3 + 1)/(sqrt3 - 1)) - pi/4, and it scales as side^2: 8 (1/4) of it, with
  // (sqrt3 + 1)/(sqrt3 - 1) = 2 + sqrt3.
  return 3.0 * std::log(2.0 + std::numbers::sqrt3) - 0.5 * std::numbers::pi;
}

double free_space_green_weight(long long dx, long long dy, long long dz, double h) {
  static const double self_integral = unit_cube_inverse_distance_integral();
  const double inverse_four_pi = 0.25 / std::numbers::pi;
  if (dx == 0 && dy == 0 && dz == 0) return -inverse_four_pi * self_integral * h * h;
  const double distance = std::sqrt(static_cast<double>(dx * dx + dy * dy + dz * dz));
  // Cell volume h^3 over the distance |m| h.
  return -inverse_four_pi * h * h / distance;
}




struct IsolatedFftPoisson::Impl {
  std::size_t padded = 1;          // 2n: cells per axis of the padded grid
  std::size_t padded_half = 1;     // n + 1: length of the x axis in k-space
  std::size_t real_count = 1;      // (2n)^3
  std::size_t complex_count = 1;   // 2n planes of (2n) (n+1) modes, padded (fftw_support::spectrum_size)
  fftw_support::Buffer<double> real;
  fftw_support::Buffer<fftw_complex> spectrum;
  std::vector<double> green_spectrum;  // the (real) transform of W, times the 1/(2n)^3 normalisation
  fftw_support::PlanPair plans;
};

IsolatedFftPoisson::IsolatedFftPoisson(int n, double h) : n_(n), h_(h), impl_(std::make_unique<Impl>()) {
  KOSMO_REQUIRE(n >= 1, "gravity::IsolatedFftPoisson: grid size n = " << n << " must be >= 1");
  KOSMO_REQUIRE(h > 0.0 && std::isfinite(h), "gravity::IsolatedFftPoisson: spacing h = " << h << " must be positive");
  Impl& s = *impl_;
  s.padded = 2 * static_cast<std::size_t>(n);
  s.padded_half = s.padded / 2 + 1;
  s.real_count = s.padded * s.padded * s.padded;
  const int m = static_cast<int>(s.padded);
  s.complex_count = fftw_support::spectrum_size(3, m);
  s.real = fftw_support::allocate<double>(s.real_count, "reals");
  s.spectrum = fftw_support::allocate<fftw_complex>(s.complex_count, "complex modes");
  // FFTW never writes the two padding values of each plane: zero, so the products below stay finite.
  std::fill_n(&s.spectrum[0][0], 2 * s.complex_count, 0.0);

  fftw_support::initialise_threads();
  s.plans = fftw_support::plan_real_transforms(3, m, s.real.get(), s.spectrum.get(), omp_get_max_threads());

  // W on the padded grid at the minimum-image offset: index i stands for offset i (i <= n) or
  // i - 2n (i > n). W is even along every axis, so its transform is real.
  const auto padded = static_cast<long long>(s.padded);
  double* real = s.real.get();
#pragma omp parallel for schedule(static)
  for (long long z = 0; z < padded; ++z)
    for (long long y = 0; y < padded; ++y)
      for (long long x = 0; x < padded; ++x)
        real[static_cast<std::size_t>((z * padded + y) * padded + x)] =
            free_space_green_weight(std::min(x, padded - x), std::min(y, padded - y), std::min(z, padded - z), h);
  fftw_execute(s.plans.forward.get());
  const double norm = 1.0 / static_cast<double>(s.real_count);
  s.green_spectrum.resize(s.complex_count);
  for (std::size_t k = 0; k < s.complex_count; ++k) s.green_spectrum[k] = s.spectrum[k][0] * norm;
}

IsolatedFftPoisson::~IsolatedFftPoisson() = default;
IsolatedFftPoisson::IsolatedFftPoisson(IsolatedFftPoisson&&) noexcept = default;
IsolatedFftPoisson& IsolatedFftPoisson::operator=(IsolatedFftPoisson&&) noexcept = default;

void IsolatedFftPoisson::solve(const double* f, double* phi) {
  KOSMO_REQUIRE(impl_, "gravity::IsolatedFftPoisson::solve on a moved-from solver");
  Impl& s = *impl_;
  const auto n = static_cast<std::ptrdiff_t>(n_);
  const std::size_t padded = s.padded;
  double* real = s.real.get();
  // The source in the corner, zeros elsewhere (the padding that removes the periodic images).
  std::fill(real, real + s.real_count, 0.0);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t z = 0; z < n; ++z)
    for (std::ptrdiff_t y = 0; y < n; ++y) {
      const double* row = f + (z * n + y) * n;
      std::copy(row, row + n, real + (static_cast<std::size_t>(z) * padded + static_cast<std::size_t>(y)) * padded);
    }
  fftw_execute(s.plans.forward.get());
  fftw_complex* spectrum = s.spectrum.get();
  const double* green = s.green_spectrum.data();
  const auto complex_count = static_cast<std::ptrdiff_t>(s.complex_count);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < complex_count; ++k) {
    spectrum[k][0] *= green[k];
    spectrum[k][1] *= green[k];
  }
  fftw_execute(s.plans.backward.get());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t z = 0; z < n; ++z)
    for (std::ptrdiff_t y = 0; y < n; ++y) {
      const double* row = real + (static_cast<std::size_t>(z) * padded + static_cast<std::size_t>(y)) * padded;
      std::copy(row, row + n, phi + (z * n + y) * n);
    }
}

}  // namespace kosmo::gravity
