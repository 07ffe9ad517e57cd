// The step planner: a plan plus the facts -> the ordered list of steps a
// run executes, each with the exact SQL it runs (what the dry run prints).
//
// Order: tablespaces (and their options), the checkpoint guard, offline
// moves, online index moves, online table moves and hash-partition
// conversions (one table at a time), the guard's restore, the plan's
// [settings], and a final check of the system catalogs. Every step is
// idempotent and has a stable key ("tablespace:fast1", "move:public.orders"),
// which is how the journal recognises it when a killed run resumes.
//
// Pure: unit-tested with hand-made facts.

#ifndef PGLAYOUT_MIGRATOR_STEPS_H_
#define PGLAYOUT_MIGRATOR_STEPS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"
#include "migrator/online_sql.h"

namespace pglayout::migrator {

enum class StepKind {
  kCreateTablespace,
  kTablespaceOptions,
  kGuardRaise,
  kMoveOffline,
  kMoveIndexOnline,
  kOnlineCopy,  // online move or hash-partition conversion
  kGuardRestore,
  kPlanSettings,
  kVerify,
};

const char* StepKindName(StepKind kind);

// The key of a placement's step: "partition:<relation>" for a hash-partition
// conversion, else "move:<relation>".
std::string PlacementStepKey(const Placement& p);

struct Step {
  std::string key;
  StepKind kind = StepKind::kVerify;
  std::string title;  // one line for people, names escaped (DisplayName)
  std::vector<std::string> sql;  // the statements, in order
  std::string note;              // lock estimate, what is skipped and why
  bool outside_transaction = false;

  // References into the plan (valid while the plan lives).
  const TablespaceSpec* tablespace = nullptr;
  const Placement* placement = nullptr;
  // Offline moves: (relkind, quoted-qualified name) in execution order.
  std::vector<std::pair<char, std::string>> objects;
  uint64_t bytes = 0;  // data the step copies
  // Guard: the value to set; settings: (name, value) pairs.
  std::string guard_value;
  // Online copies: where the table goes.
  OnlineTarget target;
};

struct StepOptions {
  double offline_rate_mbps = 200;  // assumed copy rate for lock estimates
  int64_t batch_rows = 20000;
  bool copy_by_blocks = true;  // MigrateOptions::copy_by_blocks
  // The online copies' final comparison runs (the run's --verify is full).
  bool verify = true;
  bool checkpoint_guard = true;
  uint64_t max_wal_size_cap = 0;  // 0 = no cap beyond free WAL space
  uint64_t wal_free_bytes = 0;    // 0 = unknown
  // The guard's original max_wal_size in bytes as the journal (or the
  // cluster-wide record, guard_cluster.h) has it; 0 = none, the server's
  // current value is the original. A resumed run must not take its own
  // raised value for it.
  uint64_t guard_original = 0;
  // This run raised max_wal_size and has not restored it: the restore step
  // stays even when nothing is left to raise.
  bool guard_restore_pending = false;
};

// The guard's decision: raise max_wal_size to |target| bytes so that the
// bulk writes of |bulk_bytes| do not trigger a requested checkpoint.
// Requested checkpoints start when WAL since the last one reaches about
// max_wal_size / (1 + checkpoint_completion_target). The ordinary workload
// fits in the current value, so the target adds the WAL of the copies
// (up to 3x their bytes: heap, indexes, log, full-page images) times that
// factor; bounded by half the free WAL space and by the user's cap; never
// lowered, and not raised for copies too small to matter (< 5%).
// WAL written per byte copied: heap and index inserts, the capture log, and
// the full-page images of hint bits set when the copy is first read (data
// checksums are on by default from 18). Used by the guard and the preflight.
inline constexpr double kWalPerByte = 3.0;

struct GuardDecision {
  bool raise = false;
  uint64_t current = 0;
  uint64_t target = 0;
  std::string reason;
};
GuardDecision DecideMaxWalSize(uint64_t current, uint64_t bulk_bytes,
                               double completion_target,
                               uint64_t wal_free_bytes, uint64_t cap);

// When the guard may lower max_wal_size back to |original| bytes without
// that itself requesting a checkpoint. PostgreSQL requests one when the WAL
// since the redo point of the last checkpoint reaches original / (1 +
// completion_target); that distance only shrinks when a checkpoint
// completes, and grows at the foreground's WAL rate until the next timed
// checkpoint starts. So: restore when the distance projected to the next
// timed start stays under 90% of that threshold.
struct RestoreCheck {
  double wal_since_redo = 0;         // bytes, now
  double wal_rate = 0;               // bytes/s of the foreground, measured
  double seconds_to_next_start = 0;  // until the next timed checkpoint
  // A checkpoint that started after the wait began has completed: the
  // distance is the foreground's alone, and waiting longer cannot help.
  bool checkpoint_since_wait = false;
  // wal_rate was measured after the bulk work (the foreground alone), not
  // assumed; with cycle_seconds (checkpoint_timeout) it says up front
  // whether the foreground alone outgrows the original in one cycle.
  bool rate_measured = false;
  double cycle_seconds = 0;
};
enum class RestoreVerdict {
  kRestore,  // safe now
  kWait,     // wait for the next checkpoint to complete
  kCannot,   // the foreground alone outgrows the original: restoring will
             // request checkpoints whenever it happens
};
// kCannot as soon as a measured rate says so (ForegroundCycleWal), or once
// a checkpoint since the wait began did not make room.
RestoreVerdict DecideRestore(uint64_t original, double completion_target,
                             const RestoreCheck& check);
// The WAL past the last checkpoint's redo point when the next timed
// checkpoint starts, in bytes (what DecideRestore compares).
double ProjectedWal(const RestoreCheck& check);
// The foreground's WAL in one timed checkpoint cycle, bytes (0 unless the
// rate was measured).
double ForegroundCycleWal(const RestoreCheck& check);
// That cycle's WAL alone reaches where the guard would restore: no
// checkpoint can make room.
bool ForegroundOutgrows(uint64_t original, double completion_target,
                        const RestoreCheck& check);
// Where PostgreSQL requests a checkpoint at max_wal_size |original|, bytes.
double RequestThreshold(uint64_t original, double completion_target);

// Bytes of a setting value as pg_settings reports it (setting + unit):
// ("1024", "MB") -> 1 GiB. 0 if it does not parse.
uint64_t SettingBytes(const std::string& setting, const std::string& unit);
// Bytes of the server's setting |name| (ServerFacts::settings), or
// |fallback| when it was not read or does not parse.
uint64_t SettingOr(const ServerFacts& server, const std::string& name,
                   uint64_t fallback);

// A move by ALTER ... SET TABLESPACE (the plan allows blocking, or a
// materialized view, which has no online path); everything else that
// moves is copied online or (an index) rebuilt concurrently.
bool MovesOffline(const Placement& placement, const TableFacts& table);

// What an offline move of |table| (ALTER ... SET TABLESPACE of the table and
// each of its indexes) costs in locks, at |mbps| MB/s: "each statement holds
// ACCESS EXCLUSIVE on the table while it copies: 12 MiB in all, the longest
// about 0.1 s at 200 MB/s".
std::string OfflineLockForecast(const TableFacts& table, double mbps);

std::vector<Step> BuildSteps(const Plan& plan, const ServerFacts& server,
                             const std::map<std::string, TableFacts>& tables,
                             const StepOptions& options);

// The dry-run listing: numbered steps, notes and SQL.
std::string FormatSteps(const std::vector<Step>& steps);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_STEPS_H_
