#pragma once
// The cosmological background of kosmo (docs/cosmology.md): the Friedmann expansion of a Lambda-CDM universe
// with curvature, RAMSES' super-comoving conformal time and its look-up tables, the linear growth
// factor, and the Eisenstein & Hu (1998) linear power spectrum normalised to sigma8.
//
// Units. Times are in units of 1/H0 (multiply by hubble_time_in_gyr(h0) for Gyr). Wavenumbers are in
// h/Mpc and lengths in Mpc/h unless a name says otherwise. The expansion factor is 1 today.
//
// Super-comoving time (Martel & Shapiro 1998, MNRAS 297, 467; RAMSES amr/init_time.f90,
// subroutine friedman): d tau = H0 dt / a^2, with tau = 0 today, so tau < 0 in the past and tau -> -inf
// as a -> 0. RAMSES integrates da/dtau = a^3 E(a) and da/dt = a E(a) with a midpoint rule from a = 1
// back to aexp_ini, stores n_frw = 1000 samples of (aexp, hexp, tau, t) and interpolates between them;
// FriedmannTable below keeps that structure (tables built once, equal steps in ln a, interpolation
// between entries) but fills the entries with Gauss-Legendre quadrature accurate to round-off and
// interpolates with cubic Hermite polynomials whose slopes are the exact derivatives, so the
// interpolation error is ~1e-12 where RAMSES' linear interpolation is ~1e-6.
#include <functional>
#include <vector>

namespace kosmo::cosmology {

// RAMSES &PHYSICS_PARAMS / grafic header cosmology. omega_m + omega_l + omega_k must be 1 (RAMSES
// friedman stops otherwise); omega_b <= omega_m is the baryon part of omega_m.
struct CosmologyParameters {
  double omega_m = 0.3;
  double omega_l = 0.7;
  double omega_k = 0.0;
  double omega_b = 0.045;
  double h0 = 70.0;  // Hubble constant in km/s/Mpc (RAMSES h0, not h = h0 / 100)
};

// Throws kosmo::Error when the parameters are unphysical: omega_m <= 0, |omega_m + omega_l + omega_k - 1| >
// 1e-6, omega_b < 0 or > omega_m, h0 <= 0.
void validate(const CosmologyParameters& parameters);

// 1/H0 in Gyr for h0 in km/s/Mpc (977.79 / h0).
double hubble_time_in_gyr(double h0);

// ---------------------------------------------------------------------------------------------
// Background expansion (direct quadrature; no tables)
// ---------------------------------------------------------------------------------------------
// The integrals are written in s = sqrt(a), where every integrand is a smooth function of s:
//   dt   = da / (a E)     = 2 s^2 ds / sqrt(P(s))
//   dtau = da / (a^3 E)   = 2 ds / (s^2 sqrt(P(s)))
//   da / (a E)^3          = 2 s^4 ds / P(s)^(3/2)
// with P(s) = a^3 E^2 = omega_m + omega_k s^2 + omega_l s^6. They require P > 0 on the range
// integrated (no bounce or turnaround before the requested a); kosmo::Error otherwise.
class Background {
 public:
  explicit Background(const CosmologyParameters& parameters);

  const CosmologyParameters& parameters() const { return parameters_; }

  // E(a) = H(a)/H0 = sqrt(omega_m a^-3 + omega_k a^-2 + omega_l).
  double hubble_ratio(double a) const;
  // d ln E / d ln a.
  double hubble_ratio_log_slope(double a) const;
  // Omega_m(a) = omega_m a^-3 / E^2 and Omega_Lambda(a) = omega_l / E^2.
  double omega_matter_at(double a) const;
  double omega_lambda_at(double a) const;

  // Cosmic time since the big bang, H0 t(a) = int_0^a da' / (a' E(a')). Einstein-de Sitter: 2/3 a^1.5.
  double cosmic_time(double a) const;
  // Age today, H0 t(1) (0.96417 for omega_m = 0.3, omega_l = 0.7).
  double age() const { return age_; }
  // Inverse of cosmic_time (Newton iteration safeguarded by bisection, relative accuracy 1e-14).
  double expansion_factor_at_time(double cosmic_time_value) const;

  // Super-comoving conformal time tau(a) = -int_a^1 da' / (a'^3 E(a')), so tau(1) = 0 (RAMSES
  // friedman convention). Einstein-de Sitter: 2 (1 - a^-1/2).
  double super_comoving_time(double a) const;
  // Inverse of super_comoving_time.
  double expansion_factor_at_super_comoving_time(double tau) const;

  // Linear growing mode D(a), normalised to D(1) = 1:
  //   D(a) = E(a) int_0^a da' / (a' E(a'))^3 / [same at a = 1]
  // (Heath 1977, MNRAS 179, 351; Peebles, Large-Scale Structure of the Universe, 1980, eq. 10.12;
  // RAMSES amr/init_time.f90 function d1a). The formula is the exact growing mode of the linear
  // growth equation D'' + (2 + d ln E/d ln a) D' = 3/2 Omega_m(a) D (primes d/d ln a) for
  // pressureless matter, any curvature and a cosmological constant: E(a) itself solves the homogeneous
  // equation (the decaying mode) only when the only components scale as a^-3, a^-2 and a^0. It is NOT
  // valid with radiation, massive neutrinos or dark energy with w != -1. Einstein-de Sitter: D = a.
  double growth_factor(double a) const;
  // Growth rate f = d ln D / d ln a = d ln E / d ln a + 1 / (a^2 E^3 int_0^a da'/(a'E)^3)
  // (RAMSES function fpeebl); Einstein-de Sitter: f = 1.
  double growth_rate(double a) const;

 private:
  double energy_polynomial(double s) const;  // P(s) = a^3 E^2 at a = s^2
  double growth_integral(double a) const;    // int_0^a da' / (a' E(a'))^3
  double growth_unnormalised(double a) const;

  CosmologyParameters parameters_;
  double age_ = 0.0;
  double growth_today_ = 0.0;
};

// Carroll, Press & Turner (1992, ARA&A 30, 499, eq. 29) fit of D(a), normalised to D(1) = 1, accurate
// to ~1% for flat and open Lambda-CDM; used by the tests as an independent check of growth_factor.
double growth_factor_carroll_press_turner(const CosmologyParameters& parameters, double a);

// ---------------------------------------------------------------------------------------------
// RAMSES look-up tables (amr/init_time.f90 friedman; aexp_frw, hexp_frw, tau_frw, t_frw)
// ---------------------------------------------------------------------------------------------
class FriedmannTable {
 public:
  // Entries at n_intervals + 1 expansion factors equally spaced in ln a from a_max (entry 0, RAMSES
  // starts at a = 1) down to a_min (last entry). 0 < a_min < a_max. When a = 1 lies strictly inside,
  // it is an entry (tau = 0 and t = t0 there exactly; the spacing above and below it is equal on
  // each side, nearly so across), so super_comoving_time_at(1) == 0 and expansion_factor_at(0) == 1.
  FriedmannTable(const Background& background, double a_min, double a_max = 1.0, int n_intervals = 1000);

  // The table columns, in RAMSES order (entry 0 is a_max, decreasing a):
  //   expansion_factors   aexp_frw
  //   hubble_parameters   hexp_frw = (1/a) da/dtau = a^2 E(a)
  //   super_comoving_times tau_frw (0 at a = 1)
  //   cosmic_times        t_frw = H0 (t(a) - t(1)), the time relative to today (negative in the past)
  const std::vector<double>& expansion_factors() const { return expansion_factors_; }
  const std::vector<double>& hubble_parameters() const { return hubble_parameters_; }
  const std::vector<double>& super_comoving_times() const { return super_comoving_times_; }
  const std::vector<double>& cosmic_times() const { return cosmic_times_; }
  double a_min() const { return expansion_factors_.back(); }
  double a_max() const { return expansion_factors_.front(); }
  double tau_min() const { return super_comoving_times_.back(); }
  double tau_max() const { return super_comoving_times_.front(); }

  // Interpolation between entries (kosmo::Error outside the table). In RAMSES the code time of a
  // cosmological run is tau; these give aexp, hexp and texp from it (init_time / update_time).
  double super_comoving_time_at(double a) const;
  double expansion_factor_at(double tau) const;
  double hubble_parameter_at(double tau) const;  // hexp = a^2 E(a)
  double cosmic_time_at(double tau) const;       // texp = H0 (t - t0)

 private:
  std::size_t interval_of_time(double tau) const;
  std::size_t interval_of_expansion_factor(double a) const;

  Background background_;
  std::vector<double> expansion_factors_;
  std::vector<double> hubble_parameters_;
  std::vector<double> super_comoving_times_;
  std::vector<double> cosmic_times_;
};

// ---------------------------------------------------------------------------------------------
// Eisenstein & Hu (1998, ApJ 496, 605) transfer functions
// ---------------------------------------------------------------------------------------------
// Fitting formulae of EH98 section 3 (cold dark matter + baryons, with the acoustic oscillations and
// Silk damping; eqs. 2-24) and section 4.2 (the "no-wiggle" shape, eqs. 26-31). Neutrinos are
// massless and the radiation temperature is t_cmb (theta_2.7 = t_cmb / 2.7). Wavenumbers in h/Mpc.
class EisensteinHuTransfer {
 public:
  // The full formula needs omega_b > 0; the no-wiggle one accepts omega_b = 0 (then it is the EH98
  // zero-baryon shape). Default t_cmb = 2.7255 K (Fixsen 2009).
  explicit EisensteinHuTransfer(const CosmologyParameters& parameters, double t_cmb = 2.7255);

  // T(k) with baryon acoustic oscillations (EH98 eqs. 16-24).
  double transfer(double k_h_per_mpc) const;
  // Smooth T(k) without oscillations (EH98 eqs. 29-31).
  double transfer_no_wiggle(double k_h_per_mpc) const;

  // Derived scales of EH98 section 2 (Mpc, not Mpc/h; k in 1/Mpc).
  double redshift_drag() const { return redshift_drag_; }                // z_d, eq. 4
  double sound_horizon() const { return sound_horizon_; }                // s, eq. 6
  double sound_horizon_fit() const { return sound_horizon_fit_; }        // eq. 26
  double baryon_fraction() const { return baryon_fraction_; }            // omega_b / omega_m

 private:
  double hubble_ = 0.0;  // h = h0 / 100
  double omega_m_h2_ = 0.0;
  double omega_m_ = 0.0;
  double theta_cmb_ = 0.0;
  double baryon_fraction_ = 0.0;
  double redshift_equality_ = 0.0;
  double wavenumber_equality_ = 0.0;
  double redshift_drag_ = 0.0;
  double sound_horizon_ = 0.0;
  double sound_horizon_fit_ = 0.0;
  double silk_wavenumber_ = 0.0;
  double alpha_c_ = 0.0;
  double beta_c_ = 0.0;
  double alpha_b_ = 0.0;
  double beta_b_ = 0.0;
  double beta_node_ = 0.0;
  double alpha_gamma_ = 0.0;
};

// ---------------------------------------------------------------------------------------------
// Linear power spectrum P(k, a) = A k^n_s T(k)^2 D(a)^2, normalised to sigma8 at a = 1
// ---------------------------------------------------------------------------------------------
enum class TransferModel { eisenstein_hu_baryons, eisenstein_hu_no_wiggle };

// Fourier transform of the spherical top hat, W(x) = 3 (sin x - x cos x) / x^3 (series below x = 1e-2).
double top_hat_window(double x);

// sigma^2(R) = 1/(2 pi^2) int_0^inf k^2 P(k) W(kR)^2 dk for any P(k) (k in 1/length, R in length),
// integrated in ln k for kR < 1 and in k over panels of width pi beyond, up to kR = x_max (the
// neglected tail is ~ P(x_max/R) (x_max/R)^3 / x_max^4).
double top_hat_variance(const std::function<double(double)>& power, double radius, double x_max = 1.0e4);

class LinearPowerSpectrum {
 public:
  LinearPowerSpectrum(const CosmologyParameters& parameters, double n_s, double sigma8,
                      TransferModel model = TransferModel::eisenstein_hu_baryons, double t_cmb = 2.7255);

  // P(k, a) in (Mpc/h)^3 for k in h/Mpc.
  double power(double k_h_per_mpc, double a = 1.0) const;
  double transfer(double k_h_per_mpc) const;
  // sigma(R) at a in a top hat of radius R Mpc/h.
  double sigma(double radius_mpc_per_h, double a = 1.0) const;
  double amplitude() const { return amplitude_; }  // A
  const Background& background() const { return background_; }

 private:
  Background background_;
  EisensteinHuTransfer transfer_;
  TransferModel model_;
  double n_s_;
  double amplitude_ = 1.0;
};

}  // namespace kosmo::cosmology
