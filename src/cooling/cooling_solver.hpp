#pragma once
// Implicit integration of one cell's temperature at constant density over a time step
// (docs/galaxy.md, "Cooling"; RAMSES solve_cooling integrates the same equation implicitly with
// substeps). The internal energy per volume n_H k T2 / (X (gamma - 1)) changes by -n_H^2 lambda_net,
// so
//     dT2/dt = -(gamma - 1) X n_H lambda_net(n_H, T2, Z) / k_B.
// Each substep is TR-BDF2 (Bank et al. 1985): a trapezoidal stage to gamma h, gamma = 2 - sqrt 2,
// then a BDF2 stage to h; second order and L-stable, so a step much longer than the cooling time
// settles on the equilibrium temperature without oscillating. Each implicit stage is a scalar
// equation solved by Newton-Raphson on T2 with a bisection safeguard. Substeps follow the local
// error (integrate_temperature).
#include <algorithm>
#include <cmath>

#include "cooling/cooling_table.hpp"

namespace kosmo::cooling {

struct CoolingStepResult {
  double t2 = 0.0;       // T2 at the end of the step, K
  double heating = 0.0;  // T2 gained from photo- and Compton heating over the step, K
  int substeps = 0;
};

struct CoolingSolverSettings {
  double gamma = 5.0 / 3.0;
  double max_change = 0.05;  // the first substep's relative change of T2
  double tolerance = 2e-4;   // local error per substep, relative to T2
  double t2_floor = 1e-2;  // RAMSES T2_min_fix
};

// dT2/dt [K/s], its heating part and its derivative in T2.
struct TemperatureRate {
  double rate = 0.0, heating = 0.0, derivative = 0.0;
};

// The primordial rates' dT2/dt of a cell: table read at n_h_lookup (the cell's n_H divided by the
// self-shielding factor), time scale and Compton term from its own n_h [1/cm^3], Z in solar units.
TemperatureRate primordial_temperature_rate(const CoolingTable& table, double gamma, double n_h_lookup, double n_h, double t2,
                                            double metallicity);

namespace detail {

// The root of y - c f(y) = r for y >= floor: Newton-Raphson from `guess`, which converges in a few
// iterations from the previous stage's value; should it leave the positive values or stall, the
// root is bracketed and found by Newton steps kept inside a bracket that every evaluation narrows,
// bisecting (geometrically) when a step leaves it.
template <class Rate>
double solve_stage(const Rate& rate, double floor, double c, double r, double guess) {
  auto g = [&](double y, double& dg) {
    const TemperatureRate f = rate(y);
    dg = 1.0 - c * f.derivative;
    return y - c * f.rate - r;
  };
  double dg;
  double y = std::max(guess, floor);
  for (int iteration = 0; iteration < 12; ++iteration) {
    const double value = g(y, dg);
    if (!(dg > 0.0)) break;
    const double next = y - value / dg;
    if (!(next > 0.5 * y && next < 2.0 * y)) break;  // a large jump: leave it to the bracketed search
    if (std::fabs(next - y) <= 1e-12 * y) return std::max(next, floor);
    y = next;
  }
  if (g(floor, dg) >= 0.0) return floor;
  double lo = floor, hi = std::max({r, guess, floor}) * 2.0;
  while (g(hi, dg) < 0.0 && hi < 1e15) hi *= 4.0;
  y = std::clamp(guess, lo, hi);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double value = g(y, dg);
    if (value == 0.0) return y;
    (value < 0.0 ? lo : hi) = y;
    double next = dg > 0.0 ? y - value / dg : -1.0;
    if (!(next > lo && next < hi)) next = std::sqrt(lo * hi);
    if (std::fabs(next - y) <= 1e-13 * y || (hi - lo) <= 1e-13 * hi) return next;
    y = next;
  }
  return y;
}

}  // namespace detail

// T2 after dt seconds of dT2/dt = rate(T2).rate, from t2. The first substep changes T2 by about
// max_change; later ones follow the local error, estimated by the difference between TR-BDF2 and
// the trapezoidal rule on the same end points, filtered by (1 - d h J)^-1 (J = dRate/dT2 at the end)
// so that stiff, equilibrated cells are not held back (Hosea & Shampine 1996), against
// `tolerance` T2.
template <class Rate>
CoolingStepResult integrate_temperature(const Rate& rate, const CoolingSolverSettings& settings, double t2, double dt) {
  // TR-BDF2 constants: the trapezoidal stage's end gamma, the BDF2 stage's implicit weight d and the
  // method's quadrature weights (w, w, d) on the rates at 0, gamma h and h.
  const double tr_gamma = 2.0 - std::sqrt(2.0);
  const double bdf_weight = (1.0 - tr_gamma) / (2.0 - tr_gamma);
  const double stage_weight = 0.5 * (1.0 - bdf_weight);
  CoolingStepResult result;
  double y = std::max(t2, settings.t2_floor);
  double elapsed = 0.0;
  TemperatureRate f0 = rate(y);
  double h = f0.rate != 0.0 ? settings.max_change * y / std::fabs(f0.rate) : dt;
  while (elapsed < dt) {
    const bool last = dt - elapsed - h <= 1e-12 * dt;
    if (last) h = dt - elapsed;
    const double y1 = detail::solve_stage(rate, settings.t2_floor, 0.5 * tr_gamma * h, y + 0.5 * tr_gamma * h * f0.rate, y);
    const double rhs = (y1 - (1.0 - tr_gamma) * (1.0 - tr_gamma) * y) / (tr_gamma * (2.0 - tr_gamma));
    const double y2 = detail::solve_stage(rate, settings.t2_floor, bdf_weight * h, rhs, y1);
    const TemperatureRate f1 = rate(y1), f2 = rate(y2);
    const double filter = std::max(1.0, 1.0 - bdf_weight * h * f2.derivative);
    const double estimate = std::fabs(y2 - (y + 0.5 * h * (f0.rate + f2.rate))) / filter;
    const double error = estimate / (settings.tolerance * std::max(y2, settings.t2_floor));
    const double factor = 0.9 * std::pow(std::max(error, 1e-12), -1.0 / 3.0);
    if (error > 1.0 && h > 1e-12 * dt) {  // rejected: retry shorter
      h *= std::max(0.2, factor);
      continue;
    }
    result.heating += h * (stage_weight * (f0.heating + f1.heating) + bdf_weight * f2.heating);
    y = y2;
    f0 = f2;
    elapsed = last ? dt : elapsed + h;
    ++result.substeps;
    h *= std::min(4.0, factor);
  }
  result.t2 = y;
  return result;
}

}  // namespace kosmo::cooling
