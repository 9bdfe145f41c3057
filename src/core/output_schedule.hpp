#pragma once
// When to write snapshots (RAMSES &OUTPUT_PARAMS, amr/read_params.f90 and amr/amr_step.f90): at the
// times tout(1:noutput), at every multiple of delta_tout and at tend (RAMSES appends tend to the
// tout list), and every foutput coarse steps. The output of the initial state is the driver's
// (docs/outputs.md, "When outputs are written"). A time step is shortened so that an output time is
// hit exactly, where RAMSES writes at the first coarse step at or past it.
#include <optional>
#include <vector>

namespace kosmo::core {

struct OutputScheduleSettings {
  std::vector<double> tout;   // output times (the first noutput entries of &OUTPUT_PARAMS tout)
  long long foutput = 1000000;
  double delta_tout = 0.0;    // with an end time: also every multiple of delta_tout up to it
  // The end of the run when the namelist sets one (tend, or aend as a time): also an output there,
  // and none after it. Cosmological times are negative, so "not set" is not a value.
  std::optional<double> tend = std::nullopt;
};

class OutputSchedule {
 public:
  explicit OutputSchedule(const OutputScheduleSettings& settings);

  // Output times in increasing order, each once (tout, the multiples of delta_tout and tend merged).
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
