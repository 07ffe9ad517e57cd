#include "migrator/placement_check.h"

#include <fmt/format.h>

#include <utility>

#include "common/text.h"
#include "migrator/online.h"
#include "migrator/online_sql.h"
#include "migrator/online_swap.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// (relation, tablespace) for a relation, its TOAST table and index and
// its indexes; the database default tablespace is spelled out. Nothing
// for a relation that does not exist (a partition of another layout).
Status Placements(SqlSession* session, const std::string& relation,
                  bool with_indexes,
                  std::vector<std::pair<std::string, std::string>>* out) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "WITH rel AS (SELECT pg_catalog.to_regclass($1)::pg_catalog.oid AS oid), "
      "objs AS ("
      " SELECT c.oid, c.reltablespace FROM pg_catalog.pg_class c, rel "
      " WHERE c.oid = rel.oid"
      " UNION ALL SELECT t.oid, t.reltablespace FROM pg_catalog.pg_class c "
      " JOIN pg_catalog.pg_class t ON t.oid = c.reltoastrelid, rel "
      " WHERE c.oid = rel.oid"
      " UNION ALL SELECT ti.oid, ti.reltablespace FROM pg_catalog.pg_class "
      " c JOIN pg_catalog.pg_index x ON x.indrelid = c.reltoastrelid "
      " JOIN pg_catalog.pg_class ti ON ti.oid = x.indexrelid, rel "
      " WHERE c.oid = rel.oid"
      " UNION ALL SELECT i.oid, i.reltablespace FROM pg_catalog.pg_index x "
      " JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid, rel "
      " WHERE x.indrelid = rel.oid AND $2)"
      "SELECT o.oid::pg_catalog.regclass::pg_catalog.text, ts.spcname FROM "
      "objs o "
      "JOIN pg_catalog.pg_tablespace ts ON ts.oid = coalesce(nullif("
      "o.reltablespace, 0), (SELECT dattablespace FROM "
      "pg_catalog.pg_database WHERE datname = "
      "pg_catalog.current_database())) ORDER BY 1",
      {relation, with_indexes ? "true" : "false"}, &r));
  for (const auto& row : r.rows) out->emplace_back(Cell(row, 0), Cell(row, 1));
  return Status::Ok();
}

// The relation's current quoted name: the journaled name of an online
// step (its oid names the old copy after the swap), else by oid.
Status CurrentName(SqlSession* session, const Placement& p,
                   const std::map<std::string, StepRecord>& records,
                   uint32_t oid, const TableFacts& before, std::string* schema,
                   std::string* name) {
  auto rec = records.find(PlacementStepKey(p));
  if (rec != records.end() && OnlineStepTable(rec->second, schema, name)) {
    return Status::Ok();
  }
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN "
      "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = "
      "$1::pg_catalog.oid",
      {std::to_string(oid)}, &r));
  if (r.rows.empty() && before.kind == 'i' && before.exists) {
    // An index rebuilt by REINDEX CONCURRENTLY: same name, new oid.
    *schema = before.schema;
    *name = before.name;
    return Status::Ok();
  }
  if (r.rows.empty()) {
    return Status::NotFound(p.relation + " no longer exists");
  }
  *schema = Cell(r.rows[0], 0);
  *name = Cell(r.rows[0], 1);
  return Status::Ok();
}

// Each table an online step swapped has its own triggers and no other
// (docs/security.md#code-of-other-roles); one the table lost since the run
// began is its owner's business.
Status CheckSwappedTriggers(SqlSession* session, const Plan& plan,
                            const std::map<std::string, StepRecord>& records,
                            const RunFacts& facts,
                            std::vector<std::string>* problems) {
  for (const Placement& p : plan.placements) {
    auto rec = records.find(PlacementStepKey(p));
    std::string schema, name;
    if (rec == records.end() || !OnlineStepTable(rec->second, &schema, &name)) {
      continue;
    }
    std::string table = QuoteIdent(schema) + "." + QuoteIdent(name);
    std::vector<std::string> foreign, missing;
    PGLAYOUT_RETURN_IF_ERROR(CompareTriggers(
        session, table, facts.Table(p.relation).dependents.triggers, &foreign,
        &missing));
    for (const std::string& f : foreign) {
      problems->push_back(table +
                          " has a trigger it did not have when the run "
                          "began, which is not the table's own: " +
                          f);
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckPlacement(SqlSession* session, const Placement& p,
                      const std::map<std::string, StepRecord>& records,
                      uint32_t oid, const TableFacts& before,
                      std::vector<std::string>* problems) {
  std::vector<std::pair<std::string, std::string>> objs;
  std::vector<std::string> expected;
  TableFacts stub;
  PGLAYOUT_RETURN_IF_ERROR(
      CurrentName(session, p, records, oid, before, &stub.schema, &stub.name));
  std::string qualified = QuoteIdent(stub.schema) + "." + QuoteIdent(stub.name);
  if (p.strategy == Strategy::kMove) {
    PGLAYOUT_RETURN_IF_ERROR(Placements(session, qualified, true, &objs));
    expected.assign(objs.size(), p.tablespaces[0]);
  } else {
    OnlineTarget target = TargetOf(p);
    OnlineNames names = MakeOnlineNames(stub, target);
    for (int r = 0; r < p.partitions; ++r) {
      size_t count = objs.size();
      PGLAYOUT_RETURN_IF_ERROR(
          Placements(session, names.QualifiedPartition(r), true, &objs));
      expected.resize(objs.size(), PartitionTablespace(target, r));
      if (objs.size() == count) {
        problems->push_back("partition " + names.QualifiedPartition(r) +
                            " is missing");
      }
    }
  }
  for (size_t i = 0; i < objs.size(); ++i) {
    if (objs[i].second != expected[i]) {
      problems->push_back(fmt::format("{} is in tablespace {}, planned {}",
                                      objs[i].first, objs[i].second,
                                      expected[i]));
    }
  }
  return Status::Ok();
}

Status VerifyRun(Executor* ex, const Plan& plan, const RunFacts& facts,
                 const Step& s, int no) {
  // The journal as it is now: the online steps of this run have recorded
  // their tables' names.
  std::map<std::string, StepRecord> records;
  PGLAYOUT_RETURN_IF_ERROR(ex->journal()->LoadSteps(ex->run_id(), &records));
  std::vector<std::string> problems;
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kStay) continue;
    PGLAYOUT_RETURN_IF_ERROR(
        CheckPlacement(ex->session(), p, records, facts.Oid(p.relation),
                       facts.Table(p.relation), &problems));
  }
  // Only the plan's own relations (with their partitions and TOAST): an
  // invalid index or a trigger elsewhere is not this run's to judge, and
  // must not keep every run from finishing.
  std::vector<std::string> planned;
  for (const Placement& p : plan.placements) {
    if (p.strategy != Strategy::kStay) planned.push_back(p.relation);
  }
  PGLAYOUT_RETURN_IF_ERROR(
      CheckSwappedTriggers(ex->session(), plan, records, facts, &problems));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      std::string(kRelationsCte) +
          "SELECT tgrelid::pg_catalog.regclass::pg_catalog.text || ' has "
          "trigger ' || tgname "
          "FROM pg_catalog.pg_trigger WHERE tgname IN " +
          kOwnTriggerNames +
          " AND tgrelid IN (SELECT oid FROM r) UNION ALL SELECT 'invalid "
          "index ' || indexrelid::pg_catalog.regclass::pg_catalog.text FROM "
          "pg_catalog.pg_index "
          "WHERE NOT indisvalid AND indrelid IN (SELECT oid FROM r)",
      {TextArrayLiteral(planned)}, &r));
  for (const auto& row : r.rows) problems.push_back(Cell(row, 0));
  std::vector<SettingRecord> settings;
  PGLAYOUT_RETURN_IF_ERROR(
      ex->journal()->LoadSettings(ex->run_id(), &settings));
  for (const SettingRecord& rec : settings) {
    if (rec.kind == "guard" && rec.state != "restored" &&
        rec.state != "superseded" && rec.state != "left" &&
        rec.state != "deferred" && rec.state != "changed") {
      problems.push_back("setting " + rec.name + " was not restored");
    }
  }
  if (!problems.empty()) {
    std::string text = "final check failed:";
    for (const std::string& p : problems) text += "\n  " + DisplayName(p);
    return Status::Internal(text);
  }
  ex->Line(
      "final check: every relation is in its planned tablespace; no "
      "leftover triggers, invalid indexes or unrestored settings");
  return MarkStepDone(ex, s, no);
}

}  // namespace pglayout::migrator
