// Accretion of gas onto the sinks (RAMSES collect_acczone_avg, compute_accretion_rate, grow_sink,
// accrete_sink); the scheme is described in sink_module.hpp.
#include <algorithm>
#include <cmath>

#include "sinks/sink_bondi.hpp"
#include "sinks/sink_module.hpp"
#include "star_formation/physical_units.hpp"

namespace kosmo::sinks {

// Owned leaf cells whose centre is within r_acc of a sink, and the owned leaf cell holding it. The
// cube of cells around the sink is walked oct by oct: one hash lookup (find_cell of the oct's first
// cell) per oct rather than per cell; the sums over the zone are taken in cell-identity order
// (sink_cell_sums.hpp), so the order of the list does not change them.
template <int D>
std::vector<typename SinkModule<D>::ZoneCell> SinkModule<D>::zone_cells() const {
  std::vector<ZoneCell> zone;
  const double radius = accretion_radius();
  const double boxlen = tree_.geometry().boxlen;
  const auto& periodic = tree_.geometry().periodic;
  for (std::size_t s = 0; s < sinks_.size(); ++s)
    for (int level = 1; level <= tree_.levelmax(); ++level) {
      if (tree_.octs_at_level(level).empty()) continue;
      const double h = tree_.cell_size(level);
      typename Tree::Coordinates low{}, high{}, holder{}, oct_low{}, oct_high{};
      for (int d = 0; d < D; ++d) {
        const auto axis = static_cast<std::size_t>(d);
        const double x = sinks_.position(d)[s];
        low[axis] = static_cast<std::int64_t>(std::floor((x - radius) / h));
        high[axis] = static_cast<std::int64_t>(std::floor((x + radius) / h));
        holder[axis] = static_cast<std::int64_t>(std::floor(x / h));
        oct_low[axis] = low[axis] >> 1;  // floor(c / 2), negative coordinates included
        oct_high[axis] = high[axis] >> 1;
      }
      typename Tree::Coordinates o = oct_low;
      while (true) {
        typename Tree::Coordinates first{};
        for (int d = 0; d < D; ++d) first[static_cast<std::size_t>(d)] = 2 * o[static_cast<std::size_t>(d)];
        const core::CellIndex first_cell = tree_.find_cell(level, first);
        if (first_cell != core::no_cell && tree_.role(Tree::oct_of(first_cell)) == core::OctRole::owned)
          for (int child = 0; child < Tree::cells_per_oct; ++child) {
            typename Tree::Coordinates c = first;
            bool inside = true;
            for (int d = 0; d < D; ++d) {
              const auto axis = static_cast<std::size_t>(d);
              c[axis] += (child >> d) & 1;
              inside = inside && c[axis] >= low[axis] && c[axis] <= high[axis];
            }
            const core::CellIndex cell = Tree::cell_index(Tree::oct_of(first_cell), child);
            if (!inside || !tree_.is_leaf(cell)) continue;
            const auto centre = tree_.cell_centre(cell);
            ZoneCell zc{s, cell, level, {}};
            double r2 = 0.0;
            for (int d = 0; d < D; ++d) {
              double dx = centre[static_cast<std::size_t>(d)] - sinks_.position(d)[s];
              if (periodic[static_cast<std::size_t>(d)]) dx -= boxlen * std::round(dx / boxlen);
              zc.offset[static_cast<std::size_t>(d)] = dx;
              r2 += dx * dx;
            }
            if (r2 <= radius * radius || c == holder) zone.push_back(zc);
          }
        int d = 0;
        while (d < D && ++o[static_cast<std::size_t>(d)] > oct_high[static_cast<std::size_t>(d)]) {
          o[static_cast<std::size_t>(d)] = oct_low[static_cast<std::size_t>(d)];
          ++d;
        }
        if (d == D) break;
      }
    }
  return zone;
}

template <int D>
std::vector<double> SinkModule<D>::zone_averages(const std::vector<ZoneCell>& zone) const {
  SinkCellSums sums(D + 3);
  std::array<double, D + 3> values{};
  for (const ZoneCell& zc : zone) {
    const double h = tree_.cell_size(zc.level);
    double volume = 1.0;
    for (int d = 0; d < D; ++d) volume *= h;
    const double rho = tree_.field(density_)[zc.cell];
    double kinetic = 0.0;
    values[0] = volume;
    values[1] = rho * volume;
    for (int d = 0; d < D; ++d) {
      const double p = tree_.field(momentum_[static_cast<std::size_t>(d)])[zc.cell];
      values[2 + static_cast<std::size_t>(d)] = p * volume;
      kinetic += 0.5 * p * p / rho;
    }
    values[2 + D] = (tree_.field(energy_)[zc.cell] - kinetic) * volume;
    sums.add(zc.sink, zc.level, key_of(zc.cell), Tree::child_of(zc.cell), values.data());
  }
  return sums.sum(sinks_.size(), mesh_.comm(), mesh_.distributed());
}

template <int D>
std::vector<double> SinkModule<D>::accretion_rates(const std::vector<double>& zone_sums, double time) const {
  const std::size_t width = D + 3;
  std::vector<double> rates(sinks_.size(), 0.0);
  const double gravity = gravity_constant(time);
  const double seconds = star_formation::physical_units(params_, cosmology_, time).time;
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    const double volume = zone_sums[s * width], mass = zone_sums[s * width + 1];
    if (!(volume > 0.0) || !(mass > 0.0)) continue;
    double relative_speed_squared = 0.0;
    for (int d = 0; d < D; ++d) {
      const double v = zone_sums[s * width + 2 + static_cast<std::size_t>(d)] / mass - sinks_.velocity(d)[s];
      relative_speed_squared += v * v;
    }
    const double sound_speed_squared = std::max((gamma_ - 1.0) * zone_sums[s * width + 2 + D] / mass, smallc_ * smallc_);
    const BondiRate bondi = bondi_rate(gravity, sinks_.mass()[s], mass / volume, sound_speed_squared,
                                       use_relative_velocity_ ? relative_speed_squared : 0.0, bondi_radius_of_zone());
    rates[s] = eddington_limit_ ? std::min(bondi.rate, eddington_rate(sinks_.mass()[s], seconds)) : bondi.rate;
  }
  return rates;
}

template <int D>
void SinkModule<D>::accrete(int level, double dt, double time) {
  const std::vector<ZoneCell> zone = zone_cells();
  seed_new_sinks(level, time, zone);  // collective
  if (scheme_ == AccretionScheme::none) return;
  const std::size_t width = D + 3;
  std::vector<double> zone_sums, rates;
  if (scheme_ == AccretionScheme::bondi) {
    zone_sums = zone_averages(zone);  // collective
    rates = accretion_rates(zone_sums, time);
  }
  const double threshold = scheme_ == AccretionScheme::threshold ? density_threshold(time) : 0.0;
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  const double* rho = tree_.field(density_);
  const std::vector<double> taken = take_gas(level, zone, [&](const ZoneCell& zc) {
    if (scheme_ == AccretionScheme::bondi) return rates[zc.sink] * dt * volume / zone_sums[zc.sink * width];
    return c_acc_ * (rho[zc.cell] - threshold) * volume;
  });  // collective
  const auto rate = sinks_.template values<double>(ids_.accretion_rate);
  for (std::size_t s = 0; s < sinks_.size(); ++s) rate[s] = scheme_ == AccretionScheme::bondi ? rates[s] : taken[s] / dt;
  // AGN feedback's reservoir (docs/galaxy.md "AGN feedback"): k_B T2_AGN / m_H per accreted mass.
  if (t2_agn_ > 0.0) {
    const double energy_per_mass = t2_agn_ / star_formation::physical_units(params_, cosmology_, time).temperature;
    const auto reservoir = sinks_.template values<double>(ids_.agn_energy);
    for (std::size_t s = 0; s < sinks_.size(); ++s) reservoir[s] += taken[s] * energy_per_mass;
  }
}

template <int D>
std::vector<double> SinkModule<D>::take_gas(int level, const std::vector<ZoneCell>& zone,
                                            const std::function<double(const ZoneCell&)>& amount) {
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  double* rho = tree_.field(density_);
  SinkCellSums gains(1 + 2 * D);
  std::array<double, 1 + 2 * D> values{};
  for (const ZoneCell& zc : zone) {
    if (zc.level != level) continue;
    const double taken = std::min(amount(zc), c_acc_ * rho[zc.cell] * volume);
    if (!(taken > 0.0)) continue;
    // The cell keeps its velocity, specific energy and scalar fractions.
    const double left = rho[zc.cell] - taken / volume;
    const double factor = left / rho[zc.cell];
    const double removed = (rho[zc.cell] - left) * volume;
    values[0] = removed;
    for (int d = 0; d < D; ++d) {
      double& p = tree_.field(momentum_[static_cast<std::size_t>(d)])[zc.cell];
      values[1 + static_cast<std::size_t>(d)] = removed * p / rho[zc.cell];
      values[1 + D + static_cast<std::size_t>(d)] = removed * zc.offset[static_cast<std::size_t>(d)];
      p *= factor;
    }
    tree_.field(energy_)[zc.cell] *= factor;
    for (int scalar : scalars_) tree_.field(scalar)[zc.cell] *= factor;
    rho[zc.cell] = left;
    gains.add(zc.sink, zc.level, key_of(zc.cell), Tree::child_of(zc.cell), values.data());
  }
  const std::vector<double> sums = gains.sum(sinks_.size(), mesh_.comm(), mesh_.distributed());  // collective
  const double boxlen = tree_.geometry().boxlen;
  const auto accreted = sinks_.template values<double>(ids_.accreted_mass);
  std::vector<double> taken(sinks_.size(), 0.0);
  for (std::size_t s = 0; s < sinks_.size(); ++s) {
    const double* gain = &sums[s * (1 + 2 * D)];
    taken[s] = gain[0];
    if (!(gain[0] > 0.0)) continue;
    const double mass = sinks_.mass()[s] + gain[0];
    for (int d = 0; d < D; ++d) {
      const auto axis = static_cast<std::size_t>(d);
      sinks_.velocity(d)[s] = (sinks_.mass()[s] * sinks_.velocity(d)[s] + gain[1 + axis]) / mass;
      double x = sinks_.position(d)[s] + gain[1 + D + axis] / mass;
      if (tree_.geometry().periodic[axis]) x = particles::wrap_coordinate(x, boxlen);
      sinks_.position(d)[s] = x;
    }
    sinks_.mass()[s] = mass;
    accreted[s] += gain[0];
  }
  return taken;
}

template std::vector<SinkModule<1>::ZoneCell> SinkModule<1>::zone_cells() const;
template std::vector<double> SinkModule<1>::zone_averages(const std::vector<ZoneCell>&) const;
template std::vector<double> SinkModule<1>::accretion_rates(const std::vector<double>&, double) const;
template void SinkModule<1>::accrete(int, double, double);
template std::vector<double> SinkModule<1>::take_gas(int, const std::vector<ZoneCell>&, const std::function<double(const ZoneCell&)>&);
template std::vector<SinkModule<2>::ZoneCell> SinkModule<2>::zone_cells() const;
template std::vector<double> SinkModule<2>::zone_averages(const std::vector<ZoneCell>&) const;
template std::vector<double> SinkModule<2>::accretion_rates(const std::vector<double>&, double) const;
template void SinkModule<2>::accrete(int, double, double);
template std::vector<double> SinkModule<2>::take_gas(int, const std::vector<ZoneCell>&, const std::function<double(const ZoneCell&)>&);
template std::vector<SinkModule<3>::ZoneCell> SinkModule<3>::zone_cells() const;
template std::vector<double> SinkModule<3>::zone_averages(const std::vector<ZoneCell>&) const;
template std::vector<double> SinkModule<3>::accretion_rates(const std::vector<double>&, double) const;
template void SinkModule<3>::accrete(int, double, double);
template std::vector<double> SinkModule<3>::take_gas(int, const std::vector<ZoneCell>&, const std::function<double(const ZoneCell&)>&);

}  // namespace kosmo::sinks
