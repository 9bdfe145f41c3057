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
  if (settings.delta_tout > 0.0 && settings.tend > 0.0) {
    // RAMSES: delta_tout replaces the tout list by multiples of delta_tout up to tend.
    const auto n = static_cast<long long>(std::floor(settings.tend / settings.delta_tout * (1.0 + time_tolerance)));
    for (long long i = 1; i <= n; ++i) times_.push_back(static_cast<double>(i) * settings.delta_tout);
    if (times_.empty() || times_.back() < settings.tend * (1.0 - time_tolerance)) times_.push_back(settings.tend);
  } else {
    times_ = settings.tout;
  }
  KOSMO_REQUIRE(std::is_sorted(times_.begin(), times_.end()), "&OUTPUT_PARAMS tout must be non-decreasing");
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
