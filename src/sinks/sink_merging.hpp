#pragma once
// Merging of sinks (RAMSES update_sink: sinks closer than 2 dx_min merge): the friends-of-friends
// groups of linking length r_merge dx_min (friends_of_friends.hpp, seeds/000 §6.4) each become one
// sink, the member of smallest index, with
//   mass      M = sum m_i                       (exact: added in index order),
//   momentum  M v = sum m_i v_i                 (the velocity is that sum over M),
//   position  the centre of mass, sum m_i (x_i - x_0) / M + x_0 with nearest-image offsets from
//             the first member x_0 on periodic axes,
//   identity  the smallest identity, birth time the earliest, accreted mass and AGN energy summed,
//   accretion rate summed.
// With merging_timescale > 0 only groups holding a sink younger than it merge (RAMSES tests pairs:
// a pair merges when either is young).
#include <vector>

#include "particles/particle_set.hpp"
#include "sinks/friends_of_friends.hpp"
#include "sinks/sink_attributes.hpp"

namespace kosmo::sinks {

struct MergeSettings {
  double linking_length = 0.0;   // r_merge dx_min
  double box_size = 1.0;
  bool periodic = true;          // all axes alike (the FoF contract's box)
  double now = 0.0;              // code time
  double young_age = -1.0;       // merging_timescale in code time; <= 0: every group merges
  FriendsOfFriendsBackend backend = FriendsOfFriendsBackend::brute_force;
};

// Merges the groups in place (every rank holds the same sinks and gets the same result) and
// returns the number of sinks removed.
template <int D>
std::size_t merge_sinks(particles::ParticleSet<D>& sinks, const SinkAttributeIds& ids, const MergeSettings& settings);

}  // namespace kosmo::sinks
