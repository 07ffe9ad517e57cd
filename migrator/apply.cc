#include "migrator/apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "common/ddl.h"
#include "common/files.h"
#include "migrator/online.h"
#include "migrator/online_logical.h"
#include "migrator/placement_check.h"
#include "migrator/settings_steps.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// The quoted names of the objects an offline move step moves.
std::vector<std::string> ObjectNames(const Step& s) {
  std::vector<std::string> names;
  for (const auto& [kind, name] : s.objects) names.push_back(name);
  return names;
}

bool ChangesSettings(const std::vector<Step>& steps) {
  return std::any_of(steps.begin(), steps.end(), [](const Step& s) {
    return s.kind == StepKind::kGuardRaise ||
           s.kind == StepKind::kGuardRestore ||
           s.kind == StepKind::kPlanSettings;
  });
}

// A guard raise not yet started in the journal is among |steps|.
bool RaisesGuard(const std::vector<Step>& steps,
                 const std::map<std::string, StepRecord>& records) {
  return std::any_of(steps.begin(), steps.end(), [&](const Step& s) {
    auto it = records.find(s.key);
    bool started = it != records.end() && it->second.state != "pending";
    return s.kind == StepKind::kGuardRaise && !started;
  });
}

Status CreateTablespace(Executor* ex, const Step& s, int no) {
  const TablespaceSpec& ts = *s.tablespace;
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT pg_catalog.pg_tablespace_location(oid) FROM "
      "pg_catalog.pg_tablespace WHERE spcname = $1",
      {ts.name}, &r));
  if (!r.rows.empty()) {
    if (Cell(r.rows[0], 0) != ts.path) {
      return Status::Aborted(
          fmt::format("tablespace {} exists at '{}', the plan says '{}'",
                      ts.name, Cell(r.rows[0], 0), ts.path));
    }
    ex->Line(fmt::format("tablespace {} exists at {}", ts.name, ts.path));
    return MarkStepDone(ex, s, no);
  }
  // CREATE TABLESPACE cannot run in a transaction: journal the intent,
  // run it, then mark it done; a resumed run finds it by name above.
  PGLAYOUT_RETURN_IF_ERROR(
      ex->journal()->SetStep(ex->run_id(), s.key, no, "running", ""));
  Status st = ex->Exec(CreateTablespaceSql(ts));
  if (!st.ok()) return st.WithContext("tablespace " + ts.name);
  ex->Line(fmt::format("created tablespace {} at {}", ts.name, ts.path));
  ex->Failpoint("after-create-tablespace:" + ts.name);
  return MarkStepDone(ex, s, no);
}

Status MoveOffline(Executor* ex, const Step& s, int no, uint32_t oid) {
  PGLAYOUT_RETURN_IF_ERROR(
      ex->journal()->SetStep(ex->run_id(), s.key, no, "running", "", oid));
  const double start = ex->clock()->Now();
  for (size_t i = 0; i < s.sql.size(); ++i) {
    PGLAYOUT_RETURN_IF_ERROR(ex->WithLockRetry(
        s.key, ObjectNames(s), [&]() { return ex->Exec(s.sql[i]); }));
  }
  ex->Line(fmt::format("{} ({:.1f} s)", s.title, ex->clock()->Now() - start));
  return MarkStepDone(ex, s, no);
}

// A failed REINDEX CONCURRENTLY leaves an invalid "<index>_ccnew" copy.
Status DropInvalidCopies(Executor* ex, const TableFacts& index) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) FROM "
      "pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = "
      "x.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = "
      "c.relnamespace WHERE NOT x.indisvalid AND n.nspname = $1 AND "
      "c.relname LIKE $2 || '\\_ccnew%'",
      {index.schema, index.name}, &r));
  for (const auto& row : r.rows) {
    PGLAYOUT_RETURN_IF_ERROR(
        ex->Exec("DROP INDEX CONCURRENTLY IF EXISTS " + Cell(row, 0)));
  }
  return Status::Ok();
}

Status MoveIndexOnline(Executor* ex, const Step& s, int no,
                       const TableFacts& index) {
  PGLAYOUT_RETURN_IF_ERROR(ex->journal()->SetStep(ex->run_id(), s.key, no,
                                                  "running", "", index.oid));
  PGLAYOUT_RETURN_IF_ERROR(DropInvalidCopies(ex, index));
  PGLAYOUT_RETURN_IF_ERROR(ex->ExecAll(s.sql));
  ex->Line(s.title);
  return MarkStepDone(ex, s, no);
}

// Step |s|, number |no|, of the run |run|; |record| is its journaled state.
Status RunStep(const ApplyInput& in, const RunRecord& run, Executor* ex,
               GuardRestorer* restorer, const Step& s, int no,
               const StepRecord& record) {
  switch (s.kind) {
    case StepKind::kCreateTablespace:
      return CreateTablespace(ex, s, no);
    case StepKind::kTablespaceOptions:
      return ex->Transaction(s.key, [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(ex->ExecAll(s.sql));
        return MarkStepDone(ex, s, no);
      });
    case StepKind::kGuardRaise:
      return GuardRaise(ex, s, no);
    case StepKind::kMoveOffline:
      return MoveOffline(ex, s, no, in.facts->Table(s.placement->relation).oid);
    case StepKind::kMoveIndexOnline:
      return MoveIndexOnline(ex, s, no, in.facts->Table(s.placement->relation));
    case StepKind::kOnlineCopy:
      return RunOnlineCopy(ex, s, no, record,
                           in.facts->Table(s.placement->relation).oid);
    case StepKind::kGuardRestore:
      return GuardRestore(ex, restorer, *in.plan, run, s, no);
    case StepKind::kPlanSettings:
      return PlanSettings(ex, *in.plan, s, no);
    case StepKind::kVerify:
      return VerifyRun(ex, *in.plan, *in.facts, s, no);
  }
  return Status::Internal("unknown step kind");
}

// The journal keeps why the step stopped, for the report and for the
// person who resumes; the step's own transaction has rolled back. If
// even that fails (the connection is gone), the step's error still
// reaches the caller.
Status RecordStepFailure(Executor* ex, const Step& s, int no,
                         const Status& failure) {
  Status recorded = ex->journal()->RecordStepError(ex->run_id(), s.key, no,
                                                   failure.message());
  if (!recorded.ok()) {
    ex->Line(fmt::format("could not record the error of step {}: {}", s.key,
                         recorded.message()));
  }
  // A lost connection (a crash, a terminated backend, a timeout) leaves
  // nothing half-done: the journal resumes the step. Lock-retried
  // statements (the swap) already say so in their own words.
  if (failure.code() == Status::Code::kUnavailable &&
      failure.message().find("resume") == std::string::npos) {
    return Status::Unavailable(fmt::format(
        "{}. Run {} stopped at step {}; nothing half-done stays behind: "
        "pglayout migrate --apply with the same plan resumes it",
        failure.message(), ex->run_id(), s.key));
  }
  // A cancelled statement (pg_cancel_backend, a statement_timeout), and
  // one the server chose as a deadlock's victim, rolled its transaction
  // back the same way.
  const char* what = IsCancelled(failure)          ? "was cancelled"
                     : IsConflictRollback(failure) ? "was rolled back by the "
                                                     "server (a conflict with "
                                                     "another session)"
                                                   : nullptr;
  if (what && failure.message().find("resume") == std::string::npos) {
    return Status::Aborted(fmt::format(
        "{}. Run {} stopped at step {}: a statement {}; nothing half-done "
        "stays behind: pglayout migrate --apply with the same plan resumes it",
        failure.message(), ex->run_id(), s.key, what));
  }
  return failure;
}

Status ReportCheckpoints(Executor* ex, const RunRecord& run,
                         const CheckpointCounts& end, MigrateResult* report) {
  std::string reset;
  PGLAYOUT_RETURN_IF_ERROR(
      CheckpointStatsResetSince(ex->session(), run.started_at, &reset));
  CheckpointDelta d = CheckpointsBetween(
      {run.checkpoints_timed_start, run.checkpoints_requested_start}, end,
      reset);
  if (!d.known) {
    // Left at -1, "not measured", in the JSON output.
    ex->Line("checkpoints during the run: " + CountText(d, 0));
    return Status::Ok();
  }
  report->checkpoints_timed = d.timed;
  report->checkpoints_requested = d.requested;
  ex->Line(fmt::format("checkpoints during the run: {} timed, {} requested",
                       d.timed, d.requested));
  return Status::Ok();
}

// The run's final comparison of online copies: --verify when given (a
// resumed run records the new choice and says so), else the one the run
// was started with (docs/online-migration.md#verification).
Status SetRunVerification(const RunRecord& run, bool is_new, Executor* ex) {
  const std::optional<VerifyMode> given = ex->options().verify;
  VerifyMode mode = given.value_or(VerifyMode::kFull);
  if (!is_new && !given) {
    mode = run.verify == "off" ? VerifyMode::kOff : VerifyMode::kFull;
  }
  ex->set_verify(mode);
  if (is_new || (given && run.verify != VerifyModeName(mode))) {
    PGLAYOUT_RETURN_IF_ERROR(
        ex->journal()->SetRunVerify(run.run_id, VerifyModeName(mode)));
    if (!is_new) {
      ex->Line(fmt::format(
          "run {}: --verify {} from now on (it was started with --verify {})",
          run.run_id, VerifyModeName(mode), run.verify));
    }
  }
  if (mode == VerifyMode::kOff) {
    ex->Line(fmt::format(
        "run {}: --verify off: online copies are not compared with their "
        "tables at the end; the run is unverified",
        run.run_id));
  }
  return Status::Ok();
}

}  // namespace

Status ApplyRun(const ApplyInput& in, Executor* ex, GuardRestorer* restorer,
                MigrateResult* report) {
  const std::vector<Step>& steps = *in.steps;
  const std::map<std::string, StepRecord>& records = *in.records;
  Journal* journal = ex->journal();
  if (ChangesSettings(steps)) {
    PGLAYOUT_RETURN_IF_ERROR(restorer->AcquireSettingsLock());
  }
  PGLAYOUT_RETURN_IF_ERROR(journal->EnsureSchema());
  // A run that raises max_wal_size takes an earlier run's deferred
  // restore over (RecordOriginal); any other completes it if it can.
  if (!RaisesGuard(steps, records)) {
    PGLAYOUT_RETURN_IF_ERROR(restorer->CompleteDeferred(false));
  }
  CheckpointCounts start;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &start));
  RunRecord run = in.run;
  if (run.run_id == 0) {
    const std::string plan_text = PlanToToml(*in.plan);
    PGLAYOUT_RETURN_IF_ERROR(journal->StartRun(
        PlanHash(plan_text), plan_text, ex->options().tool_version, start.timed,
        start.requested, &run));
    report->run_id = run.run_id;
    ex->set_run_id(run.run_id);
    ex->Line(fmt::format("run {} started", run.run_id));
  } else {
    ex->Line(fmt::format("run {} resumed", run.run_id));
  }
  PGLAYOUT_RETURN_IF_ERROR(SetRunVerification(run, in.run.run_id == 0, ex));
  PGLAYOUT_RETURN_IF_ERROR(ex->Exec(fmt::format(
      "SET application_name = {}",
      QuoteLiteral(fmt::format("{}/run{}/main", kAppName, run.run_id)))));
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    const int no = static_cast<int>(i + 1);
    auto rec = records.find(s.key);
    if (rec != records.end() && rec->second.state == "done") continue;
    StepRecord record = rec == records.end() ? StepRecord() : rec->second;
    record.key = s.key;
    ex->Failpoint("before-step:" + s.key);
    Status st = RunStep(in, run, ex, restorer, s, no, record);
    if (!st.ok()) return RecordStepFailure(ex, s, no, st);
    ex->Failpoint("after-step:" + s.key);
  }
  // No capture slot outlives its run (each step drops its own).
  PGLAYOUT_RETURN_IF_ERROR(DropCaptureSlots(ex));
  CheckpointCounts end;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &end));
  PGLAYOUT_RETURN_IF_ERROR(ReportCheckpoints(ex, run, end, report));
  PGLAYOUT_RETURN_IF_ERROR(journal->FinishRun(run.run_id, "done", end));
  // Whether its online copies were compared, this invocation's and an
  // earlier one's.
  std::map<std::string, StepRecord> done;
  PGLAYOUT_RETURN_IF_ERROR(journal->LoadSteps(run.run_id, &done));
  const std::string note = VerificationNote(done);
  ex->Line(fmt::format("run {} done{}", run.run_id,
                       note.empty() ? "" : ", " + note));
  return Status::Ok();
}

}  // namespace pglayout::migrator
