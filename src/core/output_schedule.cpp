#include "core/output_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace kosmo::core {
namespace {
// Times closer than this (relative) count as reached: t accumulates round-off over many steps.
constexpr double time_tolerance = 1e-12;
}

OutputSchedule::OutputSchedule(const OutputScheduleSettings& settings) : foutput_(settings.foutput) {
  KOSMO_REQUIRE(foutput_ >= 1, "&OUTPUT_PARAMS foutput must be >= 1");
  KOSMO_REQUIRE(std::is_sorted(settings.tout.begin(), settings.tout.end()), "&OUTPUT_PARAMS tout must be non-decreasing");
  times_ = settings.tout;
  if (settings.tend) {
    // RAMSES writes at every multiple of delta_tout (tout_next) besides the tout list, and appends
    // tend to the list; the run stops at tend, so later times are never reached.
    const double tend = *settings.tend;
    if (settings.delta_tout > 0.0 && tend > 0.0) {
      const auto n = static_cast<long long>(std::floor(tend / settings.delta_tout * (1.0 + time_tolerance)));
      for (long long i = 1; i <= n; ++i) times_.push_back(static_cast<double>(i) * settings.delta_tout);
    }
    times_.push_back(tend);
    const double last = tend + time_tolerance * std::max(1.0, std::fabs(tend));
    std::erase_if(times_, [last](double t) { return t > last; });
  }
  std::sort(times_.begin(), times_.end());
  // Times that coincide (tend equal to the last tout, a multiple of delta_tout in tout) are one
  // output, as in RAMSES, where one output consumes both.
  auto same = [](double a, double b) { return b - a <= time_tolerance * std::max(1.0, std::fabs(b)); };
  times_.erase(std::unique(times_.begin(), times_.end(), same), times_.end());
}

bool OutputSchedule::due(double t, long long step) const {
  if (step > 0 && step % foutput_ == 0) return true;
  if (next_ >= times_.size()) return false;
  return t >= times_[next_] - time_tolerance * std::max(1.0, std::fabs(times_[next_]));
}

void OutputSchedule::record(double t) {
  while (next_ < times_.size() && t >= times_[next_] - time_tolerance * std::max(1.0, std::fabs(times_[next_]))) ++next_;
}

double OutputSchedule::limit_time_step(double t, double dt) const {
  if (next_ >= times_.size()) return dt;
  const double remaining = times_[next_] - t;
  return (remaining > 0.0 && remaining < dt) ? remaining : dt;
}

}  // namespace kosmo::core
