#include "cooling/cooling_solver.hpp"

namespace kosmo::cooling {

TemperatureRate primordial_temperature_rate(const CoolingTable& table, double gamma, double n_h_lookup, double n_h, double t2,
                                            double metallicity) {
  const NetCooling net = table.net_cooling(n_h_lookup, n_h, t2, metallicity);
  const double scale = -(gamma - 1.0) * hydrogen_mass_fraction * n_h / boltzmann_cgs;
  return {scale * net.net, -scale * net.heating, scale * net.derivative};
}

}  // namespace kosmo::cooling
