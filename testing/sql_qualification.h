// A scanner for the rule of docs/security.md ("Sessions"): every function
// and every cast in SQL that pglayout sends names its schema, as pg_dump
// writes it. The security suite runs it over the statements a server
// logged (log_statement = all) for pglayout's own sessions.
//
// It skips string literals ('...', E'...', $$...$$), comments and quoted
// identifiers, and flags `name(` not preceded by `schema.` unless name is
// an SQL keyword that takes parentheses (IN, EXISTS, VALUES, ANY, ARRAY,
// COALESCE, CASE, CAST, ...) or follows a word after which a name is an
// object or an alias (TABLE t (, INTO t (, USING btree (, AS k(...)), and
// `::type` unless the type is schema-qualified or one of the type names
// the grammar itself maps to pg_catalog (integer, bigint, boolean, ...).
// A heuristic for pglayout's own SQL: it does not parse SQL.

#ifndef PGLAYOUT_TESTING_SQL_QUALIFICATION_H_
#define PGLAYOUT_TESTING_SQL_QUALIFICATION_H_

#include <string>
#include <vector>

namespace pglayout {

// The unqualified calls and casts in |sql|, in order, each as written
// ("quote_ident(", "::oid").
std::vector<std::string> UnqualifiedNames(const std::string& sql);

struct LoggedStatement {
  std::string application_name;  // the session's, when the log names it
  int pid = 0;
  std::string sql;
};

// The statements of a server log written with
// log_line_prefix = '%m [%p] app=%a ' and log_statement = all: simple
// queries ("statement: ") and extended ones ("execute <unnamed>: "), with
// their continuation lines.
std::vector<LoggedStatement> ParseStatementLog(const std::string& log);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_SQL_QUALIFICATION_H_
