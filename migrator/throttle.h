// The adaptive copy throttle (`pglayout migrate --throttle adaptive`):
// between copy batches it looks at what the copy does to the rest of the
// server and pauses longer when that worsens, shorter when it recovers.
//
// Signals, all sampled by the caller (online.cc) from the server:
//   - the foreground's commit rate (pg_stat_database.xact_commit of the
//     database) against a baseline from the start of the run (or of the
//     step) until the copy, at least one window long;
//   - requested checkpoints (pg_stat_checkpointer on 17+, pg_stat_bgwriter
//     before): any new one means the copy's WAL outruns the checkpoint
//     guard;
//   - replica lag (pg_stat_replication: replay_lag and bytes behind).
//
// The decision is pure (no clock, no server): samples carry their own time,
// so tests feed made-up samples. The pause after a batch is
// pause_factor x the batch's duration, so the copy runs a duty cycle of
// 1 / (1 + pause_factor). The factor doubles under pressure (at least to
// 0.25), halves once every signal is healthy again (0 below 0.05), and holds
// in between (hysteresis). It starts at 0: starting slower on a busy server
// was tried and doubled the copy's time, which grows the log that replay
// must catch up with, for no better commit rate overall. Decisions
// are taken at most once per window, because the cumulative statistics are
// flushed by busy backends about once a second: a shorter window would mostly
// measure flush jitter.

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
  int64_t requested_checkpoints = 0;
  double replica_lag_s = 0;
  double replica_lag_bytes = 0;
};

struct ThrottleLimits {
  double window_s = 5;  // minimum time between decisions
  // The foreground's commit rate as a fraction of the baseline: below
  // |pressure_ratio| is pressure, at or above |recovered_ratio| healthy.
  double pressure_ratio = 0.85;
  double recovered_ratio = 0.92;
  // Below this baseline (commits/s) the database is too idle for its commit
  // rate to mean anything (our own statements commit too); it is ignored.
  double min_baseline_tps = 20;
  double max_lag_s = 10;
  double max_lag_bytes = 256.0 * 1024 * 1024;
  double max_pause_factor = 4;  // the copy never drops below 1/5 speed
};

class AdaptiveThrottle {
 public:
  explicit AdaptiveThrottle(ThrottleLimits limits = {}) : limits_(limits) {}

  // The foreground before the copy: two samples some seconds apart (the
  // second also starts the first decision window).
  void SetBaseline(const ThrottleSample& first, const ThrottleSample& second);

  // Called after each batch with a fresh sample and the batch's duration
  // (seconds); returns the pause before the next batch, in seconds.
  double Next(const ThrottleSample& now, double batch_s);

  double pause_factor() const { return factor_; }
  double baseline_tps() const { return baseline_tps_; }
  // For the progress line: "pause 0.50x (commits 0.78 of baseline)".
  std::string State() const;

 private:
  // Why the server is under pressure now, "" if it is not; sets *healthy
  // when every signal is at or above its recovery level.
  std::string Pressure(const ThrottleSample& now, double ratio,
                       bool* healthy) const;

  ThrottleLimits limits_;
  double baseline_tps_ = 0;
  std::optional<ThrottleSample> window_start_;
  double factor_ = 0;
  bool decided_ = false;
  double last_ratio_ = -1;  // -1 = not judged (the foreground is idle)
  std::string last_reason_;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_THROTTLE_H_
