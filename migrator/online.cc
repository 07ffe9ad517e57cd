// The online copy state machine: copy -> indexes -> catchup -> swap ->
// swapped -> done, each phase persisted in pglayout.step with its work, so a
// client killed at any instant resumes by re-running the recorded phase:
// batches are keyed by the cursor committed with them, replay is idempotent,
// index creation checks the catalogs.
// Why and how: docs/online-migration.md#how-an-online-copy-runs.

#include <fmt/format.h>

#include <string>

#include "migrator/executor.h"
#include "migrator/online_context.h"
#include "migrator/online_copy.h"
#include "migrator/online_detail.h"
#include "migrator/online_indexes.h"
#include "migrator/online_pace.h"
#include "migrator/online_replay.h"
#include "migrator/online_sql.h"
#include "migrator/online_swap.h"
#include "migrator/online_verify.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

class OnlineRun {
 public:
  OnlineRun(Executor* ex, const Step& step, int step_no, uint32_t oid)
      : c_{ex, step, step_no, oid, {}, {}}, pace_(c_), verifier_(c_) {}

  Status Run(const StepRecord& record) {
    PGLAYOUT_RETURN_IF_ERROR(
        GatherTableFacts(c_.ex->session(), c_.oid, &c_.table));
    std::string phase = record.state == "pending" ? "" : record.phase;
    if (phase.empty() || phase == "copy" || phase == "indexes" ||
        phase == "catchup" || phase == "swap") {
      if (!c_.table.exists) {
        return Status::Internal(fmt::format(
            "{}: the journal says phase '{}' but table oid {} is gone; run "
            "pglayout migrate --abort",
            c_.step.placement->relation, phase, c_.oid));
      }
      c_.names = MakeOnlineNames(c_.table, c_.step.target);
    }
    std::string detail =
        record.detail.empty() && c_.table.exists
            ? MakeDetail(c_.table, c_.ex->options().copy_by_blocks &&
                                       HasTidRangeScans(
                                           c_.ex->session()->server_version()))
            : record.detail;
    Detail parsed = ParseDetail(detail);
    copy_.by_blocks = parsed.by_blocks;
    copy_.source_filenode = parsed.filenode;
    copy_.copy_xmin = parsed.copy_xmin;
    copy_.cursor = record.cursor;
    copy_.batches = record.batches;
    copy_.rows_copied = record.rows_copied;
    copy_.bytes_copied = record.bytes_copied;
    if (phase.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(PrepareShadow(c_, &copy_));
      phase = "copy";
    }
    if (phase == "copy") {
      PGLAYOUT_RETURN_IF_ERROR(CopyRows(c_, &pace_, &copy_));
      phase = "indexes";
    }
    if (phase == "indexes") {
      PGLAYOUT_RETURN_IF_ERROR(BuildShadowIndexes(c_));
      phase = "catchup";
    }
    if (phase == "catchup") {
      PGLAYOUT_RETURN_IF_ERROR(CatchUpAndVerify());
      phase = "swap";
    }
    if (phase == "swap") {
      PGLAYOUT_RETURN_IF_ERROR(SwapShadow(c_, detail, &pace_, &verifier_));
      phase = "swapped";
    }
    return Finish(detail);
  }

 private:
  Status CatchUpAndVerify() {
    PGLAYOUT_RETURN_IF_ERROR(CatchUp(c_, &pace_));
    PGLAYOUT_RETURN_IF_ERROR(verifier_.Verify());
    PGLAYOUT_RETURN_IF_ERROR(CatchUp(c_, &pace_));
    return c_.ex->journal()->SetStep(c_.ex->run_id(), c_.key(), c_.step_no,
                                     "running", "swap");
  }

  Status Finish(const std::string& detail_text) {
    Detail d = ParseDetail(detail_text);
    TableFacts stub;
    stub.oid = c_.oid;
    stub.schema = d.schema;
    stub.name = d.table;
    OnlineNames names = MakeOnlineNames(stub, c_.step.target);
    uint32_t new_oid = 0;
    PGLAYOUT_RETURN_IF_ERROR(
        ResolveRelation(c_.ex->session(), names.QualifiedTable(), &new_oid));
    TableFacts now;
    if (new_oid) {
      PGLAYOUT_RETURN_IF_ERROR(
          GatherTableFacts(c_.ex->session(), new_oid, &now));
    }
    for (const std::string& sql : PostSwapSql(now, names, d.not_valid_fks)) {
      PGLAYOUT_RETURN_IF_ERROR(c_.ex->Exec(sql));
    }
    // The log takes the foreground's every change: autovacuum visits it.
    return c_.ex->WithLockRetry(
        "cleanup " + c_.relation(), {names.log}, [&]() -> Status {
          PGLAYOUT_RETURN_IF_ERROR(
              c_.ex->ExecAll(CaptureDropSql(names, false)));
          return c_.ex->journal()->SetStep(c_.ex->run_id(), c_.key(),
                                           c_.step_no, "done", "done");
        });
  }

  OnlineContext c_;
  OnlinePace pace_;
  OnlineVerifier verifier_;
  CopyState copy_;
};

}  // namespace

Status RunOnlineCopy(Executor* ex, const Step& step, int step_no,
                     const StepRecord& record, uint32_t oid) {
  OnlineRun run(ex, step, step_no, oid);
  Status st = run.Run(record);
  if (!st.ok()) return st.WithContext(step.title);
  return st;
}

bool OnlineStepTable(const StepRecord& record, std::string* schema,
                     std::string* table) {
  Detail d = ParseDetail(record.detail);
  if (d.schema.empty() || d.table.empty()) return false;
  *schema = d.schema;
  *table = d.table;
  return true;
}

Status AbortOnlineCopy(Executor* ex, const std::string& relation,
                       const StepRecord& record) {
  Detail d = ParseDetail(record.detail);
  if (d.schema.empty() || record.relation_oid == 0) return Status::Ok();
  TableFacts stub;
  stub.oid = record.relation_oid;
  stub.schema = d.schema;
  stub.name = d.table;
  OnlineTarget target;
  OnlineNames names = MakeOnlineNames(stub, target);
  uint32_t current = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      ResolveRelation(ex->session(), names.QualifiedTable(), &current));
  bool source_exists = current == record.relation_oid;
  // A partition's move may have put a constraint on its parent's DEFAULT
  // partition (AttachPrepSql).
  SqlResult excl;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT c.conrelid::pg_catalog.regclass::text FROM "
      "pg_catalog.pg_constraint c WHERE c.conname = $1 AND c.contype = 'c'",
      {names.default_check}, &excl));
  // Drop the triggers first, under a bounded ACCESS EXCLUSIVE lock, before
  // the log they write to (pg_repack #55: the other order deadlocks with
  // writers).
  std::vector<std::string> locked = {names.QualifiedShadow(), names.log};
  if (source_exists) locked.push_back(names.QualifiedTable());
  for (const SqlRow& row : excl.rows) locked.push_back(Cell(row, 0));
  return ex->WithLockRetry("abort " + relation, locked, [&]() -> Status {
    if (source_exists) {
      PGLAYOUT_RETURN_IF_ERROR(ex->Exec(fmt::format(
          "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE", names.QualifiedTable())));
    }
    for (const SqlRow& row : excl.rows) {
      PGLAYOUT_RETURN_IF_ERROR(
          ex->Exec(fmt::format("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}",
                               Cell(row, 0), QuoteIdent(names.default_check))));
    }
    PGLAYOUT_RETURN_IF_ERROR(ex->ExecAll(CaptureDropSql(names, source_exists)));
    PGLAYOUT_RETURN_IF_ERROR(
        ex->Exec("DROP TABLE IF EXISTS " + names.QualifiedShadow()));
    SqlResult r;
    return ex->session()->Execute(
        "UPDATE pglayout.step SET state = 'aborted', finished_at = "
        "pg_catalog.now() WHERE run_id = $1 AND step_key = $2",
        {std::to_string(ex->run_id()), record.key}, &r);
  });
}

}  // namespace pglayout::migrator
