#pragma once
// The three transport backends of the ghost-zone exchange (seeds/000 §3.1) behind one call, so the
// auto-tuner can pick one at run time: MPI_Alltoallv (§3.1.1), point-to-point Isend/Irecv with the
// known partners (§3.1.2), and the hierarchical k-section exchange (§3.1.3), which routes every item
// through the k-section tree so that each rank talks to exactly sum_l (k_l - 1) correspondents per
// exchange (seeds/000 §3.1.3 eq. 7), whatever the traffic pattern.
//
// All three deliver the same result: the incoming messages sorted by source rank, one Message per
// source that sent this rank anything (a zero-length message counts: its source still appears, with
// empty data), several messages from one source concatenated in send order.
#include <mpi.h>

#include <string_view>
#include <vector>

#include "parallel/ksection_tree.hpp"

namespace kosmo::parallel {

enum class ExchangeMethod { alltoall, p2p, ksection };

// "alltoall" | "p2p" | "ksection"; anything else is a KOSMO_FAIL naming the valid choices.
ExchangeMethod exchange_method_from_name(std::string_view name);
const char* exchange_method_name(ExchangeMethod method);

// Outgoing: `rank` is the destination. Incoming: `rank` is the source.
struct Message {
  int rank = 0;
  std::vector<double> data;
};

// What this rank put on the wire: MPI sends made (self-deliveries excluded) and their payload bytes
// (for k-section, including the per-item routing headers and relayed items), what it took off the
// wire, and the time it spent blocked waiting for the data (MPI_Mprobe/MPI_Mrecv/MPI_Waitall, or the
// whole collective for all-to-all): the cost communication adds when it is not overlapped with work.
// sparse_exchange adds to it, so one ExchangeStats can total several exchanges.
struct ExchangeStats {
  long long messages_sent = 0;
  long long bytes_sent = 0;
  long long messages_received = 0;
  long long bytes_received = 0;
  double wait_seconds = 0.0;
  long long exchanges = 0;  // sparse_exchange calls

  ExchangeStats& operator+=(const ExchangeStats& other) {
    messages_sent += other.messages_sent;
    bytes_sent += other.bytes_sent;
    messages_received += other.messages_received;
    bytes_received += other.bytes_received;
    wait_seconds += other.wait_seconds;
    exchanges += other.exchanges;
    return *this;
  }
};

// Delivers every outgoing message to its destination rank. Collective over `comm`.
//  - `sources` lists the ranks that will send to this rank (p2p needs it to post its receives
//    without any global operation; it must be complete and exact, self may be listed or not; the
//    other methods ignore it).
//  - `tree` must be a k-section tree for comm's size when method == ksection (ignored otherwise).
// Returns the incoming messages sorted by source rank. A message to oneself is delivered without MPI.
// Invalid arguments (destination out of range, missing tree) throw kosmo::Error on the rank that
// sees them; callers pass the same method and a consistent pattern on every rank.
std::vector<Message> sparse_exchange(MPI_Comm comm, ExchangeMethod method, const std::vector<Message>& outgoing,
                                     const std::vector<int>& sources, const KSectionTree* tree,
                                     ExchangeStats* stats = nullptr);

// The correspondents of `rank` in the hierarchical exchange, one list per tree level (root level
// first): at level l, the rank at the same offset within each sibling subtree of the rank's
// level-l child (seeds/000 §3.1.3). Level l holds k_l - 1 ranks, so the total is eq. 7. The relation
// is symmetric: b is a level-l correspondent of a iff a is one of b. Pure (no MPI), so the pattern
// can be checked for rank counts larger than the test run.
std::vector<std::vector<int>> ksection_correspondents(const KSectionTree& tree, int rank);

}  // namespace kosmo::parallel
