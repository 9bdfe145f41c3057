#include "driver/progress_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "cosmology/cosmological_model.hpp"

namespace kosmo::driver {

ProgressReport::ProgressReport(std::string quantity, double start, double end, long long first_step, long long last_step)
    : quantity_(std::move(quantity)), start_(start), end_(end), first_step_(first_step), last_step_(last_step) {}

double ProgressReport::fraction(double value, long long step) const {
  double done = 0.0;
  if (end_ != start_) done = (value - start_) / (end_ - start_);
  if (last_step_ > first_step_)
    done = std::max(done, static_cast<double>(step - first_step_) / static_cast<double>(last_step_ - first_step_));
  return std::clamp(done, 0.0, 1.0);
}

std::string ProgressReport::line(double value, long long step, double elapsed_seconds) const {
  const double done = fraction(value, step);
  std::string eta = "unknown";
  if (done >= 1.0)
    eta = "0 s";
  else if (done > 0.0)
    eta = readable_duration(elapsed_seconds * (1.0 - done) / done);
  char text[200];
  std::snprintf(text, sizeof text, " Progress: %5.1f%% (%s=%.3e of %.3e), %s elapsed, ETA %s\n", 100.0 * done,
                quantity_.c_str(), value, end_, readable_duration(elapsed_seconds).c_str(), eta.c_str());
  return text;
}

ProgressReport make_progress_report(const cosmology::CosmologicalModel* cosmology, double time, double tend, long long step,
                                    long long nstepmax) {
  if (cosmology) return ProgressReport("a", cosmology->aexp_at(time), cosmology->aexp_at(tend), step, nstepmax);
  return ProgressReport("t", time, tend, step, nstepmax);
}

double progress_value(const cosmology::CosmologicalModel* cosmology, double time) {
  return cosmology ? cosmology->aexp_at(time) : time;
}

std::string readable_duration(double seconds) {
  char text[64];
  seconds = std::max(seconds, 0.0);
  if (seconds < 100.0) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 3600.0) {
    const auto whole = static_cast<long long>(std::lround(seconds));
    std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600.0);
  }
  return text;
}

}  // namespace kosmo::driver
