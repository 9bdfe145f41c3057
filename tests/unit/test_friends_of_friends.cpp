// The friends-of-friends sink merger (seeds/000 §6.4; docs/galaxy.md "Sink merging (friends of
// friends)"): every backend returns the brute-force reference's labels (the smallest index of each
// group) on hand-made cases and on clustered sinks from 1 to 10⁴ points, on 1 and 2 threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "sinks/friends_of_friends.hpp"
#include "sinks/friends_of_friends_clustered_points.hpp"
#include "sinks/friends_of_friends_partition.hpp"
#include "sinks/friends_of_friends_tuner.hpp"

using namespace kosmo::sinks;

namespace {

constexpr FriendsOfFriendsBackend kBackends[] = {FriendsOfFriendsBackend::brute_force, FriendsOfFriendsBackend::tree,
                                                 FriendsOfFriendsBackend::cell_list,
                                                 FriendsOfFriendsBackend::automatic};
constexpr double kLinkingLength = 4.0 / 8192.0;

struct Points {
  std::vector<double> x, y, z;
  double box = 1.0;
  bool periodic = true;
  FriendsOfFriendsPoints view() const { return {x, y, z, box, periodic}; }
};

// Points along x at the given positions (y = z = 0).
Points on_a_line(std::vector<double> x, bool periodic = true) {
  Points p;
  p.x = std::move(x);
  p.y.assign(p.x.size(), 0.0);
  p.z.assign(p.x.size(), 0.0);
  p.periodic = periodic;
  return p;
}

// Runs `check` on the labels of every backend.
template <class Check>
void for_every_backend(const FriendsOfFriendsPoints& points, double linking_length, Check check) {
  for (FriendsOfFriendsBackend backend : kBackends) {
    SCOPED_TRACE(static_cast<int>(backend));
    check(friends_of_friends_groups(points, linking_length, backend));
  }
}

}  // namespace

TEST(FriendsOfFriends, ChainsLinkTransitivelyAndLabelsAreTheSmallestIndex) {
  // Points 0.9 apart chain into one group, 1.1 apart stay alone; the group's label is its smallest
  // index even when that point is listed last.
  const Points chain = on_a_line({0.5027, 0.5, 0.5009, 0.5018, 0.6, 0.611, 0.7});
  for_every_backend(chain.view(), 0.001, [](const std::vector<std::int64_t>& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 0, 0, 0, 4, 5, 6}));
  });
}

TEST(FriendsOfFriends, LinkingLengthIsInclusiveAndZeroLinksOnlyCoincidentPoints) {
  const Points pair = on_a_line({0.25, 0.5, 0.75});
  for_every_backend(pair.view(), 0.25, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 0, 0}));
  });
  for_every_backend(pair.view(), 0.2499999, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 2}));
  });
  const Points coincident = on_a_line({0.3, 0.7, 0.3, 0.7, 0.5});
  for_every_backend(coincident.view(), 0.0, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 0, 1, 4}));
  });
}

TEST(FriendsOfFriends, PeriodicBoxLinksAcrossTheFacesOnlyWhenPeriodic) {
  Points across = on_a_line({0.999, 0.5, 0.0005}, true);
  across.y = {0.0004, 0.5, 0.9998};  // across two faces at once
  for_every_backend(across.view(), 0.002, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 0}));
  });
  across.periodic = false;
  for_every_backend(across.view(), 0.002, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 2}));
  });
  // Positions given outside the box are taken at their periodic image.
  Points outside = on_a_line({1.9995, -0.0003, 0.5}, true);
  for_every_backend(outside.view(), 0.001, [](const auto& labels) {
    EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 0, 2}));
  });
}

TEST(FriendsOfFriends, EmptyAndSinglePointInputs) {
  const Points none = on_a_line({});
  for_every_backend(none.view(), 0.1, [](const auto& labels) { EXPECT_TRUE(labels.empty()); });
  const Points one = on_a_line({0.3});
  for_every_backend(one.view(), 0.1, [](const auto& labels) { EXPECT_EQ(labels, (std::vector<std::int64_t>{0})); });
}

TEST(FriendsOfFriends, RejectsMismatchedArraysAndBadLengths) {
  Points p = on_a_line({0.1, 0.2});
  p.z.pop_back();
  EXPECT_THROW(friends_of_friends_groups(p.view(), 0.1, FriendsOfFriendsBackend::tree), kosmo::Error);
  const Points q = on_a_line({0.1, 0.2});
  EXPECT_THROW(friends_of_friends_groups(q.view(), -1.0, FriendsOfFriendsBackend::cell_list), kosmo::Error);
  EXPECT_THROW(friends_of_friends_groups(q.view(), std::nan(""), FriendsOfFriendsBackend::brute_force), kosmo::Error);
}

TEST(FriendsOfFriends, PartitionCheckCatchesSplitsAndMergesBothWays) {
  const std::vector<std::int64_t> reference = {0, 0, 2, 2, 4};
  EXPECT_TRUE(same_partition(reference, reference));
  EXPECT_TRUE(same_partition(reference, std::vector<std::int64_t>{1, 1, 3, 3, 0}));   // renamed groups
  EXPECT_FALSE(same_partition(reference, std::vector<std::int64_t>{0, 0, 0, 0, 4}));  // two groups merged
  EXPECT_FALSE(same_partition(std::vector<std::int64_t>{0, 0, 0, 0, 4}, reference));  // ... seen from the other side
  EXPECT_FALSE(same_partition(reference, std::vector<std::int64_t>{0, 1, 2, 2, 4}));  // a group split
  EXPECT_FALSE(same_partition(reference, std::vector<std::int64_t>{0, 0, 2}));        // sizes differ
  EXPECT_EQ(count_groups(reference), 3);
}

// The acceptance check of seeds/000 §6.4 on this machine's budget: clustered sinks from 1 to 10⁴
// (brute force as the reference), the tree and cell list also at 3·10⁴ against each other, on one
// thread and two; labels are compared exactly (the partition check is the weaker statement).
TEST(FriendsOfFriends, BackendsReturnTheReferencePartitionOnClusteredSinks) {
  for (std::int64_t n : {1, 2, 3, 10, 100, 1000, 10000}) {
    const ClusteredPoints points = clustered_points(n, kLinkingLength, 7 + static_cast<std::uint64_t>(n), 50);
    const auto reference =
        friends_of_friends_groups(points.view(), kLinkingLength, FriendsOfFriendsBackend::brute_force);
    if (n >= 1000) {  // clustered: far fewer groups than points, yet more than one
      EXPECT_LT(count_groups(reference), n / 5);
      EXPECT_GT(count_groups(reference), 1);
    }
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      for (FriendsOfFriendsBackend backend : {FriendsOfFriendsBackend::tree, FriendsOfFriendsBackend::cell_list}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " threads " << threads << " backend "
                                        << static_cast<int>(backend));
        const auto labels = friends_of_friends_groups(points.view(), kLinkingLength, backend);
        EXPECT_TRUE(same_partition(labels, reference));
        EXPECT_EQ(labels, reference);
      }
    }
  }
  omp_set_num_threads(2);
  const ClusteredPoints large = clustered_points(30000, kLinkingLength, 11);
  const auto tree = friends_of_friends_groups(large.view(), kLinkingLength, FriendsOfFriendsBackend::tree);
  omp_set_num_threads(1);
  EXPECT_EQ(friends_of_friends_groups(large.view(), kLinkingLength, FriendsOfFriendsBackend::cell_list), tree);
  omp_set_num_threads(2);
  EXPECT_EQ(friends_of_friends_groups(large.view(), kLinkingLength, FriendsOfFriendsBackend::cell_list), tree);
}

// Uniform points with a linking length near the percolation threshold (long filamentary groups),
// in 3D, in a plane (z = 0) and in a non-periodic box, where the grid spans the points only.
TEST(FriendsOfFriends, BackendsAgreeOnUniformPointsInThreeAndTwoDimensions) {
  const ClusteredPoints scattered = clustered_points(3000, 0.0, 3, 1);  // σ = 0: 3000 one-point clumps
  for (bool flat : {false, true})
    for (bool periodic : {true, false}) {
      SCOPED_TRACE(testing::Message() << "flat " << flat << " periodic " << periodic);
      Points p{scattered.x, scattered.y, scattered.z, 1.0, periodic};
      if (flat) std::fill(p.z.begin(), p.z.end(), 0.0);
      const double linking_length = flat ? 0.02 : 0.06;
      const auto reference = friends_of_friends_groups(p.view(), linking_length, FriendsOfFriendsBackend::brute_force);
      EXPECT_GT(count_groups(reference), 10);
      EXPECT_LT(count_groups(reference), 2900);
      for_every_backend(p.view(), linking_length, [&](const auto& labels) { EXPECT_EQ(labels, reference); });
    }
}

TEST(FriendsOfFriends, TunerKeepsTheFastestBackendPerSizeAndReturnsTheSameLabels) {
  const ClusteredPoints points = clustered_points(2000, kLinkingLength, 5);
  const auto reference = friends_of_friends_groups(points.view(), kLinkingLength, FriendsOfFriendsBackend::brute_force);
  FriendsOfFriendsTuner tuner;
  EXPECT_EQ(tuner.chosen_backend(2000), FriendsOfFriendsBackend::automatic);
  EXPECT_EQ(tuner.groups(points.view(), kLinkingLength), reference);
  const auto probe = tuner.last_probe();
  ASSERT_EQ(probe.size(), 3u);  // cell list, tree and (at this size) brute force were timed
  const FriendsOfFriendsBackend chosen = tuner.chosen_backend(2000);
  for (const auto& timing : probe) {
    if (timing.backend != chosen) continue;
    for (const auto& other : probe) EXPECT_LE(timing.seconds, other.seconds);
  }
  EXPECT_EQ(tuner.chosen_backend(5000), chosen);  // same decade
  EXPECT_EQ(tuner.chosen_backend(20000), FriendsOfFriendsBackend::automatic);
  EXPECT_EQ(tuner.groups(points.view(), kLinkingLength), reference);
  EXPECT_EQ(tuner.last_probe().size(), 3u);  // no new probe
}

// A walk of steps just longer than the linking length, each close to the body diagonal: every
// step spans less than a grid cell's side along each axis for a grid of side > 0.58 l, so a cell
// list whose cells were too large to link their points without a test (side > l/√3) would join
// some steps. Nearly every point is alone; every backend must say so exactly as brute force does.
TEST(FriendsOfFriends, DiagonalStepsJustBeyondTheLinkingLengthStayUnlinked) {
  const ClusteredPoints noise = clustered_points(6000, 0.0, 23, 1);  // uniform numbers for the directions
  Points walk;
  // Four parallel walks, each too short to come round the periodic box onto itself.
  const double starts[4][3] = {{0.1, 0.2, 0.3}, {0.6, 0.2, 0.8}, {0.3, 0.7, 0.1}, {0.8, 0.9, 0.5}};
  double p[3] = {};
  for (std::size_t k = 0; k < noise.x.size(); ++k) {
    if (k % 1500 == 0)
      for (int d = 0; d < 3; ++d) p[d] = starts[k / 1500][d];
    double u[3] = {1.0 + 0.1 * (noise.x[k] - 0.5), 1.0 + 0.1 * (noise.y[k] - 0.5), 1.0 + 0.1 * (noise.z[k] - 0.5)};
    const double norm = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int d = 0; d < 3; ++d) p[d] = p[d] + 1.01 * kLinkingLength * u[d] / norm;
    walk.x.push_back(p[0] - std::floor(p[0]));
    walk.y.push_back(p[1] - std::floor(p[1]));
    walk.z.push_back(p[2] - std::floor(p[2]));
  }
  const auto reference = friends_of_friends_groups(walk.view(), kLinkingLength, FriendsOfFriendsBackend::brute_force);
  EXPECT_EQ(count_groups(reference), 6000);
  for_every_backend(walk.view(), kLinkingLength, [&](const auto& labels) { EXPECT_EQ(labels, reference); });
}

// Linking lengths of a good fraction of the box: a grid of 3 to 6 cells per axis, whose neighbour
// windows wrap onto themselves across the periodic faces.
TEST(FriendsOfFriends, BackendsAgreeWhenTheLinkingLengthIsAFractionOfTheBox) {
  const ClusteredPoints scattered = clustered_points(60, 0.0, 31, 1);
  for (double linking_length : {0.12, 0.2, 0.3, 0.45, 0.6}) {
    SCOPED_TRACE(linking_length);
    const auto reference =
        friends_of_friends_groups(scattered.view(), linking_length, FriendsOfFriendsBackend::brute_force);
    if (linking_length < 0.15) {
      EXPECT_GT(count_groups(reference), 5);  // not all one group
    }
    for_every_backend(scattered.view(), linking_length, [&](const auto& labels) { EXPECT_EQ(labels, reference); });
  }
}
