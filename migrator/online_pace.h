// The pace of an online copy's bulk work: the adaptive throttle's pauses
// (throttle.h) between copy batches and replay rounds, and --max-rate's cap
// on the copy. One per run of a step, shared by the copy and the catch-ups
// so that the baseline sampled before the copy serves them all.
// Why: docs/online-migration.md#the-adaptive-throttle.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_PACE_H_
#define PGLAYOUT_MIGRATOR_ONLINE_PACE_H_

#include <cstdint>
#include <string>

#include "migrator/online_context.h"
#include "migrator/throttle.h"

namespace pglayout::migrator {

class OnlinePace {
 public:
  explicit OnlinePace(const OnlineContext& c)
      : c_(c), throttle_(c.ex->options().throttle_limits) {}

  // The foreground's pace over one throttle window, the adaptive
  // throttle's reference; says so in a report line. Nothing with
  // --throttle off.
  Status SampleBaseline();

  // Tells the throttle a batch or round starts now, which ends the pause
  // before it.
  Status MarkBatchStart();

  // Sleeps before the next copy batch: the throttle's pause after
  // |batch_s| seconds of work, and at least what keeps the |bytes| copied
  // since |start| (Now()) under --max-rate.
  Status CopyPause(double start, int64_t bytes, double batch_s);

  // Sleeps between replay rounds: the throttle's pause, never longer than
  // the |round_s| the round took.
  Status ReplayPause(double round_s);

  // Work the throttle did not see (index builds, the verification) ended.
  void OtherWorkDone() { throttle_.OtherWorkDone(); }

  // "off", "adaptive <state>", and the cap if any, for report lines.
  std::string State() const;

 private:
  Status AdaptivePause(double work_s, double* pause);

  const OnlineContext& c_;
  AdaptiveThrottle throttle_;
  // The throttle has its baseline (a copy of one batch goes without).
  bool baseline_sampled_ = false;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_PACE_H_
