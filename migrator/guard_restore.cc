#include "migrator/guard_restore.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "common/ddl.h"
#include "common/units.h"
#include "migrator/guard_cluster.h"
#include "migrator/guard_wait.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// "2048MB", "2GB", "64kB": a size with a unit, in bytes (0 if not one).
uint64_t SizeWithUnit(const std::string& text) {
  uint64_t bytes = 0;
  if (text.size() < 2 || text.back() != 'B') return 0;
  return ParseSize(text, &bytes).ok() ? bytes : 0;
}

bool SameValue(const std::optional<std::string>& a,
               const std::optional<std::string>& b) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;
  uint64_t x = SizeWithUnit(*a), y = SizeWithUnit(*b);
  return x != 0 && x == y;
}

std::string Described(const std::optional<std::string>& value) {
  return value ? "'" + *value + "'" : std::string("no entry");
}

const char* const kNextInvocations =
    "the next `pglayout migrate --apply`, `--status` or `--finalize`";

}  // namespace

AutoConfNow CompareAutoConf(const SettingRecord& rec,
                            const std::optional<std::string>& now) {
  if (SameValue(now, rec.new_value)) return AutoConfNow::kOurs;
  if (SameValue(now, rec.original_auto_conf)) return AutoConfNow::kOriginal;
  return AutoConfNow::kChanged;
}

RestorePolicy PolicyFor(double restore_wait_s, bool finalize,
                        double checkpoint_timeout_s, double completion_target) {
  if (restore_wait_s >= 0) return {restore_wait_s, false};
  if (finalize)
    return {checkpoint_timeout_s * (1 + completion_target) + 60, false};
  return {kForegroundRateSeconds, true};
}

// ------------------------------------------------------------- the lock --

// Two runs in two databases would each journal the other's raised
// max_wal_size as "the original" and leave it raised. A run that changes
// settings therefore takes the settings lock in its database, then checks
// pg_locks for the same key held from any other database; if so it lets go
// and retries with backoff. Take-then-check means two racing runs may both
// back off, but never both proceed.
Status GuardRestorer::TrySettingsLock(bool* got) {
  *got = locked_;
  if (locked_) return Status::Ok();
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      ex_->session(), "SELECT pg_catalog.pg_try_advisory_lock($1, $2)",
      {std::to_string(kRunLockClass), std::to_string(kSettingsLockObject)},
      &v));
  if (!v || *v != "t") return Status::Ok();
  std::string holder;
  PGLAYOUT_RETURN_IF_ERROR(SettingsLockElsewhere(&holder));
  if (!holder.empty()) {
    return ex_->Exec(fmt::format("SELECT pg_catalog.pg_advisory_unlock({}, {})",
                                 kRunLockClass, kSettingsLockObject));
  }
  locked_ = *got = true;
  return Status::Ok();
}

Status GuardRestorer::AcquireSettingsLock() {
  Clock* clock = ex_->clock();
  const double start = clock->Now();
  std::mt19937 jitter(static_cast<unsigned>(start * 1e6));
  while (true) {
    bool got = false;
    PGLAYOUT_RETURN_IF_ERROR(TrySettingsLock(&got));
    if (got) return Status::Ok();
    if (clock->Now() - start > ex_->options().lock_wait_s) {
      std::string holder;
      PGLAYOUT_RETURN_IF_ERROR(SettingsLockElsewhere(&holder));
      return Status::Aborted(
          "another pglayout migrate is changing server settings (ALTER "
          "SYSTEM) from " +
          (holder.empty() ? "a killed run's backend in this database"
                          : holder) +
          "; runs that change settings go one at a time per cluster. "
          "Nothing was changed; run again when it has finished");
    }
    clock->Sleep(std::uniform_real_distribution<double>(0.1, 0.5)(jitter));
  }
}

// "pid 123 in database other" for a settings lock held from another
// database, "" if none.
Status GuardRestorer::SettingsLockElsewhere(std::string* holder) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      ex_->session(),
      "SELECT pg_catalog.string_agg(pg_catalog.format('pid %s in database "
      "%s', l.pid, d.datname), ', ') FROM pg_catalog.pg_locks l JOIN "
      "pg_catalog.pg_database d ON d.oid = l.database WHERE l.locktype = "
      "'advisory' AND l.classid = $1::pg_catalog.oid AND l.objid = "
      "$2::pg_catalog.oid AND "
      "l.objsubid = 2 AND l.granted AND d.datname <> "
      "pg_catalog.current_database()",
      {std::to_string(kRunLockClass), std::to_string(kSettingsLockObject)},
      &v));
  *holder = v.value_or("");
  return Status::Ok();
}

// ---------------------------------------------------------- the restore --

Status GuardRestorer::AutoConfValue(const std::string& name,
                                    std::optional<std::string>* value) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
      "SELECT setting FROM pg_catalog.pg_file_settings WHERE name = $1 AND "
      "sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1",
      {name}, &r));
  *value = r.rows.empty() ? std::nullopt : r.rows[0][0];
  return Status::Ok();
}

namespace {

Status ReadWalPoint(SqlSession* session, WalPoint* p) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pg_catalog.pg_current_wal_lsn() - '0/0'::pg_catalog.pg_lsn, "
      "redo_lsn - "
      "'0/0'::pg_catalog.pg_lsn, extract(epoch FROM pg_catalog.now() - "
      "checkpoint_time) FROM pg_catalog.pg_control_checkpoint()",
      {}, &r));
  SqlRowReader row(r, 0, "pg_control_checkpoint");
  p->lsn = row.Double(0);
  p->redo = row.Double(1);
  p->since_start_s = row.Double(2);
  return row.status();
}

Status CheckpointTiming(SqlSession* session, GuardWaitLimits* limits) {
  SqlResult cct, timeout;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pg_catalog.current_setting('checkpoint_completion_target')", {},
      &cct));
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT setting FROM pg_catalog.pg_settings WHERE name = "
      "'checkpoint_timeout'",
      {}, &timeout));
  SqlRowReader target(cct, 0, "checkpoint_completion_target");
  SqlRowReader seconds(timeout, 0, "checkpoint_timeout");
  limits->completion_target = target.Double(0);
  limits->checkpoint_timeout_s = seconds.Double(0);
  PGLAYOUT_RETURN_IF_ERROR(target.status());
  return seconds.status();
}

// Why the restore waits, and who completes it.
std::string DeferLine(const GuardWaitLimits& limits, const SettingRecord& rec,
                      int64_t run_id, RestoreWhen when,
                      const GuardWaitResult& r) {
  const RestoreCheck& c = r.last;
  std::string why = fmt::format(
      "{} of WAL since the last checkpoint{}, while PostgreSQL requests one "
      "at {} with max_wal_size {} (the guard restores below 90% of that)",
      HumanSize(c.wal_since_redo),
      c.seconds_to_next_start <= 0 ? std::string()
      : c.rate_measured
          ? fmt::format(" and about {} by the next timed one (due in about "
                        "{:.0f} s)",
                        HumanSize(ProjectedWal(c)), c.seconds_to_next_start)
          : fmt::format(" and more by the next timed one (due in about "
                        "{:.0f} s)",
                        c.seconds_to_next_start),
      HumanSize(RequestThreshold(limits.original, limits.completion_target)),
      rec.original_setting);
  if (when == RestoreWhen::kLookOnce) {
    return fmt::format(
        "checkpoint guard: max_wal_size stays at {} (run {} deferred "
        "restoring it to {}): {}; {} after a timed checkpoint has made room "
        "restores it",
        rec.new_value, run_id, rec.original_setting, why, kNextInvocations);
  }
  return fmt::format(
      "checkpoint guard: max_wal_size stays at {} for now: lowering it to {} "
      "now would request a checkpoint ({}), and none made room in the {:.0f} "
      "s spent measuring the workload. The restore is journaled as "
      "deferred: {} after a timed checkpoint has made room restores it, and "
      "`pglayout migrate --finalize` waits for that checkpoint",
      rec.new_value, rec.original_setting, why, r.waited_s, kNextInvocations);
}

}  // namespace

Status GuardRestorer::LookForRoom(const SettingRecord& rec, int64_t run_id,
                                  RestoreWhen when, bool* restore_now) {
  *restore_now = true;
  GuardWaitLimits limits;
  if (!ParseSize(rec.original_setting, &limits.original).ok() ||
      limits.original == 0) {
    return Status::Ok();
  }
  SqlSession* session = ex_->session();
  PGLAYOUT_RETURN_IF_ERROR(CheckpointTiming(session, &limits));
  RestorePolicy policy =
      when == RestoreWhen::kLookOnce
          ? RestorePolicy{0, true}
          : PolicyFor(ex_->options().restore_wait_s,
                      when == RestoreWhen::kFinalize,
                      limits.checkpoint_timeout_s, limits.completion_target);
  limits.max_wait_s = policy.max_wait_s;
  bool announced = false;
  auto on_wait = [&](double waited, const RestoreCheck& check) {
    // Only a wait longer than the measurement is worth a line of its own.
    if (!announced && check.rate_measured && !policy.defer) {
      announced = true;
      ex_->Line(fmt::format(
          "checkpoint guard: waiting up to {:.0f} s for the next timed "
          "checkpoint (due in about {:.0f} s) to make room, so that "
          "lowering max_wal_size back to {} requests none",
          limits.max_wait_s, std::max(0.0, check.seconds_to_next_start),
          rec.original_setting));
    }
    ProgressUpdate u;
    u.task = "checkpoint guard";
    u.step = policy.defer ? "measuring the workload's WAL rate before lowering "
                            "max_wal_size"
                          : "waiting for a timed checkpoint before lowering "
                            "max_wal_size";
    u.elapsed_s = waited;
    u.detail =
        HumanSize(check.wal_since_redo) + " of WAL since the last checkpoint";
    ex_->progress()->Update(u);
  };
  GuardWaitResult r;
  PGLAYOUT_RETURN_IF_ERROR(WaitForCheckpointRoom(
      ex_->clock(), limits,
      [session](WalPoint* p) { return ReadWalPoint(session, p); }, on_wait,
      &r));
  if (r.end == GuardWaitEnd::kTimedOut && policy.defer) {
    *restore_now = false;
    ex_->Line(DeferLine(limits, rec, run_id, when, r));
    return Status::Ok();
  }
  std::string line = GuardWaitLine(limits, rec.original_setting, r);
  if (!line.empty()) ex_->Line(line);
  return Status::Ok();
}

// The cluster-wide record of max_wal_size (guard_cluster.h) once run
// |run_id| is done with it: cleared when that run raised it last (or no
// run is named), kept for the run named there otherwise.
Status GuardRestorer::ReleaseClusterRecord(const SettingRecord& rec,
                                           int64_t run_id) {
  if (rec.kind != "guard" || rec.name != "max_wal_size") return Status::Ok();
  ClusterOriginal cluster;
  PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(ex_->session(), &cluster));
  if (!cluster.present) return Status::Ok();
  std::string database;
  PGLAYOUT_RETURN_IF_ERROR(CurrentDatabase(ex_->session(), &database));
  if (!cluster.raised_by.empty() &&
      cluster.raised_by != RaiserName(run_id, database)) {
    return Status::Ok();
  }
  PGLAYOUT_RETURN_IF_ERROR(ClearClusterOriginal(ex_));
  return ex_->Exec(ReloadConfSql());
}

// Another run (in another database: the cluster-wide record names it)
// raised max_wal_size since run |run_id| did and restores it itself; ""
// when not.
Status GuardRestorer::TakenOverBy(const SettingRecord& rec, int64_t run_id,
                                  std::string* other) {
  other->clear();
  if (rec.kind != "guard" || rec.name != "max_wal_size") return Status::Ok();
  ClusterOriginal cluster;
  PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(ex_->session(), &cluster));
  std::string database;
  PGLAYOUT_RETURN_IF_ERROR(CurrentDatabase(ex_->session(), &database));
  if (cluster.present && !cluster.raised_by.empty() &&
      cluster.raised_by != RaiserName(run_id, database)) {
    *other = cluster.raised_by;
  }
  return Status::Ok();
}

Status GuardRestorer::Restore(const SettingRecord& rec, int64_t run_id,
                              RestoreWhen when, bool* deferred) {
  if (deferred) *deferred = false;
  Journal* journal = ex_->journal();
  std::optional<std::string> now;
  PGLAYOUT_RETURN_IF_ERROR(AutoConfValue(rec.name, &now));
  switch (CompareAutoConf(rec, now)) {
    case AutoConfNow::kOurs:
      break;
    case AutoConfNow::kOriginal:
      ex_->Line(fmt::format("{} (changed by run {}) is already back at {}",
                            rec.name, run_id, rec.original_setting));
      PGLAYOUT_RETURN_IF_ERROR(ReleaseClusterRecord(rec, run_id));
      return journal->SetSettingState(run_id, rec.kind, rec.name, "restored");
    case AutoConfNow::kChanged: {
      std::string other;
      PGLAYOUT_RETURN_IF_ERROR(TakenOverBy(rec, run_id, &other));
      if (!other.empty()) {
        ex_->Line(fmt::format(
            "{} was raised again since run {} set it to {}, by {} (now {}), "
            "which restores it to the cluster's original: left to that run",
            rec.name, run_id, rec.new_value, other, Described(now)));
        return journal->SetSettingState(run_id, rec.kind, rec.name,
                                        "superseded");
      }
      ex_->Line(fmt::format(
          "{} was changed since run {} set it to {} (postgresql.auto.conf "
          "now has {}): left as it is, not restored to {}",
          rec.name, run_id, rec.new_value, Described(now),
          rec.original_setting));
      PGLAYOUT_RETURN_IF_ERROR(ReleaseClusterRecord(rec, run_id));
      return journal->SetSettingState(run_id, rec.kind, rec.name, "changed");
    }
  }
  if (when != RestoreWhen::kAtOnce && rec.name == "max_wal_size") {
    bool restore_now = true;
    PGLAYOUT_RETURN_IF_ERROR(LookForRoom(rec, run_id, when, &restore_now));
    if (!restore_now) {
      if (deferred) *deferred = true;
      if (rec.state == "deferred") return Status::Ok();
      return journal->SetSettingState(run_id, rec.kind, rec.name, "deferred");
    }
  }
  std::string sql = rec.original_auto_conf
                        ? AlterSystemSetSql(rec.name, *rec.original_auto_conf)
                        : AlterSystemResetSql(rec.name);
  PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(sql));
  PGLAYOUT_RETURN_IF_ERROR(ReleaseClusterRecord(rec, run_id));
  PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(ReloadConfSql()));
  PGLAYOUT_RETURN_IF_ERROR(
      journal->SetSettingState(run_id, rec.kind, rec.name, "restored"));
  ex_->Line(fmt::format("restored {} to {} ({}){}", rec.name,
                        rec.original_setting,
                        rec.original_auto_conf ? "postgresql.auto.conf value"
                                               : "ALTER SYSTEM RESET",
                        rec.state == "deferred" || rec.state == "left"
                            ? fmt::format(", as run {} left to do", run_id)
                            : ""));
  return Status::Ok();
}

Status GuardRestorer::CompleteDeferred(bool finalize) {
  std::vector<std::string> states = {"deferred"};
  if (finalize) states.push_back("left");
  std::vector<std::pair<int64_t, SettingRecord>> pending;
  PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->ListSettingsIn(states, &pending));
  if (pending.empty()) return Status::Ok();
  // A lock taken only for this is let go at the end: a run that changes no
  // setting must not hold back, for its whole length, runs that do.
  const bool held = locked_;
  if (finalize) {
    PGLAYOUT_RETURN_IF_ERROR(AcquireSettingsLock());
  } else {
    bool got = false;
    PGLAYOUT_RETURN_IF_ERROR(TrySettingsLock(&got));
    if (!got) {
      ex_->Line(
          "checkpoint guard: another pglayout invocation holds the settings "
          "lock (it changes server settings now); the deferred restore of "
          "max_wal_size is left to it or a later invocation");
      return Status::Ok();
    }
  }
  // Read again under the lock: another invocation may have completed them.
  PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->ListSettingsIn(states, &pending));
  for (const auto& [run, rec] : pending) {
    PGLAYOUT_RETURN_IF_ERROR(Restore(
        rec, run, finalize ? RestoreWhen::kFinalize : RestoreWhen::kLookOnce));
  }
  if (held) return Status::Ok();
  locked_ = false;
  return ex_->Exec(fmt::format("SELECT pg_catalog.pg_advisory_unlock({}, {})",
                               kRunLockClass, kSettingsLockObject));
}

namespace {

// Where run |run_id| stopped: its steps that are not done, with their phase
// ("move:public.c (copy)"), or "" when all are.
std::string StoppedAt(const std::map<std::string, StepRecord>& steps) {
  std::vector<std::string> at;
  for (const auto& [key, rec] : steps) {
    if (rec.state == "done" || rec.state == "aborted") continue;
    at.push_back(rec.phase.empty() ? key : key + " (" + rec.phase + ")");
  }
  std::string out;
  for (const std::string& a : at) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// Whether a backend other than this one holds the run lock of this
// database: a run is going on now.
Status RunGoingOn(SqlSession* session, bool* going) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session,
      "SELECT pg_catalog.count(*) > 0 FROM pg_catalog.pg_locks l JOIN "
      "pg_catalog.pg_database d ON d.oid = l.database WHERE l.locktype = "
      "'advisory' AND l.classid = $1::pg_catalog.oid AND l.objid = "
      "$2::pg_catalog.oid AND l.objsubid = 2 AND l.granted AND d.datname = "
      "pg_catalog.current_database() AND l.pid <> pg_catalog.pg_backend_pid()",
      {std::to_string(kRunLockClass), std::to_string(kRunLockObject)}, &v));
  *going = v && *v == "t";
  return Status::Ok();
}

}  // namespace

std::string RaisedLine(const SettingRecord& rec, int64_t run_id,
                       const RaisedContext& context) {
  std::string head =
      fmt::format("{} raised to {} by run {}", rec.name, rec.new_value, run_id);
  if (context.now == AutoConfNow::kChanged) {
    if (!context.taken_over_by.empty()) {
      return fmt::format(
          "{}, then raised again by {} (postgresql.auto.conf now has {}), "
          "which restores it to the cluster's original {}",
          head, context.taken_over_by, Described(context.auto_conf),
          rec.original_setting);
    }
    return fmt::format(
        "{}, then changed by someone else: postgresql.auto.conf now has {}, "
        "neither pglayout's {} nor the original {}; pglayout leaves that "
        "value as it is (set it back yourself if it was not meant to stay)",
        head, Described(context.auto_conf), rec.new_value,
        rec.original_setting);
  }
  if (context.now == AutoConfNow::kOriginal) {
    return fmt::format("{}, already back at its original {}", head,
                       rec.original_setting);
  }
  if (context.going_on) {
    return fmt::format(
        "{}, which is running now: it restores it to {} at its end", head,
        rec.original_setting);
  }
  return fmt::format(
      "{}, which stopped{}: `pglayout migrate --apply` with its plan "
      "resumes it and restores {} to {} at its end, `pglayout migrate "
      "--abort` restores it now",
      head, context.stopped_at.empty() ? "" : " at " + context.stopped_at,
      rec.name, rec.original_setting);
}

Status GuardRestorer::Describe(std::vector<SettingStatus>* out, bool say_none) {
  out->clear();
  std::vector<std::pair<int64_t, SettingRecord>> away;
  PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->ListSettingsIn(
      {"pending", "applied", "deferred", "left"}, &away));
  bool going_on = false;
  PGLAYOUT_RETURN_IF_ERROR(RunGoingOn(ex_->session(), &going_on));
  RunRecord active;
  PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->FindActiveRun(&active));
  bool ours_named = false, listed = false;
  for (const auto& [run, rec] : away) {
    const bool raised = rec.state == "pending" || rec.state == "applied";
    // The plan's settings stay applied once its run has finished.
    if (raised && rec.kind == "plan" && run != active.run_id) continue;
    listed = true;
    SettingStatus s;
    s.run_id = run;
    s.name = rec.name;
    s.state = rec.state;
    s.original = rec.original_setting;
    s.raised = rec.new_value;
    s.since = rec.changed_at;
    out->push_back(s);
    ours_named = ours_named || rec.name == "max_wal_size";
    if (raised) {
      RaisedContext context;
      context.going_on = going_on && run == active.run_id;
      PGLAYOUT_RETURN_IF_ERROR(AutoConfValue(rec.name, &context.auto_conf));
      context.now = CompareAutoConf(rec, context.auto_conf);
      PGLAYOUT_RETURN_IF_ERROR(TakenOverBy(rec, run, &context.taken_over_by));
      std::map<std::string, StepRecord> steps;
      PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->LoadSteps(run, &steps));
      context.stopped_at = StoppedAt(steps);
      ex_->Line(RaisedLine(rec, run, context));
      continue;
    }
    ex_->Line(fmt::format(
        "{}: at {} since {} (run {}); {}", rec.name, rec.new_value,
        rec.changed_at, run,
        rec.state == "left"
            ? fmt::format("left raised on purpose (--leave-raised): "
                          "`pglayout migrate --finalize` restores it to {}",
                          rec.original_setting)
            : fmt::format("its restore to {} is deferred until a timed "
                          "checkpoint makes room: {} after that restores it",
                          rec.original_setting, kNextInvocations)));
  }
  // A raise from another database of the cluster shows here too.
  ClusterOriginal cluster;
  PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(ex_->session(), &cluster));
  std::string database;
  PGLAYOUT_RETURN_IF_ERROR(CurrentDatabase(ex_->session(), &database));
  const bool elsewhere = cluster.present && !cluster.raised_by.ends_with(
                                                " in database " + database);
  if (elsewhere || (cluster.present && !ours_named)) {
    ex_->Line(fmt::format(
        "max_wal_size: raised by {} from the cluster's original {} "
        "(pglayout.original_max_wal_size in postgresql.auto.conf): "
        "`pglayout migrate --status` in that database says how it comes "
        "back; a run in any database takes that original",
        cluster.raised_by.empty() ? "a pglayout run" : cluster.raised_by,
        cluster.setting));
  }
  if (!listed && !cluster.present && say_none) {
    ex_->Line("settings: no restore is pending");
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
