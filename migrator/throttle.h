// The adaptive copy throttle (`pglayout migrate --throttle adaptive`): given
// samples of the server between copy batches (the foreground's pace,
// requested checkpoints, replica lag), it returns the pause before the next
// batch so that the foreground keeps ThrottleLimits::target_ratio of its
// pace. Pure: samples carry their own time; no clock, no server.
// Why: docs/online-migration.md#the-adaptive-throttle.

#ifndef PGLAYOUT_MIGRATOR_THROTTLE_H_
#define PGLAYOUT_MIGRATOR_THROTTLE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace pglayout::migrator {

enum class ThrottleMode { kOff, kAdaptive };

// "off" / "adaptive"; InvalidInput naming the accepted values otherwise.
Status ParseThrottleMode(const std::string& text, ThrottleMode* mode);
const char* ThrottleModeName(ThrottleMode mode);

// One reading of the signals. Counters are cumulative (differences are
// taken between samples); lag is the worst standby's, 0 without standbys.
struct ThrottleSample {
  double at_s = 0;  // a monotonic clock, seconds
  int64_t xact_commit = 0;
  int64_t completed_xids = 0;  // the next transaction id not yet completed
  int64_t requested_checkpoints = 0;
  double replica_lag_s = 0;
  double replica_lag_bytes = 0;
};

struct ThrottleLimits {
  // Minimum time between decisions on the commit count (flushed about once
  // a second by each busy backend: shorter windows measure flush jitter)
  // and on completed writes (exact).
  double window_s = 5;
  double write_window_s = 2;
  // The share of its pace the foreground keeps (--keep-pace).
  double target_ratio = 0.9;
  // Below this baseline (transactions/s) the database is too idle for its
  // pace to mean anything (our own statements commit too); it is ignored.
  double min_baseline_tps = 20;
  double max_lag_s = 10;
  double max_lag_bytes = 256.0 * 1024 * 1024;
  double max_pause_factor = 9;  // the copy never drops below 1/10 speed
};

class AdaptiveThrottle {
 public:
  explicit AdaptiveThrottle(ThrottleLimits limits = {}) : limits_(limits) {}

  // The foreground before the copy: two samples some seconds apart (the
  // second also starts the first decision window).
  void SetBaseline(const ThrottleSample& first, const ThrottleSample& second);

  // Called just before each batch with the clock and the completed
  // transaction ids: it ends the pause before the batch, whose pace is the
  // reference the batch is judged by.
  void BatchStarting(double at_s, int64_t completed_xids);

  // Bulk work the throttle did not pace (an index build, a verification)
  // ran since the last batch: that time was no pause, and the next window
  // starts with the next batch.
  void OtherWorkDone();

  // Called after each batch with a fresh sample and the batch's duration
  // (seconds); returns the pause before the next batch, in seconds.
  double Next(const ThrottleSample& now, double batch_s);

  double pause_factor() const { return factor_; }
  // The baseline pace in the measure the throttle uses (transactions/s).
  double baseline_tps() const { return baseline_tps_; }
  // "writes" or "commits": the measure of the foreground's pace.
  const char* measure() const { return use_writes_ ? "writes" : "commits"; }
  // For the progress line: "pause 3.50x (writes 0.88 of baseline)".
  std::string State() const;

 private:
  double Window() const;
  void ResetWindow();
  // The foreground's pace over the window ending at |now| as a fraction of
  // the baseline; -1 when the baseline is too idle to judge.
  double PaceRatio(const ThrottleSample& now) const;
  // A requested checkpoint or a lagging replica since the window began, ""
  // if none.
  std::string HardPressure(const ThrottleSample& now) const;
  // Adds the window ending at |now| to the evidence (lost_, duty_time_)
  // and sets last_ratio_: paired when the window's pauses were long enough
  // to measure, else against the baseline.
  void Weigh(const ThrottleSample& now, double elapsed);
  // The duty for the next window, from the evidence so far.
  double NextDuty() const;
  // What the last decision rested on, for State().
  std::string Why() const;

  ThrottleLimits limits_;
  bool use_writes_ = false;
  double baseline_tps_ = 0;
  std::optional<ThrottleSample> window_start_;
  // The clock and the completed transaction ids at a batch's start or end.
  struct Mark {
    double at_s;
    int64_t completed_xids;
  };
  // The current window's batches (their time from BatchStarting to Next,
  // or what Next was told without a start) and the pauses between them.
  std::optional<Mark> batch_start_, batch_end_;
  double copy_s_ = 0, pause_s_ = 0;
  int64_t copy_writes_ = 0, pause_writes_ = 0;
  bool paired_ = false;  // last_ratio_ is the paired one
  // With paired_: the pauses' pace against the baseline, shown but not
  // weighed (docs/online-migration.md#the-adaptive-throttle).
  double pause_ratio_ = 0;
  double factor_ = 0;
  // Evidence for the pace lost per unit of duty, summed over the windows
  // so far (plus a prior): seconds of the foreground's baseline pace lost,
  // and seconds the copy ran.
  double lost_ = 0;
  double duty_time_ = 0;
  bool decided_ = false;
  double last_ratio_ = -1;  // -1 = not judged (the foreground is idle)
  std::string last_reason_;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_THROTTLE_H_
