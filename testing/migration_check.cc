#include "testing/migration_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "pg/sql_row.h"

namespace pglayout {

Status ListTables(SqlSession* session,
                  const std::map<std::string, std::string>& growing,
                  std::vector<TableCheck>* tables) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT c.relname FROM pg_catalog.pg_class c JOIN "
      "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
      "'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY "
      "1",
      {}, &r));
  tables->clear();
  for (size_t i = 0; i < r.rows.size(); ++i) {
    TableCheck t;
    t.table = SqlRowReader(r, i, "pg_class").Text(0);
    auto g = growing.find(t.table);
    if (g != growing.end()) {
      SqlValue max;
      PGLAYOUT_RETURN_IF_ERROR(
          QueryValue(session,
                     fmt::format("SELECT max({})::text FROM public.{}",
                                 QuoteIdent(g->second), QuoteIdent(t.table)),
                     {}, &max));
      if (max.has_value()) {
        t.rows_filter =
            fmt::format("{} <= {}", QuoteIdent(g->second), QuoteLiteral(*max));
      }
    }
    tables->push_back(t);
  }
  return Status::Ok();
}

Status ChecksumTables(SqlSession* session, bool after,
                      std::vector<TableCheck>* tables) {
  for (TableCheck& t : *tables) {
    SqlResult r;
    std::string what = "checksum of public." + t.table;
    PGLAYOUT_RETURN_IF_ERROR(
        session
            ->Execute(fmt::format(
                          "SELECT count(*) FILTER (WHERE {0}), "
                          "coalesce(sum(pg_catalog.hashtextextended(t::text, "
                          "0)::numeric) FILTER (WHERE {0}), 0)::text, count(*) "
                          "FROM public.{1} AS t",
                          t.rows_filter.empty() ? "true" : t.rows_filter,
                          QuoteIdent(t.table)),
                      {}, &r)
            .WithContext(what));
    SqlRowReader row(r, 0, what);
    (after ? t.rows_after : t.rows_before) = row.Int(0);
    (after ? t.checksum_after : t.checksum_before) = row.Text(1);
    t.rows_now = row.Int(2);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
  }
  return Status::Ok();
}

Status CheckPlacements(SqlSession* session, const Plan& plan,
                       std::vector<PlacementCheck>* placements) {
  placements->clear();
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kStay) continue;
    PlacementCheck c;
    c.relation = p.relation;
    c.strategy = StrategyName(p.strategy);
    c.reason = p.reason;
    c.planned = p.tablespaces;
    std::sort(c.planned.begin(), c.planned.end());
    c.planned.erase(std::unique(c.planned.begin(), c.planned.end()),
                    c.planned.end());
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(
        session
            ->Execute(
                "SELECT DISTINCT coalesce(t.spcname, 'pg_default') FROM "
                "pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_tablespace t ON "
                "t.oid = c.reltablespace WHERE (c.oid = $1::regclass AND "
                "c.relkind = 'r') OR c.oid IN (SELECT inhrelid FROM "
                "pg_catalog.pg_inherits WHERE inhparent = $1::regclass) ORDER "
                "BY 1",
                {p.relation}, &r)
            .WithContext("where " + p.relation + " lives"));
    for (size_t i = 0; i < r.rows.size(); ++i) {
      c.found.push_back(SqlRowReader(r, i, "pg_tablespace").Text(0));
    }
    placements->push_back(c);
  }
  return Status::Ok();
}

Status ReadVerifications(SqlSession* session,
                         std::vector<StepVerification>* verifications) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT step_key, src_rows::text, new_rows::text, src_sum = new_sum "
      "FROM pglayout.verification WHERE run_id = (SELECT max(run_id) FROM "
      "pglayout.run) ORDER BY step_key",
      {}, &r));
  verifications->clear();
  return ReadRows(r, "pglayout.verification", [&](SqlRowReader& row) {
    StepVerification v;
    v.step = row.Text(0);
    v.source_rows = row.Int(1);
    v.new_rows = row.Int(2);
    v.sums_equal = row.Bool(3);
    verifications->push_back(v);
  });
}

Status ReadCopyProgress(SqlSession* session, KillResume* progress,
                        bool* found) {
  *found = false;
  SqlValue journal;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session, "SELECT pg_catalog.to_regclass('pglayout.step') IS NOT NULL", {},
      &journal));
  if (journal.value_or("f") != "t") return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT s.step_key, s.phase, s.rows_copied::text, "
      "greatest(coalesce(c.reltuples, 0), 0)::bigint::text FROM pglayout.step "
      "s JOIN pglayout.run r ON r.run_id = s.run_id AND r.state = 'running' "
      "LEFT JOIN pg_catalog.pg_class c ON c.oid = s.relation_oid WHERE "
      "s.state = 'running' AND s.rows_copied > 0 ORDER BY s.step_no LIMIT 1",
      {}, &r));
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "pglayout.step");
  progress->step = row.Text(0);
  progress->phase = row.Text(1);
  progress->rows_copied = row.Int(2);
  progress->rows_total = row.Int(3);
  *found = row.status().ok();
  return row.status();
}

Status ReadLastRunState(SqlSession* session, std::string* state) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT state FROM pglayout.run ORDER BY run_id DESC LIMIT 1", {}, &r));
  *state = r.rows.empty() ? "" : SqlRowReader(r, 0, "pglayout.run").Text(0);
  return Status::Ok();
}

}  // namespace pglayout
