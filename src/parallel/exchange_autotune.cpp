// Per-component exchange auto-tuning, seeds/000 §3.2 (see exchange_autotune.hpp).
#include "parallel/exchange_autotune.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace kosmo::parallel {

namespace {

const char* method_label(ExchangeMethod method) { return exchange_method_name(method); }

ExchangeMethod alternative_of(ExchangeMethod method) {
  return method == ExchangeMethod::p2p ? ExchangeMethod::ksection : ExchangeMethod::p2p;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3e", seconds);
  return buffer;
}

int index_of(ExchangeComponent c) {
  const int i = static_cast<int>(c);
  KOSMO_REQUIRE(i >= 0 && i < exchange_component_count, "exchange auto-tune: invalid component " << i);
  return i;
}

}  // namespace

const char* exchange_component_name(ExchangeComponent component) {
  switch (component) {
    case ExchangeComponent::fine_dp:
      return "fine_dp";
    case ExchangeComponent::fine_int:
      return "fine_int";
    case ExchangeComponent::reverse_dp:
      return "reverse_dp";
    case ExchangeComponent::reverse_int:
      return "reverse_int";
    case ExchangeComponent::pair_int:
      return "pair_int";
    case ExchangeComponent::bulk_dp:
      return "bulk_dp";
    case ExchangeComponent::bulk_rev_dp:
      return "bulk_rev_dp";
  }
  return "unknown";
}

AutoTuneSettings autotune_settings_for_exchange_method(std::string_view exchange_method, AutoTuneSettings base) {
  if (exchange_method == "auto") {
    base.forced_method.reset();
  } else if (exchange_method == "p2p" || exchange_method == "ksection" || exchange_method == "alltoall") {
    base.forced_method = exchange_method_from_name(exchange_method);
  } else {
    KOSMO_FAIL("exchange_method='" << exchange_method
                                   << "' is not one of 'auto', 'p2p', 'ksection', 'alltoall' (seeds/000 §3.2)");
  }
  return base;
}

ExchangeAutoTuner::ExchangeAutoTuner(AutoTuneSettings settings) : settings_(settings) {
  KOSMO_REQUIRE(settings_.alpha > 0.0 && settings_.alpha <= 1.0,
                "exchange auto-tune: alpha = " << settings_.alpha << " must lie in (0, 1] (seeds/000 §3.2.2 eq. 8)");
  KOSMO_REQUIRE(settings_.switch_threshold >= 0.0 && settings_.switch_threshold < 1.0,
                "exchange auto-tune: switch_threshold = " << settings_.switch_threshold << " must lie in [0, 1)");
  KOSMO_REQUIRE(settings_.probe_interval >= 1,
                "exchange auto-tune: probe_interval = " << settings_.probe_interval << " must be >= 1");
  KOSMO_REQUIRE(settings_.trial_calls >= 1,
                "exchange auto-tune: trial_calls = " << settings_.trial_calls << " must be >= 1");
  if (settings_.forced_method) {
    for (State& s : states_) {
      s.phase = 2;
      s.production = *settings_.forced_method;
    }
  }
}

ExchangeAutoTuner ExchangeAutoTuner::fixed(ExchangeMethod method) {
  AutoTuneSettings settings;
  settings.forced_method = method;
  return ExchangeAutoTuner(settings);
}

ExchangeAutoTuner::State& ExchangeAutoTuner::state(ExchangeComponent c) {
  return states_[static_cast<std::size_t>(index_of(c))];
}

const ExchangeAutoTuner::State& ExchangeAutoTuner::state(ExchangeComponent c) const {
  return states_[static_cast<std::size_t>(index_of(c))];
}

ExchangeMethod ExchangeAutoTuner::expected(const State& s) const {
  if (settings_.forced_method) return *settings_.forced_method;
  switch (s.phase) {
    case 0:
      return ExchangeMethod::p2p;
    case 1:
      return ExchangeMethod::ksection;
    case 3:
      return alternative_of(s.production);
    default:
      return s.production;
  }
}

ExchangeMethod ExchangeAutoTuner::choose(ExchangeComponent c) { return expected(state(c)); }

void ExchangeAutoTuner::record(ExchangeComponent c, ExchangeMethod used, double seconds) {
  State& s = state(c);
  const char* name = exchange_component_name(c);
  KOSMO_REQUIRE(std::isfinite(seconds) && seconds >= 0.0,
                "exchange auto-tune " << name << ": measured time " << seconds << " s is not a finite value >= 0");
  const ExchangeMethod want = expected(s);
  KOSMO_REQUIRE(used == want, "exchange auto-tune " << name << ": recorded a call with " << method_label(used)
                                                    << " but the tuner chose " << method_label(want) << " (phase "
                                                    << s.phase << ")");

  if (settings_.forced_method) {
    // Fixed mode: no decisions, only the EMA (eq. 8) for diagnostics, seeded with the first call
    // (calls_since_probe serves as the "seeded" flag here).
    s.ema = (s.calls_since_probe == 0) ? seconds : settings_.alpha * seconds + (1.0 - settings_.alpha) * s.ema;
    s.calls_since_probe = 1;
    return;
  }

  switch (s.phase) {
    case 0:  // trial P2P
      s.trial_sum_p2p += seconds;
      if (++s.trial_count == settings_.trial_calls) {
        s.trial_count = 0;
        s.phase = 1;
      }
      return;
    case 1: {  // trial k-section
      s.trial_sum_ksection += seconds;
      if (++s.trial_count < settings_.trial_calls) return;
      s.trial_count = 0;
      const double t_p2p = s.trial_sum_p2p / settings_.trial_calls;
      const double t_ksec = s.trial_sum_ksection / settings_.trial_calls;
      // Ties go to P2P (no forwarding through tree levels, seeds/000 §3.1.3).
      s.production = (t_ksec < t_p2p) ? ExchangeMethod::ksection : ExchangeMethod::p2p;
      s.ema = (s.production == ExchangeMethod::p2p) ? t_p2p : t_ksec;
      s.calls_since_probe = 0;
      s.phase = 2;
      log_.push_back(std::string("auto-tune ") + name + ": p2p " + seconds_text(t_p2p) + " s vs ksection " +
                     seconds_text(t_ksec) + " s -> " + method_label(s.production));
      return;
    }
    case 2:  // production, seeds/000 §3.2.2 eq. 8
      s.ema = settings_.alpha * seconds + (1.0 - settings_.alpha) * s.ema;
      if (++s.calls_since_probe >= settings_.probe_interval) s.phase = 3;
      return;
    case 3: {  // probe of the alternative
      const ExchangeMethod alternative = alternative_of(s.production);
      const bool faster = seconds < (1.0 - settings_.switch_threshold) * s.ema;
      if (faster || settings_.log_probes) {
        log_.push_back(std::string("auto-tune ") + name + ": probe " + method_label(alternative) + " " +
                       seconds_text(seconds) + " s vs " + method_label(s.production) + " EMA " + seconds_text(s.ema) +
                       " s -> " + method_label(faster ? alternative : s.production) +
                       (faster ? " (switch)" : " (keep)"));
      }
      if (faster) {
        s.production = alternative;
        s.ema = seconds;
        ++s.switches;
      }
      s.calls_since_probe = 0;
      s.phase = 2;
      return;
    }
    default:
      KOSMO_FAIL("exchange auto-tune " << name << ": corrupt phase " << s.phase);
  }
}

ExchangeMethod ExchangeAutoTuner::current(ExchangeComponent c) const {
  const State& s = state(c);
  if (settings_.forced_method) return *settings_.forced_method;
  if (s.phase == 0) return ExchangeMethod::p2p;
  if (s.phase == 1) return ExchangeMethod::ksection;
  return s.production;
}

int ExchangeAutoTuner::phase(ExchangeComponent c) const { return state(c).phase; }

double ExchangeAutoTuner::ema(ExchangeComponent c) const { return state(c).ema; }

double ExchangeAutoTuner::trial_time(ExchangeComponent c, ExchangeMethod method) const {
  const State& s = state(c);
  if (settings_.forced_method) return 0.0;
  if (method == ExchangeMethod::p2p) return s.phase >= 1 ? s.trial_sum_p2p / settings_.trial_calls : 0.0;
  if (method == ExchangeMethod::ksection) return s.phase >= 2 ? s.trial_sum_ksection / settings_.trial_calls : 0.0;
  return 0.0;
}

int ExchangeAutoTuner::switch_count(ExchangeComponent c) const { return state(c).switches; }

std::vector<std::string> ExchangeAutoTuner::drain_log() {
  std::vector<std::string> out;
  out.swap(log_);
  return out;
}

}  // namespace kosmo::parallel
