// The SQL text of the simple layout changes: tablespaces, relation moves,
// index rebuilds and server settings.
//
// Shared by planner/plan_sql (plan.sql, for review) and the migrator (what
// `pglayout migrate` runs), so that the two can never disagree: a
// statement in plan.sql is byte for byte the statement migrate executes.
//
// Contract:
// - every identifier is quoted with QuoteIdent (names with capitals, spaces
//   or quotes work and cannot inject SQL); relation names are passed in
//   already quoted-qualified (QuoteQualified or QuoteIdent(schema) + "." +
//   QuoteIdent(name));
// - the few values that cannot be bound as parameters (CREATE TABLESPACE's
//   LOCATION, ALTER SYSTEM and option values) go through QuoteLiteral;
// - each function returns one statement without a trailing semicolon, or ""
//   where there is nothing to do (said so below);
// - no function validates names or values: the server does. Callers that
//   want friendlier errors (the planner for hand-edited plans) check first.
// Statements that must run outside a transaction block are marked.

#ifndef PGLAYOUT_COMMON_DDL_H_
#define PGLAYOUT_COMMON_DDL_H_

#include <string>
#include <vector>

#include "common/model.h"

namespace pglayout {

// CREATE TABLESPACE "name" LOCATION '/path'. Outside a transaction block.
std::string CreateTablespaceSql(const TablespaceSpec& ts);

// ALTER TABLESPACE "name" SET ("opt" = 'value', ...) in the order of
// ts.options; "" when it has none.
std::string AlterTablespaceOptionsSql(const TablespaceSpec& ts);

// ALTER TABLE|INDEX|MATERIALIZED VIEW <relation> SET TABLESPACE "ts", by
// pg_class.relkind: 'i' (index), 'm' (materialized view), anything else a
// table. Takes ACCESS EXCLUSIVE for the whole copy.
std::string SetTablespaceSql(char relkind, const std::string& relation,
                             const std::string& tablespace);

// REINDEX (TABLESPACE "ts") INDEX CONCURRENTLY <index>: an online index
// move (PostgreSQL 14+). Outside a transaction block. The rebuilt index
// keeps the name but gets a new oid.
std::string ReindexConcurrentlySql(const std::string& index,
                                   const std::string& tablespace);

// ALTER SYSTEM SET "name" = 'value' / ALTER SYSTEM RESET "name". Outside a
// transaction block; they take effect after ReloadConfSql() (or a restart
// for postmaster-context settings).
std::string AlterSystemSetSql(const std::string& name,
                              const std::string& value);
std::string AlterSystemResetSql(const std::string& name);
// SELECT pg_catalog.pg_reload_conf()
std::string ReloadConfSql();

// WITH ("fillfactor" = '90', toast."autovacuum_enabled" = 'off') from
// reloptions as pg_class prints them ("fillfactor=90"); "" when both are
// empty.
std::string WithOptionsClause(const std::vector<std::string>& reloptions,
                              const std::vector<std::string>& toast_options);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_DDL_H_
