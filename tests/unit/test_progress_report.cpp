// The progress line after each coarse step: the fraction done, from the measure (a or t) or the
// step count, whichever is further, and the remaining time extrapolated from the elapsed time.
#include <gtest/gtest.h>

#include <string>

#include "driver/progress_report.hpp"

using kosmo::driver::ProgressReport;
using kosmo::driver::readable_duration;

TEST(ProgressReport, FractionFollowsTheMeasureFromStartToEnd) {
  const ProgressReport report("a", 0.02, 1.0, 0, 1000000);
  EXPECT_DOUBLE_EQ(report.fraction(0.02, 0), 0.0);
  EXPECT_DOUBLE_EQ(report.fraction(0.51, 10), 0.5);
  EXPECT_DOUBLE_EQ(report.fraction(1.0, 20), 1.0);
  EXPECT_DOUBLE_EQ(report.fraction(1.0 + 1e-15, 21), 1.0);  // clamped
}

TEST(ProgressReport, TheStepLimitCountsWhenItIsNearer) {
  const ProgressReport report("t", 0.0, 10.0, 5, 15);
  EXPECT_DOUBLE_EQ(report.fraction(1.0, 10), 0.5);  // 5 of 10 steps, 10 % of the time
  EXPECT_DOUBLE_EQ(report.fraction(8.0, 6), 0.8);   // 80 % of the time, 10 % of the steps
}

TEST(ProgressReport, LineGivesTheFractionAndTheExtrapolatedRemainingTime) {
  const ProgressReport report("a", 0.0, 1.0, 0, 1000000);
  EXPECT_EQ(report.line(0.25, 3, 10.0), " Progress:  25.0% (a=2.500e-01 of 1.000e+00), 10 s elapsed, ETA 30 s\n");
  EXPECT_EQ(report.line(0.0, 0, 0.0), " Progress:   0.0% (a=0.000e+00 of 1.000e+00), 0 s elapsed, ETA unknown\n");
  EXPECT_EQ(report.line(1.0, 9, 42.0), " Progress: 100.0% (a=1.000e+00 of 1.000e+00), 42 s elapsed, ETA 0 s\n");
  // Never the step line's prefix, which the tests and users' scripts parse.
  EXPECT_EQ(report.line(0.5, 1, 1.0).find("Main step="), std::string::npos);
}

TEST(ProgressReport, DurationsReadAsSecondsMinutesOrHours) {
  EXPECT_EQ(readable_duration(37.4), "37 s");
  EXPECT_EQ(readable_duration(245.0), "4 min 05 s");
  EXPECT_EQ(readable_duration(3 * 3600.0 + 1000.0), "3.3 h");
  EXPECT_EQ(readable_duration(-1.0), "0 s");
}
