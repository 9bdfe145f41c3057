// Per-component exchange auto-tuning of seeds/000 §3.2: the four phases of §3.2.2 (trial P2P,
// trial k-section, production with the EMA of eq. 8, periodic probe with a > 20 % switch rule),
// independence of the seven components of §3.2.1, the forced (fixed) modes and the log lines.
// Times come from an injected cost model instead of MPI_Wtime.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "parallel/exchange_autotune.hpp"

using namespace kosmo;
using namespace kosmo::parallel;

namespace {

// Time of one exchange call: (component, method, call number of that component) -> seconds.
using CostModel = std::function<double(ExchangeComponent, ExchangeMethod, int)>;

// Runs `calls` exchanges of component c, feeding the model's times back; returns the methods used.
std::vector<ExchangeMethod> drive(ExchangeAutoTuner& tuner, ExchangeComponent c, const CostModel& cost, int calls,
                                  int first_call = 0) {
  std::vector<ExchangeMethod> used;
  for (int n = first_call; n < first_call + calls; ++n) {
    const ExchangeMethod m = tuner.choose(c);
    used.push_back(m);
    tuner.record(c, m, cost(c, m, n));
  }
  return used;
}

CostModel constant_cost(double t_p2p, double t_ksection) {
  return [=](ExchangeComponent, ExchangeMethod m, int) {
    return m == ExchangeMethod::p2p ? t_p2p : (m == ExchangeMethod::ksection ? t_ksection : 1.0);
  };
}

int count(const std::vector<ExchangeMethod>& used, ExchangeMethod m) {
  int n = 0;
  for (ExchangeMethod u : used) n += (u == m);
  return n;
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

TEST(ExchangeAutoTune, TrialPhasesThenFasterBackend) {
  for (const bool p2p_wins : {true, false}) {
    ExchangeAutoTuner tuner;
    const auto c = ExchangeComponent::fine_int;
    EXPECT_EQ(tuner.phase(c), 0);
    EXPECT_EQ(tuner.choose(c), ExchangeMethod::p2p);
    EXPECT_EQ(tuner.choose(c), ExchangeMethod::p2p);  // choose() alone does not advance
    tuner.record(c, ExchangeMethod::p2p, p2p_wins ? 1e-4 : 3e-4);
    EXPECT_EQ(tuner.phase(c), 1);
    EXPECT_EQ(tuner.choose(c), ExchangeMethod::ksection);
    tuner.record(c, ExchangeMethod::ksection, 2e-4);
    EXPECT_EQ(tuner.phase(c), 2);
    const ExchangeMethod winner = p2p_wins ? ExchangeMethod::p2p : ExchangeMethod::ksection;
    EXPECT_EQ(tuner.current(c), winner);
    EXPECT_EQ(tuner.choose(c), winner);
    EXPECT_DOUBLE_EQ(tuner.ema(c), p2p_wins ? 1e-4 : 2e-4);  // EMA seeded with the winner's trial
    EXPECT_DOUBLE_EQ(tuner.trial_time(c, ExchangeMethod::p2p), p2p_wins ? 1e-4 : 3e-4);
    EXPECT_DOUBLE_EQ(tuner.trial_time(c, ExchangeMethod::ksection), 2e-4);
  }
}

TEST(ExchangeAutoTune, TrialCallsAreAveraged) {
  AutoTuneSettings settings;
  settings.trial_calls = 3;
  ExchangeAutoTuner tuner(settings);
  const auto c = ExchangeComponent::pair_int;
  // P2P: 1, 5, 3 (mean 3); k-section: 2, 4, 2.5 (mean 2.8333) -> k-section, although P2P had
  // the single fastest call.
  const std::vector<double> p2p = {1.0, 5.0, 3.0};
  const std::vector<double> ksec = {2.0, 4.0, 2.5};
  for (double t : p2p) {
    EXPECT_EQ(tuner.phase(c), 0);
    ASSERT_EQ(tuner.choose(c), ExchangeMethod::p2p);
    tuner.record(c, ExchangeMethod::p2p, t);
  }
  for (double t : ksec) {
    EXPECT_EQ(tuner.phase(c), 1);
    ASSERT_EQ(tuner.choose(c), ExchangeMethod::ksection);
    tuner.record(c, ExchangeMethod::ksection, t);
  }
  EXPECT_EQ(tuner.phase(c), 2);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 8.5 / 3.0);
  EXPECT_DOUBLE_EQ(tuner.trial_time(c, ExchangeMethod::p2p), 3.0);
}

TEST(ExchangeAutoTune, EachComponentSettlesOnFasterBackend) {
  ExchangeAutoTuner tuner;
  // Component i: p2p costs 1 + i, k-section 4 -> p2p for i < 3, k-section for i > 3, tie (i = 3)
  // goes to p2p.
  const CostModel cost = [](ExchangeComponent c, ExchangeMethod m, int) {
    return m == ExchangeMethod::p2p ? 1.0 + static_cast<int>(c) : 4.0;
  };
  for (ExchangeComponent c : all_exchange_components) {
    const auto used = drive(tuner, c, cost, 2 + 510);
    const int i = static_cast<int>(c);
    const ExchangeMethod expect = i <= 3 ? ExchangeMethod::p2p : ExchangeMethod::ksection;
    EXPECT_EQ(tuner.current(c), expect) << exchange_component_name(c);
    EXPECT_EQ(tuner.switch_count(c), 0) << exchange_component_name(c);
    // 510 calls after the trials: 500 production calls and 10 probes of the alternative.
    EXPECT_EQ(count(used, expect), 1 + 500) << exchange_component_name(c);
  }
}

TEST(ExchangeAutoTune, ComponentsAreIndependent) {
  ExchangeAutoTuner tuner;
  const CostModel cost = [](ExchangeComponent c, ExchangeMethod m, int) {
    if (c == ExchangeComponent::fine_dp) return m == ExchangeMethod::p2p ? 1e-4 : 3e-4;
    return m == ExchangeMethod::p2p ? 8e-3 : 2e-3;  // bulk_dp: large messages favour k-section
  };
  // Interleaved calls in one tuner.
  for (int n = 0; n < 300; ++n) {
    for (ExchangeComponent c : {ExchangeComponent::fine_dp, ExchangeComponent::bulk_dp}) {
      const ExchangeMethod m = tuner.choose(c);
      tuner.record(c, m, cost(c, m, n));
    }
  }
  EXPECT_EQ(tuner.current(ExchangeComponent::fine_dp), ExchangeMethod::p2p);
  EXPECT_EQ(tuner.current(ExchangeComponent::bulk_dp), ExchangeMethod::ksection);
  // The untouched components are still in their first trial.
  EXPECT_EQ(tuner.phase(ExchangeComponent::fine_int), 0);
  EXPECT_EQ(tuner.choose(ExchangeComponent::bulk_rev_dp), ExchangeMethod::p2p);
}

TEST(ExchangeAutoTune, ProbeEveryIntervalProductionCalls) {
  AutoTuneSettings settings;
  settings.probe_interval = 5;
  ExchangeAutoTuner tuner(settings);
  const auto c = ExchangeComponent::reverse_dp;
  const auto used = drive(tuner, c, constant_cost(1.0, 2.0), 2 + 3 * 6);
  const auto P = ExchangeMethod::p2p;
  const auto K = ExchangeMethod::ksection;
  const std::vector<ExchangeMethod> expect = {P, K,               // trials
                                              P, P, P, P, P, K,   // 5 production, 1 probe
                                              P, P, P, P, P, K,   //
                                              P, P, P, P, P, K};  //
  EXPECT_EQ(used, expect);
  // Phase bookkeeping around a probe.
  ExchangeAutoTuner t2(settings);
  drive(t2, c, constant_cost(1.0, 2.0), 2 + 4);
  EXPECT_EQ(t2.phase(c), 2);
  drive(t2, c, constant_cost(1.0, 2.0), 1);
  EXPECT_EQ(t2.phase(c), 3);
  EXPECT_EQ(t2.current(c), ExchangeMethod::p2p);  // production choice unchanged during the probe
  EXPECT_EQ(t2.choose(c), ExchangeMethod::ksection);
  drive(t2, c, constant_cost(1.0, 2.0), 1);
  EXPECT_EQ(t2.phase(c), 2);
}

TEST(ExchangeAutoTune, SwitchesWhenAlternativeMoreThanTwentyPercentFaster) {
  ExchangeAutoTuner tuner;  // probe_interval 50
  const auto c = ExchangeComponent::fine_dp;
  // P2P wins the trials (1.0 vs 1.5). From call 30 on (a rebalancing changed the topology),
  // k-section costs 0.7, i.e. 30 % faster than P2P's 1.0.
  const CostModel cost = [](ExchangeComponent, ExchangeMethod m, int n) {
    if (m == ExchangeMethod::p2p) return 1.0;
    return n < 30 ? 1.5 : 0.7;
  };
  const auto used = drive(tuner, c, cost, 2 + 50 + 1 + 10);
  EXPECT_EQ(tuner.switch_count(c), 1);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_EQ(tuner.phase(c), 2);
  // Call 52 is the first probe (after 50 production calls); it switched, and from then on
  // k-section is production.
  for (int n = 2; n < 52; ++n) EXPECT_EQ(used[static_cast<std::size_t>(n)], ExchangeMethod::p2p) << n;
  for (int n = 52; n < 63; ++n) EXPECT_EQ(used[static_cast<std::size_t>(n)], ExchangeMethod::ksection) << n;
  // New production EMA: seeded with the probe (0.7), then 10 production calls of 0.7.
  EXPECT_NEAR(tuner.ema(c), 0.7, 1e-15);
  const auto log = tuner.drain_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1], "auto-tune fine_dp: probe ksection 7.000e-01 s vs p2p EMA 1.000e+00 s -> ksection (switch)");
}

TEST(ExchangeAutoTune, SwitchesBackWhenOldBackendRecovers) {
  AutoTuneSettings settings;
  settings.probe_interval = 10;
  ExchangeAutoTuner tuner(settings);
  const auto c = ExchangeComponent::bulk_rev_dp;
  // k-section fast until call 40, then P2P becomes much faster.
  const CostModel cost = [](ExchangeComponent, ExchangeMethod m, int n) {
    if (m == ExchangeMethod::ksection) return 1.0;
    return n < 40 ? 2.0 : 0.5;
  };
  drive(tuner, c, cost, 100);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  EXPECT_EQ(tuner.switch_count(c), 1);
}

TEST(ExchangeAutoTune, DoesNotSwitchWhenOnlyTenPercentFaster) {
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_dp;
  const CostModel cost = [](ExchangeComponent, ExchangeMethod m, int n) {
    if (m == ExchangeMethod::p2p) return 1.0;
    return n < 30 ? 1.5 : 0.9;  // 10 % faster after the change
  };
  const auto used = drive(tuner, c, cost, 2 + 5 * 51);
  EXPECT_EQ(tuner.switch_count(c), 0);
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  EXPECT_EQ(count(used, ExchangeMethod::ksection), 1 + 5);  // the trial and five probes
  EXPECT_EQ(tuner.drain_log().size(), 1u);                  // only the trial decision
}

TEST(ExchangeAutoTune, ThresholdIsStrict) {
  // Exactly 20 % faster (0.8 vs EMA 1.0) does not switch; 20.5 % faster does.
  for (const double probe : {0.8, 0.795}) {
    AutoTuneSettings settings;
    settings.probe_interval = 3;
    ExchangeAutoTuner tuner(settings);
    const auto c = ExchangeComponent::reverse_int;
    const CostModel cost = [probe](ExchangeComponent, ExchangeMethod m, int n) {
      if (m == ExchangeMethod::p2p) return 1.0;
      return n < 2 ? 2.0 : probe;
    };
    drive(tuner, c, cost, 2 + 3 + 1);
    EXPECT_EQ(tuner.switch_count(c), probe < 0.8 ? 1 : 0) << probe;
  }
}

TEST(ExchangeAutoTune, EmaFollowsEquation8) {
  // t_bar_{n+1} = alpha t_n + (1 - alpha) t_bar_n, alpha = 0.05 (seeds/000 §3.2.2 eq. 8).
  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::bulk_dp;
  tuner.record(c, ExchangeMethod::p2p, 2.0);
  tuner.record(c, ExchangeMethod::ksection, 3.0);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 2.0);
  tuner.record(c, ExchangeMethod::p2p, 4.0);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 2.1);  // 0.05 * 4 + 0.95 * 2
  tuner.record(c, ExchangeMethod::p2p, 4.0);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 2.195);  // 0.05 * 4 + 0.95 * 2.1
  tuner.record(c, ExchangeMethod::p2p, 0.0);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 2.08525);  // 0.95 * 2.195
  // Long run with a constant time: t_bar - t = 0.95^n (t_bar_0 - t).
  double expect = 2.08525;
  for (int n = 0; n < 40; ++n) {
    tuner.record(c, ExchangeMethod::p2p, 1.0);
    expect = 0.05 * 1.0 + 0.95 * expect;
  }
  EXPECT_DOUBLE_EQ(tuner.ema(c), expect);
  EXPECT_NEAR(tuner.ema(c), 1.0 + 1.08525 * std::pow(0.95, 40), 1e-12);

  // A different alpha.
  AutoTuneSettings settings;
  settings.alpha = 0.5;
  ExchangeAutoTuner half(settings);
  half.record(c, ExchangeMethod::p2p, 1.0);
  half.record(c, ExchangeMethod::ksection, 8.0);
  half.record(c, ExchangeMethod::p2p, 3.0);
  EXPECT_DOUBLE_EQ(half.ema(c), 2.0);
  half.record(c, ExchangeMethod::p2p, 0.0);
  EXPECT_DOUBLE_EQ(half.ema(c), 1.0);
}

TEST(ExchangeAutoTune, ProbeComparesAgainstEmaNotLastCall) {
  // The production EMA drifts slowly: a single slow production call just before the probe must
  // not make an only slightly faster alternative look > 20 % faster.
  AutoTuneSettings settings;
  settings.probe_interval = 4;
  ExchangeAutoTuner tuner(settings);
  const auto c = ExchangeComponent::fine_dp;
  tuner.record(c, ExchangeMethod::p2p, 1.0);
  tuner.record(c, ExchangeMethod::ksection, 2.0);
  for (double t : {1.0, 1.0, 1.0, 10.0}) tuner.record(c, ExchangeMethod::p2p, t);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 1.45);  // 0.05 * 10 + 0.95 * 1
  ASSERT_EQ(tuner.phase(c), 3);
  tuner.record(c, ExchangeMethod::ksection, 1.2);  // 1.2 > 0.8 * 1.45 = 1.16: keep
  EXPECT_EQ(tuner.current(c), ExchangeMethod::p2p);
  for (int i = 0; i < 4; ++i) tuner.record(c, ExchangeMethod::p2p, 1.45);
  tuner.record(c, ExchangeMethod::ksection, 1.15);  // 1.15 < 1.16: switch
  EXPECT_EQ(tuner.current(c), ExchangeMethod::ksection);
  EXPECT_DOUBLE_EQ(tuner.ema(c), 1.15);
}

TEST(ExchangeAutoTune, FixedModeNeverChanges) {
  for (const ExchangeMethod m : {ExchangeMethod::alltoall, ExchangeMethod::p2p, ExchangeMethod::ksection}) {
    ExchangeAutoTuner tuner = ExchangeAutoTuner::fixed(m);
    EXPECT_TRUE(tuner.is_fixed());
    // The model makes the forced method by far the slowest; it must still never change.
    const CostModel cost = [m](ExchangeComponent, ExchangeMethod used, int) { return used == m ? 100.0 : 1.0; };
    for (ExchangeComponent c : all_exchange_components) {
      const auto used = drive(tuner, c, cost, 400);
      EXPECT_EQ(count(used, m), 400);
      EXPECT_EQ(tuner.current(c), m);
      EXPECT_EQ(tuner.phase(c), 2);
      EXPECT_EQ(tuner.switch_count(c), 0);
      EXPECT_DOUBLE_EQ(tuner.ema(c), 100.0);
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
  base.probe_interval = 7;
  EXPECT_EQ(autotune_settings_for_exchange_method("auto", base).probe_interval, 7);
  // The all-to-all backend is never chosen by the tuning itself.
  ExchangeAutoTuner tuner(autotune_settings_for_exchange_method("auto"));
  const auto used = drive(tuner, ExchangeComponent::pair_int, constant_cost(2.0, 1.0), 1000);
  EXPECT_EQ(count(used, ExchangeMethod::alltoall), 0);
}

TEST(ExchangeAutoTune, LogLinesNameComponentAndChoice) {
  ExchangeAutoTuner tuner;
  drive(tuner, ExchangeComponent::fine_dp, constant_cost(1.2e-4, 2.0e-4), 2);
  drive(tuner, ExchangeComponent::bulk_dp, constant_cost(5.0e-3, 1.0e-3), 2);
  drive(tuner, ExchangeComponent::fine_int, constant_cost(1.0, 1.0), 1);  // still in trial: no line
  const auto log = tuner.drain_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "auto-tune fine_dp: p2p 1.200e-04 s vs ksection 2.000e-04 s -> p2p");
  EXPECT_EQ(log[1], "auto-tune bulk_dp: p2p 5.000e-03 s vs ksection 1.000e-03 s -> ksection");
  EXPECT_TRUE(tuner.drain_log().empty());  // drained

  // Optional logging of probes that keep the production backend.
  AutoTuneSettings settings;
  settings.probe_interval = 2;
  settings.log_probes = true;
  ExchangeAutoTuner verbose(settings);
  drive(verbose, ExchangeComponent::reverse_dp, constant_cost(1.0, 2.0), 2 + 3);
  const auto lines = verbose.drain_log();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "auto-tune reverse_dp: probe ksection 2.000e+00 s vs p2p EMA 1.000e+00 s -> p2p (keep)");
}

TEST(ExchangeAutoTune, RejectsInvalidInput) {
  AutoTuneSettings bad;
  bad.alpha = 0.0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.alpha = 1.5;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.switch_threshold = 1.0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.probe_interval = 0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);
  bad = {};
  bad.trial_calls = 0;
  EXPECT_THROW(ExchangeAutoTuner{bad}, Error);

  ExchangeAutoTuner tuner;
  const auto c = ExchangeComponent::fine_dp;
  EXPECT_THROW(tuner.record(c, ExchangeMethod::ksection, 1.0), Error);  // phase 0 expects p2p
  EXPECT_THROW(tuner.record(c, ExchangeMethod::alltoall, 1.0), Error);
  EXPECT_THROW(tuner.record(c, ExchangeMethod::p2p, -1.0), Error);
  EXPECT_THROW(tuner.record(c, ExchangeMethod::p2p, std::nan("")), Error);
  EXPECT_EQ(tuner.phase(c), 0);  // rejected records leave the state alone
  EXPECT_THROW(tuner.phase(static_cast<ExchangeComponent>(42)), Error);
}

TEST(ExchangeAutoTune, IdenticalInputsGiveIdenticalChoices) {
  // Two tuners standing for two ranks fed the same (max-over-ranks) times agree at every call.
  ExchangeAutoTuner rank0;
  ExchangeAutoTuner rank1;
  const CostModel cost = [](ExchangeComponent c, ExchangeMethod m, int n) {
    const double base = 1e-4 * (1 + static_cast<int>(c));
    const double wobble = 1.0 + 0.3 * std::sin(0.05 * n + static_cast<int>(c));
    return m == ExchangeMethod::p2p ? base * wobble : base * (2.0 - wobble);
  };
  for (int n = 0; n < 2000; ++n) {
    for (ExchangeComponent c : all_exchange_components) {
      const ExchangeMethod m0 = rank0.choose(c);
      const ExchangeMethod m1 = rank1.choose(c);
      ASSERT_EQ(m0, m1) << n;
      const double t = cost(c, m0, n);
      rank0.record(c, m0, t);
      rank1.record(c, m1, t);
    }
  }
  for (ExchangeComponent c : all_exchange_components) EXPECT_GT(rank0.switch_count(c), 0);
  EXPECT_EQ(rank0.drain_log(), rank1.drain_log());
}
