// The seam between pglayout and PostgreSQL.
//
// Everything that talks to a server (observe, migrate, the test harness) goes
// through SqlSession; the one real implementation (pqxx_session.cc) is the
// only file that includes libpqxx, so libpqxx exceptions never cross it.
// Tests of pure logic use a fake that records statements.
//
// Values travel as text in PostgreSQL's text format; NULL is std::nullopt.

#ifndef PGLAYOUT_COMMON_SQL_H_
#define PGLAYOUT_COMMON_SQL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pglayout {

using SqlValue = std::optional<std::string>;

struct SqlResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
  int64_t affected_rows = 0;  // for INSERT/UPDATE/DELETE

  // Index of |column|, or -1.
  int ColumnIndex(const std::string& column) const;
};

class SqlSession {
 public:
  virtual ~SqlSession() = default;

  // Runs one statement with parameters $1..$n bound to |params|. Statements
  // run in autocommit mode unless the caller sent BEGIN; statements that
  // cannot run in a transaction block (CREATE TABLESPACE, ALTER SYSTEM) work
  // here as long as the caller has not. On failure returns SqlError whose
  // message has the server's text and SQLSTATE; last_sqlstate() keeps it.
  virtual Status Execute(const std::string& sql,
                         const std::vector<SqlValue>& params,
                         SqlResult* result) = 0;

  // SQLSTATE of the last failed Execute ("" if it succeeded).
  virtual std::string last_sqlstate() const = 0;

  // server_version_num, e.g. 150020.
  virtual int server_version() const = 0;

  // "host:port/dbname as user": for messages; never contains a password.
  virtual std::string Describe() const = 0;
};

// The search_path of every session OpenPgSession opens: pg_catalog first,
// pg_temp last, no schema another role can create objects in.
inline constexpr char kSessionSearchPath[] = "pg_catalog, pg_temp";

// Opens a session from a libpq connection string or URI ("" = PG* env
// variables and defaults), hardened before any other statement with
// SessionHardeningSql (docs/security.md, "Sessions"): no role or database
// setting of the server changes what pglayout's SQL means or when it is
// cancelled. |application_name| tags the backend so that a later run can
// find it in pg_stat_activity. Connection errors name host and port, never
// the password (RedactPasswords, common/conninfo_mask.h). Once the connection
// is lost, every later statement fails with Unavailable giving the server's
// reason.
Status OpenPgSession(const std::string& conninfo,
                     const std::string& application_name,
                     std::unique_ptr<SqlSession>* session);
// The same connection without the hardening: the role's and database's own
// settings, as psql would have them. For the test harness and tests that
// run SQL as a DBA types it; never for a pglayout command.
Status OpenPgSessionAsConfigured(const std::string& conninfo,
                                 const std::string& application_name,
                                 std::unique_ptr<SqlSession>* session);

// The one statement OpenPgSession sends first ($1 = application_name):
// pg_catalog.set_config of search_path, standard_conforming_strings,
// client_encoding, the output styles pglayout parses, row_security and
// every timeout (0; a stage sets its own afterwards) that |server_version|
// has.
std::string SessionHardeningSql(int server_version);

// Convenience wrappers over SqlSession::Execute.
Status ExecuteSql(SqlSession* session, const std::string& sql);
// Runs |sql| and stores the first column of the single row in *value;
// NotFound if there is no row.
Status QueryValue(SqlSession* session, const std::string& sql,
                  const std::vector<SqlValue>& params, SqlValue* value);

// A text[] literal for a $n::text[] parameter: {"a","b \"c\""}.
std::string TextArrayLiteral(const std::vector<std::string>& values);
// Parses a one-dimensional array literal as PostgreSQL prints it
// ({a,"b c",NULL}); NULL elements become std::nullopt.
std::vector<SqlValue> ParseArrayLiteral(const std::string& text);

// "My Table" -> "\"My Table\"": a quoted identifier, always.
std::string QuoteIdent(const std::string& name);
// For messages: |name| as a person would type it, quoted only when it is
// not a plain lowercase identifier ([a-z_][a-z0-9_$]*), so that a name such
// as `,")` cannot be misread: "id", "Order", ","")"; control characters
// escaped (DisplayName), so that a message stays one line.
std::string DisplayIdent(const std::string& name);
// Each name through DisplayIdent, joined by ", ".
std::string DisplayIdentList(const std::vector<std::string>& names);
// Relation names in pglayout's files are written as PostgreSQL prints a
// regclass: public.orders, public."My Table", "Sales"."Q1.data". Unquoted
// parts fold to lower case, quoted parts keep case and "" stands for ".
// Splits such a name into schema ("" when absent) and relation. Returns
// InvalidInput for an empty part, an unclosed quote or more than two parts.
Status SplitQualifiedName(const std::string& text, std::string* schema,
                          std::string* name);
// The quoted SQL spelling of such a name: "public"."My Table". Input that
// does not parse is quoted whole, so it can never inject SQL.
std::string QuoteQualified(const std::string& qualified_name);
// 'it''s': a quoted literal, for the rare statements that take no
// parameters (CREATE TABLESPACE ... LOCATION). As libpq's PQescapeLiteral:
// a value with a backslash is written E'...' with backslashes doubled too,
// so the literal means the same whatever standard_conforming_strings is.
std::string QuoteLiteral(const std::string& value);

// The server's cumulative checkpoint counts on a primary: timed and
// requested of ReadCheckpointStatistics (common/pg_catalog_read.h), whose
// comment says where they come from.
struct CheckpointCounts {
  int64_t timed = 0;
  int64_t requested = 0;
};
Status ReadCheckpointCounts(SqlSession* session, CheckpointCounts* counts);

// The checkpoints between two readings of the counts, or unknown: the
// statistics start over at a server restart after a crash and at
// pg_stat_reset_shared, so a count that went down, or |reset_why| not
// empty (a reset seen after the first reading), make both unknown. Never
// negative.
struct CheckpointDelta {
  bool known = true;
  int64_t timed = 0;
  int64_t requested = 0;
  std::string why;  // unknown: "statistics were reset by a server restart"
};
CheckpointDelta CheckpointsBetween(const CheckpointCounts& start,
                                   const CheckpointCounts& end,
                                   const std::string& reset_why);
// "3" or "unknown (statistics were reset by a server restart)".
std::string CountText(const CheckpointDelta& delta, int64_t count);
// Why the checkpoint statistics were reset after |since| (timestamptz
// text, e.g. a run's started_at) and, if |until| is not empty, no later
// than it: "statistics were reset by a server restart" when the server
// started after |since|, "statistics were reset" for a reset by hand
// (pg_stat_reset_shared); "" when they were not.
Status CheckpointStatsResetSince(SqlSession* session, const std::string& since,
                                 std::string* why,
                                 const std::string& until = "");

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_SQL_H_
