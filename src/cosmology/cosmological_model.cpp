#include "cosmology/cosmological_model.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace kosmo::cosmology {
namespace {

constexpr double megaparsec_cm = 3.0856776e24;   // RAMSES units.f90
constexpr double critical_density_h2 = 1.8800000e-29;  // g/cm^3 for h = 1 (RAMSES rhoc = 1.88e-29)
constexpr double hydrogen_mass_g = 1.6600000e-24;      // RAMSES mH
constexpr double boltzmann_cgs = 1.3806200e-16;        // RAMSES kB

}  // namespace

CosmologicalModel::CosmologicalModel(const CosmologyParameters& parameters, double boxlen_mpc_h, double a_min,
                                     double a_max)
    : parameters_(parameters), boxlen_mpc_h_(boxlen_mpc_h), background_(parameters) {
  KOSMO_REQUIRE(boxlen_mpc_h > 0.0, "cosmology: the comoving box size must be positive (boxlen_ini=" << boxlen_mpc_h << ")");
  KOSMO_REQUIRE(a_min > 0.0 && a_min < a_max, "cosmology: expansion factors " << a_min << " .. " << a_max << " are not a range");
  // Slightly wider than asked, so interpolation at the ends never leaves the table; 1000 intervals
  // per decade keep its cubic Hermite interpolation at ~1e-12 (cosmology/friedmann.hpp).
  const double low = 0.5 * a_min, high = std::max(1.0, 1.5 * a_max);
  table_ = std::make_unique<cosmology::FriedmannTable>(background_, low, high, 4000);
}

double CosmologicalModel::unit_length(double a) const { return a * boxlen_mpc_h_ * megaparsec_cm / (parameters_.h0 / 100.0); }

double CosmologicalModel::unit_density(double a) const {
  const double h = parameters_.h0 / 100.0;
  return parameters_.omega_m * critical_density_h2 * h * h / (a * a * a);
}

double CosmologicalModel::unit_time(double a) const { return a * a / (parameters_.h0 * 1.0e5 / megaparsec_cm); }

double CosmologicalModel::initial_pressure_per_density(double a) const {
  const double temperature_over_mu = 1.356e-2 / (a * a);
  const double velocity_unit = unit_length(a) / unit_time(a);
  const double scale_t2 = hydrogen_mass_g / boltzmann_cgs * velocity_unit * velocity_unit;  // RAMSES scale_T2
  return temperature_over_mu / scale_t2;
}

}  // namespace kosmo::cosmology
