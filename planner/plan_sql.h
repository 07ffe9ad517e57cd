// The SQL a plan stands for: what `pglayout migrate` runs and what plan.sql
// shows for review, shared so that the two never disagree. Needs no server:
// what it must know of the relations comes in a SqlObjects. Steps come in
// order (tablespaces, moves, hash partitions, settings); online steps are
// shown as their end result; every identifier and value is quoted.
// Why: docs/planning.md#the-plans-sql.

#ifndef PGLAYOUT_PLANNER_PLAN_SQL_H_
#define PGLAYOUT_PLANNER_PLAN_SQL_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout::planner {

struct SqlObjects {
  // table -> its indexes, schema-qualified as in the plan.
  std::map<std::string, std::vector<std::string>> indexes;
  // Tablespaces that exist already: not created again.
  std::set<std::string> existing_tablespaces;
  int server_version_num = 0;  // 0 = unknown (the newest is assumed)
  // Partitions -> their parent (PartitionParent): a hash_partition
  // placement of one is a split
  // (docs/online-migration.md#splitting-a-hash-partition).
  std::map<std::string, std::string> partition_parents;
};

struct SqlStep {
  std::string comment;  // one line: what and why
  std::string sql;      // one statement, no trailing semicolon
  // false: must run outside a transaction block (CREATE TABLESPACE,
  // ALTER SYSTEM, ... CONCURRENTLY).
  bool in_transaction = true;
  // true: done by migrate's online engine (copy with change capture, then
  // a short swap); |sql| states the end result, and plan.sql shows it as a
  // comment so that running plan.sql by hand never takes long locks.
  bool online = false;
  bool needs_restart = false;  // a setting that applies after a restart
};

// The steps of |plan|. InvalidInput when a setting or tablespace option
// name is not a plain identifier, or a placement names a relation that
// SplitQualifiedName rejects.
Status PlanSqlSteps(const Plan& plan, const SqlObjects& objects,
                    std::vector<SqlStep>* steps);

// plan.sql: a header, then each step as "-- comment" and "statement;" (an
// online step as a commented statement).
std::string RenderPlanSql(const std::vector<SqlStep>& steps);

// Comment lines for plan.sql when pg_wal must move (Plan::wal_move): not
// SQL and never run by migrate, it needs the server stopped; "" otherwise.
std::string WalMoveSqlNote(const Plan& plan);

// The name of the k-th hash partition of |table|, kept within PostgreSQL's
// 63-byte identifiers (the name migrate gives it).
std::string PartitionName(const std::string& table, int remainder);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_SQL_H_
