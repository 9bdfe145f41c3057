// A stratified gas disc in the vertical field of gravity_type 3 (kosmo's port of the set-up of
// RAMSES' tests/poisson/ana-disk-potential; README.md says what differs and why).
//
// Density: RAMSES' Gaussian profile along the last axis (y in 2-D), rho = rho0 exp(-z^2 / (2 h^2)),
// z the height above the box's mid-plane, rho0 = 0.66 and h = 150 in code units (pc).
// Pressure: the hydrostatic one in the disc field, P(z) = P_top + integral from |z| to boxlen/2 of
// rho(s) g(s) ds with g(s) = a1 s / sqrt(s^2 + z0^2) + a2 s (docs/gravity.md), and P_top the
// pressure of gas at T0 = 8000 K at the box's edge. RAMSES sets P = rho kB T0 / (mu mH)
// everywhere, which holds the disc up only with its cooling, which kosmo does not have yet.
#include <cmath>

#include "kosmo/patch.hpp"

namespace {

namespace constants = kosmo_patch_constants;

constexpr double central_density = 0.66;     // rho0, code units
constexpr double disc_height = 150.0;        // h, code length units
constexpr double edge_temperature = 8000.0;  // T0, K
constexpr double default_mu_gas = 1.4;       // &COOLING_PARAMS mu_gas of the RAMSES set-up

struct DiscField {
  double a1, a2, z0;  // code units
  double magnitude(double s) const { return a1 * s / std::sqrt(s * s + z0 * z0) + a2 * s; }
};

double real_parameter(const kosmo_patch_context* context, const char* block, const char* key, int index, double fallback) {
  double value = fallback;
  context->get_real(context, block, key, index, &value);
  return value;
}

// gravity_params (a1 [kpc/Myr^2], a2 [1/Myr^2], z0 [pc]) in code units, as gravity_type 3 converts them.
DiscField disc_field(const kosmo_patch_context* context) {
  const double a1 = real_parameter(context, "POISSON_PARAMS", "gravity_params", 1, 1.42e-3);
  const double a2 = real_parameter(context, "POISSON_PARAMS", "gravity_params", 2, 5.49e-4);
  const double z0 = real_parameter(context, "POISSON_PARAMS", "gravity_params", 3, 180.0);
  const double time2 = context->units_time * context->units_time;
  const double megayear2 = constants::megayear * constants::megayear;
  return {a1 * constants::kiloparsec / megayear2 / context->units_length * time2, a2 / megayear2 * time2,
          z0 * constants::parsec / context->units_length};
}

double density(double z) { return central_density * std::exp(-z * z / (2.0 * disc_height * disc_height)); }

// Simpson's rule with enough intervals that the quadrature error (~1e-12 relative) is far below
// the scheme's truncation error.
double hydrostatic_pressure(double z, double half_box, const DiscField& field, double edge_pressure) {
  const double start = std::fabs(z);
  if (start >= half_box) return edge_pressure;
  constexpr int intervals = 2000;
  const double step = (half_box - start) / intervals;
  auto integrand = [&](double s) { return density(s) * field.magnitude(s); };
  double sum = integrand(start) + integrand(half_box);
  for (int k = 1; k < intervals; ++k) sum += (k % 2 ? 4.0 : 2.0) * integrand(start + k * step);
  return edge_pressure + sum * step / 3.0;
}

}  // namespace

extern "C" void kosmo_patch_condinit(const kosmo_patch_context* context, int ncell, const double* x, double /*dx*/, double* q) {
  const int ndim = context->ndim;
  const double half_box = 0.5 * context->boxlen;
  const DiscField field = disc_field(context);
  const double mu_gas = real_parameter(context, "COOLING_PARAMS", "mu_gas", 1, default_mu_gas);
  const double velocity_unit = context->units_length / context->units_time;
  // kB T0 / (mu mH): the squared isothermal sound speed at T0, in code units.
  const double edge_sound_speed2 = constants::boltzmann * edge_temperature / (mu_gas * constants::hydrogen_mass) / (velocity_unit * velocity_unit);
  const double edge_pressure = density(half_box) * edge_sound_speed2;
  for (int i = 0; i < ncell; ++i) {
    const double z = x[(ndim - 1) * ncell + i] - half_box;  // the last axis is vertical
    q[0 * ncell + i] = density(z);
    // Velocities and passive scalars keep the &INIT_PARAMS state (at rest without regions).
    q[(ndim + 1) * ncell + i] = hydrostatic_pressure(z, half_box, field, edge_pressure);
  }
}
