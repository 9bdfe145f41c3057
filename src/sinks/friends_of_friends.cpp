// The one call of the friends-of-friends contract (friends_of_friends.hpp; seeds/000 §6.4):
// checks the input and hands it to the backend asked for.
#include "sinks/friends_of_friends.hpp"

#include <cmath>

#include "core/error.hpp"
#include "sinks/friends_of_friends_tuner.hpp"
#include "sinks/friends_of_friends_union_find.hpp"

namespace kosmo::sinks {

std::vector<std::int64_t> friends_of_friends_groups(const FriendsOfFriendsPoints& points, double linking_length,
                                                    FriendsOfFriendsBackend backend) {
  KOSMO_REQUIRE(points.y.size() == points.x.size() && points.z.size() == points.x.size(),
                "friends of friends: x, y and z must have as many points ("
                    << points.x.size() << ", " << points.y.size() << ", " << points.z.size() << ")");
  KOSMO_REQUIRE(points.x.size() < (std::size_t{1} << 31),
                "friends of friends: at most 2^31 - 1 points, not " << points.x.size());
  KOSMO_REQUIRE(std::isfinite(linking_length) && linking_length >= 0.0,
                "friends of friends: the linking length must be finite and >= 0, not " << linking_length);
  KOSMO_REQUIRE(!points.periodic || (std::isfinite(points.box_size) && points.box_size > 0.0),
                "friends of friends: a periodic box needs a positive size, not " << points.box_size);
  switch (backend) {
    case FriendsOfFriendsBackend::brute_force:
      return detail::brute_force_groups(points, linking_length);
    case FriendsOfFriendsBackend::tree:
      return detail::tree_groups(points, linking_length);
    case FriendsOfFriendsBackend::cell_list:
      return detail::cell_list_groups(points, linking_length);
    case FriendsOfFriendsBackend::automatic:
      break;
  }
  // Without a communicator each process chooses alone: the labels are the same whichever backend
  // wins; callers that want every rank on the same backend use a FriendsOfFriendsTuner of their
  // communicator (friends_of_friends_tuner.hpp).
  static FriendsOfFriendsTuner process_tuner(MPI_COMM_NULL);
  return process_tuner.groups(points, linking_length);
}

}  // namespace kosmo::sinks
