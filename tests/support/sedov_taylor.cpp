// The Sedov-Taylor similarity solution, integrated once per (D, gamma) and tabulated.
//
// With rho = rho0 G, v = Rdot U, p = rho0 Rdot^2 P, lambda = r / R and R ~ t^a, a = 2 / (D + 2), the
// Euler equations become (Sedov 1959, ch. IV, in these normalised variables; W = U - lambda):
//   mass      W G' + G U' + (D - 1) G U / lambda = 0
//   momentum  W U' + P' / G = m U,                 m = (1 - a) / a
//   entropy   W (P' / P - gamma G' / G) = 2 m,      (P G^-gamma is constant along a fluid path)
// Solved for U' = x, G' / G = y and P' / P = z:
//   x = (m U W - 2 m P / G + (D - 1) c^2 U / lambda) / (W^2 - c^2),  c^2 = gamma P / G,
//   y = -((D - 1) U / lambda + x) / W,  z = 2 m / W + gamma y.
// The integration runs in s = ln(lambda) with ln G and ln P as unknowns, which keeps the steep
// density near the centre (G ~ lambda^(D / (gamma - 1))) well resolved. Integrated inward, the U
// equation has a growing mode ~ lambda^(1 - D) (the solution singular at the centre), so U is taken
// from the energy integral instead, which has a simple root there.
#include "support/sedov_taylor.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace kosmo::test_support {
namespace {

constexpr double kStep = 1.0 / 1024.0;   // in s = ln(lambda)
constexpr double kSmallestS = -20.0;     // lambda ~ 2e-9
constexpr double kSmallestLnG = -500.0;  // stop before G underflows (gamma close to 1)

}  // namespace

SedovTaylor::SedovTaylor(int dimension, double gamma, double rho0, double energy)
    : dimension_(dimension), gamma_(gamma), rho0_(rho0), energy_(energy) {
  KOSMO_REQUIRE(dimension >= 1 && dimension <= 3,
                "SedovTaylor: dimension must be 1 (planar), 2 (cylindrical) or 3 (spherical), got " << dimension);
  KOSMO_REQUIRE(gamma > 1.0, "SedovTaylor: gamma must exceed 1, got " << gamma);
  KOSMO_REQUIRE(rho0 > 0.0 && energy > 0.0,
                "SedovTaylor: rho0 and the energy must be positive, got " << rho0 << " and " << energy);

  // Strong-shock jump conditions at lambda = 1.
  double ln_g = std::log((gamma + 1.0) / (gamma - 1.0));
  double ln_p = std::log(2.0 / (gamma + 1.0));
  double u = 2.0 / (gamma + 1.0);
  const int d = dimension;
  auto energy_density = [this, d](const Node& n, double s) {
    const double g = std::exp(n.ln_g), p = std::exp(n.ln_p);
    return (0.5 * g * n.u * n.u + p / (gamma_ - 1.0)) * std::exp(d * s);  // times lambda^(D-1) dlambda / ds
  };

  double integral = 0.0;  // int_lambda^1 (G U^2 / 2 + P / (gamma - 1)) lambda^(D-1) dlambda
  double s = 0.0;
  table_.push_back(derivatives(s, ln_g, ln_p, u));
  while (s > kSmallestS + 0.5 * kStep && ln_g > kSmallestLnG) {
    // Classical RK4 for (ln G, ln P) and the energy integral, stepping s -> s - h; U follows them.
    const double h = -kStep;
    const Node k1 = derivatives(s, ln_g, ln_p, u);
    const Node k2 = derivatives(s + 0.5 * h, ln_g + 0.5 * h * k1.dln_g, ln_p + 0.5 * h * k1.dln_p, u);
    const Node k3 = derivatives(s + 0.5 * h, ln_g + 0.5 * h * k2.dln_g, ln_p + 0.5 * h * k2.dln_p, u);
    const Node k4 = derivatives(s + h, ln_g + h * k3.dln_g, ln_p + h * k3.dln_p, u);
    integral += kStep / 6.0 *
                (energy_density(k1, s) + 2.0 * energy_density(k2, s + 0.5 * h) + 2.0 * energy_density(k3, s + 0.5 * h) +
                 energy_density(k4, s + h));
    ln_g += h / 6.0 * (k1.dln_g + 2.0 * k2.dln_g + 2.0 * k3.dln_g + k4.dln_g);
    ln_p += h / 6.0 * (k1.dln_p + 2.0 * k2.dln_p + 2.0 * k3.dln_p + k4.dln_p);
    s += h;
    table_.push_back(derivatives(s, ln_g, ln_p, k4.u));
    u = table_.back().u;
  }
  // The core below the table: pressure uniform, kinetic energy negligible.
  integral += std::exp(table_.back().ln_p) / (gamma - 1.0) * std::exp(d * s) / d;

  const double sigma = d == 1 ? 2.0 : d == 2 ? 2.0 * std::numbers::pi : 4.0 * std::numbers::pi;
  const double a = 2.0 / (d + 2.0);
  xi0_ = std::pow(sigma * a * a * integral, -1.0 / (d + 2.0));
}

SedovTaylor::Node SedovTaylor::derivatives(double s, double ln_g, double ln_p, double u_guess) const {
  const double lambda = std::exp(s);
  const double g = std::exp(ln_g);
  const double p = std::exp(ln_p);
  const double gm1 = gamma_ - 1.0;
  // U from the energy integral f(U) = (G U^2 / 2 + P / (gamma - 1)) (lambda - U) - P U = 0, by Newton.
  double u = u_guess;
  bool converged = false;
  for (int iteration = 0; iteration < 60 && !converged; ++iteration) {
    const double e = 0.5 * g * u * u + p / gm1;
    const double f = e * (lambda - u) - p * u;
    const double df = g * u * (lambda - u) - e - p;
    const double du = f / df;
    u -= du;
    converged = std::fabs(du) <= 1e-15 * lambda;
  }
  KOSMO_REQUIRE(converged,
                "SedovTaylor: the energy integral has no root near U = " << u_guess << " at lambda = " << lambda);
  const int d = dimension_;
  const double m = 0.5 * d;  // (1 - a) / a with a = 2 / (D + 2)
  const double w = u - lambda;
  const double q = std::exp(ln_p - ln_g);  // P / G without overflow
  const double c2 = gamma_ * q;
  const double x = (m * u * w - 2.0 * m * q + (d - 1) * c2 * u / lambda) / (w * w - c2);
  const double y = -((d - 1) * u / lambda + x) / w;
  const double z = 2.0 * m / w + gamma_ * y;
  return {ln_g, ln_p, u, lambda * y, lambda * z, lambda * x};
}

double SedovTaylor::shock_radius(double t) const {
  KOSMO_REQUIRE(t >= 0.0, "SedovTaylor: time must not be negative, got " << t);
  return xi0_ * std::pow(energy_ * t * t / rho0_, 1.0 / (dimension_ + 2.0));
}

double SedovTaylor::shock_speed(double t) const {
  KOSMO_REQUIRE(t > 0.0, "SedovTaylor: the shock speed needs t > 0, got " << t);
  return 2.0 / (dimension_ + 2.0) * shock_radius(t) / t;
}

double SedovTaylor::time_at_radius(double radius) const {
  KOSMO_REQUIRE(radius >= 0.0, "SedovTaylor: radius must not be negative, got " << radius);
  return std::sqrt(std::pow(radius / xi0_, dimension_ + 2.0) * rho0_ / energy_);
}

SedovTaylor::State SedovTaylor::similarity(double lambda) const {
  KOSMO_REQUIRE(lambda >= 0.0 && lambda <= 1.0, "SedovTaylor: lambda = r / R must lie in [0, 1], got " << lambda);
  const Node& last = table_.back();
  const double s_last = -kStep * static_cast<double>(table_.size() - 1);
  if (lambda == 0.0) return {0.0, 0.0, std::exp(last.ln_p)};
  const double s = std::log(lambda);
  if (s <= s_last) {
    // The asymptotic core: U grows linearly, P is uniform, G is a power of lambda.
    return {std::exp(last.ln_g + last.dln_g * (s - s_last)), last.u * std::exp(s - s_last), std::exp(last.ln_p)};
  }
  // Cubic Hermite between nodes k (s_k = -k h) and k + 1, parameter t from 0 to 1 as s decreases.
  const double position = -s / kStep;
  const auto k = std::min(static_cast<std::size_t>(position), table_.size() - 2);
  const double t = position - static_cast<double>(k);
  const double h00 = (1.0 + 2.0 * t) * (1.0 - t) * (1.0 - t), h10 = t * (1.0 - t) * (1.0 - t);
  const double h01 = t * t * (3.0 - 2.0 * t), h11 = t * t * (t - 1.0);
  const Node& a = table_[k];
  const Node& b = table_[k + 1];
  auto hermite = [&](double ya, double dya, double yb, double dyb) {
    return h00 * ya + h10 * (-kStep * dya) + h01 * yb + h11 * (-kStep * dyb);
  };
  return {std::exp(hermite(a.ln_g, a.dln_g, b.ln_g, b.dln_g)), hermite(a.u, a.du, b.u, b.du),
          std::exp(hermite(a.ln_p, a.dln_p, b.ln_p, b.dln_p))};
}

SedovTaylor::State SedovTaylor::state(double r, double t) const {
  KOSMO_REQUIRE(r >= 0.0 && t > 0.0, "SedovTaylor: need r >= 0 and t > 0, got r = " << r << ", t = " << t);
  const double radius = shock_radius(t);
  if (r > radius) return {rho0_, 0.0, 0.0};
  const double speed = shock_speed(t);
  const State f = similarity(r / radius);
  return {rho0_ * f.density, speed * f.velocity, rho0_ * speed * speed * f.pressure};
}

}  // namespace kosmo::test_support
