#include "migrator/guard_wait.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"

namespace pglayout::migrator {
namespace {

RestoreCheck CheckAt(const GuardWaitLimits& limits, const WalPoint& first,
                     const WalPoint& now, double waited) {
  RestoreCheck check;
  check.wal_since_redo = now.lsn - now.redo;
  // Until a few seconds are measured, assume the rate since the last
  // checkpoint started (it includes the copy: pessimistic, and trusted
  // for nothing but the projection).
  check.rate_measured = waited >= kForegroundRateSeconds;
  check.wal_rate = check.rate_measured ? (now.lsn - first.lsn) / waited
                                       : check.wal_since_redo /
                                             std::max(now.since_start_s, 1.0);
  check.cycle_seconds = limits.checkpoint_timeout_s;
  check.seconds_to_next_start = limits.checkpoint_timeout_s - now.since_start_s;
  check.checkpoint_since_wait = now.redo >= first.lsn;
  return check;
}

}  // namespace

Status WaitForCheckpointRoom(
    Clock* clock, const GuardWaitLimits& limits,
    const std::function<Status(WalPoint*)>& read,
    const std::function<void(double waited_s, const RestoreCheck&)>& on_wait,
    GuardWaitResult* result) {
  *result = GuardWaitResult();
  WalPoint first, now;
  PGLAYOUT_RETURN_IF_ERROR(read(&first));
  const double start = clock->Now();
  while (true) {
    PGLAYOUT_RETURN_IF_ERROR(read(&now));
    result->waited_s = clock->Now() - start;
    result->last = CheckAt(limits, first, now, result->waited_s);
    RestoreVerdict verdict =
        DecideRestore(limits.original, limits.completion_target, result->last);
    if (verdict == RestoreVerdict::kRestore) {
      result->end = GuardWaitEnd::kRoom;
      return Status::Ok();
    }
    if (verdict == RestoreVerdict::kCannot) {
      result->end = GuardWaitEnd::kFutile;
      // The measured rate says more than one checkpoint's outcome.
      result->by_rate = ForegroundOutgrows(
          limits.original, limits.completion_target, result->last);
      return Status::Ok();
    }
    if (result->waited_s >= limits.max_wait_s) {
      result->end = GuardWaitEnd::kTimedOut;
      return Status::Ok();
    }
    if (on_wait) on_wait(result->waited_s, result->last);
    clock->Sleep(1);
  }
}

std::string GuardWaitLine(const GuardWaitLimits& limits,
                          const std::string& original,
                          const GuardWaitResult& result) {
  const RestoreCheck& check = result.last;
  switch (result.end) {
    case GuardWaitEnd::kRoom:
      if (result.waited_s < 1) return "";
      return fmt::format(
          "checkpoint guard: waited {:.0f} s until the WAL since the last "
          "checkpoint fit the original max_wal_size, so that restoring it "
          "requests no checkpoint",
          result.waited_s);
    case GuardWaitEnd::kFutile:
      return fmt::format(
          "checkpoint guard: {}: the workload alone writes about {} of WAL "
          "per checkpoint cycle ({:.0f} s), above the {} at which "
          "max_wal_size {} requests a checkpoint (with a 10% margin), so it "
          "requests checkpoints at that setting with or without pglayout. "
          "Restoring it now; set a larger max_wal_size in the plan's "
          "[settings] to avoid them",
          result.by_rate
              ? fmt::format("no wait can help, by the WAL rate measured over "
                            "{:.0f} s since the bulk work ended",
                            result.waited_s)
              : "a timed checkpoint since the bulk work ended did not make "
                "room",
          HumanSize(result.by_rate ? ForegroundCycleWal(check)
                                   : ProjectedWal(check)),
          limits.checkpoint_timeout_s,
          HumanSize(
              RequestThreshold(limits.original, limits.completion_target)),
          original);
    case GuardWaitEnd::kTimedOut:
      break;
  }
  return fmt::format(
      "checkpoint guard: no timed checkpoint made room within {:.0f} s ({} of "
      "WAL past the last one); restoring max_wal_size anyway: expect one "
      "requested checkpoint",
      limits.max_wait_s, HumanSize(check.wal_since_redo));
}

}  // namespace pglayout::migrator
