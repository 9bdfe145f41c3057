#include "sinks/sink_merging.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace kosmo::sinks {

template <int D>
std::size_t merge_sinks(particles::ParticleSet<D>& sinks, const SinkAttributeIds& ids, const MergeSettings& settings) {
  const std::size_t n = sinks.size();
  if (n < 2) return 0;
  std::array<std::vector<double>, 3> coordinates;
  for (int d = 0; d < 3; ++d) coordinates[static_cast<std::size_t>(d)].assign(n, 0.0);
  for (int d = 0; d < D; ++d) {
    const auto x = sinks.position(d);
    std::copy(x.begin(), x.end(), coordinates[static_cast<std::size_t>(d)].begin());
  }
  FriendsOfFriendsPoints points{coordinates[0], coordinates[1], coordinates[2], settings.box_size, settings.periodic};
  const std::vector<std::int64_t> label = friends_of_friends_groups(points, settings.linking_length, settings.backend);

  const auto birth = sinks.template values<double>(ids.birth_time);
  // A group merges when it has a young member (or always without merging_timescale).
  std::vector<std::uint8_t> group_merges(n, settings.young_age > 0.0 ? 0 : 1);
  if (settings.young_age > 0.0)
    for (std::size_t i = 0; i < n; ++i)
      if (settings.now - birth[i] < settings.young_age) group_merges[static_cast<std::size_t>(label[i])] = 1;

  const auto mass = sinks.mass();
  const auto identity = sinks.id();
  const auto accreted = sinks.template values<double>(ids.accreted_mass);
  const auto rate = sinks.template values<double>(ids.accretion_rate);
  const auto agn = sinks.template values<double>(ids.agn_energy);
  // Sums per group head (the member of smallest index), in index order.
  std::vector<double> group_mass(n, 0.0);
  std::vector<std::array<double, D>> momentum(n), offset(n);
  std::vector<std::uint8_t> removed(n, 0);
  std::vector<std::size_t> members(n, 0);
  std::size_t merged = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto head = static_cast<std::size_t>(label[i]);
    if (!group_merges[head]) continue;
    ++members[head];
    group_mass[head] += mass[i];
    for (int d = 0; d < D; ++d) {
      double dx = sinks.position(d)[i] - sinks.position(d)[head];
      if (settings.periodic) {
        if (dx > 0.5 * settings.box_size) dx -= settings.box_size;
        if (dx < -0.5 * settings.box_size) dx += settings.box_size;
      }
      momentum[head][static_cast<std::size_t>(d)] += mass[i] * sinks.velocity(d)[i];
      offset[head][static_cast<std::size_t>(d)] += mass[i] * dx;
    }
    if (head == i) continue;
    identity[head] = std::min(identity[head], identity[i]);
    birth[head] = std::min(birth[head], birth[i]);
    accreted[head] += accreted[i];
    rate[head] += rate[i];
    agn[head] += agn[i];
    removed[i] = 1;
    ++merged;
  }
  for (std::size_t head = 0; head < n; ++head) {
    // Heads of groups of two or more (a lone sink keeps its values bit for bit).
    if (members[head] < 2 || !(group_mass[head] > 0.0)) continue;
    mass[head] = group_mass[head];
    for (int d = 0; d < D; ++d) {
      sinks.velocity(d)[head] = momentum[head][static_cast<std::size_t>(d)] / group_mass[head];
      double x = sinks.position(d)[head] + offset[head][static_cast<std::size_t>(d)] / group_mass[head];
      if (settings.periodic) x = particles::wrap_coordinate(x, settings.box_size);
      sinks.position(d)[head] = x;
    }
  }
  if (merged > 0) sinks.remove_flagged(removed);
  return merged;
}

template std::size_t merge_sinks<1>(particles::ParticleSet<1>&, const SinkAttributeIds&, const MergeSettings&);
template std::size_t merge_sinks<2>(particles::ParticleSet<2>&, const SinkAttributeIds&, const MergeSettings&);
template std::size_t merge_sinks<3>(particles::ParticleSet<3>&, const SinkAttributeIds&, const MergeSettings&);

}  // namespace kosmo::sinks
