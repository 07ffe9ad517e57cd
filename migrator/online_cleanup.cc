#include "migrator/online_cleanup.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "migrator/online.h"
#include "migrator/online_detail.h"
#include "migrator/online_logical.h"
#include "migrator/online_sql.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// The names of what the step made for table |oid|, named as |d| recorded
// when its copy started (after the swap |oid| names the old table).
OnlineNames NamesAtStart(const Detail& d, uint32_t oid,
                         const OnlineTarget& target) {
  TableFacts stub;
  stub.oid = oid;
  stub.schema = d.schema;
  stub.name = d.table;
  return MakeOnlineNames(stub, target);
}

}  // namespace

Status FinishOnlineCopy(const OnlineContext& c, const std::string& detail) {
  Detail d = ParseDetail(detail);
  OnlineNames names = NamesAtStart(d, c.oid, c.step.target);
  uint32_t new_oid = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      ResolveRelation(c.ex->session(), names.QualifiedTable(), &new_oid));
  TableFacts now;
  if (new_oid) {
    PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(c.ex->session(), new_oid, &now));
  }
  for (const std::string& sql : PostSwapSql(now, names, d.not_valid_fks)) {
    PGLAYOUT_RETURN_IF_ERROR(c.ex->Exec(sql));
  }
  // The log takes the foreground's every change: autovacuum visits it.
  PGLAYOUT_RETURN_IF_ERROR(c.ex->WithLockRetry(
      "cleanup " + c.relation(), {names.log}, [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(c.ex->ExecAll(CaptureDropSql(names, false)));
        return c.ex->journal()->SetStep(c.ex->run_id(), c.key(), c.step_no,
                                        "done", "done");
      }));
  if (c.capture_reader) c.capture_reader->Close();
  return DropCaptureSlot(c.ex, d.capture_slot);
}

Status RestartOnlineCopy(const OnlineContext& c) {
  const std::vector<std::string> locked = {
      c.names.QualifiedTable(), c.names.QualifiedShadow(), c.names.log};
  PGLAYOUT_RETURN_IF_ERROR(
      c.ex->WithLockRetry("restart " + c.relation(), locked, [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(c.ex->ExecAll(CaptureDropSql(c.names, true)));
        PGLAYOUT_RETURN_IF_ERROR(
            c.ex->Exec("DROP TABLE IF EXISTS " + c.names.QualifiedShadow()));
        SqlResult r;
        const std::vector<SqlValue> step = {std::to_string(c.ex->run_id()),
                                            c.key()};
        PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
            "DELETE FROM pglayout.batch WHERE run_id = $1 AND step_key = $2",
            step, &r));
        return c.ex->session()->Execute(
            "UPDATE pglayout.step SET state = 'pending', phase = '', cursor = "
            "NULL, rows_copied = 0, rows_replayed = 0, batches = 0, "
            "bytes_copied = 0, detail = '' WHERE run_id = $1 AND step_key = "
            "$2",
            step, &r);
      }));
  if (c.capture_reader) c.capture_reader->Close();
  return DropCaptureSlot(c.ex, c.capture_slot);
}

Status AbortOnlineCopy(Executor* ex, const std::string& relation,
                       const StepRecord& record) {
  Detail d = ParseDetail(record.detail);
  if (d.schema.empty() || record.relation_oid == 0) return Status::Ok();
  OnlineNames names = NamesAtStart(d, record.relation_oid, OnlineTarget());
  uint32_t current = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      ResolveRelation(ex->session(), names.QualifiedTable(), &current));
  bool source_exists = current == record.relation_oid;
  // A partition's move may have put a constraint on its parent's DEFAULT
  // partition (AttachPrepSql).
  SqlResult excl;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT c.conrelid::pg_catalog.regclass::pg_catalog.text FROM "
      "pg_catalog.pg_constraint c WHERE c.conname = $1 AND c.contype = 'c'",
      {names.default_check}, &excl));
  // Drop the triggers first, under a bounded ACCESS EXCLUSIVE lock, before
  // the log they write to (pg_repack #55: the other order deadlocks with
  // writers).
  std::vector<std::string> locked = {names.QualifiedShadow(), names.log};
  if (source_exists) locked.push_back(names.QualifiedTable());
  for (const SqlRow& row : excl.rows) locked.push_back(Cell(row, 0));
  PGLAYOUT_RETURN_IF_ERROR(
      ex->WithLockRetry("abort " + relation, locked, [&]() -> Status {
        if (source_exists) {
          PGLAYOUT_RETURN_IF_ERROR(
              ex->Exec(fmt::format("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
                                   names.QualifiedTable())));
        }
        for (const SqlRow& row : excl.rows) {
          PGLAYOUT_RETURN_IF_ERROR(ex->Exec(
              fmt::format("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}",
                          Cell(row, 0), QuoteIdent(names.default_check))));
        }
        PGLAYOUT_RETURN_IF_ERROR(
            ex->ExecAll(CaptureDropSql(names, source_exists)));
        PGLAYOUT_RETURN_IF_ERROR(
            ex->Exec("DROP TABLE IF EXISTS " + names.QualifiedShadow()));
        SqlResult r;
        return ex->session()->Execute(
            "UPDATE pglayout.step SET state = 'aborted', finished_at = "
            "pg_catalog.now() WHERE run_id = $1 AND step_key = $2",
            {std::to_string(ex->run_id()), record.key}, &r);
      }));
  return DropCaptureSlot(ex, d.capture_slot);
}

}  // namespace pglayout::migrator
