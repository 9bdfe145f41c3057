#pragma once
// Per-component auto-tuning of the ghost/bulk exchange backend (seeds/000 §3.2).
//
// Seven exchange components (seeds/000 §3.2.1) each keep their own state and progress through
// the four phases of seeds/000 §3.2.2:
//   phase 0  trial P2P          (settings.trial_calls calls, mean time kept)
//   phase 1  trial k-section    (settings.trial_calls calls, mean time kept)
//   phase 2  production with the faster of the two trials; every production call updates the
//            EMA of seeds/000 §3.2.2 eq. 8:  t_bar_{n+1} = alpha t_n + (1 - alpha) t_bar_n,
//            seeded with the winner's trial mean
//   phase 3  after settings.probe_interval production calls, one call with the alternative
//            backend (the probe). If the probe time is more than settings.switch_threshold
//            (20 %) faster than the production EMA, i.e. t_probe < (1 - threshold) * t_bar, the
//            component switches: the alternative becomes production and its EMA is seeded with
//            the probe time. Either way the component returns to phase 2.
//
// Only P2P and k-section take part in the tuning. The all-to-all backend (MPI_ALLTOALLV) is a
// user-forced choice only (exchange_method='alltoall'); the forced modes ('p2p', 'ksection',
// 'alltoall') disable the tuning for all components (ExchangeAutoTuner::fixed).
//
// Pure logic, no MPI inside. Usage per exchange call:
//     const ExchangeMethod m = tuner.choose(c);
//     const double t0 = MPI_Wtime(); ...exchange with m...; local = MPI_Wtime() - t0;
//     MPI_Allreduce(&local, &t, 1, MPI_DOUBLE, MPI_MAX, comm);   // max over ranks
//     tuner.record(c, m, t);
// REQUIREMENT: every rank must feed identical times (e.g. the max over ranks as above), in the
// same order. The tuner is deterministic, so identical inputs give identical choices on all
// ranks; if ranks fed their local times they could pick different backends and deadlock.
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
  double alpha = 0.05;             // EMA update rate, seeds/000 §3.2.2 eq. 8; in (0, 1]
  double switch_threshold = 0.20;  // probe must be faster by more than this fraction; in [0, 1)
  int probe_interval = 50;         // production calls between two probes; >= 1
  int trial_calls = 1;             // calls per trial phase (0 and 1), their mean is compared; >= 1
  // When set, tuning is off: every component always uses this backend (exchange_method=
  // 'p2p' | 'ksection' | 'alltoall'). Unset means exchange_method='auto'.
  std::optional<ExchangeMethod> forced_method;
  bool log_probes = false;  // also log probes that do not switch (trial results and switches
                            // are always logged)
};

// Settings for the namelist value of exchange_method: "auto" (tuning), "p2p", "ksection" or
// "alltoall" (forced); anything else throws kosmo::Error.
AutoTuneSettings autotune_settings_for_exchange_method(std::string_view exchange_method, AutoTuneSettings base = {});

class ExchangeAutoTuner {
 public:
  explicit ExchangeAutoTuner(AutoTuneSettings settings = {});

  // A tuner that always answers `method` for every component (no trials, no probes).
  static ExchangeAutoTuner fixed(ExchangeMethod method);

  // The backend to use for the next call of component c. Does not change state; calling it
  // twice without a record() in between gives the same answer.
  ExchangeMethod choose(ExchangeComponent c);

  // Report the measured time (seconds, identical on all ranks) of the call just made with
  // `used`, which must be what choose(c) answered; otherwise, or for a negative / non-finite
  // time, throws kosmo::Error.
  void record(ExchangeComponent c, ExchangeMethod used, double seconds);

  // The production backend of c (during trials: the trial backend being measured).
  ExchangeMethod current(ExchangeComponent c) const;
  // 0..3 as in seeds/000 §3.2.2 (a fixed tuner reports 2, production).
  int phase(ExchangeComponent c) const;
  // The production EMA t_bar of eq. 8 (0 before production starts).
  double ema(ExchangeComponent c) const;
  // Mean trial time of `method` (p2p or ksection) for c; 0 if not measured yet.
  double trial_time(ExchangeComponent c, ExchangeMethod method) const;
  // Number of switches c has made after the trials.
  int switch_count(ExchangeComponent c) const;

  bool is_fixed() const { return settings_.forced_method.has_value(); }
  const AutoTuneSettings& settings() const { return settings_; }

  // Human-readable lines accumulated since the last call, e.g.
  // "auto-tune fine_dp: p2p 1.2e-04 s vs ksection 2.0e-04 s -> p2p"; the log is emptied.
  std::vector<std::string> drain_log();

 private:
  struct State {
    int phase = 0;
    ExchangeMethod production = ExchangeMethod::p2p;
    double ema = 0.0;
    double trial_sum_p2p = 0.0;
    double trial_sum_ksection = 0.0;
    int trial_count = 0;  // calls made in the current trial phase
    int calls_since_probe = 0;
    int switches = 0;
  };

  State& state(ExchangeComponent c);
  const State& state(ExchangeComponent c) const;
  ExchangeMethod expected(const State& s) const;

  AutoTuneSettings settings_;
  std::array<State, exchange_component_count> states_{};
  std::vector<std::string> log_;
};

}  // namespace kosmo::parallel
