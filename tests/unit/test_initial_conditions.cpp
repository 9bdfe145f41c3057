// Built-in initial-condition generator (src/cosmology/initial_conditions.hpp): the Gaussian random
// field's measured shell-averaged power spectrum against the input Eisenstein & Hu P(k) within the
// cosmic variance of each shell, Hermitian symmetry and zero mean, bitwise reproducibility for 1 and
// 2 OpenMP threads and per-mode independence of the grid, the Zel'dovich displacement (div psi =
// -delta in Fourier space to round-off, in real space to the order of a central difference), and the
// Zel'dovich velocity a H f psi against a finite-difference time derivative of psi (Einstein-de
// Sitter: f = 1 exactly; flat Lambda-CDM).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "cosmology/friedmann.hpp"
#include "cosmology/initial_conditions.hpp"

using namespace kosmo::cosmology;

namespace {

constexpr double pi = std::numbers::pi;

CosmologyParameters planck_like() { return {0.3089, 0.6911, 0.0, 0.0486, 67.74}; }
CosmologyParameters einstein_de_sitter() { return {1.0, 0.0, 0.0, 0.05, 70.0}; }

std::size_t fourier_index(int kx, int y, int z, int n) {
  return static_cast<std::size_t>((z * n + y) * (n / 2 + 1) + kx);
}

// Restores the OpenMP thread count at scope exit.
struct ThreadCount {
  int saved = omp_get_max_threads();
  ~ThreadCount() { omp_set_num_threads(saved); }
};

}  // namespace

TEST(InitialConditions, MeasuredPowerMatchesInputWithinCosmicVariance) {
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters parameters;
  parameters.n = 64;
  parameters.box_size = 100.0;
  parameters.a_start = 0.02;
  const auto reference = [&](double k) { return spectrum.power(k, parameters.a_start); };
  double worst = 0.0;
  for (std::uint64_t seed : {1ull, 2ull, 12345ull}) {
    parameters.seed = seed;
    const GaussianRandomField field(parameters, spectrum);
    // Measure from the real-space field (round trip through both transforms: checks normalisation).
    const FourierGrid measured = to_fourier(field.real(), parameters.n);
    const std::vector<PowerSpectrumBin> bins =
        measure_power_spectrum(measured, parameters.n, parameters.box_size, reference);
    ASSERT_EQ(bins.size(), 32u);
    double chi_squared = 0.0;
    for (std::size_t b = 0; b < bins.size(); ++b) {
      const PowerSpectrumBin& bin = bins[b];
      ASSERT_GT(bin.mode_count, 0.0);
      const double z = (bin.power - bin.expected_power) / bin.expected_sigma;
      worst = std::max(worst, std::abs(z));
      chi_squared += z * z;
      EXPECT_LT(std::abs(z), 3.5) << "seed " << seed << " shell " << b << " k = " << bin.k_mean << " P = " << bin.power
                                  << " expected " << bin.expected_power << " +- " << bin.expected_sigma;
    }
    const double shells = static_cast<double>(bins.size());
    // chi^2 of 32 shells: mean 32, standard deviation 8.
    EXPECT_LT(chi_squared, shells + 4.0 * std::sqrt(2.0 * shells)) << "seed " << seed;
    EXPECT_GT(chi_squared, shells - 3.0 * std::sqrt(2.0 * shells)) << "seed " << seed;
    std::printf("seed %llu: chi^2 = %.2f over %zu shells; shell 0 P = %.4g (expected %.4g +- %.2g, %g modes); "
                "shell 20 P = %.4g (expected %.4g +- %.2g)\n",
                static_cast<unsigned long long>(seed), chi_squared, bins.size(), bins[0].power,
                bins[0].expected_power, bins[0].expected_sigma, bins[0].mode_count, bins[20].power,
                bins[20].expected_power, bins[20].expected_sigma);
  }
  std::printf("largest |P - <P>| / sigma over all shells and seeds: %.2f\n", worst);
}

TEST(InitialConditions, AmplitudeErrorIsDetected) {
  // The test above must fail for a spectrum 10% off: check the statistic's power on the measured field.
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters parameters;
  parameters.n = 64;
  parameters.seed = 7;
  const GaussianRandomField field(parameters, spectrum);
  const auto wrong = [&](double k) { return 1.1 * spectrum.power(k, parameters.a_start); };
  const std::vector<PowerSpectrumBin> bins = measure_power_spectrum(field.fourier(), parameters.n,
                                                                    parameters.box_size, wrong);
  double chi_squared = 0.0;
  for (const PowerSpectrumBin& bin : bins) chi_squared += std::pow((bin.power - bin.expected_power) / bin.expected_sigma, 2);
  EXPECT_GT(chi_squared, 32.0 + 4.0 * 8.0);
}

TEST(InitialConditions, ScalesWithGrowthFactorSquared) {
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters early, late;
  early.n = late.n = 16;
  early.a_start = 0.02;
  late.a_start = 0.1;
  const GaussianRandomField first(early, spectrum), second(late, spectrum);
  const double ratio = spectrum.background().growth_factor(0.1) / spectrum.background().growth_factor(0.02);
  for (std::size_t i = 0; i < first.fourier().size(); ++i)
    ASSERT_NEAR(std::abs(second.fourier()[i] - ratio * first.fourier()[i]), 0.0, 1e-13 * std::abs(second.fourier()[i]) + 1e-300);
}

TEST(InitialConditions, FieldIsRealHermitianWithZeroMean) {
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters parameters;
  parameters.n = 32;
  parameters.seed = 99;
  const GaussianRandomField field(parameters, spectrum);
  const int n = parameters.n;
  const FourierGrid& delta = field.fourier();
  // Exact (bitwise) Hermitian symmetry in the kx = 0 plane, zero mean mode, zero Nyquist modes.
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y) {
      const std::complex<double> value = delta[fourier_index(0, y, z, n)];
      const std::complex<double> opposite = delta[fourier_index(0, (n - y) % n, (n - z) % n, n)];
      ASSERT_EQ(value.real(), opposite.real());
      ASSERT_EQ(value.imag(), -opposite.imag());
      if (y == n / 2 || z == n / 2) {
        ASSERT_EQ(std::abs(value), 0.0);
      }
    }
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y) ASSERT_EQ(std::abs(delta[fourier_index(n / 2, y, z, n)]), 0.0);
  EXPECT_EQ(std::abs(delta[0]), 0.0);
  // The real field: mean zero to round-off; transforming back reproduces every mode (a non-Hermitian
  // input would lose its anti-Hermitian part in the c2r transform).
  const RealGrid real = field.real();
  double sum = 0.0, sum_squares = 0.0;
  for (double value : real) {
    sum += value;
    sum_squares += value * value;
  }
  const double rms = std::sqrt(sum_squares / static_cast<double>(real.size()));
  EXPECT_LT(std::abs(sum / static_cast<double>(real.size())), 1e-14 * rms);
  const FourierGrid back = to_fourier(real, n);
  double worst = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < back.size(); ++i) {
    worst = std::max(worst, std::abs(back[i] - delta[i]));
    largest = std::max(largest, std::abs(delta[i]));
  }
  EXPECT_LT(worst, 1e-13 * largest);
  std::printf("n = 32: rms delta = %.4g, |mean| / rms = %.2g, round trip max error / max mode = %.2g\n", rms,
              std::abs(sum / static_cast<double>(real.size())) / rms, worst / largest);
}

TEST(InitialConditions, BitwiseIdenticalForOneAndTwoThreads) {
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters parameters;
  parameters.n = 48;
  parameters.seed = 2024;
  ThreadCount restore;
  omp_set_num_threads(1);
  const GaussianRandomField one(parameters, spectrum);
  const RealGrid real_one = one.real();
  const DisplacementField psi_one = zeldovich_displacement(one.fourier(), parameters.n, parameters.box_size);
  omp_set_num_threads(2);
  const GaussianRandomField two(parameters, spectrum);
  const RealGrid real_two = two.real();
  const DisplacementField psi_two = zeldovich_displacement(two.fourier(), parameters.n, parameters.box_size);
  ASSERT_EQ(real_one.size(), real_two.size());
  EXPECT_EQ(std::memcmp(one.fourier().data(), two.fourier().data(), one.fourier().size() * sizeof(std::complex<double>)), 0);
  EXPECT_EQ(std::memcmp(real_one.data(), real_two.data(), real_one.size() * sizeof(double)), 0);
  for (std::size_t axis = 0; axis < 3; ++axis)
    EXPECT_EQ(std::memcmp(psi_one.components[axis].data(), psi_two.components[axis].data(),
                          real_one.size() * sizeof(double)),
              0);
  // A different seed gives a different field.
  parameters.seed = 2025;
  const GaussianRandomField other(parameters, spectrum);
  EXPECT_NE(std::memcmp(one.fourier().data(), other.fourier().data(), one.fourier().size() * sizeof(std::complex<double>)), 0);
}

TEST(InitialConditions, ModesIndependentOfGridSize) {
  // A mode's value depends on (seed, k) only: a 16^3 and a 32^3 grid of the same box share their common
  // modes bit for bit (what makes the field independent of how modes are distributed over ranks).
  const auto power = [](double k) { return 1.0e4 * k / (1.0 + std::pow(k / 0.1, 3)); };
  GaussianFieldParameters small, large;
  small.n = 16;
  large.n = 32;
  small.seed = large.seed = 5;
  const GaussianRandomField coarse(small, power), fine(large, power);
  int compared = 0;
  for (int z = 0; z < 16; ++z)
    for (int y = 0; y < 16; ++y)
      for (int kx = 0; kx < 8; ++kx) {
        const int ky = signed_wavenumber(y, 16), kz = signed_wavenumber(z, 16);
        if (ky == 8 || kz == 8) continue;
        const std::complex<double> a = coarse.fourier()[fourier_index(kx, y, z, 16)];
        const std::complex<double> b = fine.fourier()[fourier_index(kx, (ky + 32) % 32, (kz + 32) % 32, 32)];
        ASSERT_EQ(a, b) << kx << " " << ky << " " << kz;
        ++compared;
      }
  EXPECT_GT(compared, 1500);
}

TEST(InitialConditions, PairedAndFixedFields) {
  // ic_invert_phases: every mode of the partner is minus the original's; ic_fix_amplitudes: every
  // mode has |delta_k|^2 = P(k)/V exactly and keeps the original's phase.
  const auto power = [](double k) { return 1.0e4 * k / (1.0 + std::pow(k / 0.1, 3)); };
  GaussianFieldParameters original, inverted, fixed;
  original.n = inverted.n = fixed.n = 16;
  original.seed = inverted.seed = fixed.seed = 11;
  inverted.invert_phases = true;
  fixed.fix_amplitudes = true;
  const GaussianRandomField a(original, power), b(inverted, power), c(fixed, power);
  const double fundamental = 2.0 * pi / original.box_size, volume = std::pow(original.box_size, 3);
  int nonzero = 0;
  double amplitude_scatter = 0.0;
  for (int z = 0; z < 16; ++z)
    for (int y = 0; y < 16; ++y)
      for (int kx = 0; kx < 9; ++kx) {
        const std::size_t i = fourier_index(kx, y, z, 16);
        ASSERT_EQ(b.fourier()[i], -a.fourier()[i]);
        if (std::abs(a.fourier()[i]) == 0.0) {
          ASSERT_EQ(std::abs(c.fourier()[i]), 0.0);
          continue;
        }
        const int ky = signed_wavenumber(y, 16), kz = signed_wavenumber(z, 16);
        const double k = fundamental * std::sqrt(static_cast<double>(kx * kx + ky * ky + kz * kz));
        ASSERT_NEAR(std::norm(c.fourier()[i]) * volume / power(k), 1.0, 1e-12) << kx << " " << ky << " " << kz;
        ASSERT_NEAR(std::arg(c.fourier()[i] / a.fourier()[i]), 0.0, 1e-12);
        amplitude_scatter += std::fabs(std::norm(a.fourier()[i]) * volume / power(k) - 1.0);
        ++nonzero;
      }
  EXPECT_GT(nonzero, 1500);
  // The unfixed field's |delta_k|^2 V / P is exponentially distributed: mean |x - 1| = 2/e.
  EXPECT_NEAR(amplitude_scatter / nonzero, 2.0 / std::exp(1.0), 0.05);
}

TEST(InitialConditions, ModeGaussianHasUnitVarianceAndUniformPhases) {
  // <|g|^2> = 1 and <g> = 0, <g^2> = 0 over 10^5 modes (standard errors ~0.003).
  double sum_norm = 0.0;
  std::complex<double> sum(0.0, 0.0), sum_square(0.0, 0.0);
  int count = 0;
  for (int kz = 1; kz <= 50; ++kz)
    for (int ky = -25; ky < 25; ++ky)
      for (int kx = -20; kx < 20; ++kx) {
        const std::complex<double> g = mode_gaussian(11, kx, ky, kz);
        EXPECT_EQ(std::conj(g), mode_gaussian(11, -kx, -ky, -kz));
        sum_norm += std::norm(g);
        sum += g;
        sum_square += g * g;
        ++count;
      }
  EXPECT_NEAR(sum_norm / count, 1.0, 0.015);
  EXPECT_LT(std::abs(sum) / count, 0.015);
  EXPECT_LT(std::abs(sum_square) / count, 0.015);
}

TEST(InitialConditions, ZeldovichDivergenceIsMinusDeltaInFourierSpace) {
  const LinearPowerSpectrum spectrum(planck_like(), 0.9667, 0.8159);
  GaussianFieldParameters parameters;
  parameters.n = 32;
  parameters.box_size = 50.0;
  const GaussianRandomField field(parameters, spectrum);
  const int n = parameters.n;
  const std::array<FourierGrid, 3> psi = zeldovich_displacement_fourier(field.fourier(), n, parameters.box_size);
  const double fundamental = 2.0 * pi / parameters.box_size;
  double worst = 0.0, largest = 0.0;
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int kx = 0; kx <= n / 2; ++kx) {
        const std::size_t index = fourier_index(kx, y, z, n);
        const std::complex<double> divergence =
            std::complex<double>(0.0, 1.0) * fundamental *
            (static_cast<double>(kx) * psi[0][index] + static_cast<double>(signed_wavenumber(y, n)) * psi[1][index] +
             static_cast<double>(signed_wavenumber(z, n)) * psi[2][index]);
        worst = std::max(worst, std::abs(divergence + field.fourier()[index]));
        largest = std::max(largest, std::abs(field.fourier()[index]));
      }
  EXPECT_LT(worst, 1e-14 * largest);
  std::printf("max |i k.psi_k + delta_k| / max |delta_k| = %.2g\n", worst / largest);
}

TEST(InitialConditions, ZeldovichDisplacementOfPlaneWavesInRealSpace) {
  // delta = A cos(k1.x) + B sin(k2.x): psi = -A k1 sin(k1.x) / k1^2 + B k2 cos(k2.x) / k2^2 exactly
  // (the spectral inverse divergence), and the central-difference divergence of psi converges to
  // -delta at second order in the cell size.
  const double box = 10.0;
  std::vector<double> errors;
  for (int n : {16, 32, 64}) {
    const double h = box / n;
    const double two_pi_over_box = 2.0 * pi / box;
    const std::array<double, 3> k1 = {2 * two_pi_over_box, -1 * two_pi_over_box, 0.0};
    const std::array<double, 3> k2 = {0.0, 1 * two_pi_over_box, 3 * two_pi_over_box};
    const double amplitude1 = 0.3, amplitude2 = -0.2;
    const auto dot = [](const std::array<double, 3>& k, double x, double y, double z) { return k[0] * x + k[1] * y + k[2] * z; };
    const double k1_squared = k1[0] * k1[0] + k1[1] * k1[1], k2_squared = k2[1] * k2[1] + k2[2] * k2[2];
    RealGrid delta(static_cast<std::size_t>(n) * n * n);
    const auto position = [&](int i) { return (i + 0.5) * h; };
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
          delta[static_cast<std::size_t>(x + n * (y + n * z))] =
              amplitude1 * std::cos(dot(k1, position(x), position(y), position(z))) +
              amplitude2 * std::sin(dot(k2, position(x), position(y), position(z)));
    const DisplacementField psi = zeldovich_displacement(to_fourier(delta, n), n, box);
    double analytic_error = 0.0, divergence_error = 0.0;
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
          const double phase1 = dot(k1, position(x), position(y), position(z));
          const double phase2 = dot(k2, position(x), position(y), position(z));
          const auto index = [&](int i, int j, int l) {
            return static_cast<std::size_t>((i + n) % n + n * ((j + n) % n + n * ((l + n) % n)));
          };
          for (std::size_t axis = 0; axis < 3; ++axis) {
            const double expected = -amplitude1 * k1[axis] * std::sin(phase1) / k1_squared +
                                    amplitude2 * k2[axis] * std::cos(phase2) / k2_squared;
            analytic_error = std::max(analytic_error, std::abs(psi.components[axis][index(x, y, z)] - expected));
          }
          const double divergence =
              (psi.components[0][index(x + 1, y, z)] - psi.components[0][index(x - 1, y, z)] +
               psi.components[1][index(x, y + 1, z)] - psi.components[1][index(x, y - 1, z)] +
               psi.components[2][index(x, y, z + 1)] - psi.components[2][index(x, y, z - 1)]) /
              (2.0 * h);
          divergence_error = std::max(divergence_error, std::abs(divergence + delta[index(x, y, z)]));
        }
    EXPECT_LT(analytic_error, 1e-14) << "n = " << n;
    errors.push_back(divergence_error);
    std::printf("n = %d: max |psi - analytic| = %.2g, max |div_h psi + delta| = %.3g\n", n, analytic_error,
                divergence_error);
  }
  EXPECT_NEAR(errors[0] / errors[1], 4.0, 0.3);
  EXPECT_NEAR(errors[1] / errors[2], 4.0, 0.1);
}

namespace {

// The Zel'dovich velocity v = a dx/dt = a d psi / dt against the factor a H f, psi(a) generated at
// a -+ epsilon (same seed: psi is proportional to D(a)), t from Background::cosmic_time (1/H0).
void check_velocity_factor(const CosmologyParameters& cosmology, double a) {
  const LinearPowerSpectrum spectrum(cosmology, 0.96, 0.8);
  const Background& background = spectrum.background();
  GaussianFieldParameters parameters;
  parameters.n = 16;
  parameters.seed = 3;
  const double epsilon = 1e-4 * a;
  parameters.a_start = a;
  const GaussianRandomField field(parameters, spectrum);
  parameters.a_start = a - epsilon;
  const GaussianRandomField before(parameters, spectrum);
  parameters.a_start = a + epsilon;
  const GaussianRandomField after(parameters, spectrum);
  const DisplacementField psi = zeldovich_displacement(field.fourier(), parameters.n, parameters.box_size);
  const DisplacementField psi_before = zeldovich_displacement(before.fourier(), parameters.n, parameters.box_size);
  const DisplacementField psi_after = zeldovich_displacement(after.fourier(), parameters.n, parameters.box_size);
  const double dt = background.cosmic_time(a + epsilon) - background.cosmic_time(a - epsilon);  // 1/H0
  const double factor = zeldovich_velocity_factor_km_s(background, a);
  double worst = 0.0, largest = 0.0;
  for (std::size_t axis = 0; axis < 3; ++axis)
    for (std::size_t i = 0; i < psi.components[axis].size(); ++i) {
      // H0 psi = 100 h km/s/Mpc * psi Mpc/h = 100 psi km/s.
      const double finite_difference =
          100.0 * a * (psi_after.components[axis][i] - psi_before.components[axis][i]) / dt;
      const double velocity = factor * psi.components[axis][i];
      worst = std::max(worst, std::abs(velocity - finite_difference));
      largest = std::max(largest, std::abs(velocity));
    }
  EXPECT_LT(worst, 1e-6 * largest);
  std::printf("omega_m = %.3f, a = %.3f: factor a H f = %.6g km/s per Mpc/h, max |v - a dpsi/dt| / max |v| = %.2g\n",
              cosmology.omega_m, a, factor, worst / largest);
}

}  // namespace

TEST(InitialConditions, ZeldovichVelocityEinsteinDeSitter) {
  const Background background(einstein_de_sitter());
  for (double a : {0.01, 0.1, 0.5, 1.0}) {
    // f = 1, D = a, H = H0 a^-3/2: a H f = 100 a^-1/2 km/s per Mpc/h; super-comoving a^2 E f = a^1/2.
    EXPECT_NEAR(background.growth_rate(a), 1.0, 1e-12);
    EXPECT_NEAR(zeldovich_velocity_factor_km_s(background, a), 100.0 / std::sqrt(a), 1e-10 / std::sqrt(a));
    EXPECT_NEAR(zeldovich_velocity_factor_super_comoving(background, a), std::sqrt(a), 1e-12);
  }
  check_velocity_factor(einstein_de_sitter(), 0.05);
}

TEST(InitialConditions, ZeldovichVelocityLambdaCdm) {
  check_velocity_factor(planck_like(), 0.05);
  check_velocity_factor(planck_like(), 0.7);
}

TEST(InitialConditions, RejectsBadParameters) {
  const auto power = [](double) { return 1.0; };
  GaussianFieldParameters parameters;
  parameters.n = 15;
  EXPECT_THROW(GaussianRandomField(parameters, power), kosmo::Error);
  parameters.n = 16;
  parameters.box_size = -1.0;
  EXPECT_THROW(GaussianRandomField(parameters, power), kosmo::Error);
  EXPECT_THROW(to_real(FourierGrid(10), 16), kosmo::Error);
}
