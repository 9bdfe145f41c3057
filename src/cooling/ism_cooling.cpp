#include "cooling/ism_cooling.hpp"

#include <cmath>

#include "cooling/collisional_equilibrium_cooling.hpp"

namespace kosmo::cooling {

double ism_net_cooling(double n_h, double temperature) {
  constexpr double photoelectric_heating = 2e-26;  // erg/s
  const double t = temperature;
  // Above 10^4.2 K the hot gas's collisional-equilibrium curve (Kim & Ostriker 2015 §2).
  const double lambda = t >= collisional_equilibrium_minimum_temperature
                            ? collisional_equilibrium_cooling(t)
                            : photoelectric_heating * (1e7 * std::exp(-118400.0 / (t + 1000.0)) +
                                                       1.4e-2 * std::sqrt(t) * std::exp(-92.0 / t));
  return n_h * lambda - photoelectric_heating;
}

TemperatureRate ism_temperature_rate(double gamma, double mu_gas, double n_h, double t2) {
  constexpr double photoelectric_heating = 2e-26;
  const double scale = -(gamma - 1.0) / (boltzmann_cgs * mu_gas);  // dT2/dt per (erg/s per atom)
  const double t = mu_gas * t2;
  const double step = 1e-6 * t;
  const double net = ism_net_cooling(n_h, t);
  const double slope = (ism_net_cooling(n_h, t + step) - ism_net_cooling(n_h, t - step)) / (2.0 * step);
  return {scale * net, scale * -photoelectric_heating, scale * slope * mu_gas};
}

}  // namespace kosmo::cooling
