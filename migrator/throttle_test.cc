// The adaptive throttle's decisions, fed with made-up samples: no server,
// no clock, no timing.

#include "migrator/throttle.h"

#include <gtest/gtest.h>

#include <vector>

#include "migrator/copy_progress.h"

namespace pglayout::migrator {
namespace {

// A sample at |s| seconds with the database's cumulative commit count and
// completed transaction ids.
ThrottleSample At(double s, int64_t commits, int64_t xids,
                  int64_t requested = 0) {
  ThrottleSample x;
  x.at_s = s;
  x.xact_commit = commits;
  x.completed_xids = xids;
  x.requested_checkpoints = requested;
  return x;
}

// A write-heavy foreground at 1000 transactions/s over [0, 5].
AdaptiveThrottle Started() {
  AdaptiveThrottle t;
  t.SetBaseline(At(0, 0, 0), At(5, 5000, 5000));
  return t;
}

TEST(AdaptiveThrottle, StartsABusyForegroundAtTheDutyThePriorCallsFor) {
  AdaptiveThrottle t = Started();
  EXPECT_DOUBLE_EQ(t.baseline_tps(), 1000);
  EXPECT_STREQ(t.measure(), "writes");
  // The prior (full duty costs half the pace) calls for 1/5 duty to keep
  // 90%: a pause of 4x the batch until the first 2 s window is measured.
  EXPECT_DOUBLE_EQ(t.Next(At(6, 6000, 6000), 0.5), 2.0);
  EXPECT_EQ(t.State(), "pause 4.00x (measuring)");
}

TEST(AdaptiveThrottle, PicksTheDutyThatLeavesTheForegroundItsTarget) {
  AdaptiveThrottle t = Started();
  // 1 s of work in 2 s, and the foreground kept 45%: with the prior (0.5 s
  // lost in 1 s) 1.6 s lost in 2 s of copying, 0.8 per unit of duty, so
  // 0.1 / 0.8 = 1/8 duty keeps 90%: pause 7x the batch.
  EXPECT_DOUBLE_EQ(t.Next(At(7, 7000, 5900), 1.0), 7.0);
  EXPECT_EQ(t.State(), "pause 7.00x (writes 0.45 of baseline)");
  // At 1/8 duty it lost what the estimate predicts (10%): holds.
  EXPECT_DOUBLE_EQ(t.Next(At(9, 9000, 7700), 0.25), 1.75);
  EXPECT_EQ(t.State(), "pause 7.00x (writes 0.90 of baseline)");
}

TEST(AdaptiveThrottle, SpeedsUpAtMostTwofoldPerWindowWhileNothingIsLost) {
  AdaptiveThrottle t = Started();
  double s = 5, duty = 0.2;
  int64_t xids = 5000;
  for (int window = 1; window <= 5; ++window) {
    s += 2;
    xids += 2000;  // the foreground keeps its full pace
    t.Next(At(s, xids, xids), 2 * duty);
    double next = 1 / (1 + t.pause_factor());
    EXPECT_GT(next, duty) << "window " << window;
    EXPECT_LE(next, 2 * duty) << "window " << window;
    duty = next;
  }
  // The prior's half second lost is outweighed after five windows.
  EXPECT_DOUBLE_EQ(t.pause_factor(), 0);
}

TEST(AdaptiveThrottle, NeverDropsBelowATenthOfFullSpeed) {
  AdaptiveThrottle t = Started();
  // 80% lost at half duty: about 1 per unit, 1/10 duty or less.
  t.Next(At(7, 7000, 5400), 1.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), ThrottleLimits().max_pause_factor);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 9);
}

TEST(AdaptiveThrottle, RequestedCheckpointsAndReplicaLagHalveTheDuty) {
  AdaptiveThrottle t;
  t.SetBaseline(At(0, 0, 0), At(5, 10, 10));  // idle: flat out, 5 s windows
  t.Next(At(10, 20, 20, 1), 1.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 1);  // 1 -> 1/2 duty
  EXPECT_EQ(t.State(), "pause 1.00x (1 requested checkpoint(s))");
  ThrottleSample lagging = At(15, 30, 30, 1);
  lagging.replica_lag_s = 30;
  t.Next(lagging, 1.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 3);
  EXPECT_EQ(t.State(), "pause 3.00x (replica lag 30.0 s, 0 MB)");
  ThrottleSample behind = At(20, 40, 40, 1);
  behind.replica_lag_bytes = 1e9;
  t.Next(behind, 1.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 7);
  // Healthy again (no new checkpoint since the last window): doubles.
  t.Next(At(25, 50, 50, 1), 1.0);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 3);
}

TEST(AdaptiveThrottle, ReadMostlyForegroundIsJudgedOnCommitsOverLongerWindows) {
  AdaptiveThrottle t;
  // 1000 commits/s of which 100/s wrote: writes do not stand for the pace.
  t.SetBaseline(At(0, 0, 0), At(5, 5000, 500));
  EXPECT_STREQ(t.measure(), "commits");
  EXPECT_DOUBLE_EQ(t.baseline_tps(), 1000);
  // 2 s later commits look stalled (statistics not flushed yet): no
  // decision before the 5 s window has passed.
  EXPECT_DOUBLE_EQ(t.Next(At(7, 5000, 700), 1.0), 4.0);
  EXPECT_EQ(t.State(), "pause 4.00x (measuring)");
  // 5 s at 54%, 2.5 s of work in it: (0.5 + 2.3) s lost in 3.5 s, 0.8 per
  // unit of duty, 1/8 duty.
  t.Next(At(10, 7700, 800), 1.5);
  EXPECT_DOUBLE_EQ(t.pause_factor(), 7);
  EXPECT_EQ(t.State(), "pause 7.00x (commits 0.54 of baseline)");
}

TEST(AdaptiveThrottle, JudgesTheBatchesByThePausesAroundThemNotTheBaseline) {
  AdaptiveThrottle t = Started();  // 1000/s before the copy, pause 4x
  // The foreground has slowed to 700/s on its own (a checkpoint cycle,
  // say), and to 630/s while a batch runs: the copy costs 10%, not 37%.
  double s = 5;
  int64_t xids = 5000;
  std::vector<double> pauses;
  for (int batch = 0; batch < 3; ++batch) {
    t.BatchStarting(s, xids);
    s += 0.2;
    xids += 126;  // 630/s for 0.2 s
    pauses.push_back(t.Next(At(s, xids, xids), 0.2));
    s += 0.8;
    xids += 560;  // 700/s for 0.8 s
  }
  // The window closes after the third batch (2.2 s): 0.6 s of copying at
  // 0.9 of the pauses' pace plus the prior is (0.5 + 0.06) s lost in 1.6 s,
  // 0.35 per unit of duty, so 0.1 / 0.35 = 2/7 duty: pause 2.5x.
  EXPECT_DOUBLE_EQ(pauses[0], 0.8);
  EXPECT_DOUBLE_EQ(pauses[1], 0.8);
  EXPECT_NEAR(pauses[2], 0.5, 1e-9);
  EXPECT_EQ(t.State(),
            "pause 2.50x (writes while copying 0.90 of the pauses', pauses "
            "0.70 of baseline)");
}

TEST(AdaptiveThrottle, WorkItDidNotPaceIsNoPause) {
  AdaptiveThrottle t = Started();
  t.BatchStarting(5, 5000);
  EXPECT_DOUBLE_EQ(t.Next(At(5.2, 5200, 5200), 0.2), 0.8);
  // An index build for 10 s, the foreground at half its pace meanwhile.
  t.OtherWorkDone();
  // Two 2 s replay rounds at half pace around an 8 s pause at full pace.
  t.BatchStarting(15.2, 10200);
  EXPECT_DOUBLE_EQ(t.Next(At(17.2, 11200, 11200), 2.0), 8.0);
  t.BatchStarting(25.2, 19200);
  t.Next(At(27.2, 20200, 20200), 2.0);
  // Judged by the pause alone: 0.50, the duty stays 1/5. Had the build
  // counted as a pause, the first round would have been judged against its
  // half pace, looked free, and the duty would have doubled.
  EXPECT_EQ(t.State(),
            "pause 4.00x (writes while copying 0.50 of the pauses', pauses "
            "1.00 of baseline)");
}

TEST(AdaptiveThrottle, CopiesFlatOutBesideAnIdleDatabase) {
  AdaptiveThrottle t;
  t.SetBaseline(At(0, 0, 0), At(5, 10, 10));  // 2/s: our own statements
  EXPECT_EQ(t.Next(At(6, 12, 12), 1.0), 0);
  EXPECT_EQ(t.Next(At(10, 20, 20), 3.0), 0);
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

// A throttled copy as the progress line saw it: a first batch of 10 MB in
// 0.14 s (71 MB/s), then pauses that hold it at its 2 MB/s cap. The line
// once showed the burst rate and an ETA of 1 s for a copy that took 30 s.
TEST(CopyProgress, RatesIncludeThePausesAndTheEtaRespectsTheCap) {
  CopyProgressInput in;
  in.rows_total = 60000;  // 60 MB of 1000-byte rows
  in.cap_mbps = 2;
  in.rows_done = 10000;
  in.bytes_done = 10000000;
  in.elapsed_s = 0.14;  // the first batch, before any pause
  CopyProgress first = ComputeCopyProgress(in);
  EXPECT_NEAR(first.mbps, 71.4, 0.1);
  ASSERT_TRUE(first.eta_s.has_value());
  EXPECT_NEAR(*first.eta_s, 25, 1e-9) << "50 MB left at the 2 MB/s cap";
  EXPECT_NEAR(first.fraction, 1.0 / 6, 1e-12);

  in.rows_done = 30000;  // three batches and two 5 s pauses later
  in.bytes_done = 30000000;
  in.elapsed_s = 15;
  CopyProgress later = ComputeCopyProgress(in);
  EXPECT_NEAR(later.mbps, 2, 1e-12);
  EXPECT_NEAR(later.rows_per_second, 2000, 1e-9);
  EXPECT_NEAR(*later.eta_s, 15, 1e-9);

  // Without a cap the average, pauses included, is the rate.
  in.cap_mbps = 0;
  in.elapsed_s = 30;
  EXPECT_NEAR(*ComputeCopyProgress(in).eta_s, 30, 1e-9);
}

TEST(CopyProgress, AResumedCopyCountsEarlierRowsButNotTheirTime) {
  CopyProgressInput in;
  in.rows_total = 100000;
  in.rows_before = 50000;
  in.rows_done = 10000;
  in.bytes_done = 1000000;
  in.elapsed_s = 10;
  CopyProgress p = ComputeCopyProgress(in);
  EXPECT_NEAR(p.fraction, 0.6, 1e-12);
  EXPECT_NEAR(*p.eta_s, 40, 1e-9);
  in.rows_done = 0;
  EXPECT_FALSE(ComputeCopyProgress(in).eta_s.has_value())
      << "no rate yet, no ETA";
  in.rows_done = 50000;
  EXPECT_FALSE(ComputeCopyProgress(in).eta_s.has_value()) << "done";
}

}  // namespace
}  // namespace pglayout::migrator
