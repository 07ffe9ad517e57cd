// The SQL text of the simple layout changes (tablespaces, relation moves,
// index rebuilds, server settings), shared by plan.sql and `pglayout
// migrate`, so that a reviewed statement is byte for byte the one executed.
// Each function returns one statement without a trailing semicolon, or ""
// where there is nothing to do. Identifiers are quoted (relations come in
// already quoted-qualified); values that cannot be parameters go through
// QuoteLiteral; nothing is validated (the server does). Statements that
// must run outside a transaction block say so.
// Why: docs/planning.md#the-plans-sql.

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
