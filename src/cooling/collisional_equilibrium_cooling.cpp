#include "cooling/collisional_equilibrium_cooling.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace kosmo::cooling {

namespace {

constexpr double first_log_temperature = 4.2, log_temperature_step = 0.05;

// Sutherland & Dopita (1993) Table 6, solar CIE: log10(Lambda_net) at n_H = 1 cm^-3, log T = 4.20,
// 4.25, ..., 8.50.
constexpr std::array<double, 87> log_cooling = {
    -21.99, -21.84, -21.85, -21.87, -21.84, -21.77, -21.66, -21.56, -21.45, -21.34,  // 4.20 - 4.65
    -21.24, -21.14, -21.05, -20.97, -20.91, -20.87, -20.87, -20.90, -20.91, -20.89,  // 4.70 - 5.15
    -20.86, -20.85, -20.84, -20.84, -20.87, -21.01, -21.23, -21.43, -21.54, -21.58,  // 5.20 - 5.65
    -21.59, -21.59, -21.64, -21.74, -21.81, -21.83, -21.84, -21.84, -21.83, -21.82,  // 5.70 - 6.15
    -21.82, -21.85, -21.95, -22.08, -22.19, -22.27, -22.32, -22.35, -22.38, -22.41,  // 6.20 - 6.65
    -22.44, -22.46, -22.48, -22.48, -22.46, -22.45, -22.45, -22.46, -22.49, -22.53,  // 6.70 - 7.15
    -22.56, -22.58, -22.60, -22.61, -22.61, -22.61, -22.60, -22.60, -22.59, -22.57,  // 7.20 - 7.65
    -22.56, -22.54, -22.53, -22.51, -22.49, -22.48, -22.46, -22.44, -22.42, -22.40,  // 7.70 - 8.15
    -22.38, -22.36, -22.34, -22.32, -22.30, -22.28, -22.26};                         // 8.20 - 8.50

}  // namespace

double collisional_equilibrium_cooling(double temperature) {
  const double log_t = std::log10(temperature);
  const double position = (log_t - first_log_temperature) / log_temperature_step;
  const int last = static_cast<int>(log_cooling.size()) - 1;
  if (position >= last) return std::pow(10.0, log_cooling[static_cast<std::size_t>(last)] + 0.5 * (log_t - 8.5));
  const int i = std::max(0, static_cast<int>(std::floor(position)));
  const double w = std::max(0.0, position - i);
  const auto k = static_cast<std::size_t>(i);
  return std::pow(10.0, (1.0 - w) * log_cooling[k] + w * log_cooling[k + 1]);
}

}  // namespace kosmo::cooling
