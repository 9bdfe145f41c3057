#pragma once
// Per-component auto-tuning of the ghost/bulk exchange backend (seeds/000 §3.2).
//
// Seven exchange components (seeds/000 §3.2.1) each keep their own state. seeds/000 §3.2.2 times a
// trial of each backend, then compares single probes of the alternative with an EMA of production
// calls. Single calls of tens of microseconds are noise, and one component mixes the messages of
// every level (a large level-6 refresh, then a tiny level-10 one), so a probe that happens to land
// on a small call looks "faster" and the component flips back and forth (docs/parallel.md, exchange
// backends). This tuner therefore decides in rounds:
//
//   round      the two backends take turns in the Thue-Morse order (p2p ksection ksection p2p
//              ksection p2p p2p ksection ...), which cancels linear drifts and any period-2 pattern
//              in the sizes of consecutive calls; a call counts as a sample of its backend only if it
//              moved at least settings.min_bytes (max over ranks). A sample is the time per byte
//              (seconds when the caller does not give the size), so a large and a small call of the
//              same backend compare alike. The round ends when each backend has settings.samples
//              samples, or after settings.round_call_limit calls.
//   decision   with at least half the samples on each side, the challenger (the backend not in
//              production) is adopted only if its median is below (1 - settings.switch_margin)
//              times the incumbent's median (hysteresis). With fewer, the component's messages are
//              too small to matter and it uses the default p2p.
//   settled    the production backend serves settings.settle_calls calls without any timing, then
//              a new round re-probes; the interval doubles after each round (back-off) up to
//              settings.max_settle_calls, so a run of N calls makes O(log N + N / max) rounds and at
//              most one switch per round.
//
// Only P2P and k-section take part in the tuning. The all-to-all backend (MPI_ALLTOALLV) is a
// user-forced choice only (exchange_method='alltoall'); the forced modes ('p2p', 'ksection',
// 'alltoall') disable the tuning for all components (ExchangeAutoTuner::fixed).
//
// Pure logic, no MPI inside (parallel/tuned_exchange.hpp is the MPI side). Per exchange call:
//     const ExchangeMethod m = tuner.choose(c);
//     if (!tuner.wants_timing(c)) { ...exchange with m...; tuner.record_untimed(c, m); }
//     else { time it; reduce {seconds, bytes} with MPI_MAX over ranks; tuner.record(c, m, t, bytes); }
// Calling record() on every call is also valid (a time the tuner does not need is ignored).
// REQUIREMENT: every rank must feed identical times and byte counts (the max over ranks), in the
// same order. The tuner is deterministic, so identical inputs give identical choices on all ranks;
// if ranks fed their local values they could pick different backends and deadlock.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parallel/sparse_exchange.hpp"  // enum class ExchangeMethod { alltoall, p2p, ksection }

namespace kosmo::parallel {

// seeds/000 §3.2.1 (i)-(vii).
enum class ExchangeComponent { fine_dp, fine_int, reverse_dp, reverse_int, pair_int, bulk_dp, bulk_rev_dp };

inline constexpr int exchange_component_count = 7;
inline constexpr std::array<ExchangeComponent, exchange_component_count> all_exchange_components = {
    ExchangeComponent::fine_dp,     ExchangeComponent::fine_int, ExchangeComponent::reverse_dp,
    ExchangeComponent::reverse_int, ExchangeComponent::pair_int, ExchangeComponent::bulk_dp,
    ExchangeComponent::bulk_rev_dp};

// "fine_dp", "fine_int", ... as in seeds/000 §3.2.1.
const char* exchange_component_name(ExchangeComponent component);

struct AutoTuneSettings {
  int samples = 8;              // counted calls of each backend per round, medians compared; >= 1
  int round_call_limit = 64;    // a round ends after this many calls at the latest; >= 2 * samples
  double switch_margin = 0.20;  // challenger must be faster by more than this fraction; in [0, 1)
  // Calls moving fewer bytes (max over ranks) than this do not count as samples: their time is
  // latency noise. 64 KiB take of the order of 10 us on a shared-memory link: timer jitter.
  double min_bytes = 65536.0;
  int settle_calls = 256;        // untimed production calls after the first round; >= 1
  int max_settle_calls = 16384;  // the back-off stops doubling here; >= settle_calls
  // When set, tuning is off: every component always uses this backend (exchange_method=
  // 'p2p' | 'ksection' | 'alltoall'). Unset means exchange_method='auto'.
  std::optional<ExchangeMethod> forced_method;
};

// Settings for the namelist value of exchange_method: "auto" (tuning), "p2p", "ksection" or
// "alltoall" (forced); anything else throws kosmo::Error.
AutoTuneSettings autotune_settings_for_exchange_method(std::string_view exchange_method, AutoTuneSettings base = {});

class ExchangeAutoTuner {
 public:
  // Byte count of a call whose size the caller does not know: the call counts as a sample.
  static constexpr double unknown_bytes = -1.0;

  explicit ExchangeAutoTuner(AutoTuneSettings settings = {});

  // A tuner that always answers `method` for every component (no rounds).
  static ExchangeAutoTuner fixed(ExchangeMethod method);

  // The backend to use for the next call of component c. Does not change state.
  ExchangeMethod choose(ExchangeComponent c) const;
  // Whether the next call of c is part of a round (its time and size are wanted).
  bool wants_timing(ExchangeComponent c) const;

  // Reports the call just made with `used`, which must be what choose(c) answered; otherwise, or for
  // a negative / non-finite time, throws kosmo::Error. `seconds` and `max_bytes` are the maxima over
  // ranks (see the file comment).
  void record(ExchangeComponent c, ExchangeMethod used, double seconds, double max_bytes = unknown_bytes);
  // Reports an untimed call (allowed only when wants_timing(c) was false).
  void record_untimed(ExchangeComponent c, ExchangeMethod used);

  // The production backend of c (p2p before the first decision).
  ExchangeMethod current(ExchangeComponent c) const;
  bool in_round(ExchangeComponent c) const;
  int switch_count(ExchangeComponent c) const;  // decisions that changed the production backend
  int round_count(ExchangeComponent c) const;   // decisions made
  // Medians of the last decided round, seconds per byte (seconds when the sizes were not given);
  // 0 when a backend had no sample.
  double last_median(ExchangeComponent c, ExchangeMethod method) const;

  bool is_fixed() const { return settings_.forced_method.has_value(); }
  const AutoTuneSettings& settings() const { return settings_; }

  // One summary line per component that decided anything since the last call (the log is emptied):
  // "auto-tune fine_dp: p2p, 2 rounds, 0 switches since last report (last round: p2p 1.20e-09 s/B,
  // ksection 2.00e-09 s/B, median of 8)". The run prints it with each output.
  std::vector<std::string> drain_log();

 private:
  struct State {
    ExchangeMethod production = ExchangeMethod::p2p;
    bool in_round = true;  // the run starts with a round
    int round_calls = 0;   // calls made in the current round
    std::vector<double> p2p_samples, ksection_samples;
    long long settled_calls_left = 0;
    long long interval = 0;  // the settled interval after the next decision
    int switches = 0, rounds = 0;
    int reported_switches = 0, reported_rounds = 0;  // at the last drain_log
    double median_p2p = 0.0, median_ksection = 0.0;
    int decided_samples = 0;    // smaller sample count of the last decision
    bool decided_small = false;  // the last decision found too few large calls
    bool per_byte = false;       // the samples are seconds per byte
  };

  State& state(ExchangeComponent c);
  const State& state(ExchangeComponent c) const;
  void check_used(ExchangeComponent c, ExchangeMethod used) const;
  void count_call(State& s);
  void decide(State& s);

  AutoTuneSettings settings_;
  std::array<State, exchange_component_count> states_{};
};

}  // namespace kosmo::parallel
