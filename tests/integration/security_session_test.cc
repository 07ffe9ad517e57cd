// The attacks on pglayout's sessions (docs/security.md, "Sessions"): a role
// that owns the database plants functions and operators in public that win
// over pg_catalog's for an unqualified call, points the search_path at
// them, or turns standard_conforming_strings off so that a backslash in a
// literal ends it; then the superuser runs observe, migrate --apply (an
// online move, a hash conversion, a partition's move, an offline move),
// a move killed mid-copy and its --abort, --status, --finalize and report
// --journal (RunEveryCommand). Also the role and database settings that
// must not break a command (timeouts), and the scan of every statement the
// server logged for pglayout's own sessions.

#include <gtest/gtest.h>
#include <signal.h>

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
#include "tests/integration/structure_fingerprint.h"
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

// public.t (moved online), public.h (converted to 3 hash partitions),
// public.m1 (a partition of the range-partitioned public.m, moved online),
// public.o (moved offline) and public.k (a move killed mid-copy, then
// aborted), each with a few thousand rows, all owned by |owner|.
std::string Tables(const std::string& owner) {
  std::string sql =
      "CREATE TABLE public.t (id int PRIMARY KEY, v text);"
      "INSERT INTO public.t SELECT g, 'v' || g "
      "FROM pg_catalog.generate_series(1, 3000) g;"
      "CREATE TABLE public.h (id int PRIMARY KEY, v text);"
      "INSERT INTO public.h SELECT g, 'h' FROM "
      "pg_catalog.generate_series(1, 2000) g;"
      "CREATE TABLE public.m (id int PRIMARY KEY, v text) "
      "PARTITION BY RANGE (id);"
      "CREATE TABLE public.m1 PARTITION OF public.m FOR VALUES FROM (1) TO "
      "(1001); CREATE TABLE public.m2 PARTITION OF public.m FOR VALUES FROM "
      "(1001) TO (2001);"
      "INSERT INTO public.m SELECT g, 'm' FROM "
      "pg_catalog.generate_series(1, 2000) g;"
      "CREATE TABLE public.o (id int PRIMARY KEY, v text);"
      "INSERT INTO public.o SELECT g, 'o' FROM "
      "pg_catalog.generate_series(1, 1000) g;"
      "CREATE TABLE public.k (id int PRIMARY KEY, v text);"
      "INSERT INTO public.k SELECT g, 'k' FROM "
      "pg_catalog.generate_series(1, 1000) g;";
  for (const char* table : {"t", "h", "m", "m1", "m2", "o", "k"}) {
    sql += std::string("ALTER TABLE public.") + table + " OWNER TO " +
           QuoteIdent(owner) + ";";
  }
  return sql;
}

std::string PlacementToml(const std::string& relation, const std::string& ts,
                          const std::string& extra) {
  return "[[placement]]\nrelation = \"" + relation +
         "\"\nstrategy = \"move\"\ntablespaces = [\"" + ts + "\"]\n" + extra;
}

// The tablespace |tag|_ts, made under the cluster's root, for a plan.
std::string TablespaceToml(PgCluster* pg, const std::string& tag) {
  std::string dir;
  EXPECT_TRUE(pg->MakeDirectory(tag + "_ts", &dir).ok());
  return "[[tablespace]]\nname = \"" + tag + "_ts\"\npath = \"" + dir + "\"\n";
}

// Every kind of move at once: t online, h to hash partitions, the
// partition m1 online, o offline.
std::string Plan(PgCluster* pg, const std::string& tag) {
  const std::string ts = tag + "_ts";
  return TablespaceToml(pg, tag) + PlacementToml("public.t", ts, "") +
         "[[placement]]\nrelation = \"public.h\"\n"
         "strategy = \"hash_partition\"\ntablespaces = [\"pg_default\"]\n"
         "partitions = 3\nkey = [\"id\"]\n" +
         PlacementToml("public.m1", ts, "") +
         PlacementToml("public.o", ts, "online = false\n");
}

// The tables a run keeps what they were (public.h becomes partitioned,
// and public.k is back as it was after --abort).
const char* const kKeptTables[] = {"public.t", "public.m1", "public.o",
                                   "public.k"};

std::vector<std::vector<std::string>> Fingerprints(
    const std::string& conninfo) {
  std::vector<std::vector<std::string>> out;
  std::unique_ptr<SqlSession> s;
  EXPECT_TRUE(OpenPgSession(conninfo, "fingerprint", &s).ok());
  for (const char* table : kKeptTables) {
    out.emplace_back();
    EXPECT_TRUE(TableFingerprint(s.get(), table, &out.back()).ok()) << table;
  }
  return out;
}

// Every command a superuser runs, each expected to exit 0 against
// |conninfo|: observe; a move of public.k killed at its second batch,
// then --abort; migrate --apply of Plan(); --status; --finalize (it drops
// the old copies the online moves kept); report --journal. After them
// the kept tables' structure is what it was and public.h is partitioned.
void RunEveryCommand(PgCluster* pg, const std::string& tag,
                     const std::string& conninfo) {
  const std::vector<std::vector<std::string>> before = Fingerprints(conninfo);
  const std::string dir = ::testing::TempDir();
  Completion observe = RunPglayout(
      {"observe", "--dsn", conninfo, "--duration", "3s", "--interval", "1s",
       "--no-device-reads", "-o", dir + "/" + tag + "-workload.toml"});
  EXPECT_EQ(observe.exit_code, 0) << observe.output;
  const std::string killed_plan = WriteTempFile(
      tag + "-killed.toml", TablespaceToml(pg, tag + "_k") +
                                PlacementToml("public.k", tag + "_k_ts", ""));
  Completion killed = RunPglayout(
      {"migrate", killed_plan, "--dsn", conninfo, "--apply", "--throttle",
       "off", "--no-checkpoint-guard", "--batch-rows", "100"},
      FailpointEnv("copy-batch:2:before-commit"));
  EXPECT_EQ(killed.signal, SIGKILL) << killed.output;
  Completion abort = RunPglayout({"migrate", "--abort", "--dsn", conninfo});
  EXPECT_EQ(abort.exit_code, 0) << abort.output;
  const std::string plan = WriteTempFile(tag + "-plan.toml", Plan(pg, tag));
  Completion apply =
      RunPglayout({"migrate", plan, "--dsn", conninfo, "--apply", "--throttle",
                   "off", "--no-checkpoint-guard"});
  EXPECT_EQ(apply.exit_code, 0) << apply.output;
  Completion status = RunPglayout({"migrate", "--status", "--dsn", conninfo});
  EXPECT_EQ(status.exit_code, 0) << status.output;
  Completion finalize =
      RunPglayout({"migrate", "--finalize", "--dsn", conninfo});
  EXPECT_EQ(finalize.exit_code, 0) << finalize.output;
  Completion report = RunPglayout({"report", "--journal", conninfo, "-o",
                                   dir + "/" + tag + "-report.html"});
  EXPECT_EQ(report.exit_code, 0) << report.output;
  const std::vector<std::vector<std::string>> after = Fingerprints(conninfo);
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    EXPECT_EQ(FingerprintDiff(before[i], after[i]), "") << kKeptTables[i];
  }
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(OpenPgSession(conninfo, "check", &s));
  EXPECT_EQ(Value(s.get(),
                  "SELECT pg_catalog.string_agg(c.relname || ':' || "
                  "COALESCE(t.spcname::pg_catalog.text, '-'), ',' ORDER BY "
                  "c.relname) FROM pg_catalog.pg_class c LEFT JOIN "
                  "pg_catalog.pg_tablespace t ON t.oid = c.reltablespace "
                  "WHERE c.oid IN ('public.t'::pg_catalog.regclass, "
                  "'public.m1'::pg_catalog.regclass, "
                  "'public.o'::pg_catalog.regclass, "
                  "'public.k'::pg_catalog.regclass)"),
            "k:-,m1:" + tag + "_ts,o:" + tag + "_ts,t:" + tag + "_ts")
      << "k stays where it was, the others moved";
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind FROM pg_catalog.pg_class WHERE oid = "
                  "'public.h'::pg_catalog.regclass"),
            "p");
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
