// The checkpoint guard's wait before it lowers max_wal_size back to the
// original: poll where WAL and the last checkpoint stand once a second
// until lowering it requests no checkpoint, until no wait can help (the
// workload alone outgrows the original: DecideRestore in steps.h), or until
// the bound passes. Time comes from a Clock, so tests run it in no time.
// The reasoning: docs/checkpoints.md.

#ifndef PGLAYOUT_MIGRATOR_GUARD_WAIT_H_
#define PGLAYOUT_MIGRATOR_GUARD_WAIT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// Where WAL and the last checkpoint stand (bytes are LSNs as numbers).
struct WalPoint {
  double lsn = 0;
  double redo = 0;           // the last checkpoint's redo point
  double since_start_s = 0;  // since the last checkpoint started
};

struct GuardWaitLimits {
  uint64_t original = 0;  // bytes of the original max_wal_size
  double completion_target = 0.9;
  double checkpoint_timeout_s = 300;
  double max_wait_s = 0;
};

// How long the workload's WAL rate is measured after the bulk work before
// it is trusted.
inline constexpr double kForegroundRateSeconds = 5;

enum class GuardWaitEnd {
  kRoom,      // restoring now requests no checkpoint
  kFutile,    // the workload alone outgrows the original
  kTimedOut,  // max_wait_s passed first
};

struct GuardWaitResult {
  GuardWaitEnd end = GuardWaitEnd::kRoom;
  double waited_s = 0;
  RestoreCheck last;     // the check that ended the wait
  bool by_rate = false;  // kFutile known from the measured rate alone
};

// |read| fills a WalPoint; |on_wait| (may be empty) sees each second
// spent waiting.
Status WaitForCheckpointRoom(
    Clock* clock, const GuardWaitLimits& limits,
    const std::function<Status(WalPoint*)>& read,
    const std::function<void(double waited_s, const RestoreCheck&)>& on_wait,
    GuardWaitResult* result);

// The line a run prints about the wait's end ("" for room found at once);
// |original| is the setting as PostgreSQL shows it ("64MB").
std::string GuardWaitLine(const GuardWaitLimits& limits,
                          const std::string& original,
                          const GuardWaitResult& result);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_GUARD_WAIT_H_
