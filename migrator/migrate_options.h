// What `pglayout migrate` is given: the mode, the connection and every
// limit of a run (MigrateOptions). Shared by the public entry point
// (migrator.h) and the executor the steps run on (executor.h).

#ifndef PGLAYOUT_MIGRATOR_MIGRATE_OPTIONS_H_
#define PGLAYOUT_MIGRATOR_MIGRATE_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "migrator/throttle.h"
#include "pg/sql.h"

namespace pglayout::migrator {

enum class MigrateMode { kRun, kAbort, kFinalize, kStatus };

// Opens a server session tagged with |application_name|. The default opens
// a libpq connection to MigrateOptions::conninfo; tests pass a fake.
using SessionFactory = std::function<Status(const std::string& application_name,
                                            std::unique_ptr<SqlSession>*)>;

// How an online copy captures the table's changes while it copies
// (docs/online-migration.md#logical-capture): a row trigger writing the
// log, logical decoding of the WAL into the same log, or (auto) logical
// decoding when the server and the table allow it.
enum class CaptureMode { kAuto, kTrigger, kLogical };

// "auto" / "trigger" / "logical"; InvalidInput naming them otherwise
// (online_logical.cc).
Status ParseCaptureMode(const std::string& text, CaptureMode* mode);

// Whether each online copy ends with the full comparison of the table and
// its copy in one snapshot (docs/online-migration.md#verification). Off
// skips that comparison only: the swap's own checks and the placement
// check still run.
enum class VerifyMode { kFull, kOff };

// "full" / "off", as the journal and --verify spell them.
inline const char* VerifyModeName(VerifyMode mode) {
  return mode == VerifyMode::kOff ? "off" : "full";
}

struct MigrateOptions {
  std::string conninfo;  // libpq connection string; "" = PG* environment
  bool apply = false;
  MigrateMode mode = MigrateMode::kRun;
  SessionFactory connect;  // empty = OpenPgSession(conninfo, ...)

  // Rows per copy transaction. Large batches amortise the per-statement
  // cost; each holds a snapshot only for its own second or two.
  int64_t batch_rows = 100000;
  double max_rate_mbps = 0;  // hard cap on the copy, MB/s of 10^6; 0 = none
  // Pauses between batches when the foreground suffers (see throttle.h);
  // --max-rate stays a hard cap on top.
  ThrottleMode throttle = ThrottleMode::kAdaptive;
  ThrottleLimits throttle_limits;
  // How a new online copy reads the table (a resumed one keeps its way):
  // by ranges of heap blocks in disk order (14+; 12 and 13 always go by
  // key), or in key order through the key index, which skips the dead
  // space of a very bloated heap.
  bool copy_by_blocks = true;
  // A new online copy's change capture (a resumed one keeps its own).
  CaptureMode capture = CaptureMode::kAuto;
  // Logical capture stops the run, resumable, once its slot retains more
  // WAL than this (bytes), or half of max_slot_wal_keep_size when that is
  // set and smaller.
  int64_t max_slot_wal_bytes = int64_t{4} << 30;
  // Verification reads each side in chunks of about this many rows, with
  // the throttle's pauses between them, all in one snapshot.
  int64_t verify_range_rows = 1000000;
  // The online copies' final comparison. Unset: a new run's is full, a
  // resumed run keeps the one it was started with (the journal's); given,
  // it applies to the online copies not yet past their catch-up.
  std::optional<VerifyMode> verify;
  // maintenance_work_mem for the shadow's index builds (SET LOCAL, never
  // below the server's setting). More is not faster: one 10 M-row int key
  // on 2 cores, idle, without parallel workers (the adaptive throttle's
  // way) built in 4.7-5.1 s at 64MB (sorted in runs, then merged) against
  // 5.5-5.6 s at 512MB (one in-memory quicksort, cache-bound); with
  // max_parallel_maintenance_workers = 2 (--throttle off) 3.0-3.2 s (one
  // worker: 32MB per participant) against 3.5 s (two), and under pgbench
  // 3.4-3.7 s against 4.0-4.1 s. The sort then spills to temp files for
  // any index over about 32MB; preflight counts them (SortSpill).
  uint64_t index_work_mem = 64ULL << 20;
  int lock_timeout_ms = 200;     // per attempt of every lock-taking statement
  double lock_deadline_s = 120;  // give up retrying a lock after this
  // A transaction that holds a lock production waits for (the swap, an
  // offline move) ends if this client stops talking for this long (SET
  // LOCAL idle_in_transaction_session_timeout): a frozen or cut-off client
  // host would otherwise keep ACCESS EXCLUSIVE until TCP gives up, hours
  // later. The run then fails and resumes when started again.
  double lock_idle_timeout_s = 10;
  double lock_wait_s = 15;         // wait for the run lock (a killed run's
                                   // backend may still hold it for a moment)
  double catchup_timeout_s = 600;  // replay must converge within this
  // Before a swap, wait this long for transactions older than the copy
  // (their snapshots would see an incomplete table after it); then the run
  // stops, resumable, naming them.
  double old_xact_wait_s = 300;
  int64_t switch_threshold = 2000;  // swap once the log is below this
  bool checkpoint_guard = true;
  uint64_t max_wal_size_cap = 0;  // bytes; 0 = no cap
  // Wait at most this long (seconds) for WAL since the last checkpoint to
  // fit the original max_wal_size before restoring it (lowering it earlier
  // would itself request a checkpoint), then restore it whatever. -1 (the
  // default): look for room only while the workload's WAL rate is measured
  // (kForegroundRateSeconds), then journal the restore as deferred and end
  // the run; a later invocation completes it (guard_restore.h). --finalize
  // with -1 waits checkpoint_timeout x (1 + checkpoint_completion_target) +
  // 60 s, time for one whole timed checkpoint. Any wait ends early, with a
  // line saying so, once it shows that the workload alone outgrows the
  // original setting.
  double restore_wait_s = -1;
  // Leave max_wal_size raised at the end of the run instead of restoring
  // it (no wait); the journal keeps the original for --finalize, which
  // restores it, and a later run adopts it.
  bool leave_guard_raised = false;
  // Time for waits, retries and pauses; nullptr = SystemClock(). Tests pass
  // a fake.
  Clock* clock = nullptr;
  double offline_rate_mbps = 200;  // for offline lock-time estimates
  double space_margin = 1.2;
  // Each new tablespace's directory exists on every streaming standby's
  // host (they replay CREATE TABLESPACE with the same path).
  bool standby_dirs_ready = false;
  std::string tool_version = "0";

  // Called at named points ("copy-batch:3:before-commit", "after-step:KEY",
  // "swap:before-commit", ...). Tests kill the process there (kill -9
  // resume tests); empty = nothing.
  std::function<void(const std::string&)> failpoint;
  // Called with each step message (MigrateResult::lines) as it happens, so
  // a killed run's log holds every step that completed; empty = none.
  std::function<void(const std::string&)> on_line;
};

// options.clock, or the system's.
inline Clock* ClockOf(const MigrateOptions& options) {
  return options.clock ? options.clock : SystemClock();
}

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_MIGRATE_OPTIONS_H_
