#pragma once

#include <string>

namespace kosmo::cosmology {
class CosmologicalModel;
}

namespace kosmo::driver {

// The line printed after each coarse step's "Main step=" line: how far the run has gone and when
// it should end. Progress is measured by the expansion factor toward aend in a cosmological run (a
// is what the user asked for; the time steps are limited in da/a, so a advances steadily) and by
// t toward tend otherwise; when the step limit nstepmax is nearer, by the step count. The estimate
// of the remaining wall-clock time assumes the rest goes as fast as what is done:
// elapsed * (1 - f) / f for the fraction f done. Format (README, "The showcase"):
//   " Progress:  24.5% (a=2.500e-01 of 1.000e+00), 12 s elapsed, ETA 37 s"
class ProgressReport {
 public:
  // `quantity` names the measure ("a" or "t"), which goes from `start` to `end`; the run's step
  // count goes from `first_step` toward `last_step` (nstepmax).
  ProgressReport(std::string quantity, double start, double end, long long first_step, long long last_step);

  // Fraction of the run done in [0, 1]: the larger of the measure's and the step count's fractions.
  double fraction(double value, long long step) const;
  // The progress line, newline included, for the measure at `value` after `step` steps and
  // `elapsed_seconds` of wall-clock time since the first step began.
  std::string line(double value, long long step, double elapsed_seconds) const;

 private:
  std::string quantity_;
  double start_, end_;
  long long first_step_, last_step_;
};

// The report of a run from code time `time` at step `step` to `tend` (code time) or `nstepmax`;
// with a cosmology the measure is the expansion factor, and progress_value converts the code time.
ProgressReport make_progress_report(const cosmology::CosmologicalModel* cosmology, double time, double tend, long long step,
                                    long long nstepmax);
double progress_value(const cosmology::CosmologicalModel* cosmology, double time);

// "37 s", "4 min 05 s", "2.3 h": a duration as a person reads it.
std::string readable_duration(double seconds);

}  // namespace kosmo::driver
