#pragma once
// When to write snapshots (RAMSES &OUTPUT_PARAMS): at the times tout(1:noutput) — or every
// delta_tout up to tend — and every foutput coarse steps. A time step is shortened so that an
// output time is hit exactly.
#include <vector>

namespace kosmo::core {

struct OutputScheduleSettings {
  std::vector<double> tout;   // output times (the first noutput entries of &OUTPUT_PARAMS tout)
  long long foutput = 1000000;
  double delta_tout = 0.0;
  double tend = 0.0;
};

class OutputSchedule {
 public:
  explicit OutputSchedule(const OutputScheduleSettings& settings);

  // Output times in order (after expanding delta_tout).
  const std::vector<double>& times() const { return times_; }
  // True when a snapshot is due at time t after coarse step `step`.
  bool due(double t, long long step) const;
  // Marks the snapshot taken at time t; consumes every output time <= t.
  void record(double t);
  // dt shortened so that t + dt does not pass the next output time.
  double limit_time_step(double t, double dt) const;
  bool times_exhausted() const { return next_ >= times_.size(); }

 private:
  std::vector<double> times_;
  std::size_t next_ = 0;
  long long foutput_;
};

}  // namespace kosmo::core
