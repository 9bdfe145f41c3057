#include "sinks/sink_bondi.hpp"

#include <array>
#include <cmath>

namespace kosmo::sinks {
namespace {

constexpr double pi = 3.14159265358979323846;
// Krumholz, McKee & Klein (2004), table of alpha at x from 0.01 to 2 with uniform logarithmic steps
// (the values RAMSES tabulates).
constexpr std::array<double, 51> alpha_table = {
    820.254, 701.882, 600.752, 514.341, 440.497, 377.381, 323.427, 277.295, 237.845, 204.1,   175.23,
    150.524, 129.377, 111.27,  95.7613, 82.4745, 71.0869, 61.3237, 52.9498, 45.7644, 39.5963, 34.2989,
    29.7471, 25.8338, 22.4676, 19.5705, 17.0755, 14.9254, 13.0714, 11.4717, 10.0903, 8.89675, 7.86467,
    6.97159, 6.19825, 5.52812, 4.94699, 4.44279, 4.00497, 3.6246,  3.29395, 3.00637, 2.75612, 2.53827,
    2.34854, 2.18322, 2.03912, 1.91344, 1.80378, 1.70804, 1.62439};
constexpr double x_min = 0.01, x_max = 2.0;

// RAMSES constants (amr/constants.f90).
constexpr double gravity_cgs = 6.6740800e-08;
constexpr double hydrogen_mass_g = 1.6605390e-24;
constexpr double thomson_cross_section = 6.6524587e-25;
constexpr double speed_of_light = 2.9979246e10;

}  // namespace

double bondi_alpha(double x) {
  const double lambda_c = std::exp(1.5) / 4.0;
  if (x <= x_min) return lambda_c / std::sqrt(2.0 * x * x * x);
  if (x >= x_max) return std::exp(1.0 / x);
  const double steps = static_cast<double>(alpha_table.size() - 1);
  const double where = steps * std::log(x / x_min) / std::log(x_max / x_min);
  const auto index = static_cast<std::size_t>(std::floor(where));
  const double below = std::exp(std::log(x_min) + static_cast<double>(index) * std::log(x_max / x_min) / steps);
  const double above = std::exp(std::log(x_min) + static_cast<double>(index + 1) * std::log(x_max / x_min) / steps);
  const double fraction = std::log(x / below) / std::log(above / below);
  return alpha_table[index] * std::pow(alpha_table[index + 1] / alpha_table[index], fraction);
}

BondiRate bondi_rate(double gravity, double sink_mass, double zone_density, double sound_speed_squared,
                     double relative_speed_squared, double accretion_radius) {
  BondiRate result;
  const double speed_squared = sound_speed_squared + relative_speed_squared;
  const double speed = std::sqrt(speed_squared);
  result.bondi_radius = gravity * sink_mass / speed_squared;
  result.density_far = result.bondi_radius > 0.0 ? zone_density / bondi_alpha(accretion_radius / result.bondi_radius) : zone_density;
  result.rate = 4.0 * pi * result.density_far * result.bondi_radius * result.bondi_radius * speed;
  return result;
}

double eddington_rate(double sink_mass, double seconds_per_code_time) {
  return 4.0 * pi * gravity_cgs * sink_mass * hydrogen_mass_g / (0.1 * thomson_cross_section * speed_of_light) * seconds_per_code_time;
}

}  // namespace kosmo::sinks
