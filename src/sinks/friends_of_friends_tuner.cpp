#include "sinks/friends_of_friends_tuner.hpp"

#include <chrono>

namespace kosmo::sinks {

FriendsOfFriendsTuner::FriendsOfFriendsTuner(MPI_Comm communicator) : communicator_(communicator) {
  chosen_.fill(FriendsOfFriendsBackend::automatic);
}

std::size_t FriendsOfFriendsTuner::size_class(std::size_t points) {
  std::size_t decade = 0;
  for (std::size_t n = points; n >= 10 && decade + 1 < std::tuple_size_v<decltype(chosen_)>; n /= 10) ++decade;
  return decade;
}

FriendsOfFriendsBackend FriendsOfFriendsTuner::chosen_backend(std::size_t points) const {
  const std::lock_guard lock(mutex_);
  return chosen_[size_class(points)];
}

std::vector<FriendsOfFriendsTiming> FriendsOfFriendsTuner::last_probe() const {
  const std::lock_guard lock(mutex_);
  return last_probe_;
}

std::vector<std::int64_t> FriendsOfFriendsTuner::groups(const FriendsOfFriendsPoints& points, double linking_length) {
  const std::lock_guard lock(mutex_);
  FriendsOfFriendsBackend& chosen = chosen_[size_class(points.x.size())];
  if (chosen != FriendsOfFriendsBackend::automatic) return friends_of_friends_groups(points, linking_length, chosen);

  std::vector<FriendsOfFriendsBackend> candidates = {FriendsOfFriendsBackend::cell_list, FriendsOfFriendsBackend::tree};
  if (points.x.size() <= brute_force_probe_limit) candidates.push_back(FriendsOfFriendsBackend::brute_force);
  std::vector<std::int64_t> labels;
  last_probe_.clear();
  int fastest = 0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const auto start = std::chrono::steady_clock::now();
    labels = friends_of_friends_groups(points, linking_length, candidates[c]);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last_probe_.push_back({candidates[c], seconds});
    if (seconds < last_probe_[static_cast<std::size_t>(fastest)].seconds) fastest = static_cast<int>(c);
  }
  if (communicator_ != MPI_COMM_NULL) MPI_Bcast(&fastest, 1, MPI_INT, 0, communicator_);
  chosen = candidates[static_cast<std::size_t>(fastest)];
  return labels;  // every backend returns the same labels
}

}  // namespace kosmo::sinks
