// Gaussian random field and Zel'dovich displacements (see initial_conditions.hpp). The mode
// amplitudes follow the recipe of grafic (Bertschinger 2001, ApJS 137, 1) and MUSIC (Hahn & Abel
// 2011, section 2): white noise in Fourier space multiplied by sqrt(P(k) / V); the Zel'dovich
// displacement is the inverse divergence psi_k = i k delta_k / k^2 (MUSIC's "poisson" displacement
// with the spectral kernel; RAMSES pm/init_part.f90 reads it back as ic_velc / vfact).
#include "cosmology/initial_conditions.hpp"

#include <fftw3.h>
#include <omp.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <mutex>
#include <numbers>

#include "core/error.hpp"

namespace kosmo::cosmology {
namespace {

constexpr double two_pi = 2.0 * std::numbers::pi;

// splitmix64 (Steele, Lea & Flood 2014): a bijective 64-bit mixer; as a counter-based generator
// each output depends only on its input.
std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t encode(int value) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(value)); }

// ---------------------------------------------------------------------------------------------
// FFTW plumbing: one-dimensional serial plans, executed with the new-array interface on per-thread
// buffers from fftw_malloc (the same alignment as the planning buffers).
// ---------------------------------------------------------------------------------------------
struct FftwFree {
  void operator()(void* pointer) const noexcept { fftw_free(pointer); }
};
template <class T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;

template <class T>
FftwBuffer<T> fftw_buffer(std::size_t count) {
  FftwBuffer<T> buffer(static_cast<T*>(fftw_malloc(sizeof(T) * count)));
  KOSMO_REQUIRE(buffer, "cosmology initial conditions: fftw_malloc of " << count << " values failed");
  return buffer;
}

// The planner is not thread-safe and its thread count (fftw_plan_with_nthreads, set by the gravity
// solvers) is global: planning happens under this lock with the thread count forced to 1 and then
// restored. (The gravity module has its own planner lock; the generator runs at start-up, before
// any solver plans concurrently.)
std::mutex& planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

class PencilPlans {
 public:
  explicit PencilPlans(int n) : n_(n) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    static const bool threads_initialised = fftw_init_threads() != 0;
    KOSMO_REQUIRE(threads_initialised, "cosmology initial conditions: fftw_init_threads failed");
    const int previous_threads = fftw_planner_nthreads();
    fftw_plan_with_nthreads(1);
    auto complex_buffer = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
    auto complex_output = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
    auto real_buffer = fftw_buffer<double>(static_cast<std::size_t>(n));
    backward_ = fftw_plan_dft_1d(n, complex_buffer.get(), complex_output.get(), FFTW_BACKWARD, FFTW_ESTIMATE);
    forward_ = fftw_plan_dft_1d(n, complex_buffer.get(), complex_output.get(), FFTW_FORWARD, FFTW_ESTIMATE);
    complex_to_real_ = fftw_plan_dft_c2r_1d(n, complex_buffer.get(), real_buffer.get(), FFTW_ESTIMATE);
    real_to_complex_ = fftw_plan_dft_r2c_1d(n, real_buffer.get(), complex_buffer.get(), FFTW_ESTIMATE);
    fftw_plan_with_nthreads(previous_threads);
    KOSMO_REQUIRE(backward_ && forward_ && complex_to_real_ && real_to_complex_,
                  "cosmology initial conditions: FFTW planning failed for n = " << n);
  }
  ~PencilPlans() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    for (fftw_plan plan : {backward_, forward_, complex_to_real_, real_to_complex_})
      if (plan) fftw_destroy_plan(plan);
  }
  PencilPlans(const PencilPlans&) = delete;
  PencilPlans& operator=(const PencilPlans&) = delete;

  // Complex 1-D transforms of all pencils along y (stride h) or z (stride h n) of a half-complex
  // grid, in place. sign: FFTW_BACKWARD or FFTW_FORWARD.
  void complex_pass(std::complex<double>* grid, int axis, int sign) const {
    const int n = n_;
    const std::ptrdiff_t half = n / 2 + 1;
    const std::ptrdiff_t stride = axis == 1 ? half : half * n;
    const std::ptrdiff_t pencils = half * n;
    const fftw_plan plan = sign == FFTW_BACKWARD ? backward_ : forward_;
#pragma omp parallel
    {
      auto input = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
      auto output = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
      for (std::ptrdiff_t pencil = 0; pencil < pencils; ++pencil) {
        // pencil = i + half * m, m the other transverse index (z for axis 1, y for axis 2).
        const std::ptrdiff_t i = pencil % half, m = pencil / half;
        const std::ptrdiff_t base = axis == 1 ? i + half * n * m : i + half * m;
        for (std::ptrdiff_t t = 0; t < n; ++t) {
          const std::complex<double> value = grid[base + t * stride];
          input[t][0] = value.real();
          input[t][1] = value.imag();
        }
        fftw_execute_dft(plan, input.get(), output.get());
        for (std::ptrdiff_t t = 0; t < n; ++t) grid[base + t * stride] = {output[t][0], output[t][1]};
      }
    }
  }

  // Rows along x: half-complex (h values) to n reals.
  void complex_to_real_rows(const std::complex<double>* grid, double* real) const {
    const int n = n_;
    const std::ptrdiff_t half = n / 2 + 1;
    const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(n) * n;
#pragma omp parallel
    {
      auto input = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
      auto output = fftw_buffer<double>(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
      for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (std::ptrdiff_t i = 0; i < half; ++i) {
          input[i][0] = grid[row * half + i].real();
          input[i][1] = grid[row * half + i].imag();
        }
        fftw_execute_dft_c2r(complex_to_real_, input.get(), output.get());
        for (std::ptrdiff_t x = 0; x < n; ++x) real[row * n + x] = output[x];
      }
    }
  }

  void real_to_complex_rows(const double* real, std::complex<double>* grid) const {
    const int n = n_;
    const std::ptrdiff_t half = n / 2 + 1;
    const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(n) * n;
#pragma omp parallel
    {
      auto input = fftw_buffer<double>(static_cast<std::size_t>(n));
      auto output = fftw_buffer<fftw_complex>(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
      for (std::ptrdiff_t row = 0; row < rows; ++row) {
        for (std::ptrdiff_t x = 0; x < n; ++x) input[x] = real[row * n + x];
        fftw_execute_dft_r2c(real_to_complex_, input.get(), output.get());
        for (std::ptrdiff_t i = 0; i < half; ++i) grid[row * half + i] = {output[i][0], output[i][1]};
      }
    }
  }

 private:
  int n_;
  fftw_plan backward_ = nullptr, forward_ = nullptr, complex_to_real_ = nullptr, real_to_complex_ = nullptr;
};

void check_grid(int n, std::size_t size, std::size_t expected, const char* what) {
  KOSMO_REQUIRE(n >= 4 && n % 2 == 0, "cosmology initial conditions: grid size n = " << n
                                                                                     << " must be even and >= 4");
  KOSMO_REQUIRE(size == expected, "cosmology initial conditions: " << what << " holds " << size
                                                                   << " values, expected " << expected << " for n = "
                                                                   << n);
}

std::size_t fourier_size(int n) { return static_cast<std::size_t>(n) * n * (n / 2 + 1); }
std::size_t real_size(int n) { return static_cast<std::size_t>(n) * n * n; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Random numbers per mode
// ---------------------------------------------------------------------------------------------
std::array<double, 2> mode_uniforms(std::uint64_t seed, int kx, int ky, int kz) {
  std::uint64_t key = splitmix64(seed);
  key = splitmix64(key ^ encode(kx));
  key = splitmix64(key ^ encode(ky));
  key = splitmix64(key ^ encode(kz));
  constexpr double unit = 1.0 / 9007199254740992.0;  // 2^-53
  const std::uint64_t first = splitmix64(key ^ 0x5851f42d4c957f2dull) >> 11;
  const std::uint64_t second = splitmix64(key ^ 0x14057b7ef767814full) >> 11;
  return {(static_cast<double>(first) + 1.0) * unit, static_cast<double>(second) * unit};
}

std::complex<double> mode_gaussian(std::uint64_t seed, int kx, int ky, int kz) {
  if (kx == 0 && ky == 0 && kz == 0) return {0.0, 0.0};
  // The member of the pair (k, -k) larger in (kz, ky, kx) lexicographic order holds the key.
  const bool canonical = kz != 0 ? kz > 0 : (ky != 0 ? ky > 0 : kx > 0);
  const std::array<double, 2> u = canonical ? mode_uniforms(seed, kx, ky, kz) : mode_uniforms(seed, -kx, -ky, -kz);
  const double amplitude = std::sqrt(-std::log(u[0]));
  const double phase = two_pi * u[1];
  const std::complex<double> value(amplitude * std::cos(phase), amplitude * std::sin(phase));
  return canonical ? value : std::conj(value);
}

// ---------------------------------------------------------------------------------------------
// Gaussian random field
// ---------------------------------------------------------------------------------------------
GaussianRandomField::GaussianRandomField(const GaussianFieldParameters& parameters, const LinearPowerSpectrum& power)
    : GaussianRandomField(parameters, [power, a = parameters.a_start](double k) { return power.power(k, a); }) {}

GaussianRandomField::GaussianRandomField(const GaussianFieldParameters& parameters,
                                         std::function<double(double)> power)
    : parameters_(parameters), power_(std::move(power)) {
  check_grid(parameters_.n, 0, 0, "");
  KOSMO_REQUIRE(parameters_.box_size > 0.0, "cosmology::GaussianRandomField: box_size must be > 0, got "
                                                 << parameters_.box_size);
  KOSMO_REQUIRE(parameters_.a_start > 0.0, "cosmology::GaussianRandomField: a_start must be > 0, got "
                                               << parameters_.a_start);
  KOSMO_REQUIRE(power_, "cosmology::GaussianRandomField: no power spectrum given");
  generate();
}

void GaussianRandomField::generate() {
  const int n = parameters_.n;
  const int half = n / 2 + 1;
  const double fundamental = two_pi / parameters_.box_size;
  const double volume = parameters_.box_size * parameters_.box_size * parameters_.box_size;
  // sqrt(P(k) / V) depends on the integer |k|^2 / k_f^2 only: tabulated once (exact, and it keeps
  // the cost of the transfer function at O(n^2) evaluations).
  const int max_square = 3 * (n / 2) * (n / 2);
  std::vector<double> amplitude(static_cast<std::size_t>(max_square) + 1, 0.0);
  for (int square = 1; square <= max_square; ++square) {
    const double power = power_(fundamental * std::sqrt(static_cast<double>(square)));
    KOSMO_REQUIRE(power >= 0.0 && std::isfinite(power),
                  "cosmology::GaussianRandomField: P(k) = " << power << " at k = "
                                                            << fundamental * std::sqrt(static_cast<double>(square)));
    amplitude[static_cast<std::size_t>(square)] = std::sqrt(power / volume);
  }
  fourier_.assign(fourier_size(n), {0.0, 0.0});
  const std::uint64_t seed = parameters_.seed;
  const double sign = parameters_.invert_phases ? -1.0 : 1.0;
  const bool fixed = parameters_.fix_amplitudes;
  const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(n) * n;
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t row = 0; row < rows; ++row) {
    const int kz = signed_wavenumber(static_cast<int>(row / n), n);
    const int ky = signed_wavenumber(static_cast<int>(row % n), n);
    if (ky == n / 2 || kz == n / 2) continue;  // Nyquist: zero
    for (int kx = 0; kx < half - 1; ++kx) {
      const int square = kx * kx + ky * ky + kz * kz;
      std::complex<double> mode = mode_gaussian(seed, kx, ky, kz);
      if (fixed && square > 0) mode /= std::abs(mode);
      fourier_[static_cast<std::size_t>(row * half + kx)] = sign * amplitude[static_cast<std::size_t>(square)] * mode;
    }
  }
}

RealGrid GaussianRandomField::real() const { return to_real(fourier_, parameters_.n); }

// ---------------------------------------------------------------------------------------------
// Transforms
// ---------------------------------------------------------------------------------------------
RealGrid to_real(const FourierGrid& fourier, int n) {
  check_grid(n, fourier.size(), fourier_size(n), "cosmology::to_real: the Fourier grid");
  const PencilPlans plans(n);
  FourierGrid work = fourier;
  plans.complex_pass(work.data(), 2, FFTW_BACKWARD);
  plans.complex_pass(work.data(), 1, FFTW_BACKWARD);
  RealGrid real(real_size(n));
  plans.complex_to_real_rows(work.data(), real.data());
  return real;
}

FourierGrid to_fourier(const RealGrid& real, int n) {
  check_grid(n, real.size(), real_size(n), "cosmology::to_fourier: the real grid");
  const PencilPlans plans(n);
  FourierGrid work(fourier_size(n));
  plans.real_to_complex_rows(real.data(), work.data());
  plans.complex_pass(work.data(), 1, FFTW_FORWARD);
  plans.complex_pass(work.data(), 2, FFTW_FORWARD);
  const double normalisation = 1.0 / (static_cast<double>(n) * n * n);
  const auto count = static_cast<std::ptrdiff_t>(work.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t index = 0; index < count; ++index) work[static_cast<std::size_t>(index)] *= normalisation;
  return work;
}

// ---------------------------------------------------------------------------------------------
// Zel'dovich
// ---------------------------------------------------------------------------------------------
std::array<FourierGrid, 3> zeldovich_displacement_fourier(const FourierGrid& delta, int n, double box_size) {
  check_grid(n, delta.size(), fourier_size(n), "cosmology::zeldovich_displacement: the Fourier grid");
  KOSMO_REQUIRE(box_size > 0.0, "cosmology::zeldovich_displacement: box_size must be > 0, got " << box_size);
  const int half = n / 2 + 1;
  const double fundamental = two_pi / box_size;
  std::array<FourierGrid, 3> psi;
  for (FourierGrid& component : psi) component.assign(fourier_size(n), {0.0, 0.0});
  const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(n) * n;
  const std::complex<double> imaginary_unit(0.0, 1.0);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t row = 0; row < rows; ++row) {
    const int kz = signed_wavenumber(static_cast<int>(row / n), n);
    const int ky = signed_wavenumber(static_cast<int>(row % n), n);
    if (ky == n / 2 || kz == n / 2) continue;
    for (int kx = 0; kx < half - 1; ++kx) {
      if (kx == 0 && ky == 0 && kz == 0) continue;
      const std::array<double, 3> k = {fundamental * kx, fundamental * ky, fundamental * kz};
      const double k_squared = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
      const auto index = static_cast<std::size_t>(row * half + kx);
      const std::complex<double> factor = imaginary_unit * delta[index] / k_squared;
      for (int axis = 0; axis < 3; ++axis) psi[static_cast<std::size_t>(axis)][index] = k[static_cast<std::size_t>(axis)] * factor;
    }
  }
  return psi;
}

DisplacementField zeldovich_displacement(const FourierGrid& delta, int n, double box_size) {
  std::array<FourierGrid, 3> psi = zeldovich_displacement_fourier(delta, n, box_size);
  DisplacementField field;
  for (std::size_t axis = 0; axis < 3; ++axis) field.components[axis] = to_real(psi[axis], n);
  return field;
}

double zeldovich_velocity_factor_km_s(const Background& background, double a) {
  return 100.0 * a * background.hubble_ratio(a) * background.growth_rate(a);
}

double zeldovich_velocity_factor_super_comoving(const Background& background, double a) {
  return a * a * background.hubble_ratio(a) * background.growth_rate(a);
}

// ---------------------------------------------------------------------------------------------
// Power spectrum
// ---------------------------------------------------------------------------------------------
std::vector<PowerSpectrumBin> measure_power_spectrum(const FourierGrid& fourier, int n, double box_size,
                                                     const std::function<double(double)>& reference) {
  check_grid(n, fourier.size(), fourier_size(n), "cosmology::measure_power_spectrum: the Fourier grid");
  const int half = n / 2 + 1;
  const double fundamental = two_pi / box_size;
  const double volume = box_size * box_size * box_size;
  const int bins = n / 2;
  struct Sums {
    double weight = 0, k = 0, power = 0, expected = 0, expected_squared = 0;
  };
  std::vector<Sums> sums(static_cast<std::size_t>(bins));
  // Serial: the sums are then independent of the thread count.
  for (int z = 0; z < n; ++z) {
    const int kz = signed_wavenumber(z, n);
    if (kz == n / 2) continue;
    for (int y = 0; y < n; ++y) {
      const int ky = signed_wavenumber(y, n);
      if (ky == n / 2) continue;
      for (int kx = 0; kx < half - 1; ++kx) {
        const double k_modulus = fundamental * std::sqrt(static_cast<double>(kx * kx + ky * ky + kz * kz));
        const int bin = static_cast<int>(std::floor(k_modulus / fundamental - 0.5));
        if (bin < 0 || bin >= bins) continue;
        const double weight = kx == 0 ? 1.0 : 2.0;
        const std::complex<double> value = fourier[static_cast<std::size_t>((z * n + y) * half + kx)];
        Sums& s = sums[static_cast<std::size_t>(bin)];
        s.weight += weight;
        s.k += weight * k_modulus;
        s.power += weight * volume * std::norm(value);
        if (reference) {
          const double p = reference(k_modulus);
          s.expected += weight * p;
          s.expected_squared += weight * p * p;
        }
      }
    }
  }
  std::vector<PowerSpectrumBin> result(static_cast<std::size_t>(bins));
  for (std::size_t b = 0; b < result.size(); ++b) {
    const Sums& s = sums[b];
    if (s.weight == 0.0) continue;
    PowerSpectrumBin& bin = result[b];
    bin.mode_count = s.weight;
    bin.k_mean = s.k / s.weight;
    bin.power = s.power / s.weight;
    if (reference) {
      bin.expected_power = s.expected / s.weight;
      // Independent complex modes: half the full-sphere count; V |delta_k|^2 of each is exponential
      // with mean P and variance P^2.
      const double independent = 0.5 * s.weight;
      bin.expected_sigma = std::sqrt(0.5 * s.expected_squared) / independent;
    }
  }
  return result;
}

}  // namespace kosmo::cosmology
