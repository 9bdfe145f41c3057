// RAMSES output scheduling: tout lists, delta_tout up to tend, foutput steps, time steps shortened
// to land on output times.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/output_schedule.hpp"

using kosmo::core::OutputSchedule;
using kosmo::core::OutputScheduleSettings;

TEST(OutputSchedule, ToutListIsHitExactlyByShortenedSteps) {
  OutputSchedule schedule(OutputScheduleSettings{.tout = {0.0, 0.3, 0.7}});
  double t = 0.0;
  std::vector<double> written;
  for (long long step = 0; step < 100 && !schedule.times_exhausted(); ++step) {
    if (schedule.due(t, step)) {
      written.push_back(t);
      schedule.record(t);
    }
    t += schedule.limit_time_step(t, 0.125);
  }
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written[0], 0.0);
  EXPECT_DOUBLE_EQ(written[1], 0.3);
  EXPECT_DOUBLE_EQ(written[2], 0.7);
}

TEST(OutputSchedule, DeltaToutExpandsUpToTend) {
  OutputSchedule schedule(OutputScheduleSettings{.tout = {5.0}, .delta_tout = 0.25, .tend = 1.1});
  const std::vector<double> expected{0.25, 0.5, 0.75, 1.0, 1.1};
  ASSERT_EQ(schedule.times().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(schedule.times()[i], expected[i]);
}

TEST(OutputSchedule, FoutputTriggersEveryNSteps) {
  OutputSchedule schedule(OutputScheduleSettings{.tout = {}, .foutput = 3});
  EXPECT_FALSE(schedule.due(1.0, 0));
  EXPECT_FALSE(schedule.due(1.0, 2));
  EXPECT_TRUE(schedule.due(1.0, 3));
  EXPECT_TRUE(schedule.due(1.0, 6));
  EXPECT_FALSE(schedule.due(1.0, 7));
}

TEST(OutputSchedule, RejectsDecreasingTimes) {
  EXPECT_THROW(OutputSchedule(OutputScheduleSettings{.tout = {1.0, 0.5}}), kosmo::Error);
}

// RAMSES appends tend to the tout list (amr/read_params.f90): an output at tend, none after it, and
// one output when tend is also the last tout.
TEST(OutputSchedule, TendIsAnOutputTimeAndTheLast) {
  OutputSchedule appended(OutputScheduleSettings{.tout = {0.1, 0.2}, .tend = 0.3});
  EXPECT_EQ(appended.times(), (std::vector<double>{0.1, 0.2, 0.3}));
  OutputSchedule coinciding(OutputScheduleSettings{.tout = {0.1, 0.245}, .tend = 0.245});
  EXPECT_EQ(coinciding.times(), (std::vector<double>{0.1, 0.245}));
  OutputSchedule beyond(OutputScheduleSettings{.tout = {0.1, 0.5}, .tend = 0.3});
  EXPECT_EQ(beyond.times(), (std::vector<double>{0.1, 0.3}));
}

// delta_tout adds its multiples to the tout list (RAMSES tout_next); a time in both is one output.
TEST(OutputSchedule, DeltaToutMergesWithTheToutList) {
  OutputSchedule schedule(OutputScheduleSettings{.tout = {0.1, 0.5}, .delta_tout = 0.25, .tend = 0.6});
  const std::vector<double> expected{0.1, 0.25, 0.5, 0.6};
  ASSERT_EQ(schedule.times().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(schedule.times()[i], expected[i]);
}

// Cosmological runs count the time tau < 0 up to today: an end time aend before a = 1 is negative
// and still ends the list.
TEST(OutputSchedule, NegativeEndTimeOfACosmologicalRun) {
  OutputSchedule schedule(OutputScheduleSettings{.tout = {-3.0, -2.0, -1.0}, .tend = -1.5});
  EXPECT_EQ(schedule.times(), (std::vector<double>{-3.0, -2.0, -1.5}));
}
