// Creation of sinks from the gas (create_sinks) by kosmo's threshold criterion (RAMSES forms sinks
// from the clumps of its clump finder, which kosmo does not have): at the end of each step of
// levelmax, every leaf cell of levelmax whose density exceeds the threshold (d_sink, rho_sink /
// scale_d or n_sink / scale_nH), is the densest of its 3^D neighbours (ties broken by Morton key and
// child) and lies farther than r_acc from every sink makes a sink at its centre with the gas
// velocity and no mass; candidates closer than r_acc to a denser one are dropped. At the next step
// of levelmax the new sink takes mass_sink_seed from the levelmax cells of its zone in proportion to
// their volume (at most c_acc of each cell's gas), as RAMSES' grow_sink(on_creation), conserving
// mass and momentum as accretion does.
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "parallel/gather_everywhere.hpp"
#include "sinks/sink_module.hpp"
#include "star_formation/physical_units.hpp"

namespace kosmo::sinks {

template <int D>
void SinkModule<D>::create_sinks(int level, double time) {
  if (!create_ || level != tree_.levelmax()) return;
  const double threshold = density_threshold(time);
  const double exclusion = accretion_radius();
  const double boxlen = tree_.geometry().boxlen;
  const auto& periodic = tree_.geometry().periodic;
  auto distance_squared = [&](const Vector& a, const Vector& b) {
    double r2 = 0.0;
    for (int d = 0; d < D; ++d) {
      double dx = a[static_cast<std::size_t>(d)] - b[static_cast<std::size_t>(d)];
      if (periodic[static_cast<std::size_t>(d)]) dx -= boxlen * std::round(dx / boxlen);
      r2 += dx * dx;
    }
    return r2;
  };
  auto far_from_sinks = [&](const Vector& x) {
    for (std::size_t s = 0; s < sinks_.size(); ++s) {
      Vector y{};
      for (int d = 0; d < D; ++d) y[static_cast<std::size_t>(d)] = sinks_.position(d)[s];
      if (distance_squared(x, y) <= exclusion * exclusion) return false;
    }
    return true;
  };
  const double* rho = tree_.field(density_);
  // Candidates: density, key, child, position, velocity.
  const std::size_t width = 3 + 2 * D;
  std::vector<double> local;
  for (core::OctIndex o : tree_.octs_at_level(level))
    for (int c = 0; c < Tree::cells_per_oct; ++c) {
      const core::CellIndex cell = Tree::cell_index(o, c);
      if (!tree_.is_leaf(cell) || !(rho[cell] > threshold)) continue;
      const auto order = std::make_tuple(rho[cell], key_of(cell), c);
      bool peak = true;
      typename Tree::Offset offset{};
      offset.fill(-1);
      while (peak) {
        bool centre = true;
        for (int d = 0; d < D; ++d) centre = centre && offset[static_cast<std::size_t>(d)] == 0;
        const core::CellIndex other = centre ? core::no_cell : tree_.cell_neighbour(cell, offset);
        if (other != core::no_cell && std::make_tuple(rho[other], key_of(other), Tree::child_of(other)) > order) peak = false;
        int d = 0;
        while (d < D && ++offset[static_cast<std::size_t>(d)] > 1) offset[static_cast<std::size_t>(d++)] = -1;
        if (d == D) break;
      }
      const auto centre = tree_.cell_centre(cell);
      Vector x{};
      for (int d = 0; d < D; ++d) x[static_cast<std::size_t>(d)] = centre[static_cast<std::size_t>(d)];
      if (!peak || !far_from_sinks(x)) continue;
      local.insert(local.end(), {rho[cell], std::bit_cast<double>(key_of(cell)), static_cast<double>(c)});
      for (int d = 0; d < D; ++d) local.push_back(x[static_cast<std::size_t>(d)]);
      for (int d = 0; d < D; ++d) local.push_back(tree_.field(momentum_[static_cast<std::size_t>(d)])[cell] / rho[cell]);
    }
  const std::vector<double> all = mesh_.distributed() ? parallel::gather_everywhere(local, mesh_.comm()) : local;
  // Densest first (then key, child): the same order on every rank.
  std::vector<std::size_t> order(all.size() / width);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto rank_of = [&](std::size_t i) {
    return std::make_tuple(-all[i * width], std::bit_cast<std::uint64_t>(all[i * width + 1]), all[i * width + 2]);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank_of(a) < rank_of(b); });
  for (std::size_t i : order) {
    Vector x{}, v{};
    for (int d = 0; d < D; ++d) {
      x[static_cast<std::size_t>(d)] = all[i * width + 3 + static_cast<std::size_t>(d)];
      v[static_cast<std::size_t>(d)] = all[i * width + 3 + D + static_cast<std::size_t>(d)];
    }
    if (!far_from_sinks(x) || static_cast<long long>(sinks_.size()) >= nsinkmax_) continue;
    add_sink(x, v, 0.0, time);
  }
}

// The seed of the sinks made at the previous step of levelmax (mass 0): mass_sink_seed from the
// levelmax cells of the zone, V_cell / V_zone(levelmax) each, at most c_acc of the cell's gas.
template <int D>
void SinkModule<D>::seed_new_sinks(int level, double time, const std::vector<ZoneCell>& zone) {
  if (!create_ || level != tree_.levelmax()) return;
  bool any = false;
  for (double m : sinks_.mass()) any = any || m == 0.0;
  if (!any) return;
  const star_formation::PhysicalUnits units = star_formation::physical_units(params_, cosmology_, time);
  const double seed = mass_sink_seed_ * star_formation::solar_mass_g / units.mass();
  const double h = tree_.cell_size(level);
  double volume = 1.0;
  for (int d = 0; d < D; ++d) volume *= h;
  // The levelmax volume of each new sink's zone (over all ranks: every rank counts the same cells).
  SinkCellSums zone_volume(1);
  for (const ZoneCell& zc : zone)
    if (zc.level == level && sinks_.mass()[zc.sink] == 0.0) zone_volume.add(zc.sink, zc.level, key_of(zc.cell), Tree::child_of(zc.cell), &volume);
  const std::vector<double> volumes = zone_volume.sum(sinks_.size(), mesh_.comm(), mesh_.distributed());  // collective
  std::vector<double> share(sinks_.size(), 0.0);
  for (std::size_t s = 0; s < sinks_.size(); ++s)
    if (sinks_.mass()[s] == 0.0 && volumes[s] > 0.0) share[s] = seed / volumes[s];
  take_gas(level, zone, [&](const ZoneCell& zc) { return share[zc.sink] * volume; });  // collective
}

template void SinkModule<1>::create_sinks(int, double);
template void SinkModule<2>::create_sinks(int, double);
template void SinkModule<3>::create_sinks(int, double);
template void SinkModule<1>::seed_new_sinks(int, double, const std::vector<ZoneCell>&);
template void SinkModule<2>::seed_new_sinks(int, double, const std::vector<ZoneCell>&);
template void SinkModule<3>::seed_new_sinks(int, double, const std::vector<ZoneCell>&);

}  // namespace kosmo::sinks
