#include "migrator/online_indexes.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/units.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// SET LOCAL for the index builds: maintenance_work_mem raised to
// index_work_mem (never lowered below the server's setting), and with
// the adaptive throttle no parallel workers: it cannot pause a CREATE
// INDEX, and its workers would take every core from the foreground.
Status IndexSettingsSql(const OnlineContext& c, std::vector<std::string>* sql) {
  SqlValue kb;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(c.ex->session(),
                 "SELECT setting FROM pg_catalog.pg_settings WHERE name = "
                 "'maintenance_work_mem'",
                 {}, &kb));
  uint64_t current = std::strtoull(kb.value_or("0").c_str(), nullptr, 10);
  uint64_t wanted = c.ex->options().index_work_mem / 1024;
  sql->clear();
  if (wanted > current) {
    sql->push_back(
        fmt::format("SET LOCAL maintenance_work_mem = '{}kB'", wanted));
  }
  if (c.Adaptive()) {
    sql->push_back("SET LOCAL max_parallel_maintenance_workers = 0");
  }
  return Status::Ok();
}

Status ConstraintExists(const OnlineContext& c, const std::string& table,
                        const std::string& constraint, bool* exists) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(c.ex->session(),
                 "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE "
                 "conrelid = $1::pg_catalog.regclass AND conname = $2)",
                 {table, constraint}, &v));
  *exists = v && *v == "t";
  return Status::Ok();
}

// Moving a partition: what ATTACH PARTITION would otherwise scan for
// under the swap's lock, added NOT VALID (a brief lock) and validated
// (a scan that does not block writes); a resumed run skips what exists.
Status PrepareAttach(const OnlineContext& c) {
  for (const AttachPrep& prep : AttachPrepSql(c.table, c.names)) {
    bool exists = false;
    PGLAYOUT_RETURN_IF_ERROR(
        ConstraintExists(c, prep.table, prep.constraint, &exists));
    if (!exists) {
      PGLAYOUT_RETURN_IF_ERROR(
          c.ex->WithLockRetry("add " + prep.constraint, prep.locks,
                              [&]() { return c.ex->Exec(prep.add); }));
      c.ex->Failpoint("attach-prep-added:" + c.key());
    }
    PGLAYOUT_RETURN_IF_ERROR(
        c.ex->WithLockRetry("validate " + prep.constraint, {prep.table},
                            [&]() { return c.ex->Exec(prep.validate); }));
    c.ex->Line(
        fmt::format("{}: constraint {} on {} added and validated, so "
                    "that ATTACH PARTITION scans nothing",
                    c.relation(), DisplayIdent(prep.constraint), prep.table));
  }
  return Status::Ok();
}

}  // namespace

// The row key's index first (replay needs it), then the others; one
// transaction each, skipped when a resumed run finds it built.
Status BuildShadowIndexes(const OnlineContext& c) {
  std::vector<std::string> settings;
  PGLAYOUT_RETURN_IF_ERROR(IndexSettingsSql(c, &settings));
  const double start = c.Now();
  int built = 0;
  for (const ShadowIndex& index :
       ShadowIndexSql(c.table, c.step.target, c.names)) {
    bool exists = false;
    PGLAYOUT_RETURN_IF_ERROR(ShadowIndexExists(c, index.temp_name, &exists));
    if (exists) continue;
    PGLAYOUT_RETURN_IF_ERROR(
        BulkTransaction(c.ex, "index:" + index.source, [&]() -> Status {
          PGLAYOUT_RETURN_IF_ERROR(
              CheckShadow(c, ShadowLock::kShareRowExclusive));
          PGLAYOUT_RETURN_IF_ERROR(c.ex->ExecAll(settings));
          return c.ex->ExecAll(index.sql);
        }));
    ++built;
  }
  PGLAYOUT_RETURN_IF_ERROR(PrepareAttach(c));
  PGLAYOUT_RETURN_IF_ERROR(c.ex->journal()->SetStep(
      c.ex->run_id(), c.key(), c.step_no, "running", "catchup"));
  if (built > 0) {
    c.ex->Line(fmt::format("{}: built {} ({:.1f} s)", c.relation(),
                           CountOf(built, "index", "indexes"), c.Since(start)));
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
