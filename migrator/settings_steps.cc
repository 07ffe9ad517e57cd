#include "migrator/settings_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/ddl.h"
#include "common/units.h"
#include "migrator/guard_cluster.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// What postgresql.auto.conf sets |name| to (nullopt: nothing).
Status AutoConfValue(SqlSession* session, const std::string& name,
                     SqlValue* value) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT setting FROM pg_catalog.pg_file_settings WHERE name = $1 AND "
      "sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1",
      {name}, &r));
  *value = r.rows.empty() ? std::nullopt : r.rows[0][0];
  return Status::Ok();
}

// The original of |rec.name| before this run: the current value, unless
// an earlier run in this database left it raised or deferred restoring it
// (|left|), the cluster-wide record has it (for max_wal_size), or this
// run's own guard record does (a resumed run, or the plan's record after
// the guard's), in that order of precedence, lowest first.
void TakeOriginal(const std::vector<std::pair<int64_t, SettingRecord>>& left,
                  const ClusterOriginal* cluster,
                  const std::vector<SettingRecord>& own, SettingRecord* rec) {
  for (const auto& [run, e] : left) {
    if (e.name != rec->name) continue;
    rec->original_setting = e.original_setting;
    rec->original_auto_conf = e.original_auto_conf;
  }
  if (cluster && cluster->present) {
    rec->original_setting = cluster->setting;
    rec->original_auto_conf = cluster->auto_conf;
  }
  for (const SettingRecord& e : own) {
    if (e.name == rec->name && e.kind == "guard") {
      rec->original_setting = e.original_setting;
      rec->original_auto_conf = e.original_auto_conf;
    }
  }
}

// Journals the original of setting |name| (|kind| "guard" or "plan")
// before the run sets it to |new_value|; for the guard, the cluster-wide
// record too (guard_cluster.h), naming this run as the last raiser.
Status RecordOriginal(Executor* ex, const std::string& kind,
                      const std::string& name, const std::string& new_value) {
  Journal* journal = ex->journal();
  const int64_t run_id = ex->run_id();
  SettingRecord rec;
  rec.name = name;
  rec.kind = kind;
  rec.new_value = new_value;
  SqlValue current;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(ex->session(),
                                      "SELECT pg_catalog.current_setting($1)",
                                      {name}, &current));
  rec.original_setting = current.value_or("");
  PGLAYOUT_RETURN_IF_ERROR(
      AutoConfValue(ex->session(), name, &rec.original_auto_conf));
  std::vector<SettingRecord> own;
  PGLAYOUT_RETURN_IF_ERROR(journal->LoadSettings(run_id, &own));
  // A setting an earlier run left raised or deferred restoring: this run
  // takes it over (its original first, then the earlier record is
  // superseded).
  std::vector<std::pair<int64_t, SettingRecord>> left;
  PGLAYOUT_RETURN_IF_ERROR(
      journal->ListSettingsIn({"left", "deferred"}, &left));
  const bool guard = kind == "guard" && name == "max_wal_size";
  ClusterOriginal cluster;
  if (guard) {
    PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(ex->session(), &cluster));
  }
  TakeOriginal(left, guard ? &cluster : nullptr, own, &rec);
  PGLAYOUT_RETURN_IF_ERROR(journal->RecordOriginal(run_id, rec));
  for (const auto& [run, e] : left) {
    if (e.name != name) continue;
    PGLAYOUT_RETURN_IF_ERROR(
        journal->SetSettingState(run, e.kind, e.name, "superseded"));
  }
  if (!guard) return Status::Ok();
  std::string database;
  PGLAYOUT_RETURN_IF_ERROR(CurrentDatabase(ex->session(), &database));
  ClusterOriginal original;
  original.setting = rec.original_setting;
  original.auto_conf = rec.original_auto_conf;
  return WriteClusterOriginal(ex, original, RaiserName(run_id, database));
}

bool PlanSets(const Plan& plan, const std::string& name) {
  return std::any_of(plan.settings.begin(), plan.settings.end(),
                     [&](const SettingChange& c) { return c.name == name; });
}

// Whether requested checkpoints came during the bulk work or after the
// restore shows in the run's lines.
Status ReportCheckpointsSoFar(Executor* ex, const RunRecord& run) {
  CheckpointCounts now;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &now));
  std::string reset;
  PGLAYOUT_RETURN_IF_ERROR(
      CheckpointStatsResetSince(ex->session(), run.started_at, &reset));
  CheckpointDelta d = CheckpointsBetween(
      {run.checkpoints_timed_start, run.checkpoints_requested_start}, now,
      reset);
  if (!d.known) {
    ex->Line(fmt::format(
        "checkpoint guard: the checkpoints from the start of the run until "
        "the restore are {}",
        CountText(d, 0)));
    return Status::Ok();
  }
  ex->Line(fmt::format(
      "checkpoint guard: {} timed, {} requested checkpoints from the start "
      "of the run until the restore",
      d.timed, d.requested));
  return Status::Ok();
}

}  // namespace

Status GuardOriginalFor(SqlSession* session, Journal* journal,
                        const RunRecord& active, StepOptions* options) {
  auto take = [&](const SettingRecord& rec) {
    uint64_t bytes = 0;
    if (ParseSize(rec.original_setting, &bytes).ok()) {
      options->guard_original = bytes;
    }
  };
  if (active.run_id != 0) {
    std::vector<SettingRecord> own;
    PGLAYOUT_RETURN_IF_ERROR(journal->LoadSettings(active.run_id, &own));
    for (const SettingRecord& rec : own) {
      if (rec.kind != "guard" || rec.name != "max_wal_size") continue;
      take(rec);
      options->guard_restore_pending =
          rec.state == "pending" || rec.state == "applied";
      return Status::Ok();
    }
  }
  ClusterOriginal cluster;
  PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(session, &cluster));
  if (cluster.present) {
    SettingRecord rec;
    rec.original_setting = cluster.setting;
    take(rec);
    return Status::Ok();
  }
  std::vector<std::pair<int64_t, SettingRecord>> left;
  PGLAYOUT_RETURN_IF_ERROR(
      journal->ListSettingsIn({"left", "deferred"}, &left));
  for (const auto& [run, rec] : left) {
    if (rec.name == "max_wal_size") take(rec);
  }
  return Status::Ok();
}

Status GuardRaise(Executor* ex, const Step& s, int no) {
  // The original goes to the journal (committed) before ALTER SYSTEM, so
  // a kill at any instant after it leaves enough to restore.
  PGLAYOUT_RETURN_IF_ERROR(
      RecordOriginal(ex, "guard", "max_wal_size", s.guard_value));
  PGLAYOUT_RETURN_IF_ERROR(
      ex->journal()->SetStep(ex->run_id(), s.key, no, "running", ""));
  ex->Failpoint("guard:journaled");
  PGLAYOUT_RETURN_IF_ERROR(ex->ExecAll(s.sql));
  PGLAYOUT_RETURN_IF_ERROR(ex->journal()->SetSettingState(
      ex->run_id(), "guard", "max_wal_size", "applied"));
  ex->Line(s.title);
  return MarkStepDone(ex, s, no);
}

Status GuardRestore(Executor* ex, GuardRestorer* restorer, const Plan& plan,
                    const RunRecord& run, const Step& s, int no) {
  Journal* journal = ex->journal();
  std::vector<SettingRecord> settings;
  PGLAYOUT_RETURN_IF_ERROR(journal->LoadSettings(run.run_id, &settings));
  PGLAYOUT_RETURN_IF_ERROR(ReportCheckpointsSoFar(ex, run));
  for (const SettingRecord& rec : settings) {
    if (rec.kind != "guard" || rec.state == "restored" ||
        rec.state == "superseded" || rec.state == "changed") {
      continue;
    }
    if (PlanSets(plan, rec.name)) {
      PGLAYOUT_RETURN_IF_ERROR(journal->SetSettingState(
          run.run_id, rec.kind, rec.name, "superseded"));
      continue;
    }
    if (ex->options().leave_guard_raised) {
      PGLAYOUT_RETURN_IF_ERROR(
          journal->SetSettingState(run.run_id, rec.kind, rec.name, "left"));
      ex->Line(fmt::format(
          "checkpoint guard: left {} at {} as asked (raised from {}); "
          "`pglayout migrate --finalize` restores it",
          rec.name, rec.new_value, rec.original_setting));
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(
        restorer->Restore(rec, run.run_id, RestoreWhen::kRunEnd));
  }
  return MarkStepDone(ex, s, no);
}

Status PlanSettings(Executor* ex, const Plan& plan, const Step& s, int no) {
  PGLAYOUT_RETURN_IF_ERROR(
      ex->journal()->SetStep(ex->run_id(), s.key, no, "running", ""));
  std::vector<std::string> names;
  for (const SettingChange& c : plan.settings) {
    PGLAYOUT_RETURN_IF_ERROR(RecordOriginal(ex, "plan", c.name, c.value));
    PGLAYOUT_RETURN_IF_ERROR(ex->Exec(AlterSystemSetSql(c.name, c.value)));
    PGLAYOUT_RETURN_IF_ERROR(ex->journal()->SetSettingState(
        ex->run_id(), "plan", c.name, "applied"));
    names.push_back(c.name);
  }
  PGLAYOUT_RETURN_IF_ERROR(ex->Exec(ReloadConfSql()));
  // pending_restart shows up once the reload has been processed.
  ex->clock()->Sleep(0.3);
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT name FROM pg_catalog.pg_settings WHERE name = "
      "ANY($1::pg_catalog.text[]) "
      "AND (pending_restart OR context = 'postmaster') ORDER BY 1",
      {TextArrayLiteral(names)}, &r));
  ex->Line(
      fmt::format("applied {} setting(s) with ALTER SYSTEM", names.size()));
  for (const auto& row : r.rows) {
    ex->Line(fmt::format(
        "setting {} needs a restart to take effect; pglayout does not "
        "restart servers: run `pg_ctl restart -D <datadir>` in a "
        "maintenance window",
        Cell(row, 0)));
  }
  return MarkStepDone(ex, s, no);
}

}  // namespace pglayout::migrator
