// Per-component exchange auto-tuning in rounds with hysteresis and back-off, seeds/000 §3.2 (see
// exchange_autotune.hpp for the policy and why it departs from §3.2.2's single probes).
#include "parallel/exchange_autotune.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace kosmo::parallel {

namespace {

int index_of(ExchangeComponent c) {
  const int i = static_cast<int>(c);
  KOSMO_REQUIRE(i >= 0 && i < exchange_component_count, "exchange auto-tune: invalid component " << i);
  return i;
}

// Thue-Morse order of the two backends within a round: call n uses k-section when n has an odd
// number of set bits. Every aligned block of 2^m calls splits evenly, and the sequence correlates
// with no short period, so neither backend is systematically handed the larger calls of a
// component whose sizes repeat (levels visited in a fixed pattern).
ExchangeMethod round_method(int call) {
  return (std::popcount(static_cast<unsigned>(call)) % 2 == 0) ? ExchangeMethod::p2p : ExchangeMethod::ksection;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double upper = *middle;
  return 0.5 * (upper + *std::max_element(values.begin(), middle));
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", seconds);
  return buffer;
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
  KOSMO_REQUIRE(settings_.samples >= 1, "exchange auto-tune: samples = " << settings_.samples << " must be >= 1");
  KOSMO_REQUIRE(settings_.round_call_limit >= 2 * settings_.samples,
                "exchange auto-tune: round_call_limit = " << settings_.round_call_limit << " must be >= 2 * samples");
  KOSMO_REQUIRE(settings_.switch_margin >= 0.0 && settings_.switch_margin < 1.0,
                "exchange auto-tune: switch_margin = " << settings_.switch_margin << " must lie in [0, 1)");
  KOSMO_REQUIRE(std::isfinite(settings_.min_bytes), "exchange auto-tune: min_bytes must be finite");
  KOSMO_REQUIRE(settings_.settle_calls >= 1, "exchange auto-tune: settle_calls = " << settings_.settle_calls << " must be >= 1");
  KOSMO_REQUIRE(settings_.max_settle_calls >= settings_.settle_calls,
                "exchange auto-tune: max_settle_calls = " << settings_.max_settle_calls << " must be >= settle_calls");
  for (State& s : states_) {
    s.interval = settings_.settle_calls;
    if (settings_.forced_method) {
      s.production = *settings_.forced_method;
      s.in_round = false;
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

ExchangeMethod ExchangeAutoTuner::choose(ExchangeComponent c) const {
  const State& s = state(c);
  if (settings_.forced_method) return *settings_.forced_method;
  return s.in_round ? round_method(s.round_calls) : s.production;
}

bool ExchangeAutoTuner::wants_timing(ExchangeComponent c) const { return !is_fixed() && state(c).in_round; }

void ExchangeAutoTuner::check_used(ExchangeComponent c, ExchangeMethod used) const {
  const ExchangeMethod want = choose(c);
  KOSMO_REQUIRE(used == want, "exchange auto-tune " << exchange_component_name(c) << ": recorded a call with "
                                                    << exchange_method_name(used) << " but the tuner chose "
                                                    << exchange_method_name(want));
}

void ExchangeAutoTuner::record(ExchangeComponent c, ExchangeMethod used, double seconds, double max_bytes) {
  KOSMO_REQUIRE(std::isfinite(seconds) && seconds >= 0.0, "exchange auto-tune " << exchange_component_name(c) << ": measured time "
                                                                                << seconds << " s is not a finite value >= 0");
  check_used(c, used);
  State& s = state(c);
  if (!is_fixed() && s.in_round) {
    const bool known = max_bytes != unknown_bytes;
    if (!known || max_bytes >= settings_.min_bytes) {
      s.per_byte = known && max_bytes > 0.0;
      (used == ExchangeMethod::p2p ? s.p2p_samples : s.ksection_samples).push_back(s.per_byte ? seconds / max_bytes : seconds);
    }
  }
  count_call(s);
}

void ExchangeAutoTuner::record_untimed(ExchangeComponent c, ExchangeMethod used) {
  check_used(c, used);
  KOSMO_REQUIRE(!wants_timing(c), "exchange auto-tune " << exchange_component_name(c)
                                                        << ": an untimed call was recorded during a tuning round");
  count_call(state(c));
}

void ExchangeAutoTuner::count_call(State& s) {
  if (is_fixed()) return;
  if (!s.in_round) {
    if (--s.settled_calls_left <= 0) s.in_round = true;
    return;
  }
  ++s.round_calls;
  const auto wanted = static_cast<std::size_t>(settings_.samples);
  const bool enough = s.p2p_samples.size() >= wanted && s.ksection_samples.size() >= wanted;
  if (enough || s.round_calls >= settings_.round_call_limit) decide(s);
}

void ExchangeAutoTuner::decide(State& s) {
  const auto needed = static_cast<std::size_t>((settings_.samples + 1) / 2);
  const std::size_t fewest = std::min(s.p2p_samples.size(), s.ksection_samples.size());
  s.median_p2p = median(s.p2p_samples);
  s.median_ksection = median(s.ksection_samples);
  s.decided_samples = static_cast<int>(fewest);
  s.decided_small = fewest < needed;
  ExchangeMethod next = ExchangeMethod::p2p;  // too few large calls: the messages are too small to matter
  if (!s.decided_small) {
    const bool incumbent_p2p = s.production == ExchangeMethod::p2p;
    const double incumbent = incumbent_p2p ? s.median_p2p : s.median_ksection;
    const double challenger = incumbent_p2p ? s.median_ksection : s.median_p2p;
    next = challenger < (1.0 - settings_.switch_margin) * incumbent
               ? (incumbent_p2p ? ExchangeMethod::ksection : ExchangeMethod::p2p)
               : s.production;
  }
  if (next != s.production) ++s.switches;
  s.production = next;
  ++s.rounds;
  s.in_round = false;
  s.round_calls = 0;
  s.p2p_samples.clear();
  s.ksection_samples.clear();
  s.settled_calls_left = s.interval;
  s.interval = std::min<long long>(2 * s.interval, settings_.max_settle_calls);
}

ExchangeMethod ExchangeAutoTuner::current(ExchangeComponent c) const {
  return is_fixed() ? *settings_.forced_method : state(c).production;
}

bool ExchangeAutoTuner::in_round(ExchangeComponent c) const { return wants_timing(c); }

int ExchangeAutoTuner::switch_count(ExchangeComponent c) const { return state(c).switches; }

int ExchangeAutoTuner::round_count(ExchangeComponent c) const { return state(c).rounds; }

double ExchangeAutoTuner::last_median(ExchangeComponent c, ExchangeMethod method) const {
  const State& s = state(c);
  if (method == ExchangeMethod::p2p) return s.median_p2p;
  if (method == ExchangeMethod::ksection) return s.median_ksection;
  return 0.0;
}

std::vector<std::string> ExchangeAutoTuner::drain_log() {
  std::vector<std::string> lines;
  for (ExchangeComponent c : all_exchange_components) {
    State& s = state(c);
    const int rounds = s.rounds - s.reported_rounds, switches = s.switches - s.reported_switches;
    if (rounds == 0) continue;
    s.reported_rounds = s.rounds;
    s.reported_switches = s.switches;
    std::string line = std::string("auto-tune ") + exchange_component_name(c) + ": " + exchange_method_name(s.production) + ", " +
                       std::to_string(rounds) + (rounds == 1 ? " round, " : " rounds, ") + std::to_string(switches) +
                       (switches == 1 ? " switch" : " switches") + " since last report (last round: ";
    if (s.decided_small)
      line += "messages below " + std::to_string(static_cast<long long>(settings_.min_bytes)) + " bytes, default p2p)";
    else {
      const char* unit = s.per_byte ? " s/B" : " s";
      line += "p2p " + seconds_text(s.median_p2p) + unit + ", ksection " + seconds_text(s.median_ksection) + unit + ", median of " +
              std::to_string(s.decided_samples) + ")";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace kosmo::parallel
