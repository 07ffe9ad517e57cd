// The one fake Clock of the unit tests: time passes only when slept on, so
// waits, retries and pauses run in no time and are checked exactly.

#ifndef PGLAYOUT_TESTING_FAKE_CLOCK_H_
#define PGLAYOUT_TESTING_FAKE_CLOCK_H_

#include <algorithm>
#include <atomic>
#include <vector>

#include "common/clock.h"

namespace pglayout {

class FakeClock : public Clock {
 public:
  explicit FakeClock(double start = 100) : now(start) {}

  double Now() override { return now; }
  // A negative |seconds| passes no time, as on the real clock.
  void Sleep(double seconds) override { now += std::max(seconds, 0.0); }
  // Jumps to |deadline| (never back) and records it; |cancel| is not
  // looked at, a test that cancels does so between calls.
  void SleepUntil(double deadline, const std::atomic<bool>*) override {
    sleeps.push_back(deadline);
    now = std::max(now, deadline);
  }

  double now;
  std::vector<double> sleeps;  // each SleepUntil's deadline
};

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_FAKE_CLOCK_H_
