#pragma once
// kosmo's built-in initial-condition generator (docs/cosmology.md, "Initial conditions"): a Gaussian random overdensity
// field with the linear power spectrum of friedmann.hpp on a periodic n^3 grid, and its Zel'dovich
// displacement field. The role of MUSIC (Hahn & Abel 2011, MNRAS 415, 2101) or grafic
// (Bertschinger 2001, ApJS 137, 1) for a single-level box.
//
// Conventions.
//  * Real-space grids have n^3 values, x fastest, then y, then z (the grafic plane order): index
//    x + n (y + n z); cell (x, y, z) is centred at ((x + 1/2), (y + 1/2), (z + 1/2)) L / n, as the
//    RAMSES coarse cells and MUSIC's grafic cells.
//  * Fourier grids hold the modes of a real field, n * n * (n/2 + 1) complex values with kx in
//    [0, n/2] fastest, then ky, then kz in [0, n) (FFTW's r2c layout of an array whose fastest axis is
//    x). The mode (i, j, l) has wave vector k = 2 pi / L (i, j~, l~) with j~ = j for j <= n/2 and
//    j - n otherwise.
//  * Fourier coefficients are those of the Fourier series, delta(x) = sum_k delta_k exp(i k.x): with
//    V = L^3, <|delta_k|^2> = P(k) / V, and the measured power of a mode is V |delta_k|^2.
//  * Lengths in Mpc/h (comoving), wavenumbers in h/Mpc.
//
// Reproducibility. Each mode's random numbers come from a counter-based hash (splitmix64, Steele,
// Lea & Flood 2014, OOPSLA) of (seed, kx, ky, kz) with signed integer wave numbers, not from a
// sequential stream, so a mode's value depends on nothing else: not on the number of ranks or
// threads, nor on which rank owns it, nor even on n (a 64^3 and a 128^3 box of the same L and seed
// share their common modes, as MUSIC's and Panphasia's multi-resolution white noise intend). The FFTs
// are done with serial one-dimensional FFTW plans applied pencil by pencil, so the real-space fields
// are bitwise identical for any number of OpenMP threads.
//
// Hermitian symmetry. A mode and its opposite draw from the same hash key (that of the member of the
// pair that is larger in lexicographic (kz, ky, kx) order), the opposite one takes the complex
// conjugate: delta(-k) = conj(delta(k)) holds exactly (bit for bit) in the kx = 0 plane. The k = 0
// mode is zero (zero mean) and modes with any component at the Nyquist frequency n/2 are zero (their
// phase is not representable in a real field; MUSIC and N-GenIC do the same).
#include <array>
#include <complex>
#include <cstdint>
#include <functional>
#include <vector>

#include "cosmology/friedmann.hpp"

namespace kosmo::cosmology {

using RealGrid = std::vector<double>;
using FourierGrid = std::vector<std::complex<double>>;

// Signed wave-number index of position j along an axis of n points: j for j <= n/2, j - n otherwise.
inline int signed_wavenumber(int j, int n) { return j <= n / 2 ? j : j - n; }

// Deterministic random numbers of one Fourier mode: u1 in (0, 1], u2 in [0, 1) from splitmix64
// applied to (seed, kx, ky, kz). Exposed so a rank owning any subset of modes can reproduce them.
std::array<double, 2> mode_uniforms(std::uint64_t seed, int kx, int ky, int kz);

// The unit-variance complex Gaussian of mode (kx, ky, kz) (signed indices), <|g|^2> = 1, with
// g(-k) = conj(g(k)) exactly; zero for k = 0. Box-Muller in polar form: |g| = sqrt(-ln u1), arg g =
// 2 pi u2 (a Rayleigh amplitude and a uniform phase).
std::complex<double> mode_gaussian(std::uint64_t seed, int kx, int ky, int kz);

struct GaussianFieldParameters {
  int n = 64;                // grid points per dimension (even, >= 4)
  double box_size = 100.0;   // L, comoving Mpc/h
  std::uint64_t seed = 1;
  double a_start = 0.02;     // expansion factor of the field (P scaled by D(a_start)^2)
  // Paired-and-fixed fields (Angulo & Pontzen 2016): a paired partner has every mode's sign
  // flipped, so the average of the two runs cancels the odd orders of perturbation theory (the
  // cross term <delta_1 delta_2> that makes one realisation's large-scale growth scatter); fixed
  // amplitudes set |delta_k|^2 = P(k)/V and keep only the random phases.
  bool invert_phases = false;
  bool fix_amplitudes = false;
};

// A Gaussian random overdensity field delta(k) with <|delta_k|^2> = P(k, a_start) / V, P from
// LinearPowerSpectrum (Eisenstein & Hu 1998 transfer function, normalised to sigma8 at a = 1 and
// multiplied by D(a_start)^2, D from Background::growth_factor).
class GaussianRandomField {
 public:
  GaussianRandomField(const GaussianFieldParameters& parameters, const LinearPowerSpectrum& power);
  // Any isotropic power spectrum P(k) in (Mpc/h)^3, k in h/Mpc, already at a_start (for tests).
  GaussianRandomField(const GaussianFieldParameters& parameters, std::function<double(double)> power);

  const GaussianFieldParameters& parameters() const { return parameters_; }
  int n() const { return parameters_.n; }
  double box_size() const { return parameters_.box_size; }
  // The input spectrum P(k) at a_start, (Mpc/h)^3.
  double power(double k_h_per_mpc) const { return power_(k_h_per_mpc); }

  // delta_k in the Fourier layout above.
  const FourierGrid& fourier() const { return fourier_; }
  // delta(x) on the real grid (an inverse FFT per call).
  RealGrid real() const;

 private:
  void generate();

  GaussianFieldParameters parameters_;
  std::function<double(double)> power_;
  FourierGrid fourier_;
};

// ---------------------------------------------------------------------------------------------
// Transforms (serial 1-D FFTW plans applied per pencil, OpenMP over pencils; thread-count
// independent to the bit). Unnormalised in the Fourier-series convention above:
//   to_real:    f(x) = sum_k f_k exp(i k.x)       (needs a Hermitian input)
//   to_fourier: f_k  = n^-3 sum_x f(x) exp(-i k.x)
// ---------------------------------------------------------------------------------------------
RealGrid to_real(const FourierGrid& fourier, int n);
FourierGrid to_fourier(const RealGrid& real, int n);

// ---------------------------------------------------------------------------------------------
// Zel'dovich approximation (Zel'dovich 1970, A&A 5, 84)
// ---------------------------------------------------------------------------------------------
// The displacement psi with x = q + psi(q) and div psi = -delta at linear order:
//   psi_k = i k delta_k / k^2   (exact spectral inverse divergence, continuous k; the k = 0 and Nyquist
//   modes are zero). In Fourier space div psi = i k.psi_k = -delta_k holds to round-off for every mode
//   without a Nyquist component (those are set to zero in psi).
// Units: psi in the length unit of box_size (comoving Mpc/h) at the epoch of delta (a_start for a
// GaussianRandomField, so D(a_start) is already included). For the particle of the cell centred on q:
//   comoving position      x = q + psi(q)
//   peculiar velocity      v = a H(a) f(a) psi(q)           (a dx/dt; linear growing mode)
// zeldovich_velocity_factor_km_s gives a H f in km/s per Mpc/h (v in km/s, the grafic ic_velc unit);
// zeldovich_velocity_factor_super_comoving gives a^2 E(a) f(a), the factor turning a displacement
// in box units into the RAMSES super-comoving code velocity dx/dtau (x in box units, d tau = H0 dt /
// a^2; Martel & Shapiro 1998; RAMSES pm/init_part.f90 multiplies by vfact(1)).
// The grafic displacement file ic_posc holds psi in comoving Mpc/h (RAMSES load_grafic divides by
// boxlen_ini); RAMSES reconstructs psi = v / vfact when ic_posc is absent.
struct DisplacementField {
  std::array<RealGrid, 3> components;  // psi_x, psi_y, psi_z on the real grid
};
std::array<FourierGrid, 3> zeldovich_displacement_fourier(const FourierGrid& delta, int n, double box_size);
DisplacementField zeldovich_displacement(const FourierGrid& delta, int n, double box_size);

// a H(a) f(a) in km/s per comoving Mpc/h: 100 a E(a) f(a) (h cancels).
double zeldovich_velocity_factor_km_s(const Background& background, double a);
// a^2 E(a) f(a): super-comoving code velocity per displacement in box units.
double zeldovich_velocity_factor_super_comoving(const Background& background, double a);

// ---------------------------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------------------------
// Shell-averaged power spectrum of a Fourier field: bins of width delta_k = 2 pi / L (the
// fundamental) in |k|, bin b covering [(b + 1/2), (b + 3/2)) k_f, b = 0 .. n/2 - 1 (so bin 0 is
// centred on k_f). Each stored mode counts as itself plus its conjugate (weight 2), except in the
// kx = 0 plane (weight 1), so averages run over the full sphere. Modes with a component at the
// Nyquist frequency n/2 are left out (the generator sets them to zero).
struct PowerSpectrumBin {
  double k_mean = 0.0;          // weighted mean |k| of the modes in the bin, h/Mpc
  double power = 0.0;           // mean V |delta_k|^2, (Mpc/h)^3
  double mode_count = 0.0;      // number of modes (full sphere)
  double expected_power = 0.0;  // mean of reference P(|k|) over the same modes (0 if no reference)
  double expected_sigma = 0.0;  // standard deviation of `power` for a Gaussian field with that P:
                                // sqrt(sum P^2 over independent modes) / (independent modes)
};
std::vector<PowerSpectrumBin> measure_power_spectrum(const FourierGrid& fourier, int n, double box_size,
                                                     const std::function<double(double)>& reference = nullptr);

}  // namespace kosmo::cosmology
