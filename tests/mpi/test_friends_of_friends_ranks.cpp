// The friends-of-friends sink merger on several ranks (seeds/000 §6.4; docs/galaxy.md "Sink
// merging (friends of friends)"): sinks are replicated, so every rank computes the groups itself;
// the labels must be the same on every rank, for every backend and thread count, and the automatic
// choice must be one backend agreed by all ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <cstdint>
#include <vector>

#include "sinks/friends_of_friends.hpp"
#include "sinks/friends_of_friends_clustered_points.hpp"
#include "sinks/friends_of_friends_partition.hpp"
#include "sinks/friends_of_friends_tuner.hpp"

using namespace kosmo::sinks;

namespace {

constexpr double kLinkingLength = 4.0 / 8192.0;

// Labels of rank 0 on every rank.
std::vector<std::int64_t> rank0_labels(std::vector<std::int64_t> labels) {
  MPI_Bcast(labels.data(), static_cast<int>(labels.size()), MPI_INT64_T, 0, MPI_COMM_WORLD);
  return labels;
}

int ranks_disagreeing(bool agrees) {
  int disagreeing = agrees ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &disagreeing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return disagreeing;
}

}  // namespace

TEST(FriendsOfFriendsRanks, EveryRankEveryBackendAndThreadCountGivesTheSameLabels) {
  for (std::int64_t n : {1, 500, 5000, 25000}) {
    const ClusteredPoints points = clustered_points(n, kLinkingLength, 99);
    std::vector<std::int64_t> reference;
    if (n <= 5000) {
      reference = friends_of_friends_groups(points.view(), kLinkingLength, FriendsOfFriendsBackend::brute_force);
    } else {
      reference = friends_of_friends_groups(points.view(), kLinkingLength, FriendsOfFriendsBackend::tree);
    }
    const std::vector<std::int64_t> on_rank0 = rank0_labels(reference);
    EXPECT_EQ(ranks_disagreeing(reference == on_rank0), 0) << n;
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      for (FriendsOfFriendsBackend backend : {FriendsOfFriendsBackend::tree, FriendsOfFriendsBackend::cell_list}) {
        const auto labels = friends_of_friends_groups(points.view(), kLinkingLength, backend);
        EXPECT_TRUE(same_partition(labels, on_rank0)) << n << " " << threads << " " << static_cast<int>(backend);
        EXPECT_EQ(ranks_disagreeing(labels == on_rank0), 0) << n << " " << threads << " " << static_cast<int>(backend);
      }
    }
    omp_set_num_threads(1);
  }
}

TEST(FriendsOfFriendsRanks, TheTunerOfACommunicatorTakesRankZerosChoiceOnEveryRank) {
  const ClusteredPoints points = clustered_points(3000, kLinkingLength, 17);
  const auto reference =
      rank0_labels(friends_of_friends_groups(points.view(), kLinkingLength, FriendsOfFriendsBackend::brute_force));
  FriendsOfFriendsTuner tuner(MPI_COMM_WORLD);
  EXPECT_EQ(ranks_disagreeing(tuner.groups(points.view(), kLinkingLength) == reference), 0);
  int chosen = static_cast<int>(tuner.chosen_backend(3000));
  EXPECT_NE(chosen, static_cast<int>(FriendsOfFriendsBackend::automatic));
  int on_rank0 = chosen;
  MPI_Bcast(&on_rank0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_EQ(ranks_disagreeing(chosen == on_rank0), 0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {  // rank 0's own timings decided
    for (const auto& timing : tuner.last_probe()) {
      if (static_cast<int>(timing.backend) != chosen) continue;
      for (const auto& other : tuner.last_probe()) EXPECT_LE(timing.seconds, other.seconds);
    }
  }
  EXPECT_EQ(ranks_disagreeing(tuner.groups(points.view(), kLinkingLength) == reference), 0);  // the kept backend
}
