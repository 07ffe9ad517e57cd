// The SQL text of the simple plan actions: tablespaces, offline moves and
// server settings.
//
// Contract (shared with planner/plan_sql, which may call these so that the
// plan.sql a person reviews and what `migrate` runs are the same text):
// - every identifier is quoted with QuoteIdent/QuoteQualified, so names with
//   capitals, spaces or quotes work and cannot inject SQL;
// - the few values that cannot be bound as parameters (CREATE TABLESPACE's
//   LOCATION, ALTER SYSTEM and reloption values) go through QuoteLiteral;
// - each function returns one statement without a trailing semicolon.
// Where a statement must run outside a transaction block it is said so.

#ifndef PGLAYOUT_MIGRATOR_SQL_TEXT_H_
#define PGLAYOUT_MIGRATOR_SQL_TEXT_H_

#include <map>
#include <string>

#include "common/model.h"

namespace pglayout::migrator {

// CREATE TABLESPACE "name" LOCATION '/path'. Not in a transaction block.
std::string CreateTablespaceSql(const TablespaceSpec& ts);

// ALTER TABLESPACE "name" SET (opt = 'value', ...); "" without options.
std::string AlterTablespaceOptionsSql(const TablespaceSpec& ts);

// ALTER TABLE|INDEX|MATERIALIZED VIEW <relation> SET TABLESPACE "ts", by
// relkind ('r', 'i', 'm'). |relation| is already quoted-qualified.
std::string SetTablespaceSql(char relkind, const std::string& relation,
                             const std::string& tablespace);

// REINDEX (TABLESPACE "ts") INDEX CONCURRENTLY <index>: an online index
// move (14+). Not in a transaction block.
std::string ReindexConcurrentlySql(const std::string& index,
                                   const std::string& tablespace);

// ALTER SYSTEM SET "name" = 'value' / ALTER SYSTEM RESET "name". Not in a
// transaction block; take effect after ReloadConfSql() (or a restart for
// postmaster-context settings).
std::string AlterSystemSetSql(const std::string& name,
                              const std::string& value);
std::string AlterSystemResetSql(const std::string& name);
std::string ReloadConfSql();

// "WITH (fillfactor = '90', toast.autovacuum_enabled = 'off')" from
// reloptions as pg_class prints them ("fillfactor=90"); "" when empty.
std::string WithOptionsClause(const std::vector<std::string>& reloptions,
                              const std::vector<std::string>& toast_options);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_SQL_TEXT_H_
