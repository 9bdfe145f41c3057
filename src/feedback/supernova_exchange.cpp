#include "feedback/supernova_exchange.hpp"

#include <algorithm>
#include <bit>
#include <map>

#include "core/error.hpp"
#include "parallel/sparse_exchange.hpp"

namespace kosmo::feedback {
namespace {

constexpr std::size_t event_doubles = 10;
constexpr std::size_t record_doubles = 4 + budget_values;
constexpr std::size_t budget_doubles = 1 + budget_values;

double pack(std::int64_t v) { return std::bit_cast<double>(v); }
double pack(std::uint64_t v) { return std::bit_cast<double>(v); }
std::int64_t unpack_int(double v) { return std::bit_cast<std::int64_t>(v); }
std::uint64_t unpack_unsigned(double v) { return std::bit_cast<std::uint64_t>(v); }

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

std::vector<parallel::Message> exchange(MPI_Comm comm, const parallel::KSectionTree& tree, std::map<int, std::vector<double>>& out) {
  std::vector<parallel::Message> outgoing;
  for (auto& [rank, data] : out) outgoing.push_back({rank, std::move(data)});
  return parallel::sparse_exchange(comm, parallel::ExchangeMethod::ksection, outgoing, {}, &tree);
}

std::size_t slot_of(const SharedEvents& shared, std::int64_t identity) {
  const auto it = std::lower_bound(shared.events.begin(), shared.events.end(), identity,
                                   [](const SupernovaEvent& e, std::int64_t id) { return e.identity < id; });
  KOSMO_REQUIRE(it != shared.events.end() && it->identity == identity, "feedback: budget for unknown supernova " << identity);
  return static_cast<std::size_t>(it - shared.events.begin());
}

}  // namespace

void sort_by_identity(std::vector<SupernovaEvent>& events) {
  std::sort(events.begin(), events.end(), [](const SupernovaEvent& a, const SupernovaEvent& b) { return a.identity < b.identity; });
  for (std::size_t i = 1; i < events.size(); ++i)
    KOSMO_REQUIRE(events[i].identity != events[i - 1].identity,
                  "feedback: two supernova events of star " << events[i].identity << " in one step");
}

SharedEvents share_events(MPI_Comm comm, const parallel::KSectionTree& tree, bool every_rank, std::span<const SupernovaEvent> own,
                          double reach) {
  const int rank = rank_of(comm);
  std::map<int, std::vector<double>> out;
  std::map<std::int64_t, std::vector<int>> sent_to;
  for (const SupernovaEvent& e : own) {
    parallel::Box box;
    for (int d = 0; d < 3; ++d) {
      box.lo[d] = e.position[d] - reach;
      box.hi[d] = e.position[d] + reach;
    }
    std::vector<int> targets;
    if (every_rank) {
      for (int r = 0; r < tree.nrank(); ++r) targets.push_back(r);
    } else {
      targets = tree.ranks_overlapping(box);
      // The producer sums the event's budget, so it holds the event even when its cells miss it.
      if (!std::binary_search(targets.begin(), targets.end(), rank)) targets.insert(std::upper_bound(targets.begin(), targets.end(), rank), rank);
    }
    for (int target : targets) {
      auto& data = out[target];
      data.insert(data.end(), e.position.begin(), e.position.end());
      data.insert(data.end(), e.velocity.begin(), e.velocity.end());
      data.push_back(e.ejected_mass);
      data.push_back(e.energy);
      data.push_back(e.ejected_metal_mass);
      data.push_back(pack(e.identity));
    }
    sent_to[e.identity] = std::move(targets);
  }
  SharedEvents shared;
  std::vector<std::pair<SupernovaEvent, int>> received;
  for (const parallel::Message& m : exchange(comm, tree, out))
    for (std::size_t i = 0; i + event_doubles <= m.data.size(); i += event_doubles) {
      SupernovaEvent e;
      for (int d = 0; d < 3; ++d) {
        e.position[d] = m.data[i + d];
        e.velocity[d] = m.data[i + 3 + d];
      }
      e.ejected_mass = m.data[i + 6];
      e.energy = m.data[i + 7];
      e.ejected_metal_mass = m.data[i + 8];
      e.identity = unpack_int(m.data[i + 9]);
      received.emplace_back(e, m.rank);
    }
  std::sort(received.begin(), received.end(), [](const auto& a, const auto& b) { return a.first.identity < b.first.identity; });
  for (const auto& [e, origin] : received) {
    KOSMO_REQUIRE(shared.events.empty() || shared.events.back().identity != e.identity,
                  "feedback: two supernova events of star " << e.identity << " in one step");
    shared.events.push_back(e);
    shared.origin.push_back(origin);
    shared.recipients.push_back(origin == rank ? sent_to[e.identity] : std::vector<int>{});
  }
  return shared;
}

std::vector<BlastBudget> reduce_budgets(MPI_Comm comm, const parallel::KSectionTree& tree, const SharedEvents& shared,
                                        std::span<const BudgetRecord> records) {
  const int rank = rank_of(comm);
  const std::size_t n = shared.events.size();
  // Records of the events produced here stay, the others go to their producer.
  std::vector<std::vector<BudgetRecord>> by_event(n);
  std::map<int, std::vector<double>> out;
  for (const BudgetRecord& r : records) {
    const auto slot = static_cast<std::size_t>(r.event);
    if (shared.origin[slot] == rank) {
      by_event[slot].push_back(r);
      continue;
    }
    auto& data = out[shared.origin[slot]];
    data.push_back(pack(shared.events[slot].identity));
    data.push_back(static_cast<double>(r.image));
    data.push_back(static_cast<double>(r.level_child));
    data.push_back(pack(r.key));
    data.insert(data.end(), r.values.begin(), r.values.end());
  }
  std::vector<bool> merged(n, false);
  for (const parallel::Message& m : exchange(comm, tree, out))
    for (std::size_t i = 0; i + record_doubles <= m.data.size(); i += record_doubles) {
      BudgetRecord r;
      const std::size_t slot = slot_of(shared, unpack_int(m.data[i]));
      r.event = static_cast<std::int32_t>(slot);
      r.image = static_cast<std::int32_t>(m.data[i + 1]);
      r.level_child = static_cast<std::int32_t>(m.data[i + 2]);
      r.key = unpack_unsigned(m.data[i + 3]);
      for (int v = 0; v < budget_values; ++v) r.values[v] = m.data[i + 4 + static_cast<std::size_t>(v)];
      by_event[slot].push_back(r);
      merged[slot] = true;
    }
  // Summed in the order of a one-rank sweep, so the budgets do not depend on the rank count.
  std::vector<BlastBudget> budgets(n, BlastBudget{});
  std::map<int, std::vector<double>> back;
  for (std::size_t slot = 0; slot < n; ++slot) {
    if (shared.origin[slot] != rank) continue;
    auto& list = by_event[slot];
    if (merged[slot]) std::stable_sort(list.begin(), list.end(), sweep_order);
    for (const BudgetRecord& r : list)
      for (int v = 0; v < budget_values; ++v) budgets[slot][v] += r.values[v];
    for (int target : shared.recipients[slot]) {
      if (target == rank) continue;
      auto& data = back[target];
      data.push_back(pack(shared.events[slot].identity));
      data.insert(data.end(), budgets[slot].begin(), budgets[slot].end());
    }
  }
  for (const parallel::Message& m : exchange(comm, tree, back))
    for (std::size_t i = 0; i + budget_doubles <= m.data.size(); i += budget_doubles) {
      const std::size_t slot = slot_of(shared, unpack_int(m.data[i]));
      for (int v = 0; v < budget_values; ++v) budgets[slot][v] = m.data[i + 1 + static_cast<std::size_t>(v)];
    }
  return budgets;
}

}  // namespace kosmo::feedback
