// The end of the checkpoint guard: lowering max_wal_size (and, on --abort,
// the plan's settings) back to the journaled original without requesting a
// checkpoint: at once when there is room, else journaled "deferred" for a
// later invocation to complete. Every restore holds the cluster-wide
// settings lock and leaves alone a value someone changed since.
// Why: docs/checkpoints.md#the-end-of-the-run-a-deferred-restore.

#ifndef PGLAYOUT_MIGRATOR_GUARD_RESTORE_H_
#define PGLAYOUT_MIGRATOR_GUARD_RESTORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/journal.h"
#include "migrator/migrate_result.h"

namespace pglayout::migrator {

// What postgresql.auto.conf holds for a setting now (|now|; nullopt = no
// entry) against what the run wrote (rec.new_value) and what was there
// before it (rec.original_auto_conf). Sizes with units compare by bytes
// ("2GB" is "2048MB"); anything else as text, so a spelling pglayout cannot
// match counts as someone else's change.
enum class AutoConfNow {
  kOurs,      // what the run wrote: restore it
  kOriginal,  // already back at the original: nothing to write
  kChanged,   // someone else's value: leave it
};
AutoConfNow CompareAutoConf(const SettingRecord& rec,
                            const std::optional<std::string>& now);

// What Describe knows about a raise of an unfinished run, for RaisedLine.
struct RaisedContext {
  AutoConfNow now = AutoConfNow::kOurs;
  std::optional<std::string> auto_conf;  // postgresql.auto.conf's value now
  std::string taken_over_by;  // another database's run raised it since
  bool going_on = false;      // the run lock is held: the run is live
  std::string stopped_at;     // its steps not done, with their phases
};
// "max_wal_size raised to 2730MB by run 3, which stopped at
// move:public.c (copy): `pglayout migrate --apply` ... resumes it and
// restores max_wal_size to 1GB at its end, `pglayout migrate --abort`
// restores it now", or what changed it since.
std::string RaisedLine(const SettingRecord& rec, int64_t run_id,
                       const RaisedContext& context);

// How long the guard looks for room before lowering max_wal_size, and what
// it does when none came.
struct RestorePolicy {
  double max_wait_s = 0;
  bool defer = false;  // without room: journal "deferred" (else restore)
};
// |restore_wait_s| is --restore-wait (-1 = not given): given, it waits that
// long and restores whatever (expect one requested checkpoint without
// room). Not given, a run (or --abort) measures the workload for
// kForegroundRateSeconds and defers; --finalize (|finalize|) waits for one
// whole timed checkpoint, checkpoint_timeout x (1 + target) + 60 s, and
// restores.
RestorePolicy PolicyFor(double restore_wait_s, bool finalize,
                        double checkpoint_timeout_s, double completion_target);

// When Restore looks for room (max_wal_size only; other settings never
// wait).
enum class RestoreWhen {
  kAtOnce,    // no look
  kRunEnd,    // PolicyFor(--restore-wait, false, ...)
  kFinalize,  // PolicyFor(--restore-wait, true, ...)
  kLookOnce,  // a later invocation: one look, deferred again without room
};

class GuardRestorer {
 public:
  explicit GuardRestorer(Executor* ex) : ex_(ex) {}

  // The cluster-wide settings lock (ALTER SYSTEM is cluster-wide, the run
  // lock per database), held until the session ends. Acquire waits up to
  // lock_wait_s, then returns Aborted naming the holder; TryOnce makes one
  // attempt (*got false when another run holds it).
  Status AcquireSettingsLock();
  Status TrySettingsLock(bool* got);

  // Restores |rec| of run |run_id| to its original; the caller holds the
  // settings lock. *deferred (may be null) is set when the restore was
  // journaled as deferred instead.
  Status Restore(const SettingRecord& rec, int64_t run_id, RestoreWhen when,
                 bool* deferred = nullptr);

  // The restores that earlier runs deferred (and, with |finalize|, the
  // settings they left raised): each completed where room has come, with
  // --finalize's wait for those. Takes the settings lock if not held (and
  // lets go of it at the end); with another run holding it, says so and
  // leaves them (--finalize waits for the lock as long as any run does).
  Status CompleteDeferred(bool finalize);

  // Settings still away from their original: raised by an unfinished
  // (killed, failed, running) run, deferred or left by a finished one, or
  // raised from another database (the cluster-wide record), with a line
  // each for people naming the way back and a DBA's own change since
  // (and one saying there are none when |say_none|).
  Status Describe(std::vector<SettingStatus>* out, bool say_none = true);

 private:
  Status SettingsLockElsewhere(std::string* holder);
  Status AutoConfValue(const std::string& name, std::optional<std::string>* v);
  Status ReleaseClusterRecord(const SettingRecord& rec, int64_t run_id);
  Status TakenOverBy(const SettingRecord& rec, int64_t run_id,
                     std::string* other);
  Status LookForRoom(const SettingRecord& rec, int64_t run_id, RestoreWhen when,
                     bool* restore_now);

  Executor* ex_;
  bool locked_ = false;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_GUARD_RESTORE_H_
