// Cosmological background, growth and linear power spectrum; see friedmann.hpp for the equations
// and the references.
#include "cosmology/friedmann.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace kosmo::cosmology {

namespace {

constexpr double pi = std::numbers::pi;
constexpr double euler_e = std::numbers::e;

// ---------------------------------------------------------------------------------------------
// Quadrature
// ---------------------------------------------------------------------------------------------

// Nodes and weights of the n-point Gauss-Legendre rule on [-1, 1], from Newton iteration on the
// Legendre polynomial (Press et al., Numerical Recipes, gauleg).
template <int N>
struct GaussLegendreRule {
  std::array<double, N> nodes{};
  std::array<double, N> weights{};
  GaussLegendreRule() {
    for (int i = 0; i < (N + 1) / 2; ++i) {
      double x = std::cos(pi * (i + 0.75) / (N + 0.5));
      double derivative = 0.0;
      for (int iteration = 0; iteration < 100; ++iteration) {
        double p0 = 1.0, p1 = 0.0;
        for (int j = 1; j <= N; ++j) {
          const double p2 = p1;
          p1 = p0;
          p0 = ((2.0 * j - 1.0) * x * p1 - (j - 1.0) * p2) / j;
        }
        derivative = N * (x * p0 - p1) / (x * x - 1.0);
        const double step = p0 / derivative;
        x -= step;
        if (std::abs(step) < 1e-16) break;
      }
      nodes[i] = -x;
      nodes[N - 1 - i] = x;
      weights[i] = weights[N - 1 - i] = 2.0 / ((1.0 - x * x) * derivative * derivative);
    }
  }
};

const GaussLegendreRule<16>& rule16() {
  static const GaussLegendreRule<16> rule;
  return rule;
}

template <class Function>
double gauss_legendre(const Function& f, double lo, double hi) {
  const auto& rule = rule16();
  const double half = 0.5 * (hi - lo), middle = 0.5 * (hi + lo);
  double sum = 0.0;
  for (int i = 0; i < 16; ++i) sum += rule.weights[i] * f(middle + half * rule.nodes[i]);
  return half * sum;
}

// Adaptive bisection with the 16-point rule: a panel is accepted when it agrees with the sum of its
// two halves to the tolerance (absolute, from the caller's estimate of the whole integral, not halved
// per level: the difference estimates the error of the coarser panel, so the accepted halves are far
// more accurate than that) or to round-off.
template <class Function>
double adaptive_integral(const Function& f, double lo, double hi, double whole, double tolerance, int depth) {
  const double middle = 0.5 * (lo + hi);
  const double left = gauss_legendre(f, lo, middle);
  const double right = gauss_legendre(f, middle, hi);
  const double difference = std::abs(left + right - whole);
  if (depth <= 0 || difference <= tolerance || difference <= 1e-15 * (std::abs(left) + std::abs(right)))
    return left + right;
  return adaptive_integral(f, lo, middle, left, tolerance, depth - 1) +
         adaptive_integral(f, middle, hi, right, tolerance, depth - 1);
}

template <class Function>
double integrate(const Function& f, double lo, double hi, double relative_tolerance = 1e-15) {
  if (lo == hi) return 0.0;
  const double whole = gauss_legendre(f, lo, hi);
  const double scale = std::max(std::abs(whole), 1e-300);
  return adaptive_integral(f, lo, hi, whole, relative_tolerance * scale, 30);
}

// Cubic Hermite interpolation on [x0, x1] with values y and slopes m at both ends.
double hermite(double x, double x0, double x1, double y0, double y1, double m0, double m1) {
  const double h = x1 - x0;
  const double u = (x - x0) / h;
  const double u2 = u * u, u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * y0 + (u3 - 2 * u2 + u) * h * m0 + (-2 * u3 + 3 * u2) * y1 + (u3 - u2) * h * m1;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

void validate(const CosmologyParameters& p) {
  KOSMO_REQUIRE(p.omega_m > 0.0, "cosmology: omega_m must be positive (got " << p.omega_m << ")");
  KOSMO_REQUIRE(std::abs(p.omega_m + p.omega_l + p.omega_k - 1.0) <= 1e-6,
                "cosmology: omega_m + omega_l + omega_k must be 1 (got " << p.omega_m << " + " << p.omega_l << " + "
                                                                        << p.omega_k << ")");
  KOSMO_REQUIRE(p.omega_b >= 0.0 && p.omega_b <= p.omega_m,
                "cosmology: omega_b must be in [0, omega_m] (got " << p.omega_b << ")");
  KOSMO_REQUIRE(p.h0 > 0.0, "cosmology: h0 (km/s/Mpc) must be positive (got " << p.h0 << ")");
}

double hubble_time_in_gyr(double h0) {
  // 1 Mpc / (1 km/s) in seconds over one Julian Gyr in seconds.
  constexpr double megaparsec_in_km = 3.0856775814913673e19;
  constexpr double gyr_in_seconds = 3.15576e16;
  return megaparsec_in_km / gyr_in_seconds / h0;
}

// ---------------------------------------------------------------------------------------------
// Background
// ---------------------------------------------------------------------------------------------

Background::Background(const CosmologyParameters& parameters) : parameters_(parameters) {
  validate(parameters_);
  age_ = cosmic_time(1.0);
  growth_today_ = growth_unnormalised(1.0);
}

double Background::energy_polynomial(double s) const {
  const double s2 = s * s;
  const double value = parameters_.omega_m + parameters_.omega_k * s2 + parameters_.omega_l * s2 * s2 * s2;
  KOSMO_REQUIRE(value > 0.0, "cosmology: H^2 <= 0 at a = " << s2 << " (the model turns around before that a)");
  return value;
}

double Background::hubble_ratio(double a) const {
  KOSMO_REQUIRE(a > 0.0, "cosmology: expansion factor must be positive (got " << a << ")");
  return std::sqrt(energy_polynomial(std::sqrt(a)) / (a * a * a));
}

double Background::hubble_ratio_log_slope(double a) const {
  const double e2 = hubble_ratio(a) * hubble_ratio(a);
  return -(3.0 * parameters_.omega_m / (a * a * a) + 2.0 * parameters_.omega_k / (a * a)) / (2.0 * e2);
}

double Background::omega_matter_at(double a) const {
  const double e = hubble_ratio(a);
  return parameters_.omega_m / (a * a * a * e * e);
}

double Background::omega_lambda_at(double a) const {
  const double e = hubble_ratio(a);
  return parameters_.omega_l / (e * e);
}

double Background::cosmic_time(double a) const {
  KOSMO_REQUIRE(a >= 0.0, "cosmology: expansion factor must be non-negative (got " << a << ")");
  // dt = 2 s^2 ds / sqrt(P(s)), s = sqrt(a): a polynomial over a smooth positive function.
  return integrate([this](double s) { return 2.0 * s * s / std::sqrt(energy_polynomial(s)); }, 0.0, std::sqrt(a));
}

double Background::expansion_factor_at_time(double t) const {
  KOSMO_REQUIRE(t >= 0.0, "cosmology: cosmic time must be non-negative (got " << t << ")");
  if (t == 0.0) return 0.0;
  // Bracket [lo, hi] with cosmic_time(lo) <= t <= cosmic_time(hi), then Newton (dt/da = 1/(a E))
  // falling back to bisection when a step leaves the bracket.
  double lo = 0.0, hi = std::max(1.0, std::pow(1.5 * t, 2.0 / 3.0));
  while (cosmic_time(hi) < t) {
    lo = hi;
    hi *= 2.0;
    KOSMO_REQUIRE(hi < 1e30, "cosmology: no expansion factor reaches cosmic time " << t);
  }
  double a = std::clamp(std::pow(1.5 * t / std::sqrt(parameters_.omega_m), 2.0 / 3.0), lo, hi);
  if (a <= lo || a >= hi) a = 0.5 * (lo + hi);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double residual = cosmic_time(a) - t;
    if (residual > 0.0) hi = a; else lo = a;
    double next = a - residual * a * hubble_ratio(a);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - a) <= 1e-15 * a) return next;
    a = next;
  }
  return a;
}

double Background::super_comoving_time(double a) const {
  KOSMO_REQUIRE(a > 0.0, "cosmology: expansion factor must be positive (got " << a << ")");
  // dtau = 2 ds / (s^2 sqrt(P(s))); tau(1) = 0.
  return -integrate([this](double s) { return 2.0 / (s * s * std::sqrt(energy_polynomial(s))); }, std::sqrt(a), 1.0);
}

double Background::expansion_factor_at_super_comoving_time(double tau) const {
  // tau(a) increases monotonically from -inf (a -> 0); bracket in ln a, then Newton in ln a with
  // dtau/d ln a = 1/(a^2 E), safeguarded by bisection.
  double log_lo = -1.0, log_hi = 0.0;
  while (super_comoving_time(std::exp(log_lo)) > tau) {
    log_hi = log_lo;
    log_lo *= 2.0;
    KOSMO_REQUIRE(log_lo > -700.0, "cosmology: super-comoving time " << tau << " out of range");
  }
  while (super_comoving_time(std::exp(log_hi)) < tau) {
    log_lo = log_hi;
    log_hi = 2.0 * log_hi + 1.0;
    KOSMO_REQUIRE(log_hi < 700.0, "cosmology: super-comoving time " << tau << " out of range");
  }
  double log_a = 0.5 * (log_lo + log_hi);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double a = std::exp(log_a);
    const double residual = super_comoving_time(a) - tau;
    if (residual > 0.0) log_hi = log_a; else log_lo = log_a;
    double next = log_a - residual * a * a * hubble_ratio(a);
    if (!(next > log_lo && next < log_hi)) next = 0.5 * (log_lo + log_hi);
    if (std::abs(next - log_a) <= 1e-15) return std::exp(next);
    log_a = next;
  }
  return std::exp(log_a);
}

double Background::growth_integral(double a) const {
  // da / (a E)^3 = 2 s^4 ds / P(s)^(3/2).
  return integrate(
      [this](double s) {
        const double polynomial = energy_polynomial(s);
        const double s2 = s * s;
        return 2.0 * s2 * s2 / (polynomial * std::sqrt(polynomial));
      },
      0.0, std::sqrt(a));
}

double Background::growth_unnormalised(double a) const { return hubble_ratio(a) * growth_integral(a); }

double Background::growth_factor(double a) const {
  KOSMO_REQUIRE(a > 0.0, "cosmology: expansion factor must be positive (got " << a << ")");
  return growth_unnormalised(a) / growth_today_;
}

double Background::growth_rate(double a) const {
  KOSMO_REQUIRE(a > 0.0, "cosmology: expansion factor must be positive (got " << a << ")");
  const double e = hubble_ratio(a);
  return hubble_ratio_log_slope(a) + 1.0 / (a * a * e * e * e * growth_integral(a));
}

double growth_factor_carroll_press_turner(const CosmologyParameters& parameters, double a) {
  const Background background(parameters);
  // g(Omega_m, Omega_Lambda) = 5/2 Omega_m / [Omega_m^(4/7) - Omega_Lambda + (1 + Omega_m/2)(1 + Omega_Lambda/70)].
  const auto suppression = [](double omega_m, double omega_l) {
    return 2.5 * omega_m / (std::pow(omega_m, 4.0 / 7.0) - omega_l + (1.0 + 0.5 * omega_m) * (1.0 + omega_l / 70.0));
  };
  return a * suppression(background.omega_matter_at(a), background.omega_lambda_at(a)) /
         suppression(parameters.omega_m, parameters.omega_l);
}

// ---------------------------------------------------------------------------------------------
// FriedmannTable
// ---------------------------------------------------------------------------------------------

FriedmannTable::FriedmannTable(const Background& background, double a_min, double a_max, int n_intervals)
    : background_(background) {
  KOSMO_REQUIRE(a_min > 0.0 && a_min < a_max, "cosmology: Friedmann table needs 0 < a_min < a_max (got " << a_min
                                                                                                        << ", " << a_max << ")");
  KOSMO_REQUIRE(n_intervals >= 1, "cosmology: Friedmann table needs at least one interval");
  const std::size_t n_entries = static_cast<std::size_t>(n_intervals) + 1;
  expansion_factors_.resize(n_entries);
  hubble_parameters_.resize(n_entries);
  super_comoving_times_.resize(n_entries);
  cosmic_times_.resize(n_entries);
  // Today (a = 1, where tau = 0 and t = t0 by definition) is an entry when the table spans it: the
  // intervals above and below it are equal in ln a on each side (within one interval of the same
  // width on both), so time_at(1) is exactly 0 and aexp_at(0) exactly 1, and a run to a = 1 ends
  // with aexp = 1 and z = 0 in its outputs (Hermite interpolation reproduces the entries exactly).
  const double log_max = std::log(a_max), log_min = std::log(a_min);
  std::size_t today = 0;
  if (a_min < 1.0 && a_max > 1.0 && n_intervals >= 2)
    today = std::clamp<std::size_t>(static_cast<std::size_t>(std::lround(n_intervals * log_max / (log_max - log_min))), 1,
                                    n_entries - 2);
  for (std::size_t i = 0; i < n_entries; ++i) {
    if (i < today) {
      expansion_factors_[i] = std::exp(log_max * (1.0 - static_cast<double>(i) / static_cast<double>(today)));
    } else if (today > 0) {
      expansion_factors_[i] = std::exp(log_min * static_cast<double>(i - today) / static_cast<double>(n_entries - 1 - today));
    } else {
      expansion_factors_[i] = std::exp(log_max + static_cast<double>(i) / n_intervals * (log_min - log_max));
    }
  }
  expansion_factors_[0] = a_max;
  expansion_factors_[n_entries - 1] = a_min;
  if (today > 0) expansion_factors_[today] = 1.0;
  // The anchor entry directly (0 at a = 1), then each interval outwards from it by one 16-point
  // Gauss-Legendre panel in s = sqrt(a) (the integrands are smooth in s and the panels short, so
  // each is exact to round-off).
  super_comoving_times_[today] = today > 0 ? 0.0 : background_.super_comoving_time(a_max);
  cosmic_times_[today] = today > 0 ? 0.0 : background_.cosmic_time(a_max) - background_.age();
  // dtau = 2 ds / (s^5 E) and dt = 2 ds / (s E) at a = s^2.
  const auto tau_integrand = [this](double s) {
    const double s2 = s * s;
    return 2.0 / (s2 * s2 * s * background_.hubble_ratio(s2));
  };
  const auto time_integrand = [this](double s) { return 2.0 / (s * background_.hubble_ratio(s * s)); };
  for (std::size_t i = 0; i < n_entries; ++i) {
    const double a = expansion_factors_[i];
    hubble_parameters_[i] = a * a * background_.hubble_ratio(a);
  }
  for (std::size_t i = today + 1; i < n_entries; ++i) {  // down from the anchor
    const double s_hi = std::sqrt(expansion_factors_[i - 1]), s_lo = std::sqrt(expansion_factors_[i]);
    super_comoving_times_[i] = super_comoving_times_[i - 1] - gauss_legendre(tau_integrand, s_lo, s_hi);
    cosmic_times_[i] = cosmic_times_[i - 1] - gauss_legendre(time_integrand, s_lo, s_hi);
  }
  for (std::size_t i = today; i-- > 0;) {  // up from the anchor
    const double s_hi = std::sqrt(expansion_factors_[i]), s_lo = std::sqrt(expansion_factors_[i + 1]);
    super_comoving_times_[i] = super_comoving_times_[i + 1] + gauss_legendre(tau_integrand, s_lo, s_hi);
    cosmic_times_[i] = cosmic_times_[i + 1] + gauss_legendre(time_integrand, s_lo, s_hi);
  }
}

std::size_t FriedmannTable::interval_of_time(double tau) const {
  KOSMO_REQUIRE(tau >= tau_min() && tau <= tau_max(),
                "cosmology: super-comoving time " << tau << " outside the Friedmann table [" << tau_min() << ", "
                                                  << tau_max() << "]");
  // Decreasing column: the first entry below tau closes the interval [i-1, i].
  const auto it = std::upper_bound(super_comoving_times_.begin(), super_comoving_times_.end(), tau, std::greater<>());
  const std::size_t i = static_cast<std::size_t>(it - super_comoving_times_.begin());
  return std::clamp<std::size_t>(i, 1, super_comoving_times_.size() - 1);
}

std::size_t FriedmannTable::interval_of_expansion_factor(double a) const {
  KOSMO_REQUIRE(a >= a_min() && a <= a_max(), "cosmology: expansion factor " << a << " outside the Friedmann table ["
                                                                             << a_min() << ", " << a_max() << "]");
  const auto it = std::upper_bound(expansion_factors_.begin(), expansion_factors_.end(), a, std::greater<>());
  const std::size_t i = static_cast<std::size_t>(it - expansion_factors_.begin());
  return std::clamp<std::size_t>(i, 1, expansion_factors_.size() - 1);
}

double FriedmannTable::super_comoving_time_at(double a) const {
  const std::size_t i = interval_of_expansion_factor(a);
  // dtau/da = 1 / (a^3 E) = 1 / (a hexp).
  const double a0 = expansion_factors_[i - 1], a1 = expansion_factors_[i];
  return hermite(a, a0, a1, super_comoving_times_[i - 1], super_comoving_times_[i], 1.0 / (a0 * hubble_parameters_[i - 1]),
                 1.0 / (a1 * hubble_parameters_[i]));
}

double FriedmannTable::expansion_factor_at(double tau) const {
  const std::size_t i = interval_of_time(tau);
  // da/dtau = a hexp.
  return hermite(tau, super_comoving_times_[i - 1], super_comoving_times_[i], expansion_factors_[i - 1],
                 expansion_factors_[i], expansion_factors_[i - 1] * hubble_parameters_[i - 1],
                 expansion_factors_[i] * hubble_parameters_[i]);
}

double FriedmannTable::hubble_parameter_at(double tau) const {
  const double a = expansion_factor_at(tau);
  return a * a * background_.hubble_ratio(a);
}

double FriedmannTable::cosmic_time_at(double tau) const {
  const std::size_t i = interval_of_time(tau);
  // dt/dtau = a^2.
  const double a0 = expansion_factors_[i - 1], a1 = expansion_factors_[i];
  return hermite(tau, super_comoving_times_[i - 1], super_comoving_times_[i], cosmic_times_[i - 1], cosmic_times_[i],
                 a0 * a0, a1 * a1);
}

// ---------------------------------------------------------------------------------------------
// Eisenstein & Hu (1998)
// ---------------------------------------------------------------------------------------------

EisensteinHuTransfer::EisensteinHuTransfer(const CosmologyParameters& parameters, double t_cmb) {
  validate(parameters);
  KOSMO_REQUIRE(t_cmb > 0.0, "cosmology: CMB temperature must be positive (got " << t_cmb << ")");
  hubble_ = parameters.h0 / 100.0;
  omega_m_ = parameters.omega_m;
  omega_m_h2_ = parameters.omega_m * hubble_ * hubble_;
  const double omega_b_h2 = parameters.omega_b * hubble_ * hubble_;
  baryon_fraction_ = parameters.omega_b / parameters.omega_m;
  theta_cmb_ = t_cmb / 2.7;
  const double theta2 = theta_cmb_ * theta_cmb_, theta4 = theta2 * theta2;
  const double fb = baryon_fraction_, fc = 1.0 - fb;

  // Eqs. 2-3: matter-radiation equality (1 + z_eq) and its horizon wavenumber (1/Mpc).
  redshift_equality_ = 2.50e4 * omega_m_h2_ / theta4;
  wavenumber_equality_ = 7.46e-2 * omega_m_h2_ / theta2;
  // Eq. 4: drag epoch.
  const double b1 = 0.313 * std::pow(omega_m_h2_, -0.419) * (1.0 + 0.607 * std::pow(omega_m_h2_, 0.674));
  const double b2 = 0.238 * std::pow(omega_m_h2_, 0.223);
  redshift_drag_ = 1291.0 * std::pow(omega_m_h2_, 0.251) / (1.0 + 0.659 * std::pow(omega_m_h2_, 0.828)) *
                   (1.0 + b1 * std::pow(omega_b_h2, b2));
  // Eq. 26: fitted sound horizon, used by the no-wiggle form (valid also for omega_b = 0).
  sound_horizon_fit_ = 44.5 * std::log(9.83 / omega_m_h2_) / std::sqrt(1.0 + 10.0 * std::pow(omega_b_h2, 0.75));
  // Eq. 31: alpha_Gamma of the no-wiggle form.
  alpha_gamma_ = 1.0 - 0.328 * std::log(431.0 * omega_m_h2_) * fb + 0.38 * std::log(22.3 * omega_m_h2_) * fb * fb;
  if (omega_b_h2 <= 0.0) return;  // the full formula below needs baryons

  // Eq. 5: baryon-to-photon momentum density ratio R = 31.5 omega_b h^2 theta^-4 (z / 10^3)^-1.
  const double ratio_drag = 31.5 * omega_b_h2 / theta4 * (1000.0 / (1.0 + redshift_drag_));
  const double ratio_equality = 31.5 * omega_b_h2 / theta4 * (1000.0 / redshift_equality_);
  // Eq. 6: sound horizon at the drag epoch (Mpc).
  sound_horizon_ = 2.0 / (3.0 * wavenumber_equality_) * std::sqrt(6.0 / ratio_equality) *
                   std::log((std::sqrt(1.0 + ratio_drag) + std::sqrt(ratio_drag + ratio_equality)) /
                            (1.0 + std::sqrt(ratio_equality)));
  // Eq. 7: Silk damping wavenumber (1/Mpc).
  silk_wavenumber_ = 1.6 * std::pow(omega_b_h2, 0.52) * std::pow(omega_m_h2_, 0.73) *
                     (1.0 + std::pow(10.4 * omega_m_h2_, -0.95));
  // Eq. 11: CDM suppression alpha_c.
  const double a1 = std::pow(46.9 * omega_m_h2_, 0.670) * (1.0 + std::pow(32.1 * omega_m_h2_, -0.532));
  const double a2 = std::pow(12.0 * omega_m_h2_, 0.424) * (1.0 + std::pow(45.0 * omega_m_h2_, -0.582));
  alpha_c_ = std::pow(a1, -fb) * std::pow(a2, -fb * fb * fb);
  // Eq. 12: CDM log shift beta_c.
  const double bb1 = 0.944 / (1.0 + std::pow(458.0 * omega_m_h2_, -0.708));
  const double bb2 = std::pow(0.395 * omega_m_h2_, -0.0266);
  beta_c_ = 1.0 / (1.0 + bb1 * (std::pow(fc, bb2) - 1.0));
  // Eqs. 14-15: baryon amplitude alpha_b with G(y), y = (1 + z_eq) / (1 + z_d).
  const double y = redshift_equality_ / (1.0 + redshift_drag_);
  const double root = std::sqrt(1.0 + y);
  const double g_of_y = y * (-6.0 * root + (2.0 + 3.0 * y) * std::log((root + 1.0) / (root - 1.0)));
  alpha_b_ = 2.07 * wavenumber_equality_ * sound_horizon_ * std::pow(1.0 + ratio_drag, -0.75) * g_of_y;
  // Eq. 24: baryon velocity overshoot beta_b; eq. 23: node shift beta_node.
  beta_b_ = 0.5 + fb + (3.0 - 2.0 * fb) * std::sqrt(std::pow(17.2 * omega_m_h2_, 2) + 1.0);
  beta_node_ = 8.41 * std::pow(omega_m_h2_, 0.435);
}

double EisensteinHuTransfer::transfer(double k_h_per_mpc) const {
  KOSMO_REQUIRE(sound_horizon_ > 0.0, "cosmology: the Eisenstein & Hu transfer function with baryons needs omega_b > 0");
  KOSMO_REQUIRE(k_h_per_mpc > 0.0, "cosmology: wavenumber must be positive (got " << k_h_per_mpc << ")");
  const double k = k_h_per_mpc * hubble_;  // 1/Mpc
  // Eq. 10.
  const double q = k / (13.41 * wavenumber_equality_);
  const double ks = k * sound_horizon_;
  // Eqs. 19-20: T0(k, alpha_c, beta_c).
  const auto pressureless = [q](double alpha, double beta) {
    const double logarithm = std::log(euler_e + 1.8 * beta * q);
    const double c = 14.2 / alpha + 386.0 / (1.0 + 69.9 * std::pow(q, 1.08));
    return logarithm / (logarithm + c * q * q);
  };
  // Eqs. 17-18: CDM part interpolating between beta_c-shifted forms with and without alpha_c.
  const double f = 1.0 / (1.0 + std::pow(ks / 5.4, 4));
  const double transfer_cdm = f * pressureless(1.0, beta_c_) + (1.0 - f) * pressureless(alpha_c_, beta_c_);
  // Eqs. 21-22: baryon part, acoustic oscillation at the shifted sound horizon, Silk damped.
  const double shifted_horizon = sound_horizon_ / std::cbrt(1.0 + std::pow(beta_node_ / ks, 3));
  const double x = k * shifted_horizon;
  const double sinc = std::sin(x) / x;
  const double transfer_baryon =
      sinc * (pressureless(1.0, 1.0) / (1.0 + std::pow(ks / 5.2, 2)) +
              alpha_b_ / (1.0 + std::pow(beta_b_ / ks, 3)) * std::exp(-std::pow(k / silk_wavenumber_, 1.4)));
  // Eq. 16.
  return baryon_fraction_ * transfer_baryon + (1.0 - baryon_fraction_) * transfer_cdm;
}

double EisensteinHuTransfer::transfer_no_wiggle(double k_h_per_mpc) const {
  KOSMO_REQUIRE(k_h_per_mpc > 0.0, "cosmology: wavenumber must be positive (got " << k_h_per_mpc << ")");
  const double k = k_h_per_mpc * hubble_;  // 1/Mpc
  // Eq. 30: Gamma_eff (here Omega_m h^2 with k in 1/Mpc, i.e. Omega_m h with k in h/Mpc); eq. 28: q.
  const double gamma_effective =
      omega_m_h2_ * (alpha_gamma_ + (1.0 - alpha_gamma_) / (1.0 + std::pow(0.43 * k * sound_horizon_fit_, 4)));
  const double q = k * theta_cmb_ * theta_cmb_ / gamma_effective;
  // Eq. 29.
  const double logarithm = std::log(2.0 * euler_e + 1.8 * q);
  const double c = 14.2 + 731.0 / (1.0 + 62.5 * q);
  return logarithm / (logarithm + c * q * q);
}

// ---------------------------------------------------------------------------------------------
// Linear power spectrum
// ---------------------------------------------------------------------------------------------

double top_hat_window(double x) {
  if (std::abs(x) < 1e-2) {
    const double x2 = x * x;
    return 1.0 - x2 / 10.0 + x2 * x2 / 280.0;
  }
  return 3.0 * (std::sin(x) - x * std::cos(x)) / (x * x * x);
}

double top_hat_variance(const std::function<double(double)>& power, double radius, double x_max) {
  KOSMO_REQUIRE(radius > 0.0, "cosmology: top-hat radius must be positive (got " << radius << ")");
  // dsigma^2 = k^3 P(k) W^2(kR) / (2 pi^2) d ln k.
  const auto per_log_k = [&](double log_x) {
    const double x = std::exp(log_x), k = x / radius, w = top_hat_window(x);
    return k * k * k * power(k) * w * w;
  };
  const auto per_k = [&](double x) {
    const double k = x / radius, w = top_hat_window(x);
    return k * k * power(k) * w * w / radius;
  };
  // Large scales: x = kR from 1e-8 to 1 in ln x (P grows at most as k^1 there, so the part below
  // 1e-8 is < 1e-30 of the total); small scales: panels of width pi in x (one half-oscillation of W).
  // Each panel is refined adaptively to 1e-13 of the total so far, so features of P(k) narrower than
  // a panel (the baryon oscillations of EisensteinHuTransfer are ~0.5 / R wide) are resolved.
  double sum = integrate(per_log_k, std::log(1e-8), 0.0, 1e-13);
  for (double x = 1.0; x < x_max; x += pi) {
    const double end = std::min(x + pi, x_max);
    sum += adaptive_integral(per_k, x, end, gauss_legendre(per_k, x, end), 1e-13 * std::abs(sum), 30);
  }
  return sum / (2.0 * pi * pi);
}

LinearPowerSpectrum::LinearPowerSpectrum(const CosmologyParameters& parameters, double n_s, double sigma8,
                                         TransferModel model, double t_cmb)
    : background_(parameters), transfer_(parameters, t_cmb), model_(model), n_s_(n_s) {
  KOSMO_REQUIRE(sigma8 > 0.0, "cosmology: sigma8 must be positive (got " << sigma8 << ")");
  amplitude_ = 1.0;
  const double variance = top_hat_variance([this](double k) { return power(k); }, 8.0);
  amplitude_ = sigma8 * sigma8 / variance;
}

double LinearPowerSpectrum::transfer(double k_h_per_mpc) const {
  return model_ == TransferModel::eisenstein_hu_baryons ? transfer_.transfer(k_h_per_mpc)
                                                         : transfer_.transfer_no_wiggle(k_h_per_mpc);
}

double LinearPowerSpectrum::power(double k_h_per_mpc, double a) const {
  const double t = transfer(k_h_per_mpc);
  const double growth = a == 1.0 ? 1.0 : background_.growth_factor(a);
  return amplitude_ * std::pow(k_h_per_mpc, n_s_) * t * t * growth * growth;
}

double LinearPowerSpectrum::sigma(double radius_mpc_per_h, double a) const {
  const double growth = a == 1.0 ? 1.0 : background_.growth_factor(a);
  return growth * std::sqrt(top_hat_variance([this](double k) { return power(k); }, radius_mpc_per_h));
}

}  // namespace kosmo::cosmology
