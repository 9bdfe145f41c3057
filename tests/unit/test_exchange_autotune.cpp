// Per-component exchange auto-tuning (seeds/000 §3.2, parallel/exchange_autotune.hpp): rounds in
// Thue-Morse order, medians with a switch margin (hysteresis), messages below the byte threshold
// left to the default p2p, back-off between rounds, the forced modes and the summary log. Times
// come from an injected cost model (a fake clock) instead of MPI_Wtime.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "parallel/exchange_autotune.hpp"

using namespace kosmo;
using namespace kosmo::parallel;

namespace {

// One exchange call as the fake clock sees it: its time and its payload (max over ranks).
struct Call {
  double seconds = 0.0;
  double bytes = 1e6;
};
// (method, call number of the component) -> the call.
using CostModel = std::function<Call(ExchangeMethod, long long)>;

struct Driven {
  std::vector<ExchangeMethod> used;
  long long timed_calls = 0;
};

// Runs calls [first, first + calls) of component c as tuned_exchange does: timed only when the
// tuner asks.
Driven drive(ExchangeAutoTuner& tuner, ExchangeComponent c, const CostModel& cost, long long calls, long long first = 0) {
  Driven out;
  for (long long n = first; n < first + calls; ++n) {
    const ExchangeMethod m = tuner.choose(c);
    out.used.push_back(m);
    if (tuner.wants_timing(c)) {
      const Call call = cost(m, n);
      tuner.record(c, m, call.seconds, call.bytes);
      ++out.timed_calls;
    } else {
      tuner.record_untimed(c, m);
    }
  }
  return out;
}

CostModel constant_cost(double t_p2p, double t_ksection, double bytes = 1e6) {
  return [=](ExchangeMethod m, long long) { return Call{m == ExchangeMethod::p2p ? t_p2p : t_ksection, bytes}; };
}

long long count(const std::vector<ExchangeMethod>& used, ExchangeMethod m) {
  long long n = 0;
  for (ExchangeMethod u : used) n += (u == m);
  return n;
}

// Deterministic noise in [0, 1): splitmix64 of the call number, the same on every platform.
double noise(long long n, std::uint64_t seed) {
  std::uint64_t z = static_cast<std::uint64_t>(n) * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

}  // namespace

TEST(ExchangeAutoTune, ComponentNames) {
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::fine_dp), "fine_dp");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::fine_int), "fine_int");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::reverse_dp), "reverse_dp");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::reverse_int), "reverse_int");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::pair_int), "pair_int");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::bulk_dp), "bulk_dp");
  EXPECT_STREQ(exchange_component_name(ExchangeComponent::bulk_rev_dp), "bulk_rev_dp");
  EXPECT_EQ(all_exchange_components.size(), 7u);
}

TEST(ExchangeAutoTune, RoundAlternatesInThueMorseOrder) {
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_int;
  EXPECT_TRUE(tuner.in_round(c));
  EXPECT_EQ(tuner.choose(c), tuner.choose(c));  // choose() alone does not advance
  const auto p = ExchangeMethod::p2p, k = ExchangeMethod::ksection;
  const std::vector<ExchangeMethod> expect = {p, k, k, p, k, p, p, k, k, p, p, k, p, k, k, p};
  const Driven d = drive(tuner, c, constant_cost(1.0, 1.0), 16);
  EXPECT_EQ(d.used, expect);
  EXPECT_EQ(d.timed_calls, 16);
  // 8 samples each after 16 calls: the round is decided, p2p kept (equal times), no more timing.
  EXPECT_EQ(tuner.round_count(c), 1);
  EXPECT_FALSE(tuner.in_round(c));
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
}

TEST(ExchangeAutoTune, ClearlyFasterBackendIsAdoptedAfterOneRound) {
  for (const bool ksection_faster : {true, false}) {
    ExchangeAutoTuner tuner;
    const auto c = ExchangeComponent::bulk_dp;
    const CostModel cost = ksection_faster ? constant_cost(2e-3, 1e-3) : constant_cost(1e-3, 2e-3);
    drive(tuner, c, cost, 16);
    const ExchangeMethod winner = ksection_faster ? ExchangeMethod::ksection : ExchangeMethod::p2p;
    EXPECT_EQ(tuner.current(c), winner);
    EXPECT_EQ(tuner.switch_count(c), ksection_faster ? 1 : 0);
    // Medians per byte (the calls move 1e6 bytes).
    EXPECT_DOUBLE_EQ(tuner.last_median(c, ExchangeMethod::p2p), ksection_faster ? 2e-9 : 1e-9);
    EXPECT_DOUBLE_EQ(tuner.last_median(c, ExchangeMethod::ksection), ksection_faster ? 1e-9 : 2e-9);
    // Production: the winner only, untimed, for settle_calls calls.
    const Driven d = drive(tuner, c, cost, tuner.settings().settle_calls, 16);
    EXPECT_EQ(count(d.used, winner), tuner.settings().settle_calls);
    EXPECT_EQ(d.timed_calls, 0);
    EXPECT_TRUE(tuner.in_round(c));  // then the next round starts
  }
}

TEST(ExchangeAutoTune, MedianIgnoresOutliers) {
  // k-section is 2x faster, but a quarter of its calls hit a 100x spike (a descheduled rank): the
  // mean would favour p2p, the median does not.
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::reverse_dp;
  long long ksection_calls = 0;
  const CostModel cost = [&](ExchangeMethod m, long long) {
    if (m == ExchangeMethod::p2p) return Call{2e-3, 1e6};
    return Call{(ksection_calls++ % 4 == 3) ? 1e-1 : 1e-3, 1e6};
  };
  drive(tuner, c, cost, 16);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_DOUBLE_EQ(tuner.last_median(c, ExchangeMethod::ksection), 1e-9);
}

TEST(ExchangeAutoTune, HysteresisNeedsTheMargin) {
  // Default margin 20 %: a challenger 15 % faster is not adopted, one 25 % faster is.
  for (const double ratio : {0.85, 0.75}) {
    ExchangeAutoTuner tuner;
    const auto c = ExchangeComponent::pair_int;
    drive(tuner, c, constant_cost(1e-3, ratio * 1e-3), 16);
    EXPECT_EQ(tuner.current(c), ratio < 0.8 ? ExchangeMethod::ksection : ExchangeMethod::p2p) << ratio;
  }
  // The margin protects the incumbent either way: once on k-section, p2p must beat it by 20 %.
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::pair_int;
  drive(tuner, c, constant_cost(2e-3, 1e-3), 16);
  ASSERT_EQ(tuner.current(c), ExchangeMethod::ksection);
  const long long next = 16 + tuner.settings().settle_calls;
  drive(tuner, c, constant_cost(0.85e-3, 1e-3), tuner.settings().settle_calls + 16, 16);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_EQ(tuner.round_count(c), 2);
  drive(tuner, c, constant_cost(0.75e-3, 1e-3), 2 * tuner.settings().settle_calls + 16, next + 16);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  EXPECT_EQ(tuner.switch_count(c), 2);
}

TEST(ExchangeAutoTune, NoisyEqualBackendsSettle) {
  // The failure this policy fixes: two equally fast backends, each call's time dominated by which
  // level it serves (a component cycles through levels whose messages differ 10x to 100x: a latency
  // plus a time per byte) and by +-30 % jitter. Over 200 000 calls (more than a 64^3 box makes per
  // component in 45 coarse steps) the tuner may switch only a handful of times, and times only a
  // small fraction of the calls.
  const long long calls = 200000;
  const CostModel cost = [](ExchangeMethod m, long long n) {
    const int level = static_cast<int>(n % 5);
    const double bytes = level == 0 ? 4e6 : 1e5 * level;
    const double jitter = 0.7 + 0.6 * noise(n, m == ExchangeMethod::p2p ? 1u : 2u);
    return Call{(5e-6 + 1e-9 * bytes) * jitter, bytes};
  };
  for (ExchangeComponent c : all_exchange_components) {
    ExchangeAutoTuner tuner;
    const Driven d = drive(tuner, c, cost, calls);
    // Rounds: 1 + 6 doubling intervals up to 16384, then one per 16384 calls -> about 17.
    EXPECT_LE(tuner.round_count(c), 20) << exchange_component_name(c);
    EXPECT_LE(tuner.switch_count(c), 4) << exchange_component_name(c);
    EXPECT_LT(d.timed_calls, calls / 100) << exchange_component_name(c);
  }
}

TEST(ExchangeAutoTune, BackendThatBecomesFasterIsAdoptedWithinOneInterval) {
  // p2p is faster for the first 100 000 calls, then k-section becomes 3x faster (a larger mesh):
  // the tuner follows within one back-off interval plus a round.
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::bulk_rev_dp;
  const long long change = 100000;
  const CostModel cost = [&](ExchangeMethod m, long long n) {
    const double jitter = 0.8 + 0.4 * noise(n, 7u);
    if (n < change) return Call{(m == ExchangeMethod::p2p ? 1e-3 : 2e-3) * jitter, 1e6};
    return Call{(m == ExchangeMethod::p2p ? 3e-3 : 1e-3) * jitter, 1e6};
  };
  drive(tuner, c, cost, change);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  EXPECT_EQ(tuner.switch_count(c), 0);
  const long long bound = tuner.settings().max_settle_calls + tuner.settings().round_call_limit;
  drive(tuner, c, cost, bound, change);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_EQ(tuner.switch_count(c), 1);
}

TEST(ExchangeAutoTune, SmallMessagesKeepTheDefaultP2p) {
  // Every call moves 1 kB: whatever the timer says (k-section "10x faster"), the component stays on
  // p2p, and the summary says why.
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_int;
  const Driven d = drive(tuner, c, constant_cost(1e-4, 1e-5, 1024.0), 10000);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  EXPECT_EQ(tuner.switch_count(c), 0);
  EXPECT_GE(tuner.round_count(c), 2);
  // Rounds stop at round_call_limit calls when the samples do not come.
  const long long limit = tuner.settings().round_call_limit;
  EXPECT_GE(d.timed_calls, tuner.round_count(c) * limit);
  EXPECT_LT(d.timed_calls, (tuner.round_count(c) + 1) * limit);
  const auto log = tuner.drain_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("messages below 65536 bytes, default p2p"), std::string::npos) << log[0];

  // Large calls mixed with small ones: only the large ones count, and they decide.
  ExchangeAutoTuner mixed;
  const CostModel half_small = [](ExchangeMethod m, long long n) {
    const bool large = n % 2 == 0;
    if (!large) return Call{m == ExchangeMethod::p2p ? 1e-6 : 1e-3, 100.0};  // misleading small calls
    return Call{m == ExchangeMethod::p2p ? 2e-3 : 1e-3, 1e6};
  };
  drive(mixed, c, half_small, 64);
  EXPECT_EQ(mixed.current(c), ExchangeMethod::ksection);
}

TEST(ExchangeAutoTune, BackOffDoublesTheSettledInterval) {
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_dp;
  const auto cost = constant_cost(1e-3, 1e-3);
  std::vector<long long> settled_runs;
  long long run = 0;
  for (long long n = 0; n < 80000; ++n) {
    const bool timed = tuner.wants_timing(c);
    if (timed && run > 0) {
      settled_runs.push_back(run);
      run = 0;
    }
    if (!timed) ++run;
    drive(tuner, c, cost, 1, n);
  }
  const std::vector<long long> expect = {256, 512, 1024, 2048, 4096, 8192, 16384, 16384, 16384};
  ASSERT_GE(settled_runs.size(), expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i) EXPECT_EQ(settled_runs[i], expect[i]) << i;
}

TEST(ExchangeAutoTune, ComponentsAreIndependent) {
  ExchangeAutoTuner tuner;
  drive(tuner, ExchangeComponent::bulk_dp, constant_cost(2e-3, 1e-3), 16);
  EXPECT_EQ(tuner.current(ExchangeComponent::bulk_dp), ExchangeMethod::ksection);
  for (ExchangeComponent c : all_exchange_components) {
    if (c == ExchangeComponent::bulk_dp) continue;
    EXPECT_EQ(tuner.round_count(c), 0);
    EXPECT_TRUE(tuner.in_round(c));
    EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  }
}

TEST(ExchangeAutoTune, RecordingEveryCallMatchesRecordingOnlyTimedCalls) {
  // A caller that times every call (record() always) gets the same choices as tuned_exchange,
  // which times only the calls of a round.
  ExchangeAutoTuner every, rounds_only;
  const auto c = ExchangeComponent::reverse_int;
  const CostModel cost = [](ExchangeMethod m, long long n) {
    return Call{(m == ExchangeMethod::p2p ? 1e-3 : 0.7e-3) * (0.5 + noise(n, 3u)), 2e5};
  };
  for (long long n = 0; n < 30000; ++n) {
    const ExchangeMethod m = every.choose(c);
    ASSERT_EQ(m, rounds_only.choose(c)) << n;
    const Call call = cost(m, n);
    every.record(c, m, call.seconds, call.bytes);
    if (rounds_only.wants_timing(c))
      rounds_only.record(c, m, call.seconds, call.bytes);
    else
      rounds_only.record_untimed(c, m);
  }
  EXPECT_EQ(every.round_count(c), rounds_only.round_count(c));
  EXPECT_EQ(every.drain_log(), rounds_only.drain_log());
}

TEST(ExchangeAutoTune, FixedModeNeverChanges) {
  for (const ExchangeMethod m : {ExchangeMethod::alltoall, ExchangeMethod::p2p, ExchangeMethod::ksection}) {
    ExchangeAutoTuner tuner = ExchangeAutoTuner::fixed(m);
    EXPECT_TRUE(tuner.is_fixed());
    // The model makes the forced method by far the slowest; it must still never change.
    const CostModel cost = [m](ExchangeMethod used, long long) { return Call{used == m ? 100.0 : 1.0, 1e6}; };
    for (ExchangeComponent c : all_exchange_components) {
      const Driven d = drive(tuner, c, cost, 400);
      EXPECT_EQ(count(d.used, m), 400);
      EXPECT_EQ(d.timed_calls, 0);
      EXPECT_EQ(tuner.current(c), m);
      EXPECT_EQ(tuner.round_count(c), 0);
      EXPECT_EQ(tuner.switch_count(c), 0);
    }
    EXPECT_TRUE(tuner.drain_log().empty());
    // Recording another method is a caller bug.
    const ExchangeMethod other = m == ExchangeMethod::p2p ? ExchangeMethod::ksection : ExchangeMethod::p2p;
    EXPECT_THROW(tuner.record(ExchangeComponent::fine_dp, other, 1.0), Error);
  }
}

TEST(ExchangeAutoTune, NamelistExchangeMethod) {
  EXPECT_FALSE(autotune_settings_for_exchange_method("auto").forced_method.has_value());
  EXPECT_EQ(autotune_settings_for_exchange_method("p2p").forced_method, ExchangeMethod::p2p);
  EXPECT_EQ(autotune_settings_for_exchange_method("ksection").forced_method, ExchangeMethod::ksection);
  EXPECT_EQ(autotune_settings_for_exchange_method("alltoall").forced_method, ExchangeMethod::alltoall);
  EXPECT_THROW(autotune_settings_for_exchange_method("fastest"), Error);
  AutoTuneSettings base;
  base.samples = 5;
  EXPECT_EQ(autotune_settings_for_exchange_method("auto", base).samples, 5);
  // The all-to-all backend is never chosen by the tuning itself.
  ExchangeAutoTuner tuner(autotune_settings_for_exchange_method("auto"));
  const Driven d = drive(tuner, ExchangeComponent::pair_int, constant_cost(2.0, 1.0), 5000);
  EXPECT_EQ(count(d.used, ExchangeMethod::alltoall), 0);
}

TEST(ExchangeAutoTune, SummaryLogPerComponent) {
  ExchangeAutoTuner tuner;
  drive(tuner, ExchangeComponent::fine_dp, constant_cost(1.2e-4, 2.0e-4), 16);
  drive(tuner, ExchangeComponent::bulk_dp, constant_cost(5.0e-3, 1.0e-3), 16);
  drive(tuner, ExchangeComponent::fine_int, constant_cost(1.0, 1.0), 3);  // round not decided: no line
  const auto log = tuner.drain_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0],
            "auto-tune fine_dp: p2p, 1 round, 0 switches since last report (last round: p2p 1.20e-10 s/B, ksection 2.00e-10 s/B, "
            "median of 8)");
  EXPECT_EQ(log[1],
            "auto-tune bulk_dp: ksection, 1 round, 1 switch since last report (last round: p2p 5.00e-09 s/B, ksection 1.00e-09 s/B, "
            "median of 8)");
  EXPECT_TRUE(tuner.drain_log().empty());  // drained: nothing new decided
  drive(tuner, ExchangeComponent::bulk_dp, constant_cost(5.0e-3, 1.0e-3), 256 + 16, 16);
  const auto again = tuner.drain_log();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_NE(again[0].find("ksection, 1 round, 0 switches"), std::string::npos) << again[0];

  // A caller that does not give the sizes: the medians are in seconds.
  ExchangeAutoTuner unsized;
  for (int n = 0; n < 16; ++n) {
    const ExchangeMethod m = unsized.choose(ExchangeComponent::pair_int);
    unsized.record(ExchangeComponent::pair_int, m, m == ExchangeMethod::p2p ? 3e-4 : 4e-4);
  }
  const auto seconds = unsized.drain_log();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_NE(seconds[0].find("p2p 3.00e-04 s, ksection 4.00e-04 s, median of 8"), std::string::npos) << seconds[0];
}

TEST(ExchangeAutoTune, RejectsInvalidInput) {
  AutoTuneSettings bad;
  bad.samples = 0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.round_call_limit = 15;  // < 2 * samples
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.switch_margin = 1.0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.settle_calls = 0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.max_settle_calls = 100;  // < settle_calls
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);

  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_dp;
  EXPECT_THROW(tuner.record(c, ExchangeMethod::ksection, 1.0), Error);  // the first call of a round is p2p
  EXPECT_THROW(tuner.record(c, ExchangeMethod::alltoall, 1.0), Error);
  EXPECT_THROW(tuner.record(c, ExchangeMethod::p2p, -1.0), Error);
  EXPECT_THROW(tuner.record(c, ExchangeMethod::p2p, std::nan("")), Error);
  EXPECT_THROW(tuner.record_untimed(c, ExchangeMethod::p2p), Error);  // a round wants the time
  EXPECT_EQ(tuner.choose(c), ExchangeMethod::p2p);  // rejected records leave the state alone
  EXPECT_THROW(tuner.choose(static_cast<ExchangeComponent>(42)), Error);
}

TEST(ExchangeAutoTune, IdenticalInputsGiveIdenticalChoices) {
  // Two tuners standing for two ranks fed the same (max-over-ranks) times agree at every call.
  ExchangeAutoTuner rank0;
  ExchangeAutoTuner rank1;
  const auto cost = [](ExchangeComponent c, ExchangeMethod m, int n) {
    const double base = 1e-4 * (1 + static_cast<int>(c));
    const double wobble = 1.0 + 0.5 * std::sin(0.0005 * n + static_cast<int>(c));
    return m == ExchangeMethod::p2p ? base * wobble : base * (2.0 - wobble);
  };
  for (int n = 0; n < 40000; ++n) {
    for (ExchangeComponent c : all_exchange_components) {
      const ExchangeMethod m0 = rank0.choose(c);
      const ExchangeMethod m1 = rank1.choose(c);
      ASSERT_EQ(m0, m1) << n;
      const double t = cost(c, m0, n);
      rank0.record(c, m0, t, 1e6);
      rank1.record(c, m1, t, 1e6);
    }
  }
  int switches = 0;
  for (ExchangeComponent c : all_exchange_components) switches += rank0.switch_count(c);
  EXPECT_GT(switches, 0);  // the slow wobble makes the backends trade places
  EXPECT_EQ(rank0.drain_log(), rank1.drain_log());
}
