#include "cooling/cooling_table.hpp"

#include <algorithm>
#include <cmath>

namespace kosmo::cooling {
namespace {

constexpr double nh_step = (CoolingTable::log_nh_max - CoolingTable::log_nh_min) / (CoolingTable::nh_nodes - 1);
constexpr double t2_step = (CoolingTable::log_t2_max - CoolingTable::log_t2_min) / (CoolingTable::t2_nodes - 1);

double log_of(double rate) { return std::log10(std::max(rate, 1e-100)); }

}  // namespace

CoolingTable::CoolingTable(double redshift, const UvBackground& uv, int row_begin, int row_end)
    : redshift_(redshift), values_(static_cast<std::size_t>(quantities) * nh_nodes * t2_nodes) {
  // Nodes are independent: the threads fill disjoint rows, each node computed the same way.
#pragma omp parallel for schedule(dynamic)
  for (int i = row_begin; i < row_end; ++i) {
    const double n_h = std::pow(10.0, log_nh_min + i * nh_step);
    for (int j = 0; j < t2_nodes; ++j) {
      const CoolingRates r = cooling_rates(n_h, std::pow(10.0, log_t2_min + j * t2_step), redshift, uv);
      at(cooling, i, j) = log_of(r.cooling);
      at(heating, i, j) = log_of(r.heating);
      at(compton_cooling, i, j) = log_of(r.compton_cooling);
      at(compton_heating, i, j) = log_of(r.compton_heating);
      at(metal, i, j) = log_of(r.metal);
    }
  }
}

void CoolingTable::interpolate(Quantity q, int i_nh, double w_nh, int i_t2, double u, double& value, double& slope) const {
  // One row's log10 value and centred slope (per node spacing) at node j, linear in n_H.
  auto node = [&](int j) { return (1.0 - w_nh) * at(q, i_nh, j) + w_nh * at(q, i_nh + 1, j); };
  auto node_slope = [&](int j) {
    const int lo = std::max(j - 1, 0), hi = std::min(j + 1, t2_nodes - 1);
    return (node(hi) - node(lo)) / static_cast<double>(hi - lo);
  };
  const double f0 = node(i_t2), f1 = node(i_t2 + 1), m0 = node_slope(i_t2), m1 = node_slope(i_t2 + 1);
  if (u > 1.0) {  // beyond the last node: along its slope
    value = f1 + m1 * (u - 1.0);
    slope = m1 / t2_step;
    return;
  }
  const double u2 = u * u, u3 = u2 * u;
  value = (2 * u3 - 3 * u2 + 1) * f0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * f1 + (u3 - u2) * m1;
  slope = ((6 * u2 - 6 * u) * f0 + (3 * u2 - 4 * u + 1) * m0 + (-6 * u2 + 6 * u) * f1 + (3 * u2 - 2 * u) * m1) / t2_step;
}

NetCooling CoolingTable::net_cooling(double n_h_lookup, double n_h, double t2, double metallicity) const {
  const double x = std::clamp((std::log10(n_h_lookup) - log_nh_min) / nh_step, 0.0, static_cast<double>(nh_nodes - 1));
  const int i_nh = std::min(static_cast<int>(x), nh_nodes - 2);
  const double w_nh = x - i_nh;
  const double y = std::max((std::log10(t2) - log_t2_min) / t2_step, 0.0);
  const int i_t2 = std::min(static_cast<int>(y), t2_nodes - 2);
  const double u = y - i_t2;
  NetCooling out;
  // Each term: sign, weight (per n_H^2), and whether it heats.
  struct Term {
    Quantity q;
    double factor;
    bool heats;
  };
  const Term terms[] = {{cooling, 1.0, false},
                        {metal, metallicity, false},
                        {heating, -1.0, true},
                        {compton_cooling, 1.0 / n_h, false},
                        {compton_heating, -1.0 / n_h, true}};
  for (const Term& term : terms) {
    if (term.factor == 0.0) continue;
    double log_value, log_slope;
    interpolate(term.q, i_nh, w_nh, i_t2, u, log_value, log_slope);
    const double value = term.factor * std::pow(10.0, log_value);
    out.net += value;
    out.derivative += value * log_slope / t2;  // d/dT2 10^f(log T2) = 10^f ln10 f' / (T2 ln10)
    if (term.heats) out.heating -= value;
  }
  return out;
}

}  // namespace kosmo::cooling
