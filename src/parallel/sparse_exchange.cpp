// Ghost-exchange transports of seeds/000 §3.1: MPI_Alltoallv, point-to-point and the hierarchical
// k-section exchange (§3.1.3 eq. 7), all returning the same incoming messages.
#include "parallel/sparse_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace kosmo::parallel {

namespace {

// Tags private to this exchange, so that other point-to-point traffic on the same communicator is
// never matched by our probes. Below 32767, the smallest MPI_TAG_UB the standard allows. Consecutive
// exchanges can share tags: MPI's non-overtaking rule keeps one pair's messages in order and every
// exchange receives exactly one message per partner.
constexpr int p2p_tag = 30501;
constexpr int ksection_tag_base = 30520;  // + tree level; a tree has < 32 levels for int rank counts

// Per-item routing header of the k-section exchange: final destination, original source, length.
constexpr std::size_t header_size = 3;

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

int checked_count(std::size_t n, const char* what) {
  KOSMO_REQUIRE(n < static_cast<std::size_t>(INT_MAX),
                "sparse_exchange: " << what << " of " << n << " doubles exceeds the MPI int count limit");
  return static_cast<int>(n);
}

// One entry per destination, messages to the same destination concatenated in send order, so every
// backend moves exactly one item per (source, destination) pair and ordering is decided here once.
// A zero-length message still creates its entry: the destination must see the source.
std::vector<Message> merge_by_destination(const std::vector<Message>& outgoing, int nrank) {
  std::vector<int> slot(static_cast<std::size_t>(nrank), -1);
  std::vector<Message> merged;
  for (const Message& message : outgoing) {
    KOSMO_REQUIRE(message.rank >= 0 && message.rank < nrank,
                  "sparse_exchange: destination rank " << message.rank << " outside [0, " << nrank << ")");
    int& s = slot[static_cast<std::size_t>(message.rank)];
    if (s < 0) {
      s = static_cast<int>(merged.size());
      merged.push_back(Message{message.rank, {}});
    }
    auto& data = merged[static_cast<std::size_t>(s)].data;
    data.insert(data.end(), message.data.begin(), message.data.end());
  }
  std::sort(merged.begin(), merged.end(), [](const Message& a, const Message& b) { return a.rank < b.rank; });
  return merged;
}

void sort_by_source(std::vector<Message>& incoming) {
  std::sort(incoming.begin(), incoming.end(), [](const Message& a, const Message& b) { return a.rank < b.rank; });
}

// The self message, if any, is delivered by a copy: no MPI call for data that stays home.
void deliver_self(const std::vector<Message>& merged, int rank, std::vector<Message>& incoming) {
  for (const Message& message : merged)
    if (message.rank == rank) incoming.push_back(message);
}

// Receives one message of unknown length from `source` with `tag`. MPI_Mprobe/MPI_Mrecv rather than
// Probe/Recv so that a second thread probing the same communicator cannot steal the matched message.
// The blocked time and the received payload go to `stats`.
std::vector<double> receive_any_length(MPI_Comm comm, int source, int tag, ExchangeStats& stats) {
  const double start = MPI_Wtime();
  MPI_Message handle;
  MPI_Status status;
  MPI_Mprobe(source, tag, comm, &handle, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  std::vector<double> data(static_cast<std::size_t>(count));
  MPI_Mrecv(data.data(), count, MPI_DOUBLE, &handle, MPI_STATUS_IGNORE);
  stats.wait_seconds += MPI_Wtime() - start;
  ++stats.messages_received;
  stats.bytes_received += static_cast<long long>(data.size() * sizeof(double));
  return data;
}

void wait_all(std::vector<MPI_Request>& requests, ExchangeStats& stats) {
  const double start = MPI_Wtime();
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  stats.wait_seconds += MPI_Wtime() - start;
}

// §3.1.1: counts first (MPI_Alltoall), then the payload (MPI_Alltoallv). The counts are sent as
// length + 1 so that a zero-length message (count 1) is distinguishable from no message (count 0):
// all backends then report the same set of sources.
std::vector<Message> exchange_alltoall(MPI_Comm comm, const std::vector<Message>& merged, ExchangeStats& stats) {
  const int rank = comm_rank(comm), nrank = comm_size(comm);
  const auto n = static_cast<std::size_t>(nrank);
  const double start = MPI_Wtime();  // both collectives block: all of their time is waiting
  std::vector<int> send_tokens(n, 0), recv_tokens(n, 0);
  for (const Message& message : merged)
    send_tokens[static_cast<std::size_t>(message.rank)] = checked_count(message.data.size(), "message") + 1;
  MPI_Alltoall(send_tokens.data(), 1, MPI_INT, recv_tokens.data(), 1, MPI_INT, comm);

  std::vector<int> send_counts(n, 0), send_displs(n, 0), recv_counts(n, 0), recv_displs(n, 0);
  std::size_t send_total = 0, recv_total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (static_cast<int>(r) == rank) continue;  // self goes by copy
    send_counts[r] = std::max(send_tokens[r] - 1, 0);
    recv_counts[r] = std::max(recv_tokens[r] - 1, 0);
    send_displs[r] = checked_count(send_total, "alltoallv send buffer");
    recv_displs[r] = checked_count(recv_total, "alltoallv receive buffer");
    send_total += static_cast<std::size_t>(send_counts[r]);
    recv_total += static_cast<std::size_t>(recv_counts[r]);
    if (send_counts[r] > 0) ++stats.messages_sent;  // MPI only moves the non-empty blocks
  }
  checked_count(send_total, "alltoallv send buffer");
  checked_count(recv_total, "alltoallv receive buffer");
  std::vector<double> send_buffer(send_total), recv_buffer(recv_total);
  for (const Message& message : merged) {
    if (message.rank == rank) continue;
    std::copy(message.data.begin(), message.data.end(),
              send_buffer.begin() + send_displs[static_cast<std::size_t>(message.rank)]);
  }
  stats.bytes_sent += static_cast<long long>(send_total * sizeof(double));
  MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, recv_buffer.data(),
                recv_counts.data(), recv_displs.data(), MPI_DOUBLE, comm);
  stats.wait_seconds += MPI_Wtime() - start;
  for (std::size_t r = 0; r < n; ++r) stats.messages_received += recv_counts[r] > 0 ? 1 : 0;
  stats.bytes_received += static_cast<long long>(recv_total * sizeof(double));

  std::vector<Message> incoming;
  for (std::size_t r = 0; r < n; ++r) {
    if (static_cast<int>(r) == rank || recv_tokens[r] == 0) continue;
    const auto begin = recv_buffer.begin() + recv_displs[r];
    incoming.push_back(Message{static_cast<int>(r), std::vector<double>(begin, begin + recv_counts[r])});
  }
  deliver_self(merged, rank, incoming);
  sort_by_source(incoming);
  return incoming;
}

// §3.1.2: non-blocking sends to the destinations, then one probed receive per known source (the
// probe gives the length, so no size round and no global operation), then MPI_Waitall.
std::vector<Message> exchange_p2p(MPI_Comm comm, const std::vector<Message>& merged, const std::vector<int>& sources,
                                  ExchangeStats& stats) {
  const int rank = comm_rank(comm), nrank = comm_size(comm);
  std::vector<int> partners;
  for (int source : sources) {
    KOSMO_REQUIRE(source >= 0 && source < nrank,
                  "sparse_exchange(p2p): source rank " << source << " outside [0, " << nrank << ")");
    if (source != rank) partners.push_back(source);
  }
  std::sort(partners.begin(), partners.end());
  partners.erase(std::unique(partners.begin(), partners.end()), partners.end());

  std::vector<MPI_Request> requests;
  requests.reserve(merged.size());
  for (const Message& message : merged) {
    if (message.rank == rank) continue;
    requests.emplace_back();
    MPI_Isend(message.data.data(), checked_count(message.data.size(), "message"), MPI_DOUBLE, message.rank, p2p_tag,
              comm, &requests.back());
    ++stats.messages_sent;
    stats.bytes_sent += static_cast<long long>(message.data.size() * sizeof(double));
  }
  std::vector<Message> incoming;
  incoming.reserve(partners.size() + 1);
  for (int source : partners) incoming.push_back(Message{source, receive_any_length(comm, source, p2p_tag, stats)});
  wait_all(requests, stats);
  deliver_self(merged, rank, incoming);
  sort_by_source(incoming);
  return incoming;
}

// One level of this rank's walk down the k-section tree: its own child there and, for every sibling
// subtree, the sibling node and the correspondent rank at the same offset inside it.
struct WalkLevel {
  int own_child = -1;
  std::vector<int> siblings;
  std::vector<int> correspondents;
};

std::vector<WalkLevel> ksection_walk(const KSectionTree& tree, int rank) {
  KOSMO_REQUIRE(rank >= 0 && rank < tree.nrank(),
                "k-section exchange: rank " << rank << " outside the tree's [0, " << tree.nrank() << ")");
  std::vector<WalkLevel> walk;
  int node = 0;  // the root
  while (!tree.is_leaf(node)) {
    WalkLevel level;
    const int first = tree.first_child(node), k = tree.child_count(node);
    for (int c = first; c < first + k; ++c)
      if (rank >= tree.rank_min(c) && rank <= tree.rank_max(c)) level.own_child = c;
    KOSMO_REQUIRE(level.own_child >= 0, "k-section exchange: rank " << rank << " in no child of node " << node);
    const int offset = rank - tree.rank_min(level.own_child);
    const int width = tree.rank_max(level.own_child) - tree.rank_min(level.own_child);
    for (int c = first; c < first + k; ++c) {
      if (c == level.own_child) continue;
      // Siblings hold equally many ranks (one prime factor per level), which makes the pairing
      // one-to-one and symmetric (seeds/000 §3.1.3).
      KOSMO_REQUIRE(tree.rank_max(c) - tree.rank_min(c) == width,
                    "k-section exchange: sibling subtrees of node " << node << " differ in rank count");
      level.siblings.push_back(c);
      level.correspondents.push_back(tree.rank_min(c) + offset);
    }
    walk.push_back(std::move(level));
    node = walk.back().own_child;
  }
  return walk;
}

// An item in flight: the merged message of one (source, destination) pair.
struct Item {
  int destination = 0;
  int source = 0;
  std::vector<double> data;
};

void pack(const Item& item, std::vector<double>& buffer) {
  // Ranks and lengths as doubles: exact up to 2^53, far beyond any int.
  buffer.push_back(static_cast<double>(item.destination));
  buffer.push_back(static_cast<double>(item.source));
  buffer.push_back(static_cast<double>(item.data.size()));
  buffer.insert(buffer.end(), item.data.begin(), item.data.end());
}

void unpack(const std::vector<double>& buffer, int from, std::vector<Item>& items) {
  std::size_t pos = 0;
  while (pos < buffer.size()) {
    KOSMO_REQUIRE(pos + header_size <= buffer.size(),
                  "k-section exchange: truncated item header in the message from rank " << from);
    Item item;
    item.destination = static_cast<int>(buffer[pos]);
    item.source = static_cast<int>(buffer[pos + 1]);
    const auto length = static_cast<std::size_t>(buffer[pos + 2]);
    pos += header_size;
    KOSMO_REQUIRE(pos + length <= buffer.size(),
                  "k-section exchange: truncated item payload in the message from rank " << from);
    item.data.assign(buffer.begin() + static_cast<std::ptrdiff_t>(pos),
                     buffer.begin() + static_cast<std::ptrdiff_t>(pos + length));
    pos += length;
    items.push_back(std::move(item));
  }
}

// §3.1.3: at each level, every item bound for a sibling subtree goes in one message to that
// sibling's correspondent, and one message (possibly empty) comes back from each correspondent; what
// arrives is bound for our own child, so after the last level every item is home. Exactly
// sum_l (k_l - 1) sends per rank (eq. 7), independent of the traffic.
std::vector<Message> exchange_ksection(MPI_Comm comm, const std::vector<Message>& merged, const KSectionTree* tree,
                                       ExchangeStats& stats) {
  const int rank = comm_rank(comm), nrank = comm_size(comm);
  KOSMO_REQUIRE(tree != nullptr, "sparse_exchange(ksection): needs a k-section tree");
  KOSMO_REQUIRE(tree->nrank() == nrank,
                "sparse_exchange(ksection): tree built for " << tree->nrank() << " ranks, communicator has " << nrank);
  const std::vector<WalkLevel> walk = ksection_walk(*tree, rank);

  std::vector<Item> items;
  items.reserve(merged.size());
  for (const Message& message : merged) items.push_back(Item{message.rank, rank, message.data});

  for (std::size_t l = 0; l < walk.size(); ++l) {
    const WalkLevel& level = walk[l];
    const int tag = ksection_tag_base + static_cast<int>(l);
    const std::size_t k1 = level.siblings.size();
    std::vector<std::vector<double>> send_buffers(k1);
    std::vector<Item> kept;
    for (Item& item : items) {
      bool routed = false;
      for (std::size_t s = 0; s < k1 && !routed; ++s) {
        const int sibling = level.siblings[s];
        if (item.destination >= tree->rank_min(sibling) && item.destination <= tree->rank_max(sibling)) {
          pack(item, send_buffers[s]);
          routed = true;
        }
      }
      if (!routed) kept.push_back(std::move(item));
    }
    std::vector<MPI_Request> requests(k1);
    for (std::size_t s = 0; s < k1; ++s) {
      MPI_Isend(send_buffers[s].data(), checked_count(send_buffers[s].size(), "k-section message"), MPI_DOUBLE,
                level.correspondents[s], tag, comm, &requests[s]);
      ++stats.messages_sent;
      stats.bytes_sent += static_cast<long long>(send_buffers[s].size() * sizeof(double));
    }
    for (std::size_t s = 0; s < k1; ++s) {
      const int from = level.correspondents[s];
      unpack(receive_any_length(comm, from, tag, stats), from, kept);
    }
    wait_all(requests, stats);
    items = std::move(kept);
  }

  // One item per (source, destination) pair was created, so one item per source arrives here.
  std::vector<Message> incoming;
  incoming.reserve(items.size());
  for (Item& item : items) {
    KOSMO_REQUIRE(item.destination == rank,
                  "k-section exchange: item for rank " << item.destination << " left over on rank " << rank);
    incoming.push_back(Message{item.source, std::move(item.data)});
  }
  sort_by_source(incoming);
  return incoming;
}

}  // namespace

ExchangeMethod exchange_method_from_name(std::string_view name) {
  if (name == "alltoall") return ExchangeMethod::alltoall;
  if (name == "p2p") return ExchangeMethod::p2p;
  if (name == "ksection") return ExchangeMethod::ksection;
  KOSMO_FAIL("unknown exchange method '" << std::string(name) << "' (expected alltoall, p2p or ksection)");
}

const char* exchange_method_name(ExchangeMethod method) {
  switch (method) {
    case ExchangeMethod::alltoall:
      return "alltoall";
    case ExchangeMethod::p2p:
      return "p2p";
    case ExchangeMethod::ksection:
      return "ksection";
  }
  KOSMO_FAIL("invalid ExchangeMethod value " << static_cast<int>(method));
}

std::vector<Message> sparse_exchange(MPI_Comm comm, ExchangeMethod method, const std::vector<Message>& outgoing,
                                     const std::vector<int>& sources, const KSectionTree* tree, ExchangeStats* stats) {
  ExchangeStats local;
  const std::vector<Message> merged = merge_by_destination(outgoing, comm_size(comm));
  std::vector<Message> incoming;
  switch (method) {
    case ExchangeMethod::alltoall:
      incoming = exchange_alltoall(comm, merged, local);
      break;
    case ExchangeMethod::p2p:
      incoming = exchange_p2p(comm, merged, sources, local);
      break;
    case ExchangeMethod::ksection:
      incoming = exchange_ksection(comm, merged, tree, local);
      break;
    default:
      KOSMO_FAIL("sparse_exchange: invalid ExchangeMethod value " << static_cast<int>(method));
  }
  if (stats != nullptr) {
    local.exchanges = 1;
    *stats += local;
  }
  return incoming;
}

std::vector<std::vector<int>> ksection_correspondents(const KSectionTree& tree, int rank) {
  std::vector<std::vector<int>> result;
  for (WalkLevel& level : ksection_walk(tree, rank)) result.push_back(std::move(level.correspondents));
  return result;
}

}  // namespace kosmo::parallel
