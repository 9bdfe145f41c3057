#pragma once
// The cooling and heating rates of primordial_rates.hpp tabulated on a grid of log10 n_H and
// log10 T2 (T2 = T / mu) for one redshift and UV background, as RAMSES' cooling_module does
// (docs/galaxy.md, "Cooling"): the equilibrium solve is done once per node, and a cell reads its
// rates by interpolation, linear in log n_H and cubic (Hermite, slopes from the nodes) in log T2,
// on the log10 of each rate. Building the table is deterministic and done whole on every rank, so
// every rank holds identical rates whatever the rank count.
#include <vector>

#include "cooling/primordial_rates.hpp"

namespace kosmo::cooling {

// Net rates of one cell, interpolated: lambda_net [erg cm^3 / s per n_H^2] = cooling + Z metal -
// heating + (compton_cooling - compton_heating) / n_H, and its derivative in T2.
struct NetCooling {
  double net = 0.0;       // erg cm^3 / s
  double heating = 0.0;   // the photoheating and Compton heating part of it, erg cm^3 / s
  double derivative = 0.0;  // d net / d T2
};

class CoolingTable {
 public:
  static constexpr double log_nh_min = -10.0, log_nh_max = 6.0;
  static constexpr double log_t2_min = -2.0, log_t2_max = 9.0;
  static constexpr int nh_nodes = 161;   // 0.1 dex
  static constexpr int t2_nodes = 441;   // 0.025 dex

  // The whole table, or only its n_H rows [row_begin, row_end) (the others left at 0) when the
  // ranks share the work and then exchange rows (CoolingModule); a node's value does not depend on
  // which rank or thread computes it.
  CoolingTable(double redshift, const UvBackground& uv, int row_begin = 0, int row_end = nh_nodes);
  enum Quantity { cooling, heating, compton_cooling, compton_heating, metal, quantities };
  // Quantity q's nodes, n_H row by row (t2_nodes values each).
  double* rows(Quantity q) { return values_.data() + static_cast<std::size_t>(q) * nh_nodes * t2_nodes; }

  double redshift() const { return redshift_; }
  // Rates read at n_h_lookup [1/cm^3] (clamped to the table; the cell's n_H divided by the
  // self-shielding factor, as RAMSES) and T2 [K], metallicity in solar units, the Compton terms per
  // the cell's own n_h. Above the table's T2 the rates continue along the last slope.
  NetCooling net_cooling(double n_h_lookup, double n_h, double t2, double metallicity) const;

 private:
  double& at(Quantity q, int i_nh, int i_t2) { return values_[(static_cast<std::size_t>(q) * nh_nodes + static_cast<std::size_t>(i_nh)) * t2_nodes + static_cast<std::size_t>(i_t2)]; }
  double at(Quantity q, int i_nh, int i_t2) const { return values_[(static_cast<std::size_t>(q) * nh_nodes + static_cast<std::size_t>(i_nh)) * t2_nodes + static_cast<std::size_t>(i_t2)]; }
  // log10 of quantity q at (n_H row weights, log T2) and its derivative in log T2.
  void interpolate(Quantity q, int i_nh, double w_nh, int i_t2, double u, double& value, double& slope) const;

  double redshift_;
  std::vector<double> values_;  // log10 of each rate
};

}  // namespace kosmo::cooling
