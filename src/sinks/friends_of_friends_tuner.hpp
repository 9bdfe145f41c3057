#pragma once
// The automatic choice of friends-of-friends backend (seeds/000 §6.4, cuRAMSES' Auto_Do_FoF): the
// first call for a given size of problem times the backends and keeps the fastest for later calls
// of that size. Sinks are replicated on every rank and all backends return the same partition, so
// the choice changes only the speed; with a communicator, the ranks still take the same one: rank
// 0's timings decide and the choice is broadcast (MPI_Bcast, as the paper's consensus), so every
// rank runs the same code path and spends the same time in it.
#include <mpi.h>

#include <array>
#include <mutex>
#include <vector>

#include "sinks/friends_of_friends.hpp"

namespace kosmo::sinks {

struct FriendsOfFriendsTiming {
  FriendsOfFriendsBackend backend = FriendsOfFriendsBackend::automatic;
  double seconds = 0.0;  // wall-clock time of the probe on this rank
};

class FriendsOfFriendsTuner {
 public:
  // Point counts up to this are probed with the O(N²) brute force too; above it brute force
  // cannot win (it is ≈ 100× slower than the others at 10⁴ clustered points: docs/galaxy.md).
  static constexpr std::size_t brute_force_probe_limit = 4096;

  // communicator: the ranks that agree on the choice; they must call groups() together (with the
  // same points) whenever a size class is met for the first time. MPI_COMM_NULL: this process alone.
  explicit FriendsOfFriendsTuner(MPI_Comm communicator = MPI_COMM_NULL);

  // The contract's labels (friends_of_friends.hpp), by the backend chosen for this size class
  // (decade of the number of points), timing the backends first if it has none yet.
  std::vector<std::int64_t> groups(const FriendsOfFriendsPoints& points, double linking_length);

  // The backend kept for problems of `points` points; automatic when that size was not timed yet.
  FriendsOfFriendsBackend chosen_backend(std::size_t points) const;
  // Timings of the last probe on this rank (empty before the first).
  std::vector<FriendsOfFriendsTiming> last_probe() const;

 private:
  static std::size_t size_class(std::size_t points);

  MPI_Comm communicator_;
  std::array<FriendsOfFriendsBackend, 20> chosen_;
  std::vector<FriendsOfFriendsTiming> last_probe_;
  mutable std::mutex mutex_;
};

}  // namespace kosmo::sinks
