#include "migrator/guard_cluster.h"

#include <fmt/format.h>

#include <vector>

#include "common/ddl.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

constexpr char kOriginal[] = "pglayout.original_max_wal_size";
constexpr char kOriginalAutoConf[] = "pglayout.original_max_wal_size_auto_conf";
constexpr char kRaisedBy[] = "pglayout.max_wal_size_raised_by";

// ALTER SYSTEM of a custom (placeholder) setting. Before PostgreSQL 17,
// ALTER SYSTEM refuses a name the session does not know: set_config makes
// it known (for this session only) first. The names are ours and constant,
// so they are written as they are (a dotted name is two identifiers).
Status AlterPlaceholder(Executor* ex, const char* name,
                        const std::optional<std::string>& value) {
  SqlValue ignored;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(ex->session(), "SELECT pg_catalog.set_config($1, $2, false)",
                 {std::string(name), value.value_or("")}, &ignored));
  return ex->Exec(value ? fmt::format("ALTER SYSTEM SET {} = {}", name,
                                      QuoteLiteral(*value))
                        : fmt::format("ALTER SYSTEM RESET {}", name));
}

}  // namespace

std::string RaiserName(int64_t run_id, const std::string& database) {
  return fmt::format("run {} in database {}", run_id, database);
}

Status CurrentDatabase(SqlSession* session, std::string* name) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(session, "SELECT pg_catalog.current_database()", {}, &v));
  *name = v.value_or("");
  return Status::Ok();
}

Status ReadClusterOriginal(SqlSession* session, ClusterOriginal* record) {
  *record = ClusterOriginal();
  // pg_file_settings is for superusers (and roles granted it): a role
  // without it cannot have raised anything with ALTER SYSTEM either, and
  // its dry run must still say what it lacks (preflight), not fail here.
  SqlValue readable;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session,
      "SELECT pg_catalog.has_table_privilege("
      "'pg_catalog.pg_file_settings'::pg_catalog.regclass, 'SELECT')",
      {}, &readable));
  if (readable != "t") return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT DISTINCT ON (name) name, setting FROM "
      "pg_catalog.pg_file_settings WHERE name = ANY($1::pg_catalog.text[]) AND "
      "sourcefile LIKE '%postgresql.auto.conf' ORDER BY name, seqno DESC",
      {TextArrayLiteral({kOriginal, kOriginalAutoConf, kRaisedBy})}, &r));
  for (const SqlRow& row : r.rows) {
    const std::string name = Cell(row, 0), value = Cell(row, 1);
    if (name == kOriginal) {
      record->present = true;
      record->setting = value;
    } else if (name == kOriginalAutoConf) {
      record->auto_conf = value;
    } else {
      record->raised_by = value;
    }
  }
  // Written first, the auto.conf part alone is a raise killed before it
  // wrote the rest: no record.
  if (!record->present) *record = ClusterOriginal();
  return Status::Ok();
}

Status WriteClusterOriginal(Executor* ex, const ClusterOriginal& original,
                            const std::string& raised_by) {
  ClusterOriginal now;
  PGLAYOUT_RETURN_IF_ERROR(ReadClusterOriginal(ex->session(), &now));
  if (!now.present) {
    if (original.auto_conf) {
      PGLAYOUT_RETURN_IF_ERROR(
          AlterPlaceholder(ex, kOriginalAutoConf, original.auto_conf));
    }
    PGLAYOUT_RETURN_IF_ERROR(AlterPlaceholder(ex, kOriginal, original.setting));
  }
  if (now.raised_by == raised_by) return Status::Ok();
  return AlterPlaceholder(ex, kRaisedBy, raised_by);
}

Status ClearClusterOriginal(Executor* ex) {
  // The original last: without it the rest is no record.
  for (const char* name : {kRaisedBy, kOriginalAutoConf, kOriginal}) {
    PGLAYOUT_RETURN_IF_ERROR(AlterPlaceholder(ex, name, std::nullopt));
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
