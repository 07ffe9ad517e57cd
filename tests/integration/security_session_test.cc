// The attacks on pglayout's sessions (docs/security.md, "Sessions"): a role
// that owns the database plants functions and operators in public that win
// over pg_catalog's for an unqualified call, points the search_path at
// them, or turns standard_conforming_strings off so that a backslash in a
// literal ends it; then the superuser runs observe, migrate --apply,
// --status and report --journal. Also the role and database settings that
// must not break a command (timeouts), and the scan of every statement the
// server logged for pglayout's own sessions.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pg/sql.h"
#include "testing/pg_test.h"
#include "testing/sql_qualification.h"
#include "tests/integration/attacker.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

std::string Tag(const std::string& name, PgVersion version) {
  std::ostringstream os;
  PrintTo(version, &os);
  return name + "_" + os.str();
}

Status Exec(const std::string& conninfo, const std::string& sql) {
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_RETURN_IF_ERROR(OpenPgSessionAsConfigured(conninfo, "setup", &s));
  return ExecuteSql(s.get(), sql);
}

// public.t (moved online) and public.h (converted to 3 hash partitions),
// each with a few thousand rows, owned by |owner|.
std::string Tables(const std::string& owner) {
  return "CREATE TABLE public.t (id int PRIMARY KEY, v text);"
         "INSERT INTO public.t SELECT g, 'v' || g "
         "FROM pg_catalog.generate_series(1, 3000) g;"
         "CREATE TABLE public.h (id int PRIMARY KEY, v text);"
         "INSERT INTO public.h SELECT g, 'h' FROM "
         "pg_catalog.generate_series(1, 2000) g;"
         "ALTER TABLE public.t OWNER TO " +
         QuoteIdent(owner) + "; ALTER TABLE public.h OWNER TO " +
         QuoteIdent(owner);
}

std::string Plan(PgCluster* pg, const std::string& tag) {
  std::string dir;
  EXPECT_TRUE(pg->MakeDirectory(tag + "_ts", &dir).ok());
  return "[[tablespace]]\nname = \"" + tag + "_ts\"\npath = \"" + dir +
         "\"\n[[placement]]\nrelation = \"public.t\"\nstrategy = \"move\"\n"
         "tablespaces = [\"" +
         tag +
         "_ts\"]\n"
         "[[placement]]\nrelation = \"public.h\"\n"
         "strategy = \"hash_partition\"\ntablespaces = [\"pg_default\"]\n"
         "partitions = 3\nkey = [\"id\"]\n";
}

// observe, migrate --apply of Plan(), migrate --status and report
// --journal against |conninfo|, each expected to exit 0.
void RunEveryCommand(PgCluster* pg, const std::string& tag,
                     const std::string& conninfo) {
  const std::string dir = ::testing::TempDir();
  Completion observe = RunPglayout(
      {"observe", "--dsn", conninfo, "--duration", "3s", "--interval", "1s",
       "--no-device-reads", "-o", dir + "/" + tag + "-workload.toml"});
  EXPECT_EQ(observe.exit_code, 0) << observe.output;
  const std::string plan = WriteTempFile(tag + "-plan.toml", Plan(pg, tag));
  Completion apply =
      RunPglayout({"migrate", plan, "--dsn", conninfo, "--apply", "--throttle",
                   "off", "--no-checkpoint-guard"});
  EXPECT_EQ(apply.exit_code, 0) << apply.output;
  Completion status = RunPglayout({"migrate", "--status", "--dsn", conninfo});
  EXPECT_EQ(status.exit_code, 0) << status.output;
  Completion report = RunPglayout({"report", "--journal", conninfo, "-o",
                                   dir + "/" + tag + "-report.html"});
  EXPECT_EQ(report.exit_code, 0) << report.output;
}

// The attacker's trap as a function of |signature| returning |returns|,
// whose value is |value| (a PL/pgSQL expression over $1, $2).
std::string TrapFunction(const AttackerDatabase& db,
                         const std::string& signature,
                         const std::string& returns, const std::string& value) {
  return "CREATE FUNCTION " + signature + " RETURNS " + returns +
         " LANGUAGE plpgsql AS " + QuoteLiteral(EscalationBody(db, value)) +
         ";";
}

class SecuritySessionTest : public PgVersionTest {};

// Exact-type overloads in public win over pg_catalog's for an unqualified
// call (quote_ident(text) given a name, pg_relation_size(regclass, text)
// given an oid, ...), and an operator for (name, name) over pg_catalog's
// (name, text) for `relname LIKE '...'`, with the default search_path.
TEST_P(SecuritySessionTest, OverloadsInPublicNeverRunAsTheSuperuser) {
  PgCluster* pg = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  AttackerDatabase db;
  const std::string tag = Tag("overload", version());
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(pg, tag, &db));
  PGLAYOUT_ASSERT_OK(Exec(db.superuser_conninfo, Tables(db.role)));
  PGLAYOUT_ASSERT_OK(Exec(
      db.attacker_conninfo,
      TrapFunction(db, "public.quote_ident(name)", "text",
                   "pg_catalog.quote_ident($1::pg_catalog.text)") +
          TrapFunction(db, "public.pg_relation_size(oid, text)", "bigint",
                       "pg_catalog.pg_relation_size($1::pg_catalog.regclass, "
                       "$2)") +
          TrapFunction(
              db, "public.pg_partition_root(oid)", "regclass",
              "pg_catalog.pg_partition_root($1::pg_catalog.regclass)") +
          TrapFunction(db, "public.unnest(int2vector)", "smallint", "$1[0]") +
          TrapFunction(db, "public.trap_sfunc(text, name)", "text", "$1") +
          "CREATE AGGREGATE public.json_agg(name) (sfunc = public.trap_sfunc, "
          "stype = text);" +
          TrapFunction(db, "public.trap_like(name, name)", "boolean",
                       "pg_catalog.textlike($1::pg_catalog.text, "
                       "$2::pg_catalog.text)") +
          "CREATE OPERATOR public.~~ (function = public.trap_like, "
          "leftarg = name, rightarg = name);"));
  RunEveryCommand(pg, tag, db.superuser_conninfo);
  EXPECT_TRUE(NoEscalation(pg, db));
}

// The database's search_path (the owner may set it) and the superuser's own
// in that database put public before pg_catalog: then even a function of
// pg_catalog's exact signature loses to public's.
TEST_P(SecuritySessionTest, ASearchPathSetForTheDatabaseOrTheRoleIsIgnored) {
  PgCluster* pg = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  AttackerDatabase db;
  const std::string tag = Tag("searchpath", version());
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(pg, tag, &db));
  PGLAYOUT_ASSERT_OK(Exec(db.superuser_conninfo, Tables(db.role)));
  PGLAYOUT_ASSERT_OK(Exec(
      db.attacker_conninfo,
      TrapFunction(db, "public.current_database()", "name",
                   "pg_catalog.current_database()") +
          TrapFunction(db, "public.quote_ident(text)", "text",
                       "pg_catalog.quote_ident($1)") +
          TrapFunction(db, "public.now()", "timestamptz", "pg_catalog.now()") +
          "ALTER DATABASE " + QuoteIdent(db.dbname) +
          " SET search_path = public, pg_catalog"));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "ALTER ROLE CURRENT_USER IN DATABASE " +
                                  QuoteIdent(db.dbname) +
                                  " SET search_path = public, pg_catalog"));
  RunEveryCommand(pg, tag, db.superuser_conninfo);
  EXPECT_TRUE(NoEscalation(pg, db));
  PGLAYOUT_EXPECT_OK(
      ExecuteSql(admin.get(), "ALTER ROLE CURRENT_USER IN DATABASE " +
                                  QuoteIdent(db.dbname) + " RESET ALL"));
}

// With standard_conforming_strings = off a backslash escapes the quote that
// QuoteLiteral doubled: the comment below would end its literal at \' and
// leave a CREATE ROLE as SQL of the swap.
TEST_P(SecuritySessionTest, ABackslashInACommentStaysInTheComment) {
  PgCluster* pg = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  AttackerDatabase db;
  const std::string tag = Tag("scs", version());
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(pg, tag, &db));
  PGLAYOUT_ASSERT_OK(Exec(db.superuser_conninfo, Tables(db.role)));
  const std::string comment = "c\\'; CREATE ROLE pwned SUPERUSER LOGIN; --";
  const std::string database = QuoteIdent(db.dbname);
  PGLAYOUT_ASSERT_OK(
      Exec(db.attacker_conninfo,
           "COMMENT ON TABLE public.t IS " + QuoteLiteral(comment) +
               "; COMMENT ON COLUMN public.t.v IS " + QuoteLiteral(comment) +
               "; ALTER DATABASE " + database +
               " SET standard_conforming_strings = off; ALTER DATABASE " +
               database + " SET escape_string_warning = off"));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      admin.get(),
      "DROP ROLE IF EXISTS pwned; ALTER ROLE CURRENT_USER IN DATABASE " +
          database +
          " SET standard_conforming_strings = off; ALTER ROLE CURRENT_USER "
          "IN DATABASE " +
          database + " SET escape_string_warning = on"));
  RunEveryCommand(pg, tag, db.superuser_conninfo);
  EXPECT_EQ(Value(admin.get(),
                  "SELECT pg_catalog.count(*) FROM pg_catalog.pg_roles "
                  "WHERE rolname = 'pwned'"),
            "0");
  std::unique_ptr<SqlSession> check;
  PGLAYOUT_ASSERT_OK(OpenPgSession(db.superuser_conninfo, "check", &check));
  EXPECT_EQ(Value(check.get(),
                  "SELECT pg_catalog.obj_description("
                  "'public.t'::pg_catalog.regclass, 'pg_class')"),
            comment);
  EXPECT_EQ(Value(check.get(),
                  "SELECT pg_catalog.col_description("
                  "'public.t'::pg_catalog.regclass, 2)"),
            comment);
  EXPECT_TRUE(NoEscalation(pg, db));
  PGLAYOUT_EXPECT_OK(
      ExecuteSql(admin.get(),
                 "DROP ROLE IF EXISTS pwned; ALTER ROLE CURRENT_USER IN "
                 "DATABASE " +
                     database + " RESET ALL"));
}

// public.tk, keyed by text, and public.ck, by (varchar(20), timestamptz),
// owned by |owner|, and a plan that moves both online to tablespace
// logged_keys_ts.
std::string KeyedTables(const std::string& owner) {
  return "CREATE TABLE public.tk (k text PRIMARY KEY, v int);"
         "INSERT INTO public.tk SELECT 'k' || g, g FROM "
         "pg_catalog.generate_series(1, 1000) g;"
         "CREATE TABLE public.ck (a varchar(20), b timestamptz, v int, "
         "PRIMARY KEY (a, b)); INSERT INTO public.ck SELECT 'a' || g % 7, "
         "'2024-01-01'::timestamptz + g * interval '1 minute', g FROM "
         "pg_catalog.generate_series(1, 1000) g;"
         "ALTER TABLE public.tk OWNER TO " +
         QuoteIdent(owner) + "; ALTER TABLE public.ck OWNER TO " +
         QuoteIdent(owner);
}

std::string KeyedPlan(PgCluster* pg) {
  std::string dir;
  EXPECT_TRUE(pg->MakeDirectory("logged_keys_ts", &dir).ok());
  std::string toml =
      "[[tablespace]]\nname = \"logged_keys_ts\"\npath = \"" + dir + "\"\n";
  for (const char* table : {"public.tk", "public.ck"}) {
    toml += std::string("[[placement]]\nrelation = \"") + table +
            "\"\nstrategy = \"move\"\ntablespaces = [\"logged_keys_ts\"]\n";
  }
  return toml;
}

// Every statement the server logged for pglayout's own sessions (observe,
// migrate --apply of a move and a hash conversion, --status, report
// --journal, and a move in key order of tables keyed by text and by
// varchar and timestamptz, in batches of 100 rows: the cursor's casts)
// calls functions and casts to types by their schema.
TEST_P(SecuritySessionTest, EveryStatementPglayoutSendsIsQualified) {
  std::unique_ptr<PgCluster> pg;
  PgClusterOptions options;
  // wal_level = logical: the commands' migrate captures by logical
  // decoding (auto), the keyed tables' by trigger, so both are scanned.
  options.settings = {{"log_statement", "all"},
                      {"log_line_prefix", "%m [%p] app=%a "},
                      {"wal_level", "logical"}};
  PGLAYOUT_ASSERT_OK(StartCluster(options, &pg));
  AttackerDatabase db;
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(pg.get(), "logged", &db));
  PGLAYOUT_ASSERT_OK(Exec(db.superuser_conninfo,
                          Tables(db.role) + ";" + KeyedTables(db.role)));
  RunEveryCommand(pg.get(), "logged", db.superuser_conninfo);
  Completion keyed = RunPglayout(
      {"migrate", WriteTempFile("logged-keys-plan.toml", KeyedPlan(pg.get())),
       "--dsn", db.superuser_conninfo, "--apply", "--throttle", "off",
       "--no-checkpoint-guard", "--copy-order", "key", "--batch-rows", "100",
       "--capture", "trigger"});
  EXPECT_EQ(keyed.exit_code, 0) << keyed.output;
  std::ifstream in(pg->log_path());
  std::stringstream log;
  log << in.rdbuf();
  std::vector<LoggedStatement> statements = ParseStatementLog(log.str());
  // A session's name is the last it logged: its first statement sets it.
  std::map<int, std::string> app_of;
  for (const LoggedStatement& s : statements) {
    if (!s.application_name.empty()) app_of[s.pid] = s.application_name;
  }
  std::set<std::string> commands;
  std::set<std::string> offending;
  size_t scanned = 0, cursors = 0;
  for (const LoggedStatement& s : statements) {
    const std::string& app = app_of[s.pid];
    if (app.rfind("pglayout", 0) != 0 || app == "pglayout-test") continue;
    commands.insert(app.substr(0, app.find('/')));
    ++scanned;
    if (s.sql.find(") > ($1::") != std::string::npos) ++cursors;
    std::vector<std::string> names = UnqualifiedNames(s.sql);
    if (names.empty()) continue;
    std::string found;
    for (const std::string& n : names) found += " " + n;
    offending.insert(found + " in: " + s.sql.substr(0, 300));
  }
  EXPECT_GT(scanned, 100u);
  EXPECT_GE(cursors, 18u) << "the keyed tables' batches after the first";
  EXPECT_EQ(commands,
            std::set<std::string>(
                {"pglayout observe", "pglayout report", "pglayout-migrate"}));
  for (const std::string& o : offending) ADD_FAILURE() << o;
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SecuritySessionTest);

// Issue 39: role and database settings for the role pglayout connects as
// cannot break a command; each set both ways, then every command runs.
class SessionSettingsTest : public PgVersionTest {
 protected:
  void RunWith(const std::string& name, const std::string& setting) {
    PgCluster* pg = nullptr;
    PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
    AttackerDatabase db;
    const std::string tag = Tag(name, version());
    PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(pg, tag, &db));
    PGLAYOUT_ASSERT_OK(Exec(db.superuser_conninfo, Tables(db.role)));
    const std::string database = QuoteIdent(db.dbname);
    std::unique_ptr<SqlSession> admin;
    PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
    PGLAYOUT_ASSERT_OK(ExecuteSql(
        admin.get(), "ALTER DATABASE " + database + " SET " + setting +
                         "; ALTER ROLE CURRENT_USER IN DATABASE " + database +
                         " SET " + setting));
    RunEveryCommand(pg, tag, db.superuser_conninfo);
    PGLAYOUT_EXPECT_OK(
        ExecuteSql(admin.get(), "ALTER ROLE CURRENT_USER IN DATABASE " +
                                    database + " RESET ALL; ALTER DATABASE " +
                                    database + " RESET ALL"));
  }
};

TEST_P(SessionSettingsTest, StatementTimeout) {
  RunWith("stmt_timeout", "statement_timeout = '100ms'");
}
TEST_P(SessionSettingsTest, LockTimeout) {
  RunWith("lock_timeout", "lock_timeout = '1ms'");
}
TEST_P(SessionSettingsTest, IdleInTransactionSessionTimeout) {
  RunWith("idle_tx_timeout", "idle_in_transaction_session_timeout = '100ms'");
}
TEST_P(SessionSettingsTest, SearchPath) {
  RunWith("search_path", "search_path = 'public, pg_catalog'");
}
TEST_P(SessionSettingsTest, DefaultTransactionReadOnly) {
  RunWith("read_only", "default_transaction_read_only = on");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SessionSettingsTest);

// idle_session_timeout exists from 14: the side sessions of a move and
// observe between its samples sit idle longer than this.
class IdleSessionTimeoutTest : public SessionSettingsTest {};

TEST_P(IdleSessionTimeoutTest, IdleSessionTimeout) {
  RunWith("idle_timeout", "idle_session_timeout = '200ms'");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(IdleSessionTimeoutTest);

}  // namespace
}  // namespace pglayout
