// The three ghost-exchange transports of seeds/000 §3.1 deliver the same messages for random sparse
// patterns, and the k-section exchange sends exactly sum_l (k_l - 1) messages per rank
// (seeds/000 §3.1.3 eq. 7), whatever the traffic.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "parallel/ksection_tree.hpp"
#include "parallel/prime_factors.hpp"
#include "parallel/sparse_exchange.hpp"
#include "parallel/tuned_exchange.hpp"

using namespace kosmo::parallel;

namespace {

constexpr ExchangeMethod all_methods[] = {ExchangeMethod::alltoall, ExchangeMethod::p2p, ExchangeMethod::ksection};

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

KSectionTree uniform_tree(int nrank) {
  UniformCostSource cost;
  return KSectionTree::build(nrank, Box{}, cost);
}

// What rank `source` sends in pattern `seed`: a seeded random subset of destinations (self
// included when drawn), sometimes two messages to one destination, lengths 0..4 so that zero-length
// messages occur. Every rank can regenerate every other rank's pattern, which gives the expected
// result and the p2p source lists without communication.
std::vector<Message> random_pattern(unsigned seed, int source, int nrank) {
  std::mt19937 rng(seed * 7919u + static_cast<unsigned>(source));
  std::uniform_int_distribution<int> coin(0, 1), length(0, 4), repeat(1, 2);
  std::vector<Message> outgoing;
  int serial = 0;
  for (int destination = 0; destination < nrank; ++destination) {
    if (coin(rng) == 0) continue;
    const int copies = repeat(rng);
    for (int c = 0; c < copies; ++c) {
      Message message{destination, {}};
      const int n = length(rng);
      for (int i = 0; i < n; ++i) message.data.push_back(source * 1.0e6 + destination * 1.0e3 + serial++);
      outgoing.push_back(std::move(message));
    }
  }
  std::shuffle(outgoing.begin(), outgoing.end(), rng);  // send order is not destination order
  return outgoing;
}

// Rank r sends to r - 1 and r + 1 (periodic): the neighbour-only pattern of a 1D domain.
std::vector<Message> ring_pattern(int source, int nrank) {
  const int left = (source + nrank - 1) % nrank, right = (source + 1) % nrank;
  return {Message{left, {source + 0.25, -1.0}}, Message{right, {source + 0.75}}};
}

template <class Pattern>
std::vector<Message> expected_incoming(int rank, int nrank, Pattern pattern) {
  std::vector<Message> expected;
  for (int source = 0; source < nrank; ++source) {
    bool any = false;
    Message merged{source, {}};
    for (const Message& message : pattern(source)) {
      if (message.rank != rank) continue;
      any = true;
      merged.data.insert(merged.data.end(), message.data.begin(), message.data.end());
    }
    if (any) expected.push_back(std::move(merged));
  }
  return expected;
}

std::vector<int> sources_of(const std::vector<Message>& expected) {
  std::vector<int> sources;
  for (const Message& message : expected) sources.push_back(message.rank);
  return sources;
}

void expect_same(const std::vector<Message>& actual, const std::vector<Message>& expected, const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what << " on rank " << world_rank();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].rank, expected[i].rank) << what << " message " << i << " on rank " << world_rank();
    EXPECT_EQ(actual[i].data, expected[i].data)
        << what << " from rank " << expected[i].rank << " on rank " << world_rank();
  }
}

int distinct_other_destinations(const std::vector<Message>& outgoing, int rank, bool nonempty_only) {
  std::vector<long long> volume(static_cast<std::size_t>(world_size()), -1);
  for (const Message& message : outgoing) {
    auto& v = volume[static_cast<std::size_t>(message.rank)];
    v = std::max(v, 0LL) + static_cast<long long>(message.data.size());
  }
  int count = 0;
  for (int r = 0; r < world_size(); ++r)
    if (r != rank && volume[static_cast<std::size_t>(r)] >= (nonempty_only ? 1 : 0)) ++count;
  return count;
}

long long payload_bytes_to_others(const std::vector<Message>& outgoing, int rank) {
  long long bytes = 0;
  for (const Message& message : outgoing)
    if (message.rank != rank) bytes += static_cast<long long>(message.data.size() * sizeof(double));
  return bytes;
}

}  // namespace

TEST(SparseExchange, MethodNamesRoundTrip) {
  for (ExchangeMethod method : all_methods) EXPECT_EQ(exchange_method_from_name(exchange_method_name(method)), method);
  EXPECT_THROW(exchange_method_from_name("allgather"), kosmo::Error);
}

TEST(SparseExchange, RandomPatternsDeliverIdenticallyWithAllMethods) {
  const int rank = world_rank(), nrank = world_size();
  const KSectionTree tree = uniform_tree(nrank);
  const int ksection_messages = ksection_messages_per_exchange(splitting_sequence(nrank));
  for (unsigned seed = 1; seed <= 20; ++seed) {
    auto pattern = [&](int source) { return random_pattern(seed, source, nrank); };
    const std::vector<Message> outgoing = pattern(rank);
    const std::vector<Message> expected = expected_incoming(rank, nrank, pattern);
    const std::vector<int> sources = sources_of(expected);
    for (ExchangeMethod method : all_methods) {
      SCOPED_TRACE(std::string(exchange_method_name(method)) + " seed " + std::to_string(seed));
      ExchangeStats stats;
      const std::vector<Message> incoming = sparse_exchange(MPI_COMM_WORLD, method, outgoing, sources, &tree, &stats);
      expect_same(incoming, expected, exchange_method_name(method));
      switch (method) {
        case ExchangeMethod::alltoall:
          EXPECT_EQ(stats.messages_sent, distinct_other_destinations(outgoing, rank, true));
          EXPECT_EQ(stats.bytes_sent, payload_bytes_to_others(outgoing, rank));
          break;
        case ExchangeMethod::p2p:
          EXPECT_EQ(stats.messages_sent, distinct_other_destinations(outgoing, rank, false));
          EXPECT_EQ(stats.bytes_sent, payload_bytes_to_others(outgoing, rank));
          break;
        case ExchangeMethod::ksection:
          EXPECT_EQ(stats.messages_sent, ksection_messages);
          break;
      }
      if (stats.messages_sent == 0) {
        EXPECT_EQ(stats.bytes_sent, 0);
      }
    }
  }
}

TEST(SparseExchange, KSectionMessageCountFollowsEq7) {
  // 1 -> 0, 2 -> 1, 3 -> 2, 4 = 2 * 2 -> 2 (seeds/000 §3.1.3 eq. 7), even with no traffic at all.
  const int nrank = world_size();
  const int expected[] = {0, 0, 1, 2, 2};
  const KSectionTree tree = uniform_tree(nrank);
  ExchangeStats stats;
  const std::vector<Message> incoming =
      sparse_exchange(MPI_COMM_WORLD, ExchangeMethod::ksection, {}, {}, &tree, &stats);
  EXPECT_TRUE(incoming.empty());
  if (nrank <= 4) {
    EXPECT_EQ(stats.messages_sent, expected[nrank]);
  }
  if (nrank == 12) {
    EXPECT_EQ(stats.messages_sent, 4);  // (3 - 1) + (2 - 1) + (2 - 1), the paper's example
  }
  EXPECT_EQ(stats.messages_sent, ksection_messages_per_exchange(splitting_sequence(nrank)));
  EXPECT_EQ(stats.bytes_sent, 0);  // empty messages carry no items, hence no headers
}

TEST(SparseExchange, RingWithKnownSources) {
  const int rank = world_rank(), nrank = world_size();
  const KSectionTree tree = uniform_tree(nrank);
  auto pattern = [&](int source) { return ring_pattern(source, nrank); };
  const std::vector<Message> outgoing = pattern(rank);
  const std::vector<Message> expected = expected_incoming(rank, nrank, pattern);
  // The sources a ring rank knows from geometry alone: its two neighbours (one rank on 2 ranks,
  // itself on 1 rank, where both messages arrive concatenated).
  const std::vector<int> sources = {(rank + nrank - 1) % nrank, (rank + 1) % nrank};
  std::vector<std::vector<Message>> results;
  for (ExchangeMethod method : all_methods) {
    ExchangeStats stats;
    results.push_back(sparse_exchange(MPI_COMM_WORLD, method, outgoing, sources, &tree, &stats));
    expect_same(results.back(), expected, exchange_method_name(method));
    if (method == ExchangeMethod::p2p) {
      EXPECT_EQ(stats.messages_sent, std::min(nrank - 1, 2));
    }
  }
}

TEST(SparseExchange, RepeatedExchangesDoNotMix) {
  // Back-to-back exchanges reuse the same tags; each must see only its own messages.
  const int rank = world_rank(), nrank = world_size();
  const KSectionTree tree = uniform_tree(nrank);
  for (ExchangeMethod method : all_methods)
    for (int round = 0; round < 5; ++round) {
      std::vector<Message> outgoing;
      for (int d = 0; d < nrank; ++d) outgoing.push_back(Message{d, {static_cast<double>(round), double(rank)}});
      std::vector<int> sources(static_cast<std::size_t>(nrank));
      for (int s = 0; s < nrank; ++s) sources[static_cast<std::size_t>(s)] = s;
      const std::vector<Message> incoming = sparse_exchange(MPI_COMM_WORLD, method, outgoing, sources, &tree);
      ASSERT_EQ(static_cast<int>(incoming.size()), nrank);
      for (int s = 0; s < nrank; ++s) {
        EXPECT_EQ(incoming[static_cast<std::size_t>(s)].rank, s);
        EXPECT_EQ(incoming[static_cast<std::size_t>(s)].data, (std::vector<double>{double(round), double(s)}));
      }
    }
}

TEST(SparseExchange, KSectionRequiresAMatchingTree) {
  const int nrank = world_size();
  const KSectionTree wrong = uniform_tree(nrank + 1);
  EXPECT_THROW(sparse_exchange(MPI_COMM_WORLD, ExchangeMethod::ksection, {}, {}, &wrong), kosmo::Error);
  EXPECT_THROW(sparse_exchange(MPI_COMM_WORLD, ExchangeMethod::ksection, {}, {}, nullptr), kosmo::Error);
  EXPECT_THROW(sparse_exchange(MPI_COMM_WORLD, ExchangeMethod::p2p, {Message{nrank, {}}}, {}, nullptr), kosmo::Error);
}

// Pure (no MPI traffic): the correspondent pattern for rank counts beyond the test run, e.g. the
// N = 12 = 3 * 2 * 2 example of seeds/000 §3.1.3 Fig. 2 with 4 messages per rank.
TEST(KSectionCorrespondents, CountSymmetryAndRangesFollowEq7) {
  for (int n : {1, 2, 6, 7, 12, 64, 96, 1024}) {
    const KSectionTree tree = uniform_tree(n);
    const int expected = ksection_messages_per_exchange(tree.splits());
    std::vector<std::vector<std::vector<int>>> all;
    for (int r = 0; r < n; ++r) all.push_back(ksection_correspondents(tree, r));
    for (int r = 0; r < n; ++r) {
      ASSERT_EQ(static_cast<int>(all[r].size()), tree.tree_levels()) << "N " << n << " rank " << r;
      int total = 0;
      std::set<int> seen;
      for (int l = 0; l < tree.tree_levels(); ++l) {
        EXPECT_EQ(static_cast<int>(all[r][l].size()), tree.splits()[l] - 1) << "N " << n << " rank " << r;
        total += static_cast<int>(all[r][l].size());
        for (int partner : all[r][l]) {
          ASSERT_GE(partner, 0);
          ASSERT_LT(partner, n);
          EXPECT_NE(partner, r);
          EXPECT_TRUE(seen.insert(partner).second) << "N " << n << " rank " << r << " meets " << partner << " twice";
          const auto& back = all[static_cast<std::size_t>(partner)][l];
          EXPECT_NE(std::find(back.begin(), back.end(), r), back.end())
              << "N " << n << ": " << partner << " does not pair back with " << r << " at level " << l;
        }
      }
      EXPECT_EQ(total, expected) << "N " << n << " rank " << r;
    }
    if (n == 12) {
      EXPECT_EQ(expected, 4);
      // Level 1 (k = 3, subtrees of 4 ranks): rank 5 pairs with the ranks at offset 1 in the others.
      EXPECT_EQ(all[5][0], (std::vector<int>{1, 9}));
    }
    if (n == 1024) {
      EXPECT_EQ(expected, 10);
    }
  }
}

// Pure: following the correspondents level by level takes every item from any source to any
// destination in at most L hops (seeds/000 §3.1.3): at level l the item moves to the correspondent
// lying in the destination's level-l subtree, or stays if it is already there. Subtrees of level l
// hold n / (k_1 ... k_l) consecutive ranks, so subtree membership is rank / width.
TEST(KSectionCorrespondents, RoutingReachesEveryDestination) {
  for (int n : {12, 30, 96}) {
    const KSectionTree tree = uniform_tree(n);
    std::vector<std::vector<std::vector<int>>> all;
    for (int r = 0; r < n; ++r) all.push_back(ksection_correspondents(tree, r));
    for (int source = 0; source < n; ++source)
      for (int destination = 0; destination < n; ++destination) {
        int at = source, width = n;
        for (int l = 0; l < tree.tree_levels(); ++l) {
          width /= tree.splits()[l];
          if (at / width == destination / width) continue;
          int next = -1;
          for (int partner : all[static_cast<std::size_t>(at)][l])
            if (partner / width == destination / width) next = partner;
          ASSERT_GE(next, 0) << "N " << n << ": no correspondent of " << at << " towards " << destination;
          at = next;
        }
        EXPECT_EQ(at, destination) << "N " << n << " from " << source;
      }
  }
}

TEST(SparseExchange, ReceivedCountsAndWaitTime) {
  // What a rank takes off the wire is what the others put on it for this rank: over all ranks,
  // messages and bytes received equal those sent (p2p and all-to-all move payload only; k-section
  // relays count at every hop, on both sides). Waiting is timed and never negative.
  const int rank = world_rank(), nrank = world_size();
  const KSectionTree tree = uniform_tree(nrank);
  auto pattern = [&](int source) { return ring_pattern(source, nrank); };  // traffic between ranks whenever nrank > 1
  const std::vector<Message> outgoing = pattern(rank);
  const std::vector<int> sources = {(rank + nrank - 1) % nrank, (rank + 1) % nrank};
  for (ExchangeMethod method : all_methods) {
    SCOPED_TRACE(exchange_method_name(method));
    ExchangeStats stats;
    sparse_exchange(MPI_COMM_WORLD, method, outgoing, sources, &tree, &stats);
    sparse_exchange(MPI_COMM_WORLD, method, outgoing, sources, &tree, &stats);
    EXPECT_EQ(stats.exchanges, 2);
    EXPECT_GE(stats.wait_seconds, 0.0);
    long long totals[4] = {stats.messages_sent, stats.messages_received, stats.bytes_sent, stats.bytes_received};
    MPI_Allreduce(MPI_IN_PLACE, totals, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(totals[0], totals[1]);
    EXPECT_EQ(totals[2], totals[3]);
    if (nrank > 1 && method != ExchangeMethod::alltoall) {
      EXPECT_GT(totals[1], 0);
    }
  }
  ExchangeStats sum;
  sum.messages_sent = 2;
  sum.wait_seconds = 0.5;
  ExchangeStats more;
  more.messages_sent = 3;
  more.bytes_received = 8;
  more.wait_seconds = 0.25;
  more.exchanges = 1;
  sum += more;
  EXPECT_EQ(sum.messages_sent, 5);
  EXPECT_EQ(sum.bytes_received, 8);
  EXPECT_DOUBLE_EQ(sum.wait_seconds, 0.75);
  EXPECT_EQ(sum.exchanges, 1);
}

TEST(SparseExchange, TunedExchangeKeepsRanksInStep) {
  // Every rank's tuner sees the maxima over ranks, so all ranks pick the same backend at every call
  // (a mismatch would deadlock or fail the delivery check), however different their local timings.
  const int rank = world_rank(), nrank = world_size();
  const KSectionTree tree = uniform_tree(nrank);
  auto pattern = [&](int source) { return random_pattern(11, source, nrank); };
  const std::vector<Message> outgoing = pattern(rank);
  const std::vector<Message> expected = expected_incoming(rank, nrank, pattern);
  const std::vector<int> sources = sources_of(expected);
  AutoTuneSettings settings;
  settings.settle_calls = 4;
  settings.max_settle_calls = 8;
  settings.min_bytes = 0.0;
  ExchangeAutoTuner tuner(settings);
  ExchangeStats stats;
  for (int call = 0; call < 200; ++call) {
    const int chosen = static_cast<int>(tuner.choose(ExchangeComponent::bulk_dp));
    int lowest = chosen, highest = chosen;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ASSERT_EQ(lowest, highest) << "call " << call;
    expect_same(tuned_exchange(MPI_COMM_WORLD, tuner, ExchangeComponent::bulk_dp, outgoing, sources, &tree, stats), expected,
                "tuned");
  }
  EXPECT_EQ(stats.exchanges, 200);
  EXPECT_GE(tuner.round_count(ExchangeComponent::bulk_dp), 5);  // 16 calls per round, 4 then 8 settled
}
