// The adaptive throttle's decisions, fed with made-up samples: no server,
// no clock, no timing.

#include "migrator/throttle.h"

#include <gtest/gtest.h>

namespace pglayout::migrator {
namespace {

// A sample at |s| seconds with the database's cumulative commit count.
ThrottleSample At(double s, int64_t commits, int64_t requested = 0) {
  ThrottleSample x;
  x.at_s = s;
  x.xact_commit = commits;
  x.requested_checkpoints = requested;
  return x;
}

// Baseline 1000 commits/s over [0, 5].
AdaptiveThrottle Started() {
  AdaptiveThrottle t;
  t.SetBaseline(At(0, 0), At(5, 5000));
  return t;
}

TEST(AdaptiveThrottle, RunsFlatOutWhileTheForegroundKeepsItsPace) {
  AdaptiveThrottle t = Started();
  EXPECT_DOUBLE_EQ(t.baseline_tps(), 1000);
  EXPECT_EQ(t.Next(At(10, 9900), 2.0), 0);
  EXPECT_EQ(t.pause_factor(), 0);
  EXPECT_EQ(t.State(), "pause 0.00x (commits 0.98 of baseline)");
}

TEST(AdaptiveThrottle, BacksOffWhenCommitsDropAndRecoversWithHysteresis) {
  AdaptiveThrottle t = Started();
  // 600/s = 0.6 of baseline: pause a quarter of the batch's time.
  EXPECT_DOUBLE_EQ(t.Next(At(10, 8000), 2.0), 0.5);
  EXPECT_EQ(t.State(), "pause 0.25x (commits 0.60 of baseline)");
  // Still low: doubles.
  EXPECT_DOUBLE_EQ(t.Next(At(15, 11000), 2.0), 1.0);
  // 0.88: between the levels, holds.
  EXPECT_DOUBLE_EQ(t.Next(At(20, 15400), 2.0), 1.0);
  // Healthy (0.95): halves, then drops to 0 below 0.05.
  EXPECT_DOUBLE_EQ(t.Next(At(25, 20150), 2.0), 0.5);
  t.Next(At(30, 24900), 2.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 0.125);
  t.Next(At(35, 29650), 2.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 0.0625);
  EXPECT_EQ(t.Next(At(40, 34400), 2.0), 0);
}

TEST(AdaptiveThrottle, DecidesOncePerWindowNotOnFlushJitter) {
  AdaptiveThrottle t = Started();
  // 1 s after the baseline commits look stalled (stats not flushed yet):
  // no decision before the window of 5 s has passed.
  EXPECT_EQ(t.Next(At(6, 5000), 1.0), 0);
  EXPECT_EQ(t.State(), "pause 0.00x (measuring)");
  EXPECT_EQ(t.Next(At(10, 9800), 1.0), 0);
}

TEST(AdaptiveThrottle, IsCappedAtTheMaximumPause) {
  AdaptiveThrottle t = Started();
  double s = 5;
  int64_t commits = 5000;
  for (int i = 0; i < 10; ++i) {
    s += 5;
    commits += 1000;  // 200/s
    t.Next(At(s, commits), 1.0);
  }
  EXPECT_DOUBLE_EQ(t.pause_factor(), ThrottleLimits().max_pause_factor);
}

TEST(AdaptiveThrottle, RequestedCheckpointsAndReplicaLagArePressure) {
  AdaptiveThrottle t = Started();
  EXPECT_DOUBLE_EQ(t.Next(At(10, 10000, 1), 4.0), 1.0);
  EXPECT_EQ(t.State(), "pause 0.25x (1 requested checkpoint(s))");
  ThrottleSample lagging = At(15, 15000, 1);
  lagging.replica_lag_s = 30;
  EXPECT_DOUBLE_EQ(t.Next(lagging, 4.0), 2.0);
  EXPECT_EQ(t.State(), "pause 0.50x (replica lag 30.0 s, 0 MB)");
  ThrottleSample behind = At(20, 20000, 1);
  behind.replica_lag_bytes = 1e9;
  t.Next(behind, 4.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 1.0);
  // Everything healthy again: no new checkpoint since the last window.
  t.Next(At(25, 25000, 1), 4.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 0.5);
}

TEST(AdaptiveThrottle, IgnoresTheCommitRateOfAnIdleDatabase) {
  AdaptiveThrottle t;
  t.SetBaseline(At(0, 0), At(5, 10));  // 2 commits/s: our own statements
  EXPECT_EQ(t.Next(At(10, 10), 3.0), 0);
  EXPECT_EQ(t.State(), "pause 0.00x (foreground idle)");
}

TEST(ThrottleMode, ParsesBothModesAndRefusesOthers) {
  ThrottleMode mode = ThrottleMode::kOff;
  ASSERT_TRUE(ParseThrottleMode("adaptive", &mode).ok());
  EXPECT_EQ(mode, ThrottleMode::kAdaptive);
  ASSERT_TRUE(ParseThrottleMode("off", &mode).ok());
  EXPECT_EQ(mode, ThrottleMode::kOff);
  Status st = ParseThrottleMode("bogus", &mode);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(),
            "--throttle: 'bogus' is not a throttle mode; use adaptive or off");
  EXPECT_STREQ(ThrottleModeName(ThrottleMode::kAdaptive), "adaptive");
}

}  // namespace
}  // namespace pglayout::migrator
