#include "common/clock.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace pglayout {

void Clock::SleepUntil(double deadline, const std::atomic<bool>* cancel) {
  constexpr double kSlice = 0.1;
  for (double now = Now(); now < deadline; now = Now()) {
    if (cancel != nullptr && cancel->load()) return;
    Sleep(std::min(kSlice, deadline - now));
  }
}

namespace {

class SteadyClock : public Clock {
 public:
  double Now() override {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void Sleep(double seconds) override {
    if (seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    }
  }
};

}  // namespace

Clock* SystemClock() {
  static SteadyClock* clock = new SteadyClock();
  return clock;
}

}  // namespace pglayout
