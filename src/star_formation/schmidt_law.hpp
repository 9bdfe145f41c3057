#pragma once
// The per-cell star formation law (RAMSES pm/star_formation.f90 without sf_virial; docs/galaxy.md
// "Star formation"), as pure functions of one cell's state, in code units.
//
// A leaf cell forms stars when its density exceeds the threshold rho_0 = n_ISM / scale_nH (n_ISM =
// n_star, or del_star times the mean baryon density in a cosmological run when larger) and its
// temperature above the ISM polytrope, T/mu - T2_star (n_H / n_ISM)^(g_star - 1), is at most 2e4 K.
// Its Schmidt law turns gas into stars at the rate rho / t_sf:
//   eps_star > 0: t_sf = t_ff / eps_star, t_ff = 0.5427 / sqrt(G rho) (G = 1 in code units;
//                 3 omega_m aexp / (8 pi) in a cosmological run, RAMSES factG);
//   t_star > 0:   t_sf = t_star sqrt(rho_0 / rho) (older RAMSES: t_star is the time scale at the
//                 threshold, the same sqrt(rho) scaling).
// Over a step dt the expected number of star particles of mass m_* is
//   lambda = dt / t_sf * rho dx^3 / m_*,
// and the number formed is a Poisson deviate of mean lambda, reduced so that the stars never take
// more than 90 % of the cell's gas (RAMSES).
#include <algorithm>
#include <cmath>

namespace kosmo::star_formation {

struct SchmidtLaw {
  double threshold_density = 0.0;   // rho_0, code units
  double threshold_hydrogen = 0.1;  // n_ISM, H/cm^3
  double efficiency = 0.0;          // eps_star (0: the t_star form)
  double time_scale = 0.0;          // t_star in code time (used when efficiency == 0)
  double gravity_factor = 1.0;      // G in code units (RAMSES factG)
  double star_mass = 0.0;           // m_*, code units
  double polytrope_temperature = 0.0;  // T2_star, K
  double polytrope_index = 1.6;        // g_star
  double hydrogen_scale = 1.0;         // scale_nH
  double temperature_scale = 1.0;      // scale_T2
  double gamma = 5.0 / 3.0;
  double smallr = 1e-10;

  // T/mu of the ISM polytrope at density rho (RAMSES T_poly), K.
  double polytrope(double rho) const {
    if (polytrope_temperature <= 0.0) return 0.0;
    return polytrope_temperature * std::pow(std::max(rho, smallr) * hydrogen_scale / threshold_hydrogen, polytrope_index - 1.0);
  }
  // Whether a cell of density rho and internal energy density e_int may form stars.
  bool forms_stars(double rho, double internal_energy) const {
    if (!(rho > threshold_density)) return false;
    const double temperature = (gamma - 1.0) * internal_energy / rho * temperature_scale;
    return temperature - polytrope(rho) <= 2.0e4;
  }
  // The gas depletion time t_sf of a cell of density rho.
  double depletion_time(double rho) const {
    if (efficiency > 0.0) return 0.5427 * std::sqrt(1.0 / (gravity_factor * std::max(rho, smallr))) / efficiency;
    return time_scale * std::sqrt(threshold_density / rho);
  }
  // lambda: the expected number of star particles a cell of density rho and volume `volume`
  // forms over dt.
  double expected_stars(double rho, double volume, double dt) const {
    return dt / depletion_time(rho) * rho * volume / star_mass;
  }
  // The number actually formed from the Poisson deviate n: at most 90 % of the cell's gas.
  long long limited(long long n, double rho, double volume) const {
    if (static_cast<double>(n) * star_mass > 0.9 * rho * volume) return static_cast<long long>(0.9 * rho * volume / star_mass);
    return n;
  }
};

}  // namespace kosmo::star_formation
