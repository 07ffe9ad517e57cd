#include "migrator/online_context.h"

#include <fmt/format.h>

#include <algorithm>

#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// Rows per heap block assumed for a table never vacuumed or analyzed (its
// reltuples, -1 on 14+ and 0 before, is read as 0).
constexpr double kRowsPerBlockGuess = 50;

// One row about the shadow named $1 (quoted-qualified): its oid ("" when
// there is none), what is wrong with it or its partitions ("" when
// nothing), a hash of its CHECK constraints and defaults, and how many
// partitions it has. The name is resolved once (r) and every catalog read
// by the index on the relation's oid, so that the check costs the same in
// a database of 16 or of 16 000 tables (docs/security.md).
constexpr char kShadowCheckSql[] =
    "WITH r AS MATERIALIZED (SELECT pg_catalog.to_regclass($1)::"
    "pg_catalog.oid AS oid), s AS MATERIALIZED (SELECT c.oid, c.relkind, "
    "c.relowner, c.relrowsecurity, c.relforcerowsecurity FROM "
    "pg_catalog.pg_class c WHERE c.oid = (SELECT r.oid FROM r) UNION ALL "
    "SELECT c.oid, c.relkind, c.relowner, c.relrowsecurity, "
    "c.relforcerowsecurity FROM pg_catalog.pg_inherits i JOIN "
    "pg_catalog.pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = "
    "(SELECT r.oid FROM r)) "
    "SELECT coalesce((SELECT r.oid::pg_catalog.text FROM r), ''), "
    "coalesce((SELECT pg_catalog.string_agg(x.p, '; ' ORDER BY x.p) FROM ("
    "SELECT pg_catalog.format('%s is not a table (relkind %s)', "
    "s.oid::pg_catalog.regclass, s.relkind) AS p FROM s WHERE s.relkind NOT "
    "IN ('r', 'p') "
    "UNION ALL SELECT pg_catalog.format('%s is owned by role %I, which is "
    "not a superuser', s.oid::pg_catalog.regclass, "
    "pg_catalog.pg_get_userbyid(s.relowner)) FROM s WHERE NOT EXISTS "
    "(SELECT FROM pg_catalog.pg_roles r WHERE r.oid = s.relowner AND "
    "r.rolsuper) "
    "UNION ALL SELECT pg_catalog.format('trigger %I on %s', t.tgname, "
    "t.tgrelid::pg_catalog.regclass) FROM s JOIN pg_catalog.pg_trigger t ON "
    "t.tgrelid = s.oid WHERE NOT t.tgisinternal "
    "UNION ALL SELECT pg_catalog.format('rule %I on %s', w.rulename, "
    "w.ev_class::pg_catalog.regclass) FROM s JOIN pg_catalog.pg_rewrite w ON "
    "w.ev_class = s.oid "
    "UNION ALL SELECT pg_catalog.format('policy %I on %s', y.polname, "
    "y.polrelid::pg_catalog.regclass) FROM s JOIN pg_catalog.pg_policy y ON "
    "y.polrelid = s.oid "
    "UNION ALL SELECT pg_catalog.format('row-level security on %s', "
    "s.oid::pg_catalog.regclass) FROM s WHERE s.relrowsecurity OR "
    "s.relforcerowsecurity) x), ''), "
    "pg_catalog.md5(coalesce((SELECT pg_catalog.string_agg(pg_catalog.format("
    "'%s:%s:%s', k.conrelid, k.conname, pg_catalog.pg_get_constraintdef("
    "k.oid)), ',' ORDER BY k.conrelid, k.conname) FROM s JOIN "
    "pg_catalog.pg_constraint k ON k.conrelid = s.oid WHERE "
    "k.contype = 'c'), '') || '|' || coalesce((SELECT "
    "pg_catalog.string_agg(pg_catalog.format('%s:%s:%s', d.adrelid, "
    "d.adnum, pg_catalog.pg_get_expr(d.adbin, d.adrelid)), ',' ORDER BY "
    "d.adrelid, d.adnum) FROM s JOIN pg_catalog.pg_attrdef d ON d.adrelid = "
    "s.oid), '')), (SELECT pg_catalog.count(*) FROM s) - 1";

// What is wrong with the shadow, from kShadowCheckSql's row and against
// what this run saw first ("" when nothing); the first check of a run that
// finds nothing wrong records what it saw.
std::string ShadowProblems(const OnlineContext& c, const std::string& oid,
                           const std::string& problems,
                           const std::string& shape, int64_t partitions) {
  if (oid.empty()) return "it does not exist any more";
  std::vector<std::string> out;
  if (!problems.empty()) out.push_back(problems);
  const int64_t want = c.step.target.partitioned ? c.step.target.partitions : 0;
  if (partitions != want) {
    out.push_back(
        fmt::format("it has {} partitions, not {}", partitions, want));
  }
  if (c.shadow_seen.oid.empty() && out.empty()) {
    c.shadow_seen = {oid, shape};
  } else if (!c.shadow_seen.oid.empty() && oid != c.shadow_seen.oid) {
    out.push_back(fmt::format(
        "it is another relation (oid {}) than the one this run copied into "
        "(oid {}): it was dropped and made again",
        oid, c.shadow_seen.oid));
  } else if (!c.shadow_seen.oid.empty() && shape != c.shadow_seen.shape) {
    out.push_back("its CHECK constraints or column defaults changed");
  }
  return JoinComma(out);
}

}  // namespace

// The WAL writer flushes the commit within moments, and should the server
// crash first, the work and its journal row are lost together and the
// resumed run does them again. Saves a WAL flush wait per batch behind the
// foreground's commits.
Status BulkTransaction(Executor* ex, const std::string& name,
                       const std::function<Status()>& body) {
  return ex->Transaction(name, [&]() -> Status {
    PGLAYOUT_RETURN_IF_ERROR(ex->Exec("SET LOCAL synchronous_commit = off"));
    return body();
  });
}

Status CheckShadow(const OnlineContext& c, ShadowLock lock) {
  const std::string shadow = c.names.QualifiedShadow();
  if (lock != ShadowLock::kHeld) {
    Status st = c.ex->Exec(fmt::format("LOCK TABLE {} IN {} MODE", shadow,
                                       lock == ShadowLock::kAccessShare
                                           ? "ACCESS SHARE"
                                           : "SHARE ROW EXCLUSIVE"));
    // A cancelled wait or a lost connection is the run's, not the
    // shadow's: the run stops, resumable (RecordStepFailure says so).
    if (!st.ok() &&
        (IsCancelled(st) || st.code() == Status::Code::kUnavailable)) {
      return st;
    }
    if (!st.ok()) {
      return Status::Aborted(fmt::format(
          "{}: the shadow {} could not be locked ({}); nothing was swapped. "
          "If someone dropped it, run pglayout migrate --abort and start "
          "again",
          c.relation(), shadow, st.message()));
    }
  }
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      c.ex->session()->Execute(kShadowCheckSql, {shadow}, &r));
  SqlRowReader row(r, 0, "the shadow's check");
  const std::string oid = row.Text(0), problems = row.Text(1),
                    shape = row.Text(2);
  const int64_t partitions = row.Int(3);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  const std::string wrong = ShadowProblems(c, oid, problems, shape, partitions);
  if (wrong.empty()) return Status::Ok();
  return Status::Aborted(fmt::format(
      "{}: the shadow {} is not as pglayout made it: {}. Only pglayout may "
      "change it while the run is in progress (whoever owns schema {} can "
      "drop it and make another); pglayout stopped before using it, and "
      "nothing was swapped. Find who did it; remove what was added, or run "
      "pglayout migrate --abort (which drops the shadow) and start again",
      c.relation(), shadow, wrong, QuoteIdent(c.names.schema)));
}

Status ShadowIndexExists(const OnlineContext& c, const std::string& name,
                         bool* exists) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      c.ex->session(), "SELECT pg_catalog.to_regclass($1) IS NOT NULL",
      {QuoteIdent(c.names.schema) + "." + QuoteIdent(name)}, &v));
  *exists = v && *v == "t";
  return Status::Ok();
}

double EstimatedRows(const TableFacts& t) {
  if (t.storage.reltuples > 0) return t.storage.reltuples;
  return static_cast<double>(t.storage.heap_size) / 8192.0 * kRowsPerBlockGuess;
}

int64_t BlocksHolding(const TableFacts& t, int64_t rows, int64_t blocks) {
  double rows_per_block =
      t.storage.reltuples > 0 && blocks > 0
          ? t.storage.reltuples / static_cast<double>(blocks)
          : kRowsPerBlockGuess;
  return std::max<int64_t>(1,
                           static_cast<int64_t>(static_cast<double>(rows) /
                                                std::max(rows_per_block, 1.0)));
}

}  // namespace pglayout::migrator
