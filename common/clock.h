// The seam for time: what long-running work measures and waits with. One
// real implementation (the monotonic clock and a real sleep); tests pass a
// fake that advances when slept on, so waits, retries and pauses run in
// no time and are checked exactly.

#ifndef PGLAYOUT_COMMON_CLOCK_H_
#define PGLAYOUT_COMMON_CLOCK_H_

#include <atomic>

namespace pglayout {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds on a monotonic clock (only differences mean anything).
  virtual double Now() = 0;
  // Returns after |seconds| (at once for seconds <= 0).
  virtual void Sleep(double seconds) = 0;
  // Returns at |deadline| (a Now() value), or within 0.1 s of |cancel|
  // (may be null) becoming true: Ctrl-C ends a long wait at once.
  virtual void SleepUntil(double deadline, const std::atomic<bool>* cancel);
};

// std::chrono::steady_clock and std::this_thread::sleep_for; shared, never
// destroyed.
Clock* SystemClock();

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_CLOCK_H_
