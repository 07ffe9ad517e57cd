// `pglayout migrate` against real PostgreSQL 12, 15 and 18: dry run, refusals,
// tablespaces and offline moves, online moves and hash partitioning under
// concurrent pgbench writes with kill -9 at step boundaries, abort, and the
// checkpoint guard.
//
// The oracle for "no row lost" is a twin table: every pgbench transaction
// applies the same change to the migrated table and to an untouched twin,
// and afterwards EXCEPT ALL in both directions must be empty.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "common/files.h"
#include "common/json.h"
#include "migrator/journal.h"
#include "migrator/migrator.h"
#include "migrator/online_sql.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"
#include "tests/integration/structure_fingerprint.h"
#include "tests/run_pglayout.h"

namespace pglayout::migrator {
namespace {

void Exec(SqlSession* s, const std::string& sql) {
  Status st = ExecuteSql(s, sql);
  ASSERT_TRUE(st.ok()) << sql << ": " << st.ToString();
}

// The plan of |sql| (EXPLAIN (COSTS OFF), one line per row; with
// |analyze| EXPLAIN ANALYZE, which runs it) with |params| as literals in
// place of $1, $2..., since EXPLAIN takes no parameters.
std::string PlanOf(SqlSession* s, std::string sql,
                   const std::vector<SqlValue>& params, bool analyze = false) {
  for (size_t i = params.size(); i > 0; --i) {  // $10 before $1
    std::string param = "$" + std::to_string(i);
    for (size_t at = sql.find(param); at != std::string::npos;
         at = sql.find(param)) {
      sql.replace(at, param.size(), QuoteLiteral(params[i - 1].value()));
    }
  }
  SqlResult plan;
  Status st = s->Execute(
      std::string(analyze ? "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "
                          : "EXPLAIN (COSTS OFF) ") +
          sql,
      {}, &plan);
  EXPECT_TRUE(st.ok()) << sql << ": " << st.ToString();
  std::string text;
  for (const SqlRow& row : plan.rows) text += Cell(row, 0) + "\n";
  return text;
}

std::string Conninfo(PgCluster* pg, const std::string& db,
                     const std::string& user = "postgres") {
  return "host=127.0.0.1 port=" + std::to_string(pg->port()) + " dbname=" + db +
         " user=" + user;
}

Status Open(PgCluster* pg, const std::string& db,
            std::unique_ptr<SqlSession>* s) {
  return OpenPgSessionAsConfigured(Conninfo(pg, db), "pglayout-test", s);
}

// Drops and creates |db|: a test's own database on the shared server.
Status RecreateDatabase(PgCluster* pg, const std::string& db) {
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_RETURN_IF_ERROR(pg->Connect(&admin));
  PGLAYOUT_RETURN_IF_ERROR(
      ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS " + db));
  return ExecuteSql(admin.get(), "CREATE DATABASE " + db);
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Table |name| (id int PRIMARY KEY, v text) of |rows| rows 1.. with md5
// values, and its twin <name>_v, to compare with Diff after a migration.
void MakeTwinnedTable(SqlSession* s, const std::string& name, int rows) {
  Exec(s, fmt::format("CREATE TABLE {0} (id int PRIMARY KEY, v text);"
                      "INSERT INTO {0} SELECT g, md5(g::text) FROM "
                      "generate_series(1, {1}) g;"
                      "CREATE TABLE {0}_v AS TABLE {0}",
                      name, rows));
}

// Rows in one table and not the other, both ways.
std::string Diff(SqlSession* s, const std::string& a, const std::string& b) {
  return Value(s, "SELECT count(*) FROM ((TABLE " + a + " EXCEPT ALL TABLE " +
                      b + ") UNION ALL (TABLE " + b + " EXCEPT ALL TABLE " + a +
                      ")) d");
}

Status MigratePlan(const std::string& plan_toml, const std::string& conninfo,
                   bool apply, MigrateResult* report,
                   MigrateOptions options = MigrateOptions()) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(plan_toml, "plan.toml", &plan));
  options.conninfo = conninfo;
  options.apply = apply;
  return Migrate(plan, options, nullptr, report);
}

using BinaryRun = Completion;

BinaryRun RunPglayout(const std::vector<std::string>& args,
                      const std::string& failpoint) {
  Command c;
  c.argv = {PGLAYOUT_BINARY};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  if (!failpoint.empty()) c.env = FailpointEnv(failpoint);
  return RunToCompletion(c);
}

// A plan moving public.<table> online to a new tablespace <table>_ts.
std::string MovePlan(PgCluster* pg, const std::string& table) {
  std::string dir;
  EXPECT_TRUE(pg->MakeDirectory(table + "_ts", &dir).ok());
  return "[[tablespace]]\nname = \"" + table + "_ts\"\npath = \"" + dir +
         "\"\n[[placement]]\nrelation = \"public." + table +
         "\"\nstrategy = \"move\"\ntablespaces = [\"" + table + "_ts\"]\n";
}

// The first line of |report| containing |text|, or "".
std::string LineWith(const MigrateResult& report, const std::string& text) {
  for (const std::string& line : report.lines) {
    if (line.find(text) != std::string::npos) return line;
  }
  return "";
}

bool HasLine(const MigrateResult& report, const std::string& text) {
  return !LineWith(report, text).empty();
}

// Every line of |report|, for failure messages.
std::string Lines(const MigrateResult& report) {
  std::string out;
  for (const std::string& line : report.lines) out += line + "\n";
  return out;
}

// One online move on the shared server, for the tests of what may happen
// around it (see MigrateTest::StartMove).
struct OneMove {
  PgCluster* pg = nullptr;
  std::string db, plan;
  std::unique_ptr<SqlSession> s, side;  // the test's sessions
  MigrateOptions options;
  MigrateResult report;

  Status Run() {
    report = MigrateResult();
    return MigratePlan(plan, Conninfo(pg, db), true, &report, options);
  }
  // pglayout migrate --abort, without the failpoint.
  Status Abort() {
    options.failpoint = nullptr;
    options.mode = MigrateMode::kAbort;
    Status st = Run();
    options.mode = MigrateMode::kRun;
    return st;
  }
};

class MigrateTest : public PgVersionTest {
 protected:
  // The shared server, a fresh database |db| on it and a session there.
  Status FreshDatabase(const std::string& db, PgCluster** pg,
                       std::unique_ptr<SqlSession>* s) const {
    PGLAYOUT_RETURN_IF_ERROR(SharedCluster(pg));
    PGLAYOUT_RETURN_IF_ERROR(RecreateDatabase(*pg, db));
    return Open(*pg, db, s);
  }

  // A private server with these postgresql.conf |settings| (for tests
  // that change its settings or restart it) and a session on its postgres
  // database.
  Status PrivateServer(const std::map<std::string, std::string>& settings,
                       std::unique_ptr<PgCluster>* pg,
                       std::unique_ptr<SqlSession>* s) const {
    PgClusterOptions options;
    options.settings = settings;
    PGLAYOUT_RETURN_IF_ERROR(StartCluster(options, pg));
    return Open(pg->get(), "postgres", s);
  }

  // A fresh database |db| with table public.<table> (id int PRIMARY KEY,
  // v text) of |rows| rows of 'v', a main and a side session, the plan
  // moving the table, and options for the shared server: no checkpoint
  // guard (it keeps its settings), no throttle, batches of 1000 rows.
  Status StartMove(const std::string& db, const std::string& table, int rows,
                   OneMove* m) const {
    m->db = db;
    PGLAYOUT_RETURN_IF_ERROR(FreshDatabase(db, &m->pg, &m->s));
    PGLAYOUT_RETURN_IF_ERROR(Open(m->pg, db, &m->side));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        m->s.get(),
        fmt::format("CREATE TABLE {0} (id int PRIMARY KEY, v text); INSERT "
                    "INTO {0} SELECT g, 'v' FROM generate_series(1, {1}) g",
                    table, rows)));
    m->plan = MovePlan(m->pg, table);
    m->options.checkpoint_guard = false;
    m->options.throttle = ThrottleMode::kOff;
    m->options.batch_rows = 1000;
    return Status::Ok();
  }
};

// ---------------------------------------------------- dry run + refusals --

TEST_P(MigrateTest, DryRunChangesNothingAndBadInputsAreRefused) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("dry", &pg, &s));
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  Exec(s.get(),
       "CREATE TABLE t (id int PRIMARY KEY, email text UNIQUE, v text);"
       "CREATE TABLE nopk (a int, b text);"
       "CREATE TABLE ok (id int PRIMARY KEY, v text);"
       "INSERT INTO ok SELECT g, 'v' FROM generate_series(1, 100) g;"
       "DROP ROLE IF EXISTS app; CREATE ROLE app LOGIN");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("dry_ts", &dir));
  std::string ts =
      "[[tablespace]]\nname = \"dry_ts\"\npath = \"" + dir + "\"\n";
  std::string before = Value(admin.get(), "SHOW max_wal_size");

  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(
      ts + "[[placement]]\nrelation = \"public.ok\"\nstrategy = "
           "\"hash_partition\"\ntablespaces = [\"dry_ts\", \"pg_default\"]\n"
           "key = [\"id\"]\n[settings]\nrandom_page_cost = \"1.8\"\n",
      Conninfo(pg, "dry"), false, &report));
  ASSERT_GE(report.steps.size(), 4u);
  EXPECT_EQ(report.steps[0].sql[0],
            "CREATE TABLESPACE \"dry_ts\" LOCATION '" + dir + "'");
  EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname "
                  "= 'dry_ts'"),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_trigger WHERE tgrelid = "
                  "'ok'::regclass"),
            "0");
  EXPECT_EQ(Value(admin.get(), "SHOW max_wal_size"), before);

  auto refused = [&](const std::string& placement, const std::string& extra,
                     const std::string& expected, const std::string& conninfo) {
    MigrateResult r;
    Status st = MigratePlan(extra + placement, conninfo, true, &r);
    EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
    EXPECT_NE(st.message().find(expected), std::string::npos) << st.message();
    EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t")
        << "a refusal must change nothing";
  };
  std::string hash_t =
      "[[placement]]\nrelation = \"public.t\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"pg_default\"]\n"
      "partitions = 2\nkey = [\"id\"]\n";
  refused(hash_t, "",
          "unique index t_email_key (email) does not contain the "
          "partition key column(s) id",
          Conninfo(pg, "dry"));
  refused(
      "[[placement]]\nrelation = \"public.nopk\"\nstrategy = \"move\"\n"
      "tablespaces = [\"dry_ts\"]\n",
      ts, "public.nopk: has no primary key", Conninfo(pg, "dry"));
  refused(
      "[[placement]]\nrelation = \"public.gone\"\nstrategy = \"move\"\n"
      "tablespaces = [\"pg_default\"]\n",
      "", "public.gone: relation does not exist", Conninfo(pg, "dry"));
  refused("", "[[tablespace]]\nname = \"nodir\"\npath = \"/nonexistent/x\"\n",
          "tablespace nodir: directory '/nonexistent/x' does not exist",
          Conninfo(pg, "dry"));
  refused("", ts, "CREATE TABLESPACE needs a superuser; role app is not one",
          Conninfo(pg, "dry", "app"));
  // A bad --throttle is refused by the binary before it connects (exit 2).
  std::string plan_path = WriteFile("dry_throttle.toml", ts + hash_t);
  for (const char* bad : {"bogus", ""}) {
    BinaryRun run =
        RunPglayout({"migrate", plan_path, "--dsn", Conninfo(pg, "dry"),
                     "--apply", "--throttle", bad},
                    "");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("--throttle: '" + std::string(bad) +
                              "' is not a throttle mode; use adaptive or off"),
              std::string::npos)
        << run.output;
  }
  BinaryRun pace =
      RunPglayout({"migrate", plan_path, "--dsn", Conninfo(pg, "dry"),
                   "--apply", "--keep-pace", "1.5"},
                  "");
  EXPECT_NE(pace.exit_code, 0) << pace.output;
  EXPECT_NE(pace.output.find(
                "--keep-pace: '1.5' is not a share between 0.5 and 0.99"),
            std::string::npos)
      << pace.output;
  EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t");
}

// The names a run gives what it creates can be the user's already: a
// trigger named like the capture trigger, a table named like a partition,
// two long names that PostgreSQL's 63-byte cut would make one. Each is
// refused before any change, naming the object as it must be typed; a
// name of 60 bytes converts (its partitions' key indexes keep their
// numbers).
TEST_P(MigrateTest, NamesTheRunWouldTakeAreCheckedBeforeAnyChange) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("names", &pg, &s));
  const std::string longname(60, 'l');
  Exec(s.get(),
       "CREATE TABLE orders (id int PRIMARY KEY, v text);"
       "CREATE TABLE orders_p1 (x int);"
       "CREATE TABLE audited (id int PRIMARY KEY);"
       "CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS "
       "'BEGIN RETURN NEW; END';"
       "CREATE TRIGGER pglayout_capture AFTER INSERT ON audited "
       "FOR EACH ROW EXECUTE FUNCTION note();"
       "CREATE TABLE quoted (id int PRIMARY KEY, \",\"\")\" int UNIQUE);"
       "CREATE TABLE " +
           longname +
           " (id int PRIMARY KEY, v text);"
           "INSERT INTO " +
           longname + " SELECT g, 'v' FROM generate_series(1, 300) g");
  auto hash = [](const std::string& table) {
    return "[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"hash_partition\"\ntablespaces = "
           "[\"pg_default\"]\npartitions = 3\nkey = [\"id\"]\n";
  };
  std::string plan = hash("orders") + hash("quoted") + MovePlan(pg, "audited");
  MigrateResult report;
  Status st = MigratePlan(plan, Conninfo(pg, "names"), true, &report);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  for (const char* expected :
       {"public.orders: the conversion creates public.orders_p1, which exists "
        "already; rename or drop that relation first",
        "public.audited: has a trigger named pglayout_capture, the name an "
        "online copy gives its own capture trigger",
        "(\",\"\")\") does not contain the partition key column(s) id"}) {
    EXPECT_NE(st.message().find(expected), std::string::npos) << st.message();
  }
  EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t")
      << "a refusal must change nothing";

  PGLAYOUT_ASSERT_OK(
      MigratePlan(hash(longname), Conninfo(pg, "names"), true, &report));
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM " + longname), "300");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM "
                  "pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                  "WHERE c.relkind = 'i'"),
            longname.substr(0, 55) + "_p0_pkey," + longname.substr(0, 55) +
                "_p1_pkey," + longname.substr(0, 55) + "_p2_pkey");
}

// Constraints marked NOT VALID hold for new rows only. Older rows that
// break them are copied, and the constraints come out of the move and the
// conversion still NOT VALID: a check on the table, keys from and to it.
TEST_P(MigrateTest, NotValidConstraintsStayNotValid) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("notvalid", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE customers (id int PRIMARY KEY);"
       "INSERT INTO customers VALUES (1);"
       "CREATE TABLE items (id int PRIMARY KEY, qty int, customer int);"
       "INSERT INTO items SELECT g, g - 3, 1 + g % 2 FROM "
       "generate_series(1, 500) g;"
       "ALTER TABLE items ADD CONSTRAINT qty_positive CHECK (qty > 0) "
       "NOT VALID;"
       "ALTER TABLE items ADD CONSTRAINT items_customer FOREIGN KEY "
       "(customer) REFERENCES customers NOT VALID;"
       "CREATE TABLE notes (id int PRIMARY KEY, item int);"
       "INSERT INTO notes VALUES (1, 1), (2, 100000);"
       "ALTER TABLE notes ADD CONSTRAINT notes_item FOREIGN KEY (item) "
       "REFERENCES items NOT VALID;"
       "CREATE TABLE counts (id int PRIMARY KEY, qty int);"
       "INSERT INTO counts SELECT g, g - 3 FROM generate_series(1, 500) g;"
       "ALTER TABLE counts ADD CONSTRAINT counts_positive CHECK (qty > 0) "
       "NOT VALID");
  const std::string validity =
      "SELECT string_agg(conname || '=' || convalidated, ',' ORDER BY "
      "conname) FROM pg_constraint WHERE conname IN ('qty_positive', "
      "'items_customer', 'notes_item', 'counts_positive') AND conrelid IN "
      "('items'::regclass, 'notes'::regclass, 'counts'::regclass)";
  const std::string before = Value(s.get(), validity);
  ASSERT_EQ(before,
            "counts_positive=false,items_customer=false,notes_item=false,"
            "qty_positive=false");

  std::string plan =
      MovePlan(pg, "items") +
      "[[placement]]\nrelation = \"public.counts\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"pg_default\"]\npartitions = "
      "2\nkey = [\"id\"]\n";
  MigrateOptions options;
  options.checkpoint_guard = false;
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan, Conninfo(pg, "notvalid"), true, &report, options));
  EXPECT_EQ(Value(s.get(), validity), before);
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM items WHERE qty <= 0"), "3");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM counts WHERE qty <= 0"), "3");
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind FROM pg_class WHERE relname = "
                  "'counts'"),
            "p");
  // Still enforced for new rows.
  EXPECT_FALSE(
      ExecuteSql(s.get(), "INSERT INTO items VALUES (501, -1, 1)").ok());
  EXPECT_FALSE(ExecuteSql(s.get(), "INSERT INTO counts VALUES (501, -1)").ok());
  EXPECT_FALSE(
      ExecuteSql(s.get(), "INSERT INTO notes VALUES (3, 999999)").ok());
}

// What PostgreSQL would refuse only after the copy (at the swap) or in the
// middle of the conversion is refused before anything changes: a foreign
// key of a partitioned table to the table before 18, a NO INHERIT check and
// a row trigger with transition tables on a table to be partitioned, and a
// table that is partitioned already, not as the plan says (once a raw
// "relation does not exist", even in a dry run).
TEST_P(MigrateTest, PreflightRefusesWhatWouldFailMidRun) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("midrun", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE products (id int PRIMARY KEY);"
       "INSERT INTO products SELECT generate_series(1, 50);"
       "CREATE TABLE sales (id int, product int REFERENCES products) "
       "PARTITION BY HASH (id);"
       "CREATE TABLE sales_0 PARTITION OF sales FOR VALUES WITH (MODULUS 1, "
       "REMAINDER 0);"
       "INSERT INTO sales SELECT g, g FROM generate_series(1, 50) g;"
       "CREATE TABLE guarded (id int PRIMARY KEY, v int, "
       "CONSTRAINT v_local CHECK (v > 0) NO INHERIT);"
       "CREATE TABLE audited (id int PRIMARY KEY);"
       "CREATE FUNCTION seen() RETURNS trigger LANGUAGE plpgsql AS "
       "'BEGIN RETURN NULL; END';"
       "CREATE TRIGGER audit_rows AFTER INSERT ON audited REFERENCING NEW "
       "TABLE AS added FOR EACH ROW EXECUTE FUNCTION seen();"
       "CREATE TABLE split (id int PRIMARY KEY) PARTITION BY HASH (id);"
       "CREATE TABLE split_a PARTITION OF split FOR VALUES WITH (MODULUS 2, "
       "REMAINDER 0);"
       "CREATE TABLE split_b PARTITION OF split FOR VALUES WITH (MODULUS 2, "
       "REMAINDER 1)");
  auto hash = [](const std::string& table) {
    return "[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"hash_partition\"\ntablespaces = "
           "[\"pg_default\"]\npartitions = 2\nkey = [\"id\"]\n";
  };
  std::string plan = hash("guarded") + hash("audited") + hash("split");
  for (bool apply : {false, true}) {
    MigrateResult report;
    Status st = MigratePlan(plan, Conninfo(pg, "midrun"), apply, &report);
    EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
    for (const char* expected :
         {"public.guarded: CHECK constraint v_local is NO INHERIT",
          "public.audited: row trigger audit_rows has transition tables",
          "public.split: is already partitioned, not as this plan says"}) {
      EXPECT_NE(st.message().find(expected), std::string::npos) << st.message();
    }
  }
  EXPECT_EQ(Value(s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t")
      << "a refusal must change nothing";

  std::string move = MovePlan(pg, "products");
  MigrateOptions options;
  options.checkpoint_guard = false;
  MigrateResult report;
  Status st = MigratePlan(move, Conninfo(pg, "midrun"), true, &report, options);
  if (version() != PgVersion::k18) {
    EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
    EXPECT_NE(st.message().find("public.products: foreign key "
                                "sales_product_fkey of partitioned table "
                                "public.sales references it"),
              std::string::npos)
        << st.message();
    return;
  }
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(Value(s.get(),
                  "SELECT convalidated FROM pg_constraint WHERE conname = "
                  "'sales_product_fkey' AND conrelid = 'sales'::regclass"),
            "t")
      << Lines(report);
  EXPECT_FALSE(ExecuteSql(s.get(), "INSERT INTO sales VALUES (99, 99)").ok())
      << "the key still holds against the moved table";
}

// The first line of |lines| (a TableFingerprint) containing |text|, or "".
std::string FingerprintLine(const std::vector<std::string>& lines,
                            const std::string& text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return line;
  }
  return "";
}

// What pg_get_constraintdef() leaves out, what marks an index rather than
// the table, and comments on what the swap makes anew come through a move:
// key indexes' storage parameters, the CLUSTER mark, REPLICA IDENTITY USING
// INDEX, comments on indexes, constraints (another table's key to it too),
// triggers and policies, extended statistics with their names, schemas and
// targets, statistics targets of index expression columns.
TEST_P(MigrateTest, AMoveKeepsIndexParametersAndMarks) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("marks", "marked", 500, &m));
  Exec(m.s.get(),
       "ALTER TABLE marked ADD COLUMN u int NOT NULL DEFAULT 0;"
       "UPDATE marked SET u = id;"
       "ALTER TABLE marked DROP CONSTRAINT marked_pkey;"
       "ALTER TABLE marked ADD CONSTRAINT marked_pkey PRIMARY KEY (id) "
       "WITH (fillfactor = 70);"
       "ALTER TABLE marked ADD CONSTRAINT marked_u UNIQUE (u) INCLUDE (v) "
       "WITH (fillfactor = 80) DEFERRABLE;"
       "CREATE UNIQUE INDEX marked_u_only ON marked (u) WITH (fillfactor = 90);"
       "ALTER TABLE marked CLUSTER ON marked_u;"
       "ALTER TABLE marked REPLICA IDENTITY USING INDEX marked_u_only;"
       "ALTER TABLE marked SET (fillfactor = 60);"
       "CREATE TABLE marks_ref (id int PRIMARY KEY, m int CONSTRAINT "
       "marks_ref_m REFERENCES marked);"
       "CREATE FUNCTION marked_noop() RETURNS trigger LANGUAGE plpgsql AS "
       "'BEGIN RETURN NEW; END';"
       "CREATE TRIGGER marked_touch BEFORE UPDATE ON marked FOR EACH ROW "
       "EXECUTE FUNCTION marked_noop();"
       "CREATE POLICY marked_all ON marked USING (true);"
       "COMMENT ON INDEX marked_u_only IS 'index note';"
       "COMMENT ON CONSTRAINT marked_pkey ON marked IS 'key note';"
       "COMMENT ON CONSTRAINT marks_ref_m ON marks_ref IS 'incoming note';"
       "COMMENT ON TRIGGER marked_touch ON marked IS 'trigger note';"
       "COMMENT ON POLICY marked_all ON marked IS 'policy note';"
       "CREATE SCHEMA IF NOT EXISTS stats;"
       "CREATE STATISTICS stats.marked_dep (dependencies) ON id, u FROM "
       "marked;"
       "CREATE STATISTICS marked_nd (ndistinct) ON u, v FROM marked;"
       "CREATE INDEX marked_lower ON marked (lower(v));"
       "ALTER INDEX marked_lower ALTER COLUMN 1 SET STATISTICS 300");
  if (version() != PgVersion::k12) {
    Exec(m.s.get(), "ALTER STATISTICS marked_nd SET STATISTICS 500");
  }
  std::vector<std::string> before, after;
  PGLAYOUT_ASSERT_OK(TableFingerprint(m.s.get(), "public.marked", &before));
  // (the line about, what it says): the marks and notes are there to lose.
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"index | marked_pkey |",
       "CREATE UNIQUE INDEX marked_pkey ON public.marked USING btree (id) "
       "WITH (fillfactor='70') | {fillfactor=70} | f | f | t"},
      {"index | marked_u |", "| t | f | t | - | - |"},
      {"index | marked_u_only |", "| f | t | t | index note |"},
      {"index | marked_lower |", "| 1=300 |"},
      {"constraint | marked_pkey |", "| key note"},
      {"referenced by | marks_ref | marks_ref_m |", "| incoming note"},
      {"trigger | marked_touch |", "| trigger note"},
      {"policy | marked_all |", "| policy note"},
      {"statistics | stats | marked_dep |", ""},
      {"statistics | public | marked_nd |", ""},
      {"table |", "| i |"}};
  for (const auto& [about, says] : facts) {
    EXPECT_NE(FingerprintLine(before, about).find(says), std::string::npos)
        << about << " " << says;
  }
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = 'marked'::regclass"),
            "marked_ts");
  PGLAYOUT_ASSERT_OK(TableFingerprint(m.s.get(), "public.marked", &after));
  EXPECT_EQ(FingerprintDiff(before, after), "");
  if (version() != PgVersion::k12) {
    EXPECT_EQ(Value(m.s.get(),
                    "SELECT stxstattarget FROM pg_statistic_ext WHERE "
                    "stxname = 'marked_nd' AND stxrelid = 'marked'::regclass"),
              "500");
  }
}

// Privileges come through a move and a conversion exactly: what the owner
// revoked from itself stays revoked, and a grant made by a role holding the
// grant option keeps that grantor, so REVOKE ... CASCADE from the grantor
// still takes it away. A grantor without USAGE on the schema could not make
// its grant again: refused before any change.
TEST_P(MigrateTest, PrivilegesKeepTheirGrantors) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("grantors", "shared", 50, &m));
  Exec(m.s.get(),
       "DROP ROLE IF EXISTS g_lead; DROP ROLE IF EXISTS g_clerk;"
       "DROP ROLE IF EXISTS g_blind; CREATE ROLE g_lead; CREATE ROLE g_clerk;"
       "CREATE ROLE g_blind;"
       "REVOKE DELETE ON shared FROM CURRENT_USER;"
       "GRANT SELECT ON shared TO g_lead WITH GRANT OPTION;"
       "GRANT UPDATE (v) ON shared TO g_lead WITH GRANT OPTION;"
       "SET ROLE g_lead; GRANT SELECT ON shared TO g_clerk;"
       "GRANT UPDATE (v) ON shared TO g_clerk; RESET ROLE");
  const std::string acl =
      "SELECT c.relacl::text || ' ' || (SELECT attacl::text FROM pg_attribute "
      "WHERE attrelid = c.oid AND attname = 'v') FROM pg_class c WHERE c.oid "
      "= 'shared'::regclass";
  const std::string before = Value(m.s.get(), acl);
  ASSERT_NE(before.find("g_clerk=r/g_lead"), std::string::npos) << before;
  ASSERT_NE(before.find("g_clerk=w/g_lead"), std::string::npos) << before;
  m.plan +=
      "[[placement]]\nrelation = \"public.converted\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"pg_default\"]\n"
      "partitions = 2\nkey = [\"id\"]\n";
  Exec(m.s.get(),
       "CREATE TABLE converted (id int PRIMARY KEY); INSERT INTO converted "
       "SELECT generate_series(1, 10);"
       "REVOKE TRUNCATE ON converted FROM CURRENT_USER;"
       "GRANT SELECT ON converted TO g_lead WITH GRANT OPTION;"
       "SET ROLE g_lead; GRANT SELECT ON converted TO g_clerk; RESET ROLE;"
       "CREATE SCHEMA hidden; CREATE TABLE hidden.t (id int PRIMARY KEY);"
       "GRANT USAGE ON SCHEMA hidden TO g_blind;"
       "GRANT SELECT ON hidden.t TO g_blind WITH GRANT OPTION;"
       "SET ROLE g_blind; GRANT SELECT ON hidden.t TO g_clerk; RESET ROLE;"
       "REVOKE USAGE ON SCHEMA hidden FROM g_blind");
  const std::string converted_before =
      Value(m.s.get(),
            "SELECT relacl::text FROM pg_class WHERE oid = "
            "'converted'::regclass");

  const std::string hidden =
      "[[placement]]\nrelation = \"hidden.t\"\nstrategy = \"move\"\n"
      "tablespaces = [\"shared_ts\"]\n";
  std::string plan = m.plan;
  m.plan += hidden;
  Status st = m.Run();
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_NE(st.message().find("hidden.t: role g_blind granted privileges on "
                              "it but has no USAGE on schema hidden"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(Value(m.s.get(), "SELECT to_regnamespace('pglayout') IS NULL"), "t")
      << "a refusal must change nothing";

  m.plan = plan;
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(Value(m.s.get(), acl), before);
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT relacl::text FROM pg_class WHERE oid = "
                  "'converted'::regclass"),
            converted_before);
  Exec(m.s.get(),
       "REVOKE SELECT ON shared, converted FROM g_lead CASCADE;"
       "REVOKE UPDATE (v) ON shared FROM g_lead CASCADE");
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT has_table_privilege('g_clerk', 'shared', 'SELECT') "
                  "OR has_column_privilege('g_clerk', 'shared', 'v', "
                  "'UPDATE') OR has_table_privilege('g_clerk', 'converted', "
                  "'SELECT')"),
            "f")
      << "REVOKE ... CASCADE from the grantor took the clerk's grants away";
  Exec(m.s.get(),
       "DROP TABLE hidden.t; DROP OWNED BY g_lead, g_clerk, g_blind;"
       "DROP ROLE g_lead; DROP ROLE g_clerk; DROP ROLE g_blind");
}

// A partitioned table cannot be marked for CLUSTER: after a conversion
// its partitions are, each on its copy of the index, and CLUSTER without
// arguments orders them as it ordered the table. REPLICA IDENTITY USING
// INDEX marks the table and every partition (whose own identity logical
// replication uses).
TEST_P(MigrateTest, AConversionMarksThePartitionsForClusterAndReplication) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("convmarks", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE marks (id int PRIMARY KEY, u int NOT NULL, v int);"
       "INSERT INTO marks SELECT g, g, g % 7 FROM generate_series(1, 300) g;"
       "CREATE UNIQUE INDEX marks_u ON marks (u, id);"
       "CREATE INDEX marks_v ON marks (v);"
       "ALTER TABLE marks REPLICA IDENTITY USING INDEX marks_u;"
       "ALTER TABLE marks CLUSTER ON marks_v");
  MigrateOptions options;
  options.checkpoint_guard = false;
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(
      "[[placement]]\nrelation = \"public.marks\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"pg_default\"]\npartitions = "
      "2\nkey = [\"id\"]\n",
      Conninfo(pg, "convmarks"), true, &report, options));
  EXPECT_EQ(
      Value(s.get(),
            "SELECT string_agg(c.relname || ':' || c.relreplident::text || "
            "':' || coalesce((SELECT string_agg(i.relname, ',' ORDER BY "
            "i.relname) FROM pg_index x JOIN pg_class i ON i.oid = "
            "x.indexrelid WHERE x.indrelid = c.oid AND "
            "x.indisreplident), '-') || ':' || coalesce((SELECT "
            "string_agg(i.relname, ',') FROM pg_index x JOIN pg_class i "
            "ON i.oid = x.indexrelid WHERE x.indrelid = c.oid AND "
            "x.indisclustered), '-'), ' ' ORDER BY c.relname) FROM "
            "pg_class c WHERE c.relname IN ('marks', 'marks_p0', "
            "'marks_p1')"),
      "marks:i:marks_u:- marks_p0:i:marks_u_p0:marks_v_p0 "
      "marks_p1:i:marks_u_p1:marks_v_p1");
  Exec(s.get(), "UPDATE marks SET v = 100 - id");
  Exec(s.get(), "CLUSTER");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(v::text, ',') FROM (SELECT v FROM ONLY "
                  "marks_p0 LIMIT 3) f"),
            Value(s.get(),
                  "SELECT string_agg(v::text, ',') FROM (SELECT v FROM ONLY "
                  "marks_p0 ORDER BY v LIMIT 3) f"))
      << "CLUSTER ordered the partition by its marked index";
}

// ---------------------------------------- tablespaces and offline moves --

TEST_P(MigrateTest, TablespacesAndOfflineMoveAreIdempotent) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("off", &pg, &s));
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  Exec(s.get(),
       "CREATE TABLE \"Mixed Case\" (id int PRIMARY KEY, doc text);"
       "INSERT INTO \"Mixed Case\" SELECT g, repeat(md5(g::text), 200) "
       "FROM generate_series(1, 2000) g");
  std::string dir, other;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("off_ts", &dir));
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("off_other", &other));
  std::string plan =
      "[[tablespace]]\nname = \"off ts\"\npath = \"" + dir +
      "\"\n[tablespace.options]\nrandom_page_cost = \"1.1\"\n"
      "[[placement]]\nrelation = 'public.\"Mixed Case\"'\nstrategy = \"move\"\n"
      "tablespaces = [\"off ts\"]\nonline = false\n";
  MigrateResult first, second;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan, Conninfo(pg, "off"), true, &first));
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(DISTINCT coalesce(t.spcname, '-'), ',') "
                  "FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = "
                  "c.reltablespace WHERE c.oid IN ('\"Mixed Case\"'::regclass, "
                  "'\"Mixed Case_pkey\"'::regclass, (SELECT reltoastrelid FROM "
                  "pg_class WHERE oid = '\"Mixed Case\"'::regclass))"),
            "off ts");
  EXPECT_EQ(Value(s.get(),
                  "SELECT spcoptions::text FROM pg_tablespace WHERE "
                  "spcname = 'off ts'"),
            "{random_page_cost=1.1}");
  // Again: the tablespace exists at the same place, the move is a no-op.
  PGLAYOUT_ASSERT_OK(MigratePlan(plan, Conninfo(pg, "off"), true, &second));
  EXPECT_NE(second.run_id, first.run_id);
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(state, ',' ORDER BY run_id) FROM "
                  "pglayout.run"),
            "done,done");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM \"Mixed Case\""), "2000");
  // The same name at another place is refused.
  MigrateResult third;
  std::string moved = plan;
  moved.replace(moved.find(dir), dir.size(), other);
  Status st = MigratePlan(moved, Conninfo(pg, "off"), true, &third);
  EXPECT_NE(st.message().find("tablespace off ts: already exists at '" + dir +
                              "', the plan says '" + other + "'"),
            std::string::npos)
      << st.message();
  // A step that cannot get its lock stops the run; the journal keeps why
  // (for the report), and the resumed run clears it.
  Exec(s.get(), "CREATE TABLE busy (id int PRIMARY KEY)");
  std::unique_ptr<SqlSession> holder;
  PGLAYOUT_ASSERT_OK(Open(pg, "off", &holder));
  std::string holder_pid = Value(holder.get(), "SELECT pg_backend_pid()");
  Exec(holder.get(), "BEGIN; LOCK TABLE busy IN ACCESS SHARE MODE");
  std::string busy = plan.substr(0, plan.find("[[placement]]")) +
                     "[[placement]]\nrelation = \"public.busy\"\n"
                     "strategy = \"move\"\ntablespaces = [\"off ts\"]\n"
                     "online = false\n";
  MigrateOptions impatient;
  impatient.lock_timeout_ms = 20;
  impatient.lock_deadline_s = 0.5;
  MigrateResult stopped, resumed;
  st = MigratePlan(busy, Conninfo(pg, "off"), true, &stopped, impatient);
  ASSERT_FALSE(st.ok());
  std::string error_sql =
      "SELECT coalesce(error, '<none>') FROM pglayout.step WHERE step_key = "
      "'move:public.busy' AND run_id = " +
      std::to_string(stopped.run_id);
  EXPECT_NE(Value(s.get(), error_sql).find("gave up after"), std::string::npos)
      << st.message();
  // It names who holds the table, and how.
  size_t named = st.message().find(" now: pid " + holder_pid + " (");
  EXPECT_NE(named, std::string::npos) << st.message();
  EXPECT_NE(st.message().find(", idle in transaction for ", named),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find(", AccessShareLock on public.busy)", named),
            std::string::npos)
      << st.message();
  Exec(holder.get(), "COMMIT");
  PGLAYOUT_ASSERT_OK(
      MigratePlan(busy, Conninfo(pg, "off"), true, &resumed, impatient));
  EXPECT_EQ(resumed.run_id, stopped.run_id);
  EXPECT_EQ(Value(s.get(), error_sql), "<none>");
}

// ------------------------------ online, under load, killed and resumed --

constexpr char kLoadScript[] = R"(\set k random(1, 20000)
\set d random(-100, 100)
\set n random(20001, 40000)
\set o random(1, 3000)
BEGIN;
UPDATE acc SET bal = bal + :d, note = CASE WHEN :d % 4 = 0 THEN NULL ELSE 'u' || :d END WHERE id = :k;
UPDATE acc_v SET bal = bal + :d, note = CASE WHEN :d % 4 = 0 THEN NULL ELSE 'u' || :d END WHERE id = :k;
INSERT INTO acc VALUES (:n, :d, NULL, NULL) ON CONFLICT (id) DO UPDATE SET bal = EXCLUDED.bal + 1;
INSERT INTO acc_v VALUES (:n, :d, NULL, NULL) ON CONFLICT (id) DO UPDATE SET bal = EXCLUDED.bal + 1;
UPDATE "Sales Dept"."Line ""Items""" SET qty = CASE WHEN :d > 0 THEN NULL ELSE :d END WHERE order_id = :o;
UPDATE "Sales Dept".items_v SET qty = CASE WHEN :d > 0 THEN NULL ELSE :d END WHERE order_id = :o;
END;
)";

// Key-changing UPDATEs (a row moves to another partition), DELETEs and
// TOAST-sized values, written as a logical-replication apply worker would:
// session_replication_role = replica, which skips ordinary triggers.
constexpr char kReplicaScript[] = R"(\set k random(1, 20000)
SET session_replication_role = replica;
BEGIN;
UPDATE acc SET id = -id WHERE id = :k;
UPDATE acc_v SET id = -id WHERE id = :k;
DELETE FROM acc WHERE id = :k + 1;
DELETE FROM acc_v WHERE id = :k + 1;
UPDATE acc SET big = (SELECT string_agg(md5((:k * 1000 + g)::text), '') FROM generate_series(1, 100) g) WHERE id = :k + 2;
UPDATE acc_v SET big = (SELECT string_agg(md5((:k * 1000 + g)::text), '') FROM generate_series(1, 100) g) WHERE id = :k + 2;
END;
)";

void SetUpLoadTables(SqlSession* s) {
  Exec(s,
       "CREATE ROLE mig LOGIN SUPERUSER;"
       "ALTER ROLE mig SET statement_timeout = '1s';"
       "ALTER ROLE mig SET lock_timeout = '1ms';"
       "CREATE ROLE reader;"
       "CREATE TABLE acc (id int PRIMARY KEY, bal int NOT NULL, note text, "
       "big text);"
       "INSERT INTO acc SELECT g, g % 1000, 'n' || g, CASE WHEN g % 50 = 0 "
       "THEN (SELECT string_agg(md5((g * 7 + x)::text), '') FROM "
       "generate_series(1, 100) x) END FROM generate_series(1, 20000) g;"
       "CREATE INDEX acc_bal ON acc (bal);"
       "CREATE TABLE acc_v (LIKE acc INCLUDING ALL);"
       "INSERT INTO acc_v SELECT * FROM acc;"
       "CREATE VIEW acc_rich AS SELECT id, bal FROM acc WHERE bal > 500;"
       "GRANT SELECT ON acc TO reader; GRANT SELECT ON acc_rich TO reader;"
       "COMMENT ON TABLE acc IS 'accounts';"
       "CREATE SCHEMA \"Sales Dept\";"
       "CREATE TABLE \"Sales Dept\".\"Line \"\"Items\"\"\" (order_id bigint, "
       "\"Line No\" int, qty int, n bigint GENERATED BY DEFAULT AS IDENTITY, "
       "PRIMARY KEY (order_id, \"Line No\"));"
       "INSERT INTO \"Sales Dept\".\"Line \"\"Items\"\"\" (order_id, "
       "\"Line No\", qty) SELECT g, l, g % 9 FROM generate_series(1, 3000) g, "
       "generate_series(1, 3) l;"
       "CREATE TABLE \"Sales Dept\".items_v (LIKE \"Sales Dept\".\"Line "
       "\"\"Items\"\"\" INCLUDING ALL);"
       "INSERT INTO \"Sales Dept\".items_v OVERRIDING SYSTEM VALUE SELECT * "
       "FROM \"Sales Dept\".\"Line \"\"Items\"\"\";"
       "CREATE TABLE z (id int PRIMARY KEY, v text);"
       "INSERT INTO z SELECT g, md5(g::text) FROM generate_series(1, 10000) g;"
       "CREATE TABLE z_v AS TABLE z");
}

TEST_P(MigrateTest, OnlineUnderLoadSurvivesKill9AtEveryStep) {
  // Small enough that the checkpoint guard raises it for these tables.
  PgClusterOptions o;
  o.settings = {{"max_wal_size", "64MB"}, {"checkpoint_timeout", "30s"}};
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(o, &pg));
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  Exec(admin.get(), "CREATE DATABASE app");
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "app", &s));
  SetUpLoadTables(s.get());
  std::string ts_a, ts_b;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_a", &ts_a));
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_b", &ts_b));
  std::string plan = WriteFile(
      "online_plan_" + std::string(PgVersionName(version())) + ".toml",
      "[[tablespace]]\nname = \"ts_a\"\npath = \"" + ts_a +
          "\"\n[[tablespace]]\nname = \"ts_b\"\npath = \"" + ts_b +
          "\"\n"
          "[[placement]]\nrelation = \"public.acc\"\nstrategy = "
          "\"hash_partition\"\ntablespaces = [\"ts_a\", \"ts_b\"]\n"
          "partitions = 4\nkey = [\"id\"]\n"
          "[[placement]]\nrelation = '\"Sales Dept\".\"Line \"\"Items\"\"\"'\n"
          "strategy = \"move\"\ntablespaces = [\"ts_b\"]\n"
          "[settings]\nrandom_page_cost = \"1.7\"\n");
  std::string load = WriteFile("load.sql", kLoadScript);
  std::string replica = WriteFile("replica.sql", kReplicaScript);
  std::unique_ptr<BackgroundClient> bench;
  PGLAYOUT_ASSERT_OK(pg->StartClient(
      {"pgbench", "-n", "-c", "3", "-j", "1", "-T", "600", "--max-tries=20",
       "-f", load + "@3", "-f", replica + "@1", "app"},
      &bench));
  std::vector<std::string> args = {"-q",
                                   "migrate",
                                   plan,
                                   "--dsn",
                                   Conninfo(pg.get(), "app", "mig"),
                                   "--apply",
                                   "--batch-rows",
                                   "2000",
                                   "--restore-wait",
                                   "3"};
  for (const char* failpoint :
       {"after-create-tablespace:ts_a", "guard:journaled",
        "copy-batch:2:before-commit", "copy-batch:3:after-commit",
        "index:acc_pkey:before-commit", "index:acc_bal:before-commit",
        "replay:before-commit", "swap:before-commit",
        "after-swap:partition:public.acc", "copy-batch:1:before-commit",
        // Swapped but not cleaned up: the moved table is in place already,
        // and the resumed run must still finish the step.
        "after-swap:move:\"Sales Dept\".\"Line \"\"Items\"\"\"",
        "before-step:settings"}) {
    BinaryRun run = RunPglayout(args, failpoint);
    ASSERT_EQ(run.signal, SIGKILL) << failpoint << "\n" << run.output;
  }
  BinaryRun last = RunPglayout(args, "");
  ASSERT_EQ(last.exit_code, 0) << last.output;
  EXPECT_NE(last.output.find("run 1 done"), std::string::npos) << last.output;
  ASSERT_TRUE(bench->Running()) << "pgbench failed during the migration";
  std::string bench_output;
  PGLAYOUT_EXPECT_OK(bench->Stop(&bench_output)) << bench_output;

  // No row lost or changed: the twins agree.
  EXPECT_EQ(Diff(s.get(), "acc", "acc_v"), "0");
  EXPECT_EQ(Diff(s.get(), "\"Sales Dept\".\"Line \"\"Items\"\"\"",
                 "\"Sales Dept\".items_v"),
            "0");
  EXPECT_NE(Value(s.get(), "SELECT count(*) FROM acc WHERE id < 0"), "0")
      << "the load changed keys";
  // Layout: 4 partitions alternating over ts_a / ts_b, indexes with them.
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind FROM pg_class WHERE oid = "
                  "'acc'::regclass"),
            "p");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(c.relname || '=' || t.spcname, ',' ORDER "
                  "BY c.relname) FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.relname LIKE 'acc\\_p%'"),
            "acc_p0=ts_a,acc_p0_pkey=ts_a,acc_p1=ts_b,acc_p1_pkey=ts_b,"
            "acc_p2=ts_a,acc_p2_pkey=ts_a,acc_p3=ts_b,acc_p3_pkey=ts_b");
  // Dependents carried over: the view reads the new table, grants, comment.
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(DISTINCT d.refobjid::regclass::"
                  "text, ',') FROM pg_depend d JOIN pg_rewrite r ON "
                  "r.oid = d.objid WHERE r.ev_class = "
                  "'acc_rich'::regclass AND d.refclassid = "
                  "'pg_class'::regclass AND d.refobjid <> "
                  "'acc_rich'::regclass"),
            "acc");
  EXPECT_EQ(Value(s.get(),
                  "SELECT (SELECT count(*) FROM acc_rich) = (SELECT "
                  "count(*) FROM acc_v WHERE bal > 500)"),
            "t");
  EXPECT_EQ(Value(s.get(),
                  "SELECT has_table_privilege('reader', 'acc', "
                  "'SELECT')"),
            "t");
  EXPECT_EQ(Value(s.get(), "SELECT obj_description('acc'::regclass)"),
            "accounts");
  // The identity sequence continues after the swap.
  EXPECT_EQ(
      Value(s.get(),
            "WITH i AS (INSERT INTO \"Sales Dept\".\"Line \"\"Items\"\"\" "
            "(order_id, \"Line No\") VALUES (-1, 1) RETURNING n) SELECT "
            "(SELECT n FROM i) > (SELECT max(n) FROM \"Sales "
            "Dept\".items_v)"),
      "t");
  // Settings: the guard's change is gone, the plan's is in place.
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_file_settings WHERE name = "
                  "'max_wal_size' AND sourcefile LIKE '%auto.conf'"),
            "0")
      << last.output;
  EXPECT_EQ(Value(s.get(),
                  "SELECT setting FROM pg_file_settings WHERE name = "
                  "'random_page_cost' AND sourcefile LIKE '%auto.conf'"),
            "1.7");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_trigger WHERE tgname LIKE "
                  "'pglayout%'"),
            "0");
  // --finalize drops the old copies.
  BinaryRun fin = RunPglayout(
      {"migrate", "--finalize", "--dsn", Conninfo(pg.get(), "app")}, "");
  EXPECT_EQ(fin.exit_code, 0) << fin.output;
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_class WHERE relnamespace = "
                  "'pglayout'::regnamespace AND relname LIKE 'old\\_%' "
                  "AND relkind = 'r'"),
            "0");

  // --abort of a conversion killed mid-copy: everything gone, z unchanged.
  std::string zplan =
      WriteFile("z_plan_" + std::string(PgVersionName(version())) + ".toml",
                "[[tablespace]]\nname = \"ts_a\"\npath = \"" + ts_a +
                    "\"\n[[tablespace]]\nname = \"ts_b\"\npath = \"" + ts_b +
                    "\"\n"
                    "[[placement]]\nrelation = \"public.z\"\nstrategy = "
                    "\"hash_partition\"\n"
                    "tablespaces = [\"ts_a\", \"ts_b\"]\nkey = [\"id\"]\n");
  BinaryRun killed =
      RunPglayout({"migrate", zplan, "--dsn", Conninfo(pg.get(), "app"),
                   "--apply", "--batch-rows", "1000"},
                  "copy-batch:3:before-commit");
  ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
  EXPECT_NE(Value(s.get(),
                  "SELECT count(*) FROM pg_file_settings WHERE name = "
                  "'max_wal_size' AND sourcefile LIKE '%auto.conf'"),
            "0")
      << "the guard raised max_wal_size before the copy";
  BinaryRun aborted =
      RunPglayout({"migrate", "--abort", "--dsn", Conninfo(pg.get(), "app"),
                   "--restore-wait", "3"},
                  "");
  EXPECT_EQ(aborted.exit_code, 0) << aborted.output;
  EXPECT_EQ(Diff(s.get(), "z", "z_v"), "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_class WHERE relname LIKE "
                  "'pglayout\\_new%' OR relname ~ '^z_p[0-9]+$'"),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_trigger WHERE tgname LIKE "
                  "'pglayout%'"),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_file_settings WHERE name = "
                  "'max_wal_size' AND sourcefile LIKE '%auto.conf'"),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT state FROM pglayout.run ORDER BY run_id "
                  "DESC LIMIT 1"),
            "aborted");
}

// A copy killed while an older pglayout ran it: that version built the
// shadow's key index before the copy and replayed changes during it, so the
// shadow may hold rows above the journaled cursor. Resuming with this
// version must converge with no row lost or duplicated.
TEST_P(MigrateTest, ResumesACopyStartedByAnOlderVersion) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({}, &pg, &s));
  MakeTwinnedTable(s.get(), "y", 10000);
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_y", &dir));
  std::string plan =
      WriteFile("y_plan_" + std::string(PgVersionName(version())) + ".toml",
                "[[tablespace]]\nname = \"ts_y\"\npath = \"" + dir +
                    "\"\n[[placement]]\nrelation = \"public.y\"\nstrategy = "
                    "\"move\"\ntablespaces = [\"ts_y\"]\n");
  std::vector<std::string> args = {
      "migrate", plan,           "--dsn", Conninfo(pg.get(), "postgres"),
      "--apply", "--batch-rows", "1000",  "--throttle",
      "off",     "--copy-order", "key"};
  BinaryRun killed = RunPglayout(args, "copy-batch:3:before-commit");
  ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
  std::string shadow =
      "pglayout_new_" + Value(s.get(), "SELECT 'y'::regclass::oid");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM " + shadow), "2000");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM pg_index WHERE indrelid = '" +
                               shadow + "'::regclass"),
            "0")
      << "the copy runs into a shadow without indexes";
  // What the older version would have left: the key index, and rows that
  // its replay during the copy put above the cursor (key 2000).
  Exec(s.get(), "ALTER TABLE " + shadow + " ADD CONSTRAINT " + shadow +
                    "_i0 PRIMARY KEY (id) USING INDEX TABLESPACE ts_y;"
                    "UPDATE y SET v = 'changed' WHERE id IN (10, 5000, 9000);"
                    "UPDATE y_v SET v = 'changed' WHERE id IN (10, 5000, 9000);"
                    "INSERT INTO " +
                    shadow +
                    " SELECT * FROM y WHERE id IN (5000, 7000);"
                    "DELETE FROM pglayout.log_" +
                    shadow.substr(13) +
                    " WHERE k1 = 5000;"
                    "DELETE FROM y WHERE id = 7000; DELETE FROM y_v WHERE id "
                    "= 7000;");
  // ... and the step's detail as it wrote it: three lines, with its
  // untagged structure hash, which the swap must still accept.
  std::string legacy_hash;
  PGLAYOUT_ASSERT_OK(ReadStructureHash(s.get(), std::stoul(shadow.substr(13)),
                                       &legacy_hash, true));
  SqlResult r;
  PGLAYOUT_ASSERT_OK(s->Execute(
      "UPDATE pglayout.step SET detail = $1 WHERE step_key = 'move:public.y'",
      {legacy_hash + "\npublic\ny"}, &r));
  BinaryRun resumed = RunPglayout(args, "");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("made by an older pglayout"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(Diff(s.get(), "y", "y_v"), "0");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM y"), "9999");
  EXPECT_EQ(Value(s.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = 'y'::regclass"),
            "ts_y");
  EXPECT_EQ(Value(s.get(),
                  "SELECT bytes_copied > 10000 * 40 AND rows_copied >= 9999 "
                  "FROM pglayout.step WHERE step_key = 'move:public.y'"),
            "t");
  EXPECT_EQ(
      Value(s.get(), "SELECT count(*) FROM pglayout.batch WHERE bytes > 0"),
      "10");
  EXPECT_EQ(Value(s.get(),
                  "SELECT coalesce(array_length(reloptions, 1), 0) FROM "
                  "pg_class WHERE oid = 'y'::regclass"),
            "0")
      << "autovacuum, off on the shadow during the copy, is back";
}

// A block-range copy started by the version before the xmin threshold
// (a five-line step detail, a log without a key index) resumes looking
// every row up in the log: rows an UPDATE moved after the kill, from
// blocks copied to blocks not yet copied, are read once.
TEST_P(MigrateTest, ResumesABlockCopyStartedWithoutTheXminThreshold) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("fivelines", &pg, &s));
  // Full pages but for free space in the second half of the heap.
  Exec(s.get(),
       "CREATE TABLE z (id int PRIMARY KEY, v text) WITH (fillfactor = 100, "
       "autovacuum_enabled = false);"
       "INSERT INTO z SELECT g, md5(g::text) FROM generate_series(1, 20000) "
       "g;"
       "DELETE FROM z WHERE id > 12000 AND id % 2 = 0");
  Exec(s.get(), "VACUUM z");
  Exec(s.get(), "CREATE TABLE z_v AS TABLE z");
  std::string plan =
      WriteFile("z_plan_" + std::string(PgVersionName(version())) + ".toml",
                MovePlan(pg, "z"));
  std::vector<std::string> args = {"migrate", plan,
                                   "--dsn",   Conninfo(pg, "fivelines"),
                                   "--apply", "--batch-rows",
                                   "1000",    "--throttle",
                                   "off",     "--no-checkpoint-guard"};
  BinaryRun killed = RunPglayout(args, "copy-batch:3:before-commit");
  ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
  const bool by_blocks = version() != PgVersion::k12;
  std::string log =
      "pglayout.log_" + Value(s.get(), "SELECT 'z'::regclass::oid");
  std::string key_indexes =
      "SELECT x.indexrelid::regclass FROM pg_index x JOIN pg_attribute a ON "
      "a.attrelid = x.indrelid AND a.attnum = x.indkey[0] WHERE x.indrelid = "
      "'" +
      log + "'::regclass AND a.attname = 'k1'";
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM (" + key_indexes + ") i"),
            by_blocks ? "1" : "0");
  Exec(s.get(), "DO $$DECLARE i regclass; BEGIN FOR i IN " + key_indexes +
                    " LOOP EXECUTE 'DROP INDEX ' || i; END LOOP; END$$;"
                    // The xmin, the NOT VALID keys, the capture slot and
                    // the format line go: what that version wrote was five
                    // raw lines.
                    "UPDATE pglayout.step SET detail = regexp_replace(detail, "
                    "E'\\n[^\\n]*\\n[^\\n]*\\n[^\\n]*\\n[^\\n]*$', "
                    "'') WHERE "
                    "step_key = 'move:public.z'");
  EXPECT_EQ(Value(s.get(),
                  "SELECT array_length(string_to_array(detail, E'\\n'), 1) "
                  "FROM pglayout.step WHERE step_key = 'move:public.z'"),
            "5");
  Exec(s.get(),
       "UPDATE z SET v = v || '+' WHERE id <= 300;"
       "UPDATE z_v SET v = v || '+' WHERE id <= 300");
  BinaryRun resumed = RunPglayout(args, "");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(by_blocks ? "heap blocks" : "in key order"),
            std::string::npos)
      << resumed.output;
  EXPECT_EQ(Diff(s.get(), "z", "z_v"), "0");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM z WHERE v LIKE '%+'"), "300");
}

// The migrator's sessions compile no statement: each batch is compiled
// anew, and JIT added about 30 ms to a 75 ms by-xmin copy batch.
TEST_P(MigrateTest, HardenedSessionsNeverCompileJit) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("nojit", &pg, &s));
  Exec(s.get(), "SET jit = on; SET jit_above_cost = 0");
  auto plan = [&]() {  // with costs: EXPLAIN shows JIT only then
    SqlResult r;
    EXPECT_TRUE(s->Execute("EXPLAIN (ANALYZE) SELECT sum(g) FROM "
                           "generate_series(1, 100) g",
                           {}, &r)
                    .ok());
    std::string text;
    for (const SqlRow& row : r.rows) text += Cell(row, 0) + "\n";
    return text;
  };
  if (Value(s.get(), "SELECT pg_jit_available()") == "t") {
    EXPECT_NE(plan().find("JIT"), std::string::npos) << plan();
  }
  PGLAYOUT_ASSERT_OK(HardenSession(s.get()));
  EXPECT_EQ(Value(s.get(), "SHOW jit"), "off");
  EXPECT_EQ(plan().find("JIT"), std::string::npos) << plan();
}

// Where index builds spill their sorts: the entries of temp_tablespaces
// the session may use (quoted or not), else the database's default.
TEST_P(MigrateTest, ServerFactsNameTheTempTablespace) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("temps", &pg, &s));
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("temp_ts", &dir));
  // A name with a quote and a line break in it, as names may have.
  const std::string kName = "\"Temp\n\"\"TS\"\"\"";
  Exec(s.get(), "DROP TABLESPACE IF EXISTS " + kName);
  Exec(s.get(), "CREATE TABLESPACE " + kName + " LOCATION '" + dir + "'");
  Plan plan;
  auto temp = [&]() {
    ServerFacts f;
    EXPECT_TRUE(GatherServerFacts(s.get(), plan, &f).ok());
    EXPECT_FALSE(f.settings["maintenance_work_mem"].empty());
    return Join(f.temp_tablespaces, "|");
  };
  EXPECT_EQ(temp(), "pg_default");
  // As written in postgresql.conf (SET would fold PG_Default itself).
  Exec(s.get(), "SELECT set_config('temp_tablespaces', '" + kName +
                    ", PG_Default', false)");
  EXPECT_EQ(Value(s.get(), "SHOW temp_tablespaces"), kName + ", PG_Default");
  EXPECT_EQ(temp(), "Temp\n\"TS\"|pg_default");
  // PostgreSQL skips the ones the role may not create temp files in.
  Exec(s.get(),
       "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
       "'temp_user') THEN CREATE ROLE temp_user; END IF; END$$;"
       "SET ROLE temp_user");
  EXPECT_EQ(temp(), "pg_default");
  Exec(s.get(), "RESET ROLE; RESET temp_tablespaces");
  Exec(s.get(), "DROP TABLESPACE " + kName);
}

// A server crash in the middle of the copy: batches committed without
// waiting for their WAL flush may be lost, together with their journal
// rows; the resumed run copies them again, reads no row twice and loses
// none. The checkpoint guard across a kill:
// OnlineUnderLoadSurvivesKill9AtEveryStep.
TEST_P(MigrateTest, ResumesAfterTheServerCrashesDuringTheCopy) {
  // The WAL writer waits 10 s: the batches' commits are not flushed before
  // the crash, nor their journal rows.
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"wal_writer_delay", "10s"}}, &pg, &s));
  MakeTwinnedTable(s.get(), "c", 20000);
  MigrateOptions options;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 1000;
  options.checkpoint_guard = false;
  int crashes = 0;
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:5:after-commit" || crashes++ > 0) return;
    PGLAYOUT_EXPECT_OK(pg->Restart(StopMode::kImmediate));
  };
  std::string plan = MovePlan(pg.get(), "c");
  std::string conninfo = Conninfo(pg.get(), "postgres");
  MigrateResult crashed;
  EXPECT_FALSE(MigratePlan(plan, conninfo, true, &crashed, options).ok());
  EXPECT_EQ(crashes, 1);
  s.reset();
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "postgres", &s));
  EXPECT_EQ(Value(s.get(),
                  "SELECT coalesce(max(batch_no), 0) < 5 FROM pglayout.batch "
                  "WHERE step_key = 'move:public.c'"),
            "t")
      << "batch 5 was lost with the crash";
  // The capture trigger survived as well: changes after the restart.
  Exec(s.get(),
       "UPDATE c SET v = 'after' WHERE id % 100 = 0;"
       "UPDATE c_v SET v = 'after' WHERE id % 100 = 0;"
       "DELETE FROM c WHERE id BETWEEN 3000 AND 3099;"
       "DELETE FROM c_v WHERE id BETWEEN 3000 AND 3099");
  MigrateResult resumed;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan, conninfo, true, &resumed, options));
  EXPECT_EQ(Diff(s.get(), "c", "c_v"), "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) || ' ' || t.spcname FROM c, pg_class k "
                  "JOIN pg_tablespace t ON t.oid = k.reltablespace WHERE "
                  "k.oid = 'c'::regclass GROUP BY t.spcname"),
            "19900 c_ts");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_trigger WHERE tgname LIKE "
                  "'pglayout%'"),
            "0");
}

// A block-range copy would read a row twice when an UPDATE moves it from a
// block already copied to one not yet copied; each batch leaves out the
// keys logged so far, which avoids that. And verification is not a formality:
// a copy damaged behind pglayout's back is refused, naming the keys.
TEST_P(MigrateTest, BlockCopyReadsMovedRowsOnceAndVerificationCatchesDamage) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, side;
  PGLAYOUT_ASSERT_OK(FreshDatabase("blocks", &pg, &s));
  PGLAYOUT_ASSERT_OK(Open(pg, "blocks", &side));
  // Full pages, except free space in the second half of the heap: an
  // UPDATE of a row in the first blocks puts the new version there.
  Exec(s.get(),
       "CREATE TABLE t (id int PRIMARY KEY, v text) WITH (fillfactor = 100, "
       "autovacuum_enabled = false);"
       "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 20000) "
       "g;"
       "DELETE FROM t WHERE id > 12000 AND id % 2 = 0");
  Exec(s.get(), "VACUUM ANALYZE t");
  Exec(s.get(),
       "CREATE TABLE t_v AS TABLE t;"
       "CREATE TABLE u (id int PRIMARY KEY, v text, j json);"
       "INSERT INTO u SELECT g, md5(g::text), '{}' FROM generate_series(1, "
       "5000) g;"
       "ANALYZE u;"
       "CREATE TABLE h (id int PRIMARY KEY, v text, c varchar(20), b "
       "char(30), j json, p point)");
  std::string u_oid = Value(s.get(), "SELECT 'u'::regclass::oid");
  // Verification hashes each column by its type's hash function (varchar
  // by text's, char(n) by bpchar's, never cast to a one-character char);
  // json and point have none and hash their text form.
  TableFacts facts;
  PGLAYOUT_ASSERT_OK(GatherTableFacts(
      s.get(), std::stoul(Value(s.get(), "SELECT 'h'::regclass::oid")),
      &facts));
  std::vector<std::string> hashes;
  for (const ColumnFacts& c : facts.columns) {
    hashes.push_back(c.name + ":" + c.hash_function + "(" + c.hash_input_type +
                     ")");
  }
  EXPECT_EQ(JoinComma(hashes),
            "id:pg_catalog.hashint4extended(pg_catalog.int4), "
            "v:pg_catalog.hashtextextended(pg_catalog.text), "
            "c:pg_catalog.hashtextextended(pg_catalog.text), "
            "b:pg_catalog.hashbpcharextended(pg_catalog.bpchar), j:(), p:()");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("blocks_ts", &dir));
  std::string tablespace =
      "[[tablespace]]\nname = \"blocks_ts\"\npath = \"" + dir + "\"\n";
  auto move = [](const std::string& table) {
    return "[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"blocks_ts\"]\n";
  };
  MigrateOptions options;
  options.checkpoint_guard = false;  // the shared server keeps its settings
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 1000;
  std::string moved_ids = "id <= 300 OR id BETWEEN 5000 AND 5100";
  int updates = 0;
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:2:after-commit" || updates++ > 0) return;
    for (const char* table : {"t", "t_v"}) {
      Exec(side.get(), fmt::format("UPDATE {} SET v = v || '+' WHERE {}", table,
                                   moved_ids));
    }
  };
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(tablespace + move("t"), Conninfo(pg, "blocks"),
                                 true, &report, options));
  EXPECT_EQ(updates, 1);
  // PostgreSQL 12 and 13 have no TID range scan: they copy in key order,
  // which reads each row once in its batch's key range, logged or not.
  const bool by_blocks = version() != PgVersion::k12;
  EXPECT_TRUE(HasLine(report, by_blocks ? "heap blocks" : "in key order"));
  // The rows moved from blocks not yet copied (5000..5100) were left out
  // by the later batches (their keys were logged) and came by replay; the
  // rows moved from blocks already copied (..300) were not read twice,
  // or the key index could not have been built.
  EXPECT_EQ(Value(s.get(),
                  "SELECT rows_copied || ' ' || (rows_replayed >= 401) FROM "
                  "pglayout.step WHERE step_key = 'move:public.t'"),
            by_blocks ? "15899 true" : "16000 true");
  EXPECT_EQ(Diff(s.get(), "t", "t_v"), "0");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM t WHERE v LIKE '%+'"), "401");
  EXPECT_EQ(Value(s.get(),
                  "SELECT src_rows = new_rows AND src_sum = new_sum AND "
                  "src_rows > 14000 FROM pglayout.verification WHERE step_key "
                  "= 'move:public.t'"),
            "t");

  // Damage the copy of u just before its verification.
  options.failpoint = [&](const std::string& name) {
    if (name != "before-verify:move:public.u") return;
    std::string shadow = "pglayout_new_" + u_oid;
    Exec(side.get(), "UPDATE " + shadow +
                         " SET j = '{\"a\": 1}' WHERE id = 42;"
                         "DELETE FROM " +
                         shadow + " WHERE id = 4242");
  };
  MigrateResult refused;
  Status st = MigratePlan(tablespace + move("u"), Conninfo(pg, "blocks"), true,
                          &refused, options);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("verification failed: the source has 5000 rows"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("the copy 4999 rows"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("(42)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("(4242)"), std::string::npos) << st.message();
  EXPECT_EQ(Value(s.get(), "SELECT 'u'::regclass::oid"), u_oid)
      << "nothing swapped";
  MigrateOptions abort = options;
  abort.mode = MigrateMode::kAbort;
  abort.failpoint = nullptr;
  MigrateResult aborted;
  PGLAYOUT_EXPECT_OK(MigratePlan(tablespace + move("u"), Conninfo(pg, "blocks"),
                                 true, &aborted, abort));
  EXPECT_EQ(Value(s.get(),
                  "SELECT to_regclass('pglayout_new_" + u_oid + "') IS NULL"),
            "t");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM u WHERE j::text <> '{}'"),
            "0");
}

// A table that receives logical replication: the subscription knows it by
// oid, so after a rename swap its apply worker would skip every change for
// the new table without an error. The online move is refused before any
// change; the offline move it suggests keeps the table, and replication
// goes on.
TEST_P(MigrateTest, RefusesToSwapATableASubscriptionAppliesTo) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> admin, pub, sub;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"wal_level", "logical"}}, &pg, &admin));
  Exec(admin.get(), "CREATE DATABASE pubdb");
  Exec(admin.get(), "CREATE DATABASE subdb");
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "pubdb", &pub));
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "subdb", &sub));
  const char* table = "CREATE TABLE t (id int PRIMARY KEY, v text)";
  Exec(pub.get(), table);
  Exec(pub.get(),
       "INSERT INTO t SELECT g, 'v' FROM generate_series(1, 100) g;"
       "CREATE PUBLICATION p FOR TABLE t");
  // Publisher and subscriber share the server: the slot is made apart.
  Exec(pub.get(),
       "SELECT pg_create_logical_replication_slot('pglayout_sub', "
       "'pgoutput')");
  Exec(sub.get(), table);
  Exec(sub.get(), "CREATE SUBSCRIPTION s CONNECTION '" +
                      Conninfo(pg.get(), "pubdb") +
                      "' PUBLICATION p WITH (create_slot = false, slot_name "
                      "= 'pglayout_sub')");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("sub_ts", &dir));
  std::string plan = "[[tablespace]]\nname = \"sub_ts\"\npath = \"" + dir +
                     "\"\n[[placement]]\nrelation = \"public.t\"\nstrategy = "
                     "\"move\"\ntablespaces = [\"sub_ts\"]\n";
  MigrateOptions options;
  options.checkpoint_guard = false;
  MigrateResult refused;
  Status st =
      MigratePlan(plan, Conninfo(pg.get(), "subdb"), true, &refused, options);
  EXPECT_NE(st.message().find("public.t: receives logical replication from "
                              "subscription s: after a rename swap it would "
                              "silently stop applying changes to it; move it "
                              "with online = false"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(Value(sub.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE "
                  "spcname = 'sub_ts'"),
            "0");

  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan + "online = false\n",
                                 Conninfo(pg.get(), "subdb"), true, &report,
                                 options));
  Exec(pub.get(), "INSERT INTO t VALUES (101, 'after the move')");
  std::string arrived;
  for (int i = 0; i < 300 && arrived != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    arrived = Value(sub.get(), "SELECT count(*) FROM t WHERE id = 101");
  }
  EXPECT_EQ(arrived, "1") << "replication stopped after the offline move";
  EXPECT_EQ(Value(sub.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = 't'::regclass"),
            "sub_ts");
  Exec(sub.get(), "DROP SUBSCRIPTION s");
}

// The swap waits for transactions older than the copy; the foreground's
// writes meanwhile are replayed before the swap takes its ACCESS EXCLUSIVE
// lock, never thousands of them under it (docs/online-migration.md#lock-queue,
// #convergence).
TEST_P(MigrateTest, SwapReplaysTheBacklogOfItsWaitOutsideTheLock) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("backlog", "b", 20000, &m));
  std::unique_ptr<SqlSession> old;
  PGLAYOUT_ASSERT_OK(Open(m.pg, "backlog", &old));
  std::string log =
      "pglayout.log_" + Value(m.s.get(), "SELECT 'b'::regclass::oid");
  m.options.batch_rows = 5000;
  m.options.switch_threshold = 2000;
  bool wrote = false, burst = false;
  std::vector<int64_t> pending_at_swap;
  m.options.failpoint = [&](const std::string& name) {
    if (name == "before-verify:move:public.b") {
      // A transaction older than the swap phase, which it must wait for.
      Exec(old.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ");
      Value(old.get(), "SELECT count(*) FROM b");
    } else if (name == "swap-wait:move:public.b" && !wrote) {
      wrote = true;  // 20000 changes while the swap waits, then it may go
      Exec(m.side.get(), "UPDATE b SET v = v || '+'");
      Exec(old.get(), "COMMIT");
    } else if (name == "before-swap:move:public.b" && !burst) {
      burst = true;  // and 20000 more between its catch-up and its lock
      Exec(m.side.get(), "UPDATE b SET v = v || '+'");
    } else if (name == "swap:before-commit") {
      // The swap's own replay is not committed yet: the log as it found it.
      pending_at_swap.push_back(
          std::stoll(Value(m.side.get(), "SELECT count(*) FROM " + log)));
    }
  };
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_TRUE(wrote) << "the swap did not wait for the older transaction";
  EXPECT_TRUE(burst);
  ASSERT_EQ(pending_at_swap.size(), 1u) << "one attempt reached its commit";
  EXPECT_LE(pending_at_swap[0], 10000) << "replayed under the swap's lock";
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT count(*) FILTER (WHERE v = 'v++') || '/' || "
                  "count(*) FROM b"),
            "20000/20000");
}

// Table a (x int, y |y_type|, v text, key (x, y)) with 20,000 rows, schema
// pglayout, and a's facts and online names, for the copy-batch tests.
void MakeCopyCase(SqlSession* s, const std::string& y_type, TableFacts* facts,
                  OnlineNames* names) {
  Exec(s, "CREATE TABLE a (x int, y " + y_type +
              ", v text, PRIMARY KEY (x, y));"
              "INSERT INTO a SELECT g, g % 7, 'v' FROM generate_series(1, "
              "20000) g;"
              "CREATE SCHEMA pglayout");
  PGLAYOUT_ASSERT_OK(GatherTableFacts(
      s, std::stoul(Value(s, "SELECT 'a'::regclass::oid")), facts));
  OnlineTarget target;
  target.tablespaces = {"pg_default"};
  *names = MakeOnlineNames(*facts, target);
}

// The copy leaves out logged keys by an anti join whatever the log's size.
// A NOT IN subquery is hashed only while the log fits in work_mem; past
// that it rescans the log for every row, and one batch of a 10 M-row
// table under pgbench ran for a quarter of an hour.
TEST_P(MigrateTest, CopyLeavesOutLoggedKeysByAnAntiJoinPastWorkMem) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("antijoin", &pg, &s));
  TableFacts facts;
  OnlineNames names;
  ASSERT_NO_FATAL_FAILURE(MakeCopyCase(s.get(), "int", &facts, &names));
  // Every odd x logged, 20,000 log rows: far more than 64kB of work_mem.
  Exec(s.get(), "CREATE TABLE " + names.QualifiedShadow() +
                    " (LIKE a); CREATE TABLE " + names.log +
                    " (id bigint GENERATED ALWAYS AS IDENTITY, k1 int NOT "
                    "NULL, k2 int NOT NULL); INSERT INTO " +
                    names.log +
                    " (k1, k2) SELECT g, g % 7 FROM generate_series(1, "
                    "40000, 2) g; ANALYZE; SET work_mem = '64kB'");
  std::vector<SqlValue> blocks = {"(0,0)", "(100000,0)"};
  std::string copy =
      CopyTidRangeSql(facts, names, BlockCopyFilter::kLoggedKeys);
  std::string text = PlanOf(s.get(), copy, blocks);
  EXPECT_NE(text.find("Anti Join"), std::string::npos) << text;
  EXPECT_EQ(text.find("SubPlan"), std::string::npos) << text;
  SqlResult copied;
  PGLAYOUT_ASSERT_OK(s->Execute(copy, blocks, &copied));
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FILTER (WHERE x % 2 = 0) || '/' "
                  "|| count(*) FROM " +
                      names.QualifiedShadow()),
            "10000/10000");
}

// The loops of the plan node that names |index| in EXPLAIN ANALYZE |text|:
// how many rows the copy looked up in the log; -1 if it names none.
int64_t LookupsIn(const std::string& text, const std::string& index) {
  static const std::regex kLoops(R"(loops=(\d+))");
  size_t at = text.find(index);
  if (at == std::string::npos) return -1;
  std::string line = text.substr(at, text.find('\n', at) - at);
  std::smatch m;
  return std::regex_search(line, m, kLoops) ? std::stoll(m[1].str()) : -1;
}

// The xmin threshold of CopyTidRangeSql ($3, the oldest transaction
// running at the install): older rows are copied, logged or not; newer
// ones are looked up in the log: copied if their writer wrote before the
// install (no log row), left out if after, as the trigger logged them.
TEST_P(MigrateTest, CopyLooksUpOnlyRowsWrittenSinceTheOldestRunningXid) {
  // A server of its own: another test's open transaction would hold $3
  // back and widen the looked-up band.
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s, holder, across;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"autovacuum", "off"}}, &pg, &s));
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "postgres", &holder));
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "postgres", &across));
  TableFacts facts;
  OnlineNames names;
  ASSERT_NO_FATAL_FAILURE(
      MakeCopyCase(s.get(), "text COLLATE \"C\"", &facts, &names));
  // A key column of a collation other than its type's: the log's column
  // takes it, or its index could not serve the lookups.
  ASSERT_EQ(facts.columns.at(1).collation, "pg_catalog.\"C\"");
  // An open transaction holds $3 back; a writer that commits before the
  // install leaves rows newer than $3 without log rows; another
  // transaction is running across the install.
  Exec(holder.get(), "BEGIN; SELECT txid_current()");
  Exec(s.get(), "UPDATE a SET v = 'before' WHERE x BETWEEN 101 AND 150");
  Exec(across.get(), "BEGIN; SELECT txid_current()");
  Exec(s.get(), "CREATE TABLE " + names.QualifiedShadow() + " (LIKE a)");
  for (const std::string& sql : CaptureCreateSql(facts, names, 1, true)) {
    if (!sql.empty()) Exec(s.get(), sql);
  }
  std::string threshold = Value(s.get(), kOldestRunningXidSql);
  EXPECT_EQ(threshold,
            Value(holder.get(), "SELECT txid_current() % 4294967296"));
  // Written after the install through the trigger: by the transaction
  // running across it, by the one that is $3 itself (xmin = $3: looked
  // up), then by a new one; every odd x logged without a new row version
  // (as if changed and changed back).
  Exec(across.get(),
       "UPDATE a SET v = 'across' WHERE x BETWEEN 151 AND 200; COMMIT");
  Exec(holder.get(),
       "UPDATE a SET v = 'holder' WHERE x BETWEEN 201 AND 210; COMMIT");
  Exec(s.get(), "INSERT INTO " + names.log +
                    " (k1, k2) SELECT x, y FROM a WHERE x % 2 = 1;"
                    "UPDATE a SET v = 'new' WHERE x <= 100; ANALYZE");
  std::vector<SqlValue> params = {"(0,0)", "(100000,0)", threshold};
  Exec(s.get(), "BEGIN");
  for (const std::string& set : CopyByXminSettingsSql()) {
    // hash_mem_multiplier is 13+; the copy by xmin runs on 14+ only.
    bool on_12 = version() == PgVersion::k12;
    if (!on_12 || set.find("hash_mem") == std::string::npos) {
      Exec(s.get(), set);
    }
  }
  std::string text = PlanOf(
      s.get(), CopyTidRangeSql(facts, names, BlockCopyFilter::kLoggedSinceXmin),
      params, true);
  Exec(s.get(), "COMMIT");
  // One probe of the log's key index for each of the 210 rows from $3 on,
  // never a hash of the whole log.
  EXPECT_EQ(text.find("hashed"), std::string::npos) << text;
  EXPECT_EQ(LookupsIn(text, "_k1_k2_idx"), 210) << text;
  // Left out: the rows written since the install, whose keys the trigger
  // logged, and the logged (odd) ones among those newer than $3 written
  // before it. Copied: every older row, the logged odd ones among them,
  // and the 25 unlogged (even) rows written before the install by a
  // transaction newer than $3.
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) || ' ' || count(*) FILTER (WHERE x % 2 = "
                  "1) || ' ' || count(*) FILTER (WHERE v = 'before') || ' ' "
                  "|| count(*) FILTER (WHERE v IN ('new', 'across', "
                  "'holder')) FROM " +
                      names.QualifiedShadow()),
            "19815 9895 25 0");
}

// Under logical capture the log lags behind the commits, so a block-range
// batch cannot leave out what the log holds: rows written since $3 go to
// the log instead of the shadow, in the batch's snapshot, for replay to
// copy; and a row the xmin test cannot tell older than $3 (as a row frozen
// long ago whose xmin wrapped around) is logged too, never dropped.
TEST_P(MigrateTest, LogicalCopyLogsTheRowsWrittenSinceTheOldestRunningXid) {
  // A server of its own, as above: another test's open transaction would
  // hold $3 back.
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"autovacuum", "off"}}, &pg, &s));
  TableFacts facts;
  OnlineNames names;
  ASSERT_NO_FATAL_FAILURE(MakeCopyCase(s.get(), "int", &facts, &names));
  const std::string rows_xid = Value(s.get(), "SELECT xmin FROM a LIMIT 1");
  Exec(s.get(), "CREATE TABLE " + names.QualifiedShadow() + " (LIKE a)");
  for (const std::string& sql : CaptureCreateSql(facts, names, 1, true,
                                                 /*row_trigger=*/false)) {
    if (!sql.empty()) Exec(s.get(), sql);
  }
  const std::string threshold = Value(s.get(), kOldestRunningXidSql);
  Exec(s.get(), "UPDATE a SET v = 'new' WHERE x <= 100");
  const std::string copy =
      CopyTidRangeSql(facts, names, BlockCopyFilter::kSinceXmin);
  SqlResult r;
  PGLAYOUT_ASSERT_OK(s->Execute(copy, {"(0,0)", "(100000,0)", threshold}, &r));
  EXPECT_EQ(r.affected_rows, 19900) << "the shadow's rows";
  auto shadow_and_log = [&]() {
    return Value(s.get(),
                 "SELECT (SELECT count(*) || '/' || count(*) FILTER (WHERE v = "
                 "'new') FROM " +
                     names.QualifiedShadow() +
                     ") || ' ' || (SELECT count(DISTINCT k1) || '/' || "
                     "max(k1) FROM " +
                     names.log + ")");
  };
  // None of the updated rows copied; exactly their keys logged.
  EXPECT_EQ(shadow_and_log(), "19900/0 100/100");
  // $3 no older than the rows' own writer: every row counts as recent.
  Exec(s.get(),
       "TRUNCATE " + names.QualifiedShadow() + "; TRUNCATE " + names.log);
  PGLAYOUT_ASSERT_OK(s->Execute(copy, {"(0,0)", "(100000,0)", rows_xid}, &r));
  EXPECT_EQ(shadow_and_log(), "0/0 20000/20000");
}

// A journal made by an older version (without the bytes columns) is
// upgraded in place.
TEST_P(MigrateTest, UpgradesAnOlderJournalSchema) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({}, &pg, &s));
  Journal journal(s.get());
  PGLAYOUT_ASSERT_OK(journal.EnsureSchema());
  Exec(s.get(),
       "ALTER TABLE pglayout.step DROP COLUMN bytes_copied;"
       "ALTER TABLE pglayout.batch DROP COLUMN bytes");
  PGLAYOUT_ASSERT_OK(journal.EnsureSchema());
  RunRecord run;
  PGLAYOUT_ASSERT_OK(journal.StartRun("h", "plan", "0", 0, 0, &run));
  PGLAYOUT_ASSERT_OK(
      journal.SetStep(run.run_id, "move:t", 1, "running", "copy", 0));
  PGLAYOUT_ASSERT_OK(
      journal.RecordBatch(run.run_id, "move:t", 1, {}, {"5"}, 5, 640));
  PGLAYOUT_ASSERT_OK(
      journal.RecordBatch(run.run_id, "move:t", 2, {"5"}, {"9"}, 4, 512));
  std::map<std::string, StepRecord> steps;
  PGLAYOUT_ASSERT_OK(journal.LoadSteps(run.run_id, &steps));
  EXPECT_EQ(steps["move:t"].bytes_copied, 1152);
  EXPECT_EQ(steps["move:t"].rows_copied, 9);
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(batch_no || ':' || lower_key::text || "
                  "':' || bytes, ' ' ORDER BY batch_no) FROM pglayout.batch "
                  "WHERE step_key = 'move:t' AND lower_key IS NOT NULL"),
            "2:{5}:512");
}

// ------------------- what the swap carries over, online index moves, JSON --

// A failing statement's SQLSTATE (its message when it has none), or "ok".
std::string SqlState(SqlSession* s, const std::string& sql) {
  Status st = ExecuteSql(s, sql);
  if (st.ok()) return "ok";
  return s->last_sqlstate().empty() ? st.message() : s->last_sqlstate();
}

// Runs the binary with stderr discarded, so stdout can be parsed as JSON.
BinaryRun RunPglayoutStdout(const std::vector<std::string>& args) {
  std::vector<std::string> shell = {"-c", "exec \"$0\" \"$@\" 2>/dev/null",
                                    PGLAYOUT_BINARY};
  shell.insert(shell.end(), args.begin(), args.end());
  Command c;
  c.argv = {"/bin/sh"};
  c.argv.insert(c.argv.end(), shell.begin(), shell.end());
  return RunToCompletion(c);
}

// emp has an outgoing FK (to dept) and an incoming one (from task), forced
// row-level security with two policies, and triggers in every ENABLE state;
// dept (the target of emp's FK) becomes hash-partitioned; task's index
// moves with REINDEX CONCURRENTLY.
void SetUpDependents(SqlSession* s) {
  Exec(s,
       "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
       "'app_user') THEN CREATE ROLE app_user; END IF; END$$;"
       "CREATE TABLE dept (id int PRIMARY KEY, name text NOT NULL);"
       "INSERT INTO dept SELECT g, 'd' || g FROM generate_series(1, 50) g;"
       "CREATE TABLE emp (id int PRIMARY KEY, dept_id int NOT NULL "
       "REFERENCES dept (id), owner_name name NOT NULL, v text);"
       "INSERT INTO emp SELECT g, g % 50 + 1, CASE WHEN g % 3 = 0 THEN "
       "'app_user' ELSE 'postgres' END, 'v' || g FROM "
       "generate_series(1, 5000) g;"
       "CREATE TABLE task (id int PRIMARY KEY, emp_id int REFERENCES emp (id) "
       "ON DELETE CASCADE);"
       "INSERT INTO task SELECT g, g FROM generate_series(1, 1000) g;"
       "CREATE INDEX task_emp ON task (emp_id);"
       "CREATE TABLE audit (emp_id int, op text);"
       "ALTER TABLE emp ENABLE ROW LEVEL SECURITY;"
       "ALTER TABLE emp FORCE ROW LEVEL SECURITY;"
       "CREATE POLICY own_rows ON emp FOR SELECT TO app_user USING "
       "(owner_name = current_user);"
       "CREATE POLICY positive ON emp AS RESTRICTIVE FOR INSERT WITH CHECK "
       "(id > 0);"
       "GRANT SELECT, INSERT ON emp TO app_user;"
       "GRANT UPDATE (v) ON emp TO app_user;"
       "ALTER TABLE emp ALTER COLUMN v SET STATISTICS 500;"
       "ALTER TABLE emp ALTER COLUMN dept_id SET (n_distinct = 50);"
       "COMMENT ON COLUMN emp.v IS 'free text';"
       "CREATE FUNCTION emp_stamp() RETURNS trigger LANGUAGE plpgsql AS "
       "$$BEGIN NEW.v := coalesce(NEW.v, 'stamped'); RETURN NEW; END$$;"
       "CREATE FUNCTION emp_audit() RETURNS trigger LANGUAGE plpgsql AS "
       "$$BEGIN INSERT INTO public.audit VALUES (NEW.id, TG_OP); RETURN NULL; "
       "END$$;"
       "CREATE TRIGGER emp_stamp BEFORE INSERT ON emp FOR EACH ROW EXECUTE "
       "FUNCTION emp_stamp();"
       "CREATE TRIGGER emp_audit AFTER INSERT ON emp FOR EACH ROW EXECUTE "
       "FUNCTION emp_audit();"
       "CREATE TRIGGER emp_off AFTER UPDATE ON emp FOR EACH ROW EXECUTE "
       "FUNCTION emp_audit();"
       "ALTER TABLE emp DISABLE TRIGGER emp_off;"
       "CREATE TRIGGER emp_always AFTER UPDATE OF v ON emp FOR EACH ROW "
       "WHEN (NEW.v = 'always') EXECUTE FUNCTION emp_audit();"
       "ALTER TABLE emp ENABLE ALWAYS TRIGGER emp_always");
}

constexpr char kPoliciesSql[] =
    "SELECT string_agg(concat_ws(':', policyname, permissive, cmd, roles, "
    "qual, with_check), ' | ' ORDER BY policyname) FROM pg_policies WHERE "
    "tablename = 'emp'";
constexpr char kTriggersSql[] =
    "SELECT string_agg(tgname || ':' || tgenabled::text || ':' || "
    "regexp_replace(pg_get_triggerdef(oid), ' ON \\S+ ', ' ON emp '), ' | ' "
    "ORDER BY tgname) FROM pg_trigger WHERE tgrelid = 'emp'::regclass AND NOT "
    "tgisinternal";
constexpr char kForeignKeysSql[] =
    "SELECT string_agg(conname || ':' || conrelid::regclass || '->' || "
    "confrelid::regclass || ':' || convalidated || ':' || "
    "pg_get_constraintdef(oid), ' | ' ORDER BY conname) FROM pg_constraint "
    "WHERE contype = 'f' AND conparentid = 0 AND connamespace = "
    "'public'::regnamespace";

// During emp's copy (between batches): TRUNCATE is refused, also for a
// session_replication_role = replica writer, and ordinary writes go on.
void DuringCopy(SqlSession* s) {
  EXPECT_EQ(SqlState(s, "TRUNCATE emp, task"), "55006");
  Exec(s, "SET session_replication_role = replica");
  EXPECT_EQ(SqlState(s, "TRUNCATE emp, task"), "55006");
  Exec(s, "RESET session_replication_role");
  Exec(s,
       "INSERT INTO emp (id, dept_id, owner_name) VALUES (6001, 2, "
       "'app_user');"
       "UPDATE emp SET v = 'always' WHERE id = 4000;"
       "UPDATE emp SET dept_id = 3 WHERE id BETWEEN 10 AND 20;"
       "DELETE FROM emp WHERE id BETWEEN 4990 AND 4999");
}

// DDL during the copy that the shadow would not have (here a new column
// default) stops the swap, so the application never loses it; --abort
// leaves the table as the DDL made it.
TEST_P(MigrateTest, DdlDuringTheCopyStopsTheSwap) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("ddl", "g", 3000, &m));
  std::string oid = Value(m.s.get(), "SELECT 'g'::regclass::oid");
  bool altered = false;
  m.options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:1:after-commit") {
      Exec(m.side.get(), "ALTER TABLE g ALTER COLUMN v SET DEFAULT 'b'");
      altered = true;
    }
  };
  Status st = m.Run();
  EXPECT_TRUE(altered);
  EXPECT_NE(st.message().find("public.g: its definition (columns, defaults, "
                              "indexes, constraints, owner or storage "
                              "parameters) changed since the copy started"),
            std::string::npos)
      << st.message();
  PGLAYOUT_ASSERT_OK(m.Abort());
  Exec(m.s.get(), "INSERT INTO g (id) VALUES (3001)");
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT 'g'::regclass::oid || ' ' || v FROM g "
                  "WHERE id = 3001"),
            oid + " b");
}

// A writer that does not own the table (and has no right on schema
// pglayout) is captured all the same: the capture trigger is SECURITY
// DEFINER. Its serial column's sequence moves with the table, so it still
// works after --finalize drops the old copy.
TEST_P(MigrateTest, NonOwnerWritesAreCapturedAndTheSerialSurvivesFinalize) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, app;
  PGLAYOUT_ASSERT_OK(FreshDatabase("nonowner", &pg, &s));
  Exec(s.get(),
       "DROP ROLE IF EXISTS app_writer; CREATE ROLE app_writer LOGIN;"
       "CREATE TABLE w (id serial PRIMARY KEY, v text);"
       "INSERT INTO w (v) SELECT 'v' FROM generate_series(1, 3000);"
       "CREATE TABLE w_v AS TABLE w;"
       "GRANT SELECT, INSERT, UPDATE, DELETE ON w, w_v TO app_writer;"
       "GRANT USAGE ON SEQUENCE w_id_seq TO app_writer");
  PGLAYOUT_ASSERT_OK(OpenPgSessionAsConfigured(
      Conninfo(pg, "nonowner", "app_writer"), "pglayout-test", &app));
  MigrateOptions options;
  options.checkpoint_guard = false;  // the shared server keeps its settings
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 1000;
  bool wrote = false;
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:1:after-commit" || wrote) return;
    wrote = true;
    Exec(app.get(),
         "WITH n AS (INSERT INTO w (v) VALUES ('new') RETURNING *) "
         "INSERT INTO w_v SELECT * FROM n;"
         "UPDATE w SET v = 'changed' WHERE id % 7 = 0;"
         "UPDATE w_v SET v = 'changed' WHERE id % 7 = 0;"
         "DELETE FROM w WHERE id % 11 = 0; DELETE FROM w_v WHERE id % 11 = 0");
  };
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(MovePlan(pg, "w"), Conninfo(pg, "nonowner"),
                                 true, &report, options));
  EXPECT_TRUE(wrote);
  EXPECT_EQ(Diff(s.get(), "w", "w_v"), "0");
  BinaryRun fin = RunPglayout(
      {"migrate", "--finalize", "--dsn", Conninfo(pg, "nonowner")}, "");
  EXPECT_EQ(fin.exit_code, 0) << fin.output;
  EXPECT_EQ(Value(app.get(), "INSERT INTO w (v) VALUES ('after') RETURNING id"),
            "3002");
  EXPECT_EQ(Value(s.get(), "SELECT pg_get_serial_sequence('w', 'id')"),
            "public.w_id_seq");
}

// A capture trigger disabled during the copy may have missed changes: the
// swap refuses, and --abort leaves the table as it was.
TEST_P(MigrateTest, ADisabledCaptureTriggerStopsTheSwap) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("disabled", "d", 3000, &m));
  std::string oid = Value(m.s.get(), "SELECT 'd'::regclass::oid");
  m.options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:1:after-commit") {
      Exec(m.side.get(), "ALTER TABLE d DISABLE TRIGGER pglayout_capture");
    }
  };
  Status st = m.Run();
  EXPECT_NE(st.message().find("public.d: the capture trigger was disabled or "
                              "dropped (D); changes may have been missed, so "
                              "the copy is not swapped"),
            std::string::npos)
      << st.message();
  PGLAYOUT_ASSERT_OK(m.Abort());
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT 'd'::regclass::oid || ' ' || count(*) || "
                  "' ' || (SELECT count(*) FROM pg_trigger WHERE "
                  "tgname LIKE 'pglayout%') FROM d"),
            oid + " 3000 0");
}

// A run killed midway, its output going to a file (block-buffered, as
// under cron, systemd, nohup or | tee), still leaves the log of every step
// it completed: a DBA resuming after a kill needs it.
TEST_P(MigrateTest, AKilledRunsLogHoldsTheStepsItCompleted) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("killlog", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE t (id int PRIMARY KEY, v text);"
       "INSERT INTO t SELECT g, 'v' FROM generate_series(1, 5000) g");
  // One file per version: ctest runs the versions as parallel processes.
  const std::string plan =
      WriteFile(std::string("killlog-") + PgVersionName(version()) + ".toml",
                MovePlan(pg, "t"));
  BinaryRun run = RunPglayout(
      {"migrate", plan, "--dsn", Conninfo(pg, "killlog"), "--apply",
       "--throttle", "off", "--batch-rows", "1000", "--no-checkpoint-guard"},
      "copy-batch:2:after-commit");
  EXPECT_EQ(run.signal, SIGKILL) << run.output;
  EXPECT_NE(run.output.find("run 1 started"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("created tablespace t_ts at "), std::string::npos)
      << run.output;
  // The resumed run says so, and finishes.
  BinaryRun resumed =
      RunPglayout({"migrate", plan, "--dsn", Conninfo(pg, "killlog"), "--apply",
                   "--throttle", "off", "--no-checkpoint-guard"},
                  "");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("run 1 resumed"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM t"), "5000");
}

// --finalize drops every old copy it can: one that an object still
// depends on is kept and named, and does not keep the others.
TEST_P(MigrateTest, FinalizeDropsWhatItCanAndNamesWhatItKept) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("finalize", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE a (id int PRIMARY KEY, v text);"
       "CREATE TABLE b (id int PRIMARY KEY, v text);"
       "INSERT INTO a SELECT g, 'a' FROM generate_series(1, 100) g;"
       "INSERT INTO b SELECT g, 'b' FROM generate_series(1, 100) g");
  const std::string a_oid = Value(s.get(), "SELECT 'a'::regclass::oid");
  MigrateOptions options;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  MigrateResult report;
  const std::string plan = MovePlan(pg, "a") + MovePlan(pg, "b");
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan, Conninfo(pg, "finalize"), true, &report, options));
  Exec(s.get(), "CREATE VIEW keeps_a AS SELECT * FROM pglayout.old_" + a_oid);

  options.mode = MigrateMode::kFinalize;
  report = MigrateResult();
  Status st =
      MigratePlan(plan, Conninfo(pg, "finalize"), true, &report, options);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("1 of 2 old copies could not be dropped"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("pglayout.old_" + a_oid), std::string::npos)
      << st.message();
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(relname, ',') FROM pg_class WHERE "
                  "relnamespace = 'pglayout'::regnamespace AND relkind = 'r' "
                  "AND relname LIKE 'old\\_%'"),
            "old_" + a_oid);
}

// What lies outside the plan is not the run's to judge: an invalid index
// left by a failed CREATE UNIQUE INDEX CONCURRENTLY on another table, or a
// user's trigger named pglayout_*, once made every run fail its final check
// after the swap, and fail again on every resume. A user's pglayout_*
// trigger on the moved table is the user's: it is carried over.
TEST_P(MigrateTest, ObjectsOutsideThePlanDoNotFailItAndUserTriggersStay) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("outside", "moved", 2000, &m));
  Exec(m.s.get(),
       "CREATE TABLE other (id int, u int);"
       "INSERT INTO other SELECT g, g % 10 FROM generate_series(1, 100) g;"
       "CREATE TABLE audit (what text);"
       "CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS "
       "'BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME); RETURN NEW; END';"
       "CREATE TRIGGER pglayout_audit AFTER INSERT ON other "
       "FOR EACH ROW EXECUTE FUNCTION audit();"
       "CREATE TRIGGER pglayout_audit AFTER INSERT ON moved "
       "FOR EACH ROW EXECUTE FUNCTION audit()");
  // Duplicates in u: the concurrent build fails and leaves the index
  // behind, invalid.
  EXPECT_FALSE(ExecuteSql(m.s.get(),
                          "CREATE UNIQUE INDEX CONCURRENTLY other_u ON other "
                          "(u)")
                   .ok());
  ASSERT_EQ(Value(m.s.get(),
                  "SELECT indisvalid FROM pg_index WHERE indexrelid = "
                  "'other_u'::regclass"),
            "f");

  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_TRUE(HasLine(m.report,
                      "final check: every relation is in its "
                      "planned tablespace"));
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = 'moved'::regclass"),
            "moved_ts");
  Exec(m.s.get(), "INSERT INTO moved VALUES (5000, 'x')");
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT string_agg(tgname, ',' ORDER BY tgname) FROM "
                  "pg_trigger WHERE tgrelid = 'moved'::regclass"),
            "pglayout_audit");
  EXPECT_EQ(Value(m.s.get(), "SELECT count(*) FROM audit"), "1")
      << "the user's trigger still fires on the moved table";
}

// A policy and a rule of other tables read the moved table by oid: a swap
// would leave them on the old copy (the policy would go on granting what
// the moved table no longer says). The online move is refused before any
// change; the offline move keeps the table, and with it both.
TEST_P(MigrateTest, ObjectsOfOtherTablesBoundToTheTableRefuseTheSwap) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("bound", "grants", 10, &m));
  Exec(m.s.get(),
       "UPDATE grants SET v = 'bound_clerk';"
       "CREATE TABLE documents (id int PRIMARY KEY, body text);"
       "INSERT INTO documents SELECT g, 'doc' FROM generate_series(1, 10) g;"
       "ALTER TABLE documents ENABLE ROW LEVEL SECURITY;"
       "CREATE POLICY readable ON documents USING (EXISTS (SELECT 1 FROM "
       "grants g WHERE g.id = documents.id AND g.v = current_user));"
       "DROP ROLE IF EXISTS bound_clerk; CREATE ROLE bound_clerk;"
       "GRANT SELECT ON documents, grants TO bound_clerk;"
       "CREATE TABLE requests (id int, v text);"
       "CREATE RULE forward AS ON INSERT TO requests DO ALSO "
       "INSERT INTO grants VALUES (NEW.id, NEW.v)");
  const std::string visible =
      "SET ROLE bound_clerk; SELECT count(*) FROM documents";

  Status st = m.Run();
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  for (const char* object : {"policy readable on table public.documents",
                             "rule forward on table public.requests"}) {
    EXPECT_NE(st.message().find(std::string("public.grants: ") + object +
                                " refers to it by oid and would keep reading "
                                "the old copy after the swap; move it with "
                                "online = false"),
              std::string::npos)
        << st.message();
  }
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname = "
                  "'grants_ts'"),
            "0")
      << "the refusal changed nothing";

  m.plan += "online = false\n";
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(Value(m.side.get(), visible), "10");
  Exec(m.s.get(), "DELETE FROM grants");
  EXPECT_EQ(Value(m.side.get(), "RESET ROLE; " + visible), "0")
      << "the policy reads the moved table";
  Exec(m.s.get(), "INSERT INTO requests VALUES (3, 'bound_clerk')");
  EXPECT_EQ(Value(m.side.get(), "RESET ROLE; " + visible), "1")
      << "the rule writes into the moved table";
  Exec(m.s.get(), "DROP OWNED BY bound_clerk; DROP ROLE bound_clerk");
}

// VACUUM FULL between two batches of a block-range copy reshuffles the
// heap under the copy's cursor without firing the capture trigger: the next
// batch stops the run. A key-order copy (12) is not affected and finishes.
TEST_P(MigrateTest, ARewriteDuringABlockCopyStopsIt) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("rewrite", "r", 3000, &m));
  Exec(m.s.get(), "DELETE FROM r WHERE id % 2 = 0; ANALYZE r");
  m.options.batch_rows = 300;
  bool rewritten = false;
  m.options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:1:after-commit") {
      Exec(m.side.get(), "VACUUM FULL r");
      rewritten = true;
    }
  };
  Status st = m.Run();
  EXPECT_TRUE(rewritten);
  if (version() == PgVersion::k12) {
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(Value(m.s.get(), "SELECT count(*) FROM r"), "1500");
    return;
  }
  EXPECT_NE(st.message().find("public.r: the table was rewritten during the "
                              "copy (VACUUM FULL, CLUSTER or an ALTER TABLE "
                              "that rewrites it)"),
            std::string::npos)
      << st.message();
  PGLAYOUT_ASSERT_OK(m.Abort());
  EXPECT_EQ(Value(m.s.get(), "SELECT count(*) FROM r"), "1500");
}

// The changes the swap replays under its lock were left out of the
// verification before it (pending keys); the swap checks them itself. A
// shadow that stores something else than the source's rows (here a trigger
// on it, standing for a replay defect) stops the swap. The trigger is
// marked internal, as a defect would not show to the shadow's own check
// (which stops at any other trigger, docs/security.md#code-of-other-roles).
TEST_P(MigrateTest, TheSwapVerifiesWhatItReplaysUnderItsLock) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("underlock", "u", 3000, &m));
  Exec(m.s.get(),
       "CREATE FUNCTION garble() RETURNS trigger LANGUAGE plpgsql AS "
       "'BEGIN NEW.v := ''garbled''; RETURN NEW; END'");
  std::string shadow =
      "pglayout_new_" + Value(m.s.get(), "SELECT 'u'::regclass::oid");
  bool garbled = false;
  m.options.failpoint = [&](const std::string& name) {
    if (name != "before-swap:move:public.u") return;
    if (!garbled) {
      garbled = true;
      Exec(m.side.get(),
           "CREATE TRIGGER g BEFORE INSERT ON " + shadow +
               " FOR EACH ROW EXECUTE FUNCTION garble();"
               "UPDATE pg_catalog.pg_trigger SET tgisinternal = true WHERE "
               "tgname = 'g' AND tgrelid = '" +
               shadow +
               "'::regclass;"
               "UPDATE u SET v = 'w' WHERE id <= 3");
    } else {
      Exec(m.side.get(), "UPDATE u SET v = 'w' WHERE id BETWEEN 4 AND 6");
    }
  };
  Status st = m.Run();
  EXPECT_TRUE(garbled);
  EXPECT_NE(st.message().find("public.u: the rows replayed under the swap's "
                              "lock differ: the source has 3 rows"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT count(*) FILTER (WHERE v = 'w') || ' ' || "
                  "(SELECT count(*) FROM pg_tablespace t JOIN "
                  "pg_class c ON c.reltablespace = t.oid WHERE c.oid "
                  "= 'u'::regclass) FROM u"),
            "3 0")
      << "not swapped";

  // Without the defect the same run resumes (its catch-up replays ids
  // 1-3), and the swap replays and verifies ids 4-6 under its lock.
  Exec(m.side.get(), "DROP TRIGGER g ON " + shadow);
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_TRUE(HasLine(m.report,
                      "3 changes replayed and 3 rows verified under the lock"))
      << LineWith(m.report, "swapped");
  EXPECT_EQ(Value(m.s.get(), "SELECT count(*) FILTER (WHERE v = 'w') FROM u"),
            "6");
}

// --verify off skips the online copy's final comparison, and the journal,
// --status and the run's last line say the run was unverified; a resume
// keeps the choice. The default run compares and says it verified.
TEST_P(MigrateTest, VerifyOffSkipsTheFinalComparisonAndSaysSo) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("verifyoff", "vo", 3000, &m));
  Exec(m.s.get(), "CREATE TABLE vo_twin AS TABLE vo");
  std::vector<std::string> points;
  m.options.failpoint = [&](const std::string& name) {
    points.push_back(name);
  };
  auto reached = [&](const std::string& name) {
    return std::find(points.begin(), points.end(), name) != points.end();
  };
  auto journaled = [&](const std::string& key) {
    return Value(m.s.get(),
                 "SELECT r.verify || ' ' || s.verify || ' ' || (SELECT "
                 "count(*) FROM pglayout.verification v WHERE v.run_id = "
                 "r.run_id) FROM pglayout.run r JOIN pglayout.step s USING "
                 "(run_id) WHERE s.step_key = '" +
                     key + "'");
  };
  auto status = [&]() {
    MigrateOptions look;
    look.mode = MigrateMode::kStatus;
    MigrateResult out;
    PGLAYOUT_EXPECT_OK(
        MigratePlan(m.plan, Conninfo(m.pg, m.db), false, &out, look));
    return out;
  };

  // A transaction older than the copy holds the swap back: the run stops
  // past its catch-up, resumable.
  Exec(m.side.get(),
       "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM vo_twin");
  m.options.verify = VerifyMode::kOff;
  m.options.old_xact_wait_s = 0.5;
  Status st = m.Run();
  EXPECT_NE(st.message().find("transactions older than the copy"),
            std::string::npos)
      << st.ToString();
  EXPECT_FALSE(reached("before-verify:move:public.vo"));
  EXPECT_TRUE(HasLine(m.report, "public.vo: not verified (--verify off)"))
      << Lines(m.report);
  EXPECT_EQ(journaled("move:public.vo"), "off off 0");
  MigrateResult unfinished = status();
  EXPECT_EQ(LineWith(unfinished, "verification:"),
            "  verification: --verify off (online copies are not compared "
            "with their tables; the run is unverified); so far unverified: 1 "
            "online copy not compared with its table (--verify off)")
      << Lines(unfinished);
  EXPECT_EQ(LineWith(unfinished, "move:public.vo"),
            "  move:public.vo: running, swap, unverified");
  Exec(m.side.get(), "COMMIT");

  // Resumed without --verify: the run keeps off, and says so (--json's
  // "verify").
  m.options.verify.reset();
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(m.report.verify, "off");
  const std::string run = std::to_string(m.report.run_id);
  ASSERT_FALSE(m.report.lines.empty());
  EXPECT_EQ(m.report.lines.back(),
            "run " + run +
                " done, unverified: 1 online copy not compared with its "
                "table (--verify off)");
  EXPECT_EQ(Diff(m.s.get(), "vo", "vo_twin"), "0");
  EXPECT_EQ(Value(m.s.get(), "SELECT count(*) FROM vo"), "3000");
  EXPECT_EQ(journaled("move:public.vo"), "off off 0");
  EXPECT_EQ(LineWith(status(), "no run is unfinished"),
            "run " + run +
                " done (unverified: 1 online copy not compared with its table "
                "(--verify off)); no run is unfinished");

  // The default: compared, and said so.
  Exec(m.s.get(),
       "CREATE TABLE vf (id int PRIMARY KEY, v text);"
       "INSERT INTO vf SELECT g, 'v' FROM generate_series(1, 3000) g");
  m.plan = MovePlan(m.pg, "vf");
  points.clear();
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(m.report.verify, "full");
  const std::string next = std::to_string(m.report.run_id);
  EXPECT_TRUE(reached("before-verify:move:public.vf"));
  EXPECT_TRUE(HasLine(m.report, "public.vf: verified 3000 rows"))
      << Lines(m.report);
  EXPECT_EQ(
      m.report.lines.back(),
      "run " + next + " done, verified: 1 online copy compared with its table");
  EXPECT_EQ(journaled("move:public.vf"), "full full 1");
  EXPECT_EQ(LineWith(status(), "no run is unfinished"),
            "run " + next +
                " done (verified: 1 online copy compared with its table); no "
                "run is unfinished");
}

// A table never vacuumed or analyzed (reltuples unknown) is not taken for
// a one-batch copy: the adaptive throttle measures its baseline and paces
// the key-order copy (12, 13 and --copy-order key).
TEST_P(MigrateTest, AnUnanalyzedTableIsStillPaced) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("unanalyzed", "n", 0, &m));
  Exec(m.s.get(),
       "ALTER TABLE n SET (autovacuum_enabled = false);"
       "INSERT INTO n SELECT g, 'v' FROM generate_series(1, 5000) g");
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT greatest(reltuples, 0) FROM pg_class "
                  "WHERE oid = 'n'::regclass"),
            "0");
  m.options.throttle = ThrottleMode::kAdaptive;
  m.options.copy_by_blocks = false;
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_TRUE(HasLine(m.report, "public.n: adaptive throttle baseline"));
  std::string copied = LineWith(m.report, "public.n: copied 5000 rows");
  EXPECT_NE(copied.find("in 5 batches in key order"), std::string::npos)
      << copied;
  EXPECT_EQ(copied.find("one batch: no pause"), std::string::npos) << copied;
}

// Replay that cannot get below switch_threshold within catchup_timeout_s
// stops the run before the swap; a later run resumes and converges.
TEST_P(MigrateTest, ReplayThatDoesNotConvergeStopsBeforeTheSwap) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("converge", "c", 3000, &m));
  m.options.switch_threshold = 1;  // every round "still has" changes
  m.options.catchup_timeout_s = 0;
  m.options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:1:after-commit") {
      Exec(m.side.get(), "UPDATE c SET v = 'x' WHERE id <= 10");
    }
  };
  Status st = m.Run();
  EXPECT_NE(st.message().find("public.c: replay did not converge in 0 s"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT c.relname || ' ' || (t.spcname IS NULL) FROM "
                  "pg_class c LEFT JOIN pg_tablespace t ON t.oid = "
                  "c.reltablespace WHERE c.oid = 'c'::regclass"),
            "c true");
  m.options = MigrateOptions();
  m.options.checkpoint_guard = false;
  m.options.throttle = ThrottleMode::kOff;
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT count(*) FILTER (WHERE v = 'x') || ' ' || count(*) "
                  "|| ' ' || (SELECT t.spcname FROM pg_class c JOIN "
                  "pg_tablespace t ON t.oid = c.reltablespace WHERE c.oid = "
                  "'c'::regclass) FROM c"),
            "10 3000 c_ts");
}

// An autovacuum worker holding a table (a big table's vacuum takes hours)
// would make every bounded lock attempt time out until it ends; PostgreSQL
// cancels it for a waiter only after deadlock_timeout, which our attempts
// never reach. So pglayout cancels it between attempts: here for the
// online move's capture install (a vacuum of the table) and for an offline
// move (a vacuum of the table's TOAST table alone, which autovacuum runs as
// a job of its own).
TEST_P(MigrateTest, AnAutovacuumHoldingTheTableIsCancelledNotWaitedFor) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"autovacuum_naptime", "1s"}}, &pg, &s));
  // A table whose every row was updated, and whose heap (or TOAST table
  // alone) autovacuum visits at a crawl: a cost limit of 1 makes it sleep
  // 100-400 ms after each page (a dirtied page costs 20), minutes in all.
  // Returns what autovacuum's query names: the table or its TOAST table.
  auto crawling = [&](const std::string& table, bool toast) {
    std::string slow =
        "autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = "
        "1, autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor "
        "= 0";
    std::string with =
        toast ? "autovacuum_enabled = false, toast." +
                    std::regex_replace(slow, std::regex(", "), ", toast.")
              : slow;
    Exec(s.get(),
         fmt::format(
             "CREATE TABLE {0} (id int PRIMARY KEY, v text) WITH ({1});"
             "INSERT INTO {0} SELECT g, (SELECT string_agg(md5(g::text || "
             "i::text), '') FROM generate_series(1, {2}) i) FROM "
             "generate_series(1, {3}) g; UPDATE {0} SET v = 'w' || v",
             table, with, toast ? 100 : 1, toast ? 2000 : 20000));
    return toast ? Value(s.get(),
                         "SELECT reltoastrelid::regclass::text FROM "
                         "pg_class WHERE relname = '" +
                             table + "'")
                 : "public." + table;
  };
  auto vacuumed = [&](const std::string& relation) {
    return Value(s.get(),
                 "SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                 "'autovacuum worker' AND query LIKE '%" +
                     relation + "'");
  };
  auto await_vacuum = [&](const std::string& relation) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (vacuumed(relation) == "0" &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return vacuumed(relation);
  };
  MigrateOptions options;
  options.throttle = ThrottleMode::kOff;
  options.checkpoint_guard = false;
  // Without the cancellation each attempt would time out until the
  // vacuum ends, minutes later.
  options.lock_deadline_s = 15;
  std::string conninfo = Conninfo(pg.get(), "postgres");

  std::string heap = crawling("av_online", false);
  ASSERT_EQ(await_vacuum(heap), "1") << "no autovacuum came for " << heap;
  MigrateResult online;
  PGLAYOUT_ASSERT_OK(MigratePlan(MovePlan(pg.get(), "av_online"), conninfo,
                                 true, &online, options));
  const char kCancelled[] = "autovacuum worker(s) holding a lock this step";
  EXPECT_NE(LineWith(online, kCancelled).find(heap + ")"), std::string::npos)
      << LineWith(online, "cancelled");

  std::string toast = crawling("av_offline", true);
  ASSERT_EQ(await_vacuum(toast), "1") << "no autovacuum came for " << toast;
  std::string offline = MovePlan(pg.get(), "av_offline") + "online = false\n";
  MigrateResult moved;
  PGLAYOUT_ASSERT_OK(MigratePlan(offline, conninfo, true, &moved, options));
  EXPECT_NE(LineWith(moved, kCancelled).find(toast + ")"), std::string::npos)
      << LineWith(moved, "cancelled");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(c.relname || ' ' || t.spcname || ' ' || "
                  "(SELECT count(*) FROM av_online WHERE v LIKE 'w%') || ' ' "
                  "|| (SELECT count(*) FROM av_offline WHERE v LIKE 'w%'), "
                  "', ' ORDER BY c.relname) FROM pg_class c JOIN "
                  "pg_tablespace t ON t.oid = c.reltablespace WHERE c.relname "
                  "IN ('av_online', 'av_offline')"),
            "av_offline av_offline_ts 20000 2000, av_online av_online_ts "
            "20000 2000");
}

// A client that stops talking while its swap holds ACCESS EXCLUSIVE (a
// frozen or cut-off host) loses the transaction after lock_idle_timeout_s,
// so the table is readable again; the next run resumes and swaps.
TEST_P(MigrateTest, AFrozenClientDoesNotKeepTheSwapLock) {
  OneMove m;
  PGLAYOUT_ASSERT_OK(StartMove("frozen", "f", 1000, &m));
  m.options.lock_idle_timeout_s = 1;
  std::string read_while_frozen;
  m.options.failpoint = [&](const std::string& name) {
    if (name != "swap:before-commit" || !read_while_frozen.empty()) return;
    // Frozen: the table must become readable while the client sleeps here
    // (the server ends its idle transaction after 1 s), within 10 s.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      read_while_frozen = SqlState(
          m.side.get(), "SET lock_timeout = '200ms'; SELECT count(*) FROM f");
    } while (read_while_frozen != "ok" &&
             std::chrono::steady_clock::now() < deadline);
  };
  Status st = m.Run();
  EXPECT_NE(st.message().find("swap: the connection was lost during it"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(read_while_frozen, "ok") << "the swap's lock was still held";
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT phase FROM pglayout.step WHERE step_key = "
                  "'move:public.f'"),
            "swap");
  PGLAYOUT_ASSERT_OK(m.Run());
  EXPECT_EQ(Value(m.s.get(),
                  "SELECT count(*) || ' ' || t.spcname FROM f, pg_class c "
                  "JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE "
                  "c.oid = 'f'::regclass GROUP BY t.spcname"),
            "1000 f_ts");
}

// The same writes to posts and its twin posts_v: replies (to an old post
// and to each other), edits, a re-parenting and deletes of leaves.
// |round| keeps the ids of each call apart.
void WriteToPostsAndTwin(SqlSession* s, int round) {
  const int base = 6000 + 100 * round;
  for (const char* table : {"posts", "posts_v"}) {
    Exec(s, fmt::format("INSERT INTO {0} VALUES ({1}, 4000, 'reply');"
                        "INSERT INTO {0} VALUES ({2}, {1}, 'reply to reply');"
                        "UPDATE {0} SET v = 'edited {3}' WHERE id BETWEEN 100 "
                        "AND 120;"
                        "UPDATE {0} SET parent_id = 3 WHERE id = 4001;"
                        "DELETE FROM {0} WHERE id BETWEEN {4} AND {5}",
                        table, base + 1, base + 2, round, 4900 + 10 * round,
                        4909 + 10 * round));
  }
}

// What posts' foreign keys are: name, to itself?, validated.
constexpr char kSelfKeysSql[] =
    "SELECT string_agg(conname || ':' || (confrelid = 'posts'::regclass) || "
    "':' || convalidated, ' ' ORDER BY conname) FROM pg_constraint WHERE "
    "conrelid = 'posts'::regclass AND contype = 'f' AND conparentid = 0";

// A table with a foreign key to itself (a thread of posts) moves online and,
// from PostgreSQL 18, converts to hash partitions: the swap re-adds the key
// on the new table, referencing the new table, NOT VALID, and validates it
// after (a key that was NOT VALID stays so). Writes during the copy reach
// it as they reach an untouched twin; the structure fingerprint stays.
// Before 18 the conversion is refused before any change (an outgoing key
// on a partitioned table NOT VALID), and the table stays as it was.
TEST_P(MigrateTest, ATableReferencingItselfMovesAndConvertsOnline) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, side;
  PGLAYOUT_ASSERT_OK(FreshDatabase("selfref", &pg, &s));
  PGLAYOUT_ASSERT_OK(Open(pg, "selfref", &side));
  Exec(s.get(),
       "CREATE TABLE posts (id int PRIMARY KEY, parent_id int CONSTRAINT "
       "posts_parent REFERENCES posts ON DELETE CASCADE, v text, "
       "quoted int);"
       "INSERT INTO posts SELECT g, NULLIF(g / 2, 0), md5(g::text), NULL "
       "FROM generate_series(1, 5000) g;"
       "INSERT INTO posts VALUES (5001, 1, 'quotes a lost post', 999999);"
       "ALTER TABLE posts ADD CONSTRAINT posts_quoted FOREIGN KEY (quoted) "
       "REFERENCES posts NOT VALID;"
       "CREATE TABLE posts_v AS TABLE posts; ANALYZE posts");
  // Its structure; the rows change under the writes and are compared with
  // the twin's.
  auto structure = [&](std::vector<std::string>* lines) {
    PGLAYOUT_ASSERT_OK(TableFingerprint(s.get(), "public.posts", lines));
    std::erase_if(*lines, [](const std::string& line) {
      return line.starts_with("rows |");
    });
  };
  std::vector<std::string> before;
  structure(&before);
  ASSERT_GT(before.size(), 5u);
  MigrateOptions options;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 1000;
  int round = 0;
  options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:2:after-commit")
      WriteToPostsAndTwin(side.get(), ++round);
  };
  auto expect_carried = [&](const std::string& what) {
    EXPECT_EQ(Diff(s.get(), "posts", "posts_v"), "0") << what;
    std::vector<std::string> after;
    structure(&after);
    EXPECT_EQ(FingerprintDiff(before, after), "") << what;
    EXPECT_EQ(Value(s.get(), kSelfKeysSql),
              "posts_parent:true:true posts_quoted:true:false")
        << what;
    EXPECT_EQ(SqlState(s.get(), "INSERT INTO posts VALUES (-1, -2, 'x')"),
              "23503")
        << what;
  };

  const std::string move = MovePlan(pg, "posts");
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(
      MigratePlan(move, Conninfo(pg, "selfref"), true, &report, options));
  EXPECT_EQ(round, 1);
  expect_carried("the move");
  EXPECT_EQ(Value(s.get(),
                  "SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON "
                  "t.oid = c.reltablespace WHERE c.oid = 'posts'::regclass"),
            "posts_ts");
  // The old copy kept no key: deleting in it deletes nothing else.
  std::string old = "pglayout.old_" + Value(s.get(),
                                            "SELECT oid FROM pg_class WHERE "
                                            "relname ~ '^old_' AND "
                                            "relnamespace = 'pglayout'::"
                                            "regnamespace LIMIT 1");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conrelid "
                  "= '" +
                      old + "'::regclass AND contype = 'f'"),
            "0");

  const std::string hash =
      move.substr(0, move.find("[[placement]]")) +
      "[[placement]]\nrelation = \"public.posts\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"posts_ts\", \"pg_default\"]\n"
      "partitions = 3\nkey = [\"id\"]\n";
  report = MigrateResult();
  Status st =
      MigratePlan(hash, Conninfo(pg, "selfref"), true, &report, options);
  if (version() != PgVersion::k18) {
    EXPECT_NE(st.message().find("public.posts: foreign key posts_parent "
                                "references public.posts: adding it to a "
                                "partitioned table without a long lock needs "
                                "NOT VALID, which PostgreSQL supports from 18"),
              std::string::npos)
        << st.message();
    EXPECT_EQ(Value(s.get(),
                    "SELECT relkind FROM pg_class WHERE oid = "
                    "'posts'::regclass"),
              "r");
    return;
  }
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(round, 2);
  expect_carried("the hash conversion");
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind || (SELECT count(*) FROM pg_inherits WHERE "
                  "inhparent = c.oid) FROM pg_class c WHERE c.oid = "
                  "'posts'::regclass"),
            "p3");
  // The cascade follows the key across partitions.
  Exec(s.get(), "DELETE FROM posts WHERE id = 2");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM posts WHERE id IN (4, 5, 8)"),
            "0");
}

TEST_P(MigrateTest, SwapCarriesForeignKeysPoliciesTriggersAndMovesIndexes) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, side;
  PGLAYOUT_ASSERT_OK(FreshDatabase("deps", &pg, &s));
  PGLAYOUT_ASSERT_OK(Open(pg, "deps", &side));
  SetUpDependents(s.get());
  std::string policies = Value(s.get(), kPoliciesSql);
  std::string triggers = Value(s.get(), kTriggersSql);
  std::string emp_oid = Value(s.get(), "SELECT 'emp'::regclass::oid");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("dep_ts", &dir));
  std::string plan =
      "[[tablespace]]\nname = \"dep_ts\"\npath = \"" + dir +
      "\"\n[[placement]]\nrelation = \"public.emp\"\nstrategy = \"move\"\n"
      "tablespaces = [\"dep_ts\"]\n"
      "[[placement]]\nrelation = \"public.dept\"\nstrategy = "
      "\"hash_partition\"\ntablespaces = [\"dep_ts\", \"pg_default\"]\n"
      "partitions = 2\nkey = [\"id\"]\n"
      "[[placement]]\nrelation = \"public.task_emp\"\nstrategy = \"move\"\n"
      "tablespaces = [\"dep_ts\"]\n";
  MigrateOptions options;
  options.checkpoint_guard = false;  // the shared server keeps its settings
  options.batch_rows = 1000;
  if (version() == PgVersion::k12) {
    // REINDEX CONCURRENTLY ... TABLESPACE is 14+: refused before any change,
    // then the index moves offline as the refusal suggests.
    MigrateResult refused;
    Status st =
        MigratePlan(plan, Conninfo(pg, "deps"), true, &refused, options);
    EXPECT_NE(st.message().find("public.task_emp: an online index move "
                                "(REINDEX CONCURRENTLY ... TABLESPACE) needs "
                                "PostgreSQL 14; use online = false"),
              std::string::npos)
        << st.message();
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) FROM pg_tablespace WHERE "
                    "spcname = 'dep_ts'"),
              "0");
    plan += "online = false\n";
  }
  int copies = 0;
  options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:2:after-commit" && copies++ == 0) {
      DuringCopy(side.get());
    }
  };
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan, Conninfo(pg, "deps"), true, &report, options));
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(Diff(s.get(), "emp", "pglayout.old_" + emp_oid), "0");
  // dept fits in one batch: copied at once, no throttle baseline or pause.
  std::string dept_copy = LineWith(report, "public.dept: copied");
  EXPECT_NE(dept_copy.find(" in 1 batch"), std::string::npos) << dept_copy;
  EXPECT_NE(dept_copy.find("throttle adaptive (one batch: no pause)"),
            std::string::npos)
      << dept_copy;

  // Foreign keys point at the new tables, validated, with their actions.
  EXPECT_EQ(Value(s.get(), kForeignKeysSql),
            "emp_dept_id_fkey:emp->dept:true:FOREIGN KEY (dept_id) REFERENCES "
            "dept(id) | task_emp_id_fkey:task->emp:true:FOREIGN KEY (emp_id) "
            "REFERENCES emp(id) ON DELETE CASCADE");
  EXPECT_EQ(SqlState(s.get(), "INSERT INTO task VALUES (9999, 424242)"),
            "23503");
  EXPECT_EQ(
      SqlState(s.get(), "INSERT INTO emp VALUES (9999, 999, 'postgres', 'x')"),
      "23503");
  EXPECT_EQ(SqlState(s.get(), "DELETE FROM dept WHERE id = 2"), "23503");
  Exec(s.get(), "DELETE FROM emp WHERE id = 7");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM task WHERE id = 7"), "0");

  // Row-level security: the same policies, enforced on the new table.
  EXPECT_EQ(Value(s.get(), kPoliciesSql), policies);
  EXPECT_EQ(Value(s.get(),
                  "SELECT relrowsecurity || ',' || relforcerowsecurity FROM "
                  "pg_class WHERE oid = 'emp'::regclass"),
            "true,true");
  std::string own = Value(s.get(),
                          "SELECT count(*) FROM emp WHERE owner_name = "
                          "'app_user'");
  Exec(s.get(), "SET ROLE app_user");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM emp"), own);
  EXPECT_EQ(
      SqlState(s.get(), "INSERT INTO emp VALUES (-5, 1, 'app_user', 'x')"),
      "42501");  // new row violates row-level security policy
  Exec(s.get(), "RESET ROLE");

  // Column grants, statistics targets, n_distinct and comments.
  EXPECT_EQ(Value(s.get(),
                  "SELECT has_column_privilege('app_user', 'emp', 'v', "
                  "'UPDATE') || ',' || has_column_privilege('app_user', "
                  "'emp', 'owner_name', 'UPDATE')"),
            "true,false");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(attname || ':' || "
                  "coalesce(attstattarget::int, -1) || ':' "
                  "|| coalesce((SELECT string_agg(o, ',') FROM "
                  "unnest(attoptions) o WHERE o LIKE 'n_distinct%'), '-') "
                  "|| ':' || "
                  "coalesce(col_description(attrelid, attnum), '-'), ' ' "
                  "ORDER BY attnum) FROM pg_attribute WHERE attrelid = "
                  "'emp'::regclass AND attname IN ('dept_id', 'v')"),
            "dept_id:-1:n_distinct=50:- v:500:-:free text");

  // Triggers: the same definitions and ENABLE states, firing on the new one.
  EXPECT_EQ(Value(s.get(), kTriggersSql), triggers);
  Exec(s.get(), "TRUNCATE audit");
  Exec(s.get(),
       "INSERT INTO emp (id, dept_id, owner_name) VALUES (7001, 1, 'x');"
       "UPDATE emp SET v = 'always' WHERE id = 7001");
  EXPECT_EQ(Value(s.get(), "SELECT v FROM emp WHERE id = 7001"), "always");
  EXPECT_EQ(Value(s.get(), "SELECT string_agg(op, ',' ORDER BY op) FROM audit"),
            "INSERT,UPDATE");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_trigger WHERE tgname LIKE "
                  "'pglayout%'"),
            "0");

  // The index moved online: valid, in place, no _ccnew/_ccold leftovers.
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(c.relname || '=' || coalesce(t.spcname, "
                  "'-') || ':' || x.indisvalid, ',' ORDER BY c.relname) FROM "
                  "pg_index x JOIN pg_class c ON c.oid = x.indexrelid LEFT "
                  "JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE "
                  "x.indrelid = 'task'::regclass"),
            "task_emp=dep_ts:true,task_pkey=-:true");
  EXPECT_EQ(
      Value(s.get(),
            "SELECT relkind::text || ':' || (SELECT count(*) FROM pg_inherits "
            "WHERE inhparent = 'dept'::regclass) FROM pg_class WHERE "
            "oid = 'dept'::regclass"),
      "p:2");

  // The same plan again: every placement is already carried out, so
  // nothing is copied (no new old copy) and the final check passes.
  std::string copies_sql =
      "SELECT count(*) FROM pg_class WHERE relnamespace = "
      "'pglayout'::regnamespace AND relname LIKE 'old\\_%' AND relkind IN "
      "('r', 'p')";
  std::string old_copies = Value(s.get(), copies_sql);
  MigrateResult again;
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan, Conninfo(pg, "deps"), true, &again, options));
  std::string lines;
  for (const std::string& l : again.lines) lines += l + "\n";
  for (const char* done :
       {"public.emp: already in tablespace dep_ts as planned: nothing to do",
        "public.dept: already in 2 hash partitions as planned: nothing to do",
        "public.task_emp: already in tablespace dep_ts as planned"}) {
    EXPECT_NE(lines.find(done), std::string::npos) << done << "\n" << lines;
  }
  EXPECT_EQ(Value(s.get(), copies_sql), old_copies);
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind::text FROM pg_class WHERE oid = "
                  "'dept'::regclass"),
            "p");
}

TEST_P(MigrateTest, JsonOutputIsParseableForDryRunApplyAndRefusal) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  Exec(admin.get(), "DROP DATABASE IF EXISTS js");
  Exec(admin.get(), "CREATE DATABASE js");
  PGLAYOUT_ASSERT_OK(Open(pg, "js", &s));
  Exec(s.get(),
       "CREATE TABLE t (id int PRIMARY KEY); CREATE TABLE nopk (a int);"
       "INSERT INTO t SELECT generate_series(1, 100)");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("js_ts", &dir));
  std::string ts = "[[tablespace]]\nname = \"js_ts\"\npath = \"" + dir + "\"\n";
  auto placement = [](const char* table, bool online) {
    return std::string("[[placement]]\nrelation = \"public.") + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"js_ts\"]\nonline = " +
           (online ? "true" : "false") + "\n";
  };
  std::string name = std::string(PgVersionName(version()));
  std::string good =
      WriteFile("json_good_" + name + ".toml", ts + placement("t", false));
  std::string bad =
      WriteFile("json_bad_" + name + ".toml", ts + placement("nopk", true));
  std::vector<std::string> common = {"--dsn", Conninfo(pg, "js"), "--json",
                                     "--no-checkpoint-guard"};
  auto run = [&](const std::string& plan, bool apply, Json* out) {
    std::vector<std::string> args = {"-q", "migrate", plan};
    args.insert(args.end(), common.begin(), common.end());
    if (apply) args.push_back("--apply");
    BinaryRun r = RunPglayoutStdout(args);
    *out = Json::parse(r.output, nullptr, false);
    EXPECT_FALSE(out->is_discarded()) << r.output;
    return r.exit_code;
  };

  Json dry, applied, refused;
  EXPECT_EQ(run(good, false, &dry), 0);
  EXPECT_EQ(dry.value("apply", true), false);
  ASSERT_TRUE(dry["steps"].is_array());
  ASSERT_EQ(dry["steps"].size(), 3u) << dry.dump(2);
  EXPECT_EQ(dry["steps"][0]["kind"], "create-tablespace");
  EXPECT_EQ(dry["steps"][0]["sql"][0],
            "CREATE TABLESPACE \"js_ts\" LOCATION '" + dir + "'");
  EXPECT_EQ(dry["steps"][1]["key"], "move:public.t");
  EXPECT_EQ(dry["steps"][1]["sql"][0],
            "ALTER TABLE \"public\".\"t\" SET TABLESPACE \"js_ts\"");
  EXPECT_EQ(dry["steps"][2]["kind"], "verify");
  EXPECT_EQ(dry["verify"], "full");  // the final comparison, not the step
  // An inactive slot keeps the copies' WAL: a finding (here a warning, as
  // the WAL volume has room).
  Exec(s.get(), "SELECT pg_create_physical_replication_slot('js_idle_" + name +
                    "', true)");
  Json slot;
  EXPECT_EQ(run(good, false, &slot), 0);
  Exec(s.get(), "SELECT pg_drop_replication_slot('js_idle_" + name + "')");
  EXPECT_NE(slot["findings"].dump().find("replication slot js_idle_" + name +
                                         ": is inactive: it keeps the "
                                         "copies' WAL"),
            std::string::npos)
      << slot.dump(2);

  EXPECT_EQ(run(good, true, &applied), 0);
  EXPECT_EQ(applied.value("apply", false), true);
  EXPECT_EQ(applied.value("run_id", 0), 1);
  EXPECT_EQ(applied["checkpoints_requested"].is_number_integer(), true);
  EXPECT_EQ(applied["verify"], "full");
  ASSERT_TRUE(applied["done"].is_array());
  EXPECT_EQ(applied["done"].back(), "run 1 done") << applied.dump(2);

  EXPECT_EQ(run(bad, true, &refused), 2);
  ASSERT_TRUE(refused["findings"].is_array());
  ASSERT_FALSE(refused["findings"].empty()) << refused.dump(2);
  EXPECT_NE(refused["findings"][0].get<std::string>().find(
                "public.nopk: has no primary key"),
            std::string::npos)
      << refused.dump(2);
  EXPECT_EQ(refused.value("run_id", -1), 0);
}

// --------------------------------------------------- checkpoint guard --

// A prepared transaction locking the table is refused up front; a
// transaction older than the copy holds the swap back until it ends.
void CheckOldAndPreparedTransactions(PgCluster* pg, const std::string& ts) {
  std::unique_ptr<SqlSession> s, side;
  PGLAYOUT_ASSERT_OK(Open(pg, "postgres", &s));
  PGLAYOUT_ASSERT_OK(Open(pg, "postgres", &side));
  Exec(s.get(),
       "CREATE TABLE g3 (id int PRIMARY KEY, v text);"
       "INSERT INTO g3 SELECT g, 'v' FROM generate_series(1, 3000) g");
  std::string plan = ts +
                     "[[placement]]\nrelation = \"public.g3\"\nstrategy = "
                     "\"move\"\ntablespaces = [\"ts_g\"]\n";
  MigrateOptions options;
  options.checkpoint_guard = false;
  options.old_xact_wait_s = 1;
  options.lock_deadline_s = 5;
  Exec(side.get(),
       "BEGIN; INSERT INTO g3 VALUES (0, 'p'); PREPARE TRANSACTION 'held g3'");
  MigrateResult refused;
  Status st =
      MigratePlan(plan, Conninfo(pg, "postgres"), true, &refused, options);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_NE(st.message().find("public.g3: prepared transaction 'held g3' "
                              "holds a lock on it"),
            std::string::npos)
      << st.ToString();
  Exec(side.get(), "ROLLBACK PREPARED 'held g3'");

  std::string pid = Value(side.get(), "SELECT pg_backend_pid()");
  Exec(side.get(),
       "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM g1");
  MigrateResult waited, resumed;
  st = MigratePlan(plan, Conninfo(pg, "postgres"), true, &waited, options);
  EXPECT_NE(st.message().find("transactions older than the copy are still "
                              "open after 1 s: pid " +
                              pid + " (pglayout-test"),
            std::string::npos)
      << st.ToString();
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind FROM pg_class WHERE oid = "
                  "'g3'::regclass AND reltablespace = 0"),
            "r")
      << "not swapped while the old snapshot lives";
  Exec(side.get(), "COMMIT");
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan, Conninfo(pg, "postgres"), true, &resumed, options));
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(Value(s.get(),
                  "SELECT spcname || ':' || (SELECT count(*) FROM g3) FROM "
                  "pg_tablespace t JOIN pg_class c ON c.reltablespace = t.oid "
                  "WHERE c.oid = 'g3'::regclass"),
            "ts_g:3000");
}

// max_wal_size as |s| sees it once a pending reload has reached it:
// pg_reload_conf() only signals, and a backend applies the new file at its
// next idle moment, so a SHOW right after may still see the old value.
std::string MaxWalSizeSettled(SqlSession* s, const std::string& expected) {
  std::string value = Value(s, "SHOW max_wal_size");
  for (int i = 0; i < 50 && value != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    value = Value(s, "SHOW max_wal_size");
  }
  return value;
}

TEST_P(MigrateTest, CheckpointGuardKeepsCheckpointsTimed) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"max_wal_size", "32MB"},
                                    {"min_wal_size", "32MB"},
                                    {"checkpoint_timeout", "30s"},
                                    {"checkpoint_completion_target", "0.1"},
                                    {"max_prepared_transactions", "2"}},
                                   &pg, &s));
  Exec(s.get(),
       "CREATE TABLE g1 (id int PRIMARY KEY, pad text);"
       "INSERT INTO g1 SELECT g, md5(g::text) || md5((g + 1)::text) FROM "
       "generate_series(1, 400000) g;"
       "CREATE TABLE g2 AS TABLE g1; ALTER TABLE g2 ADD PRIMARY KEY (id);"
       "CHECKPOINT");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_g", &dir));
  std::string ts = "[[tablespace]]\nname = \"ts_g\"\npath = \"" + dir + "\"\n";
  auto move = [](const char* table) {
    return std::string("[[placement]]\nrelation = \"public.") + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"ts_g\"]\n";
  };
  MigrateOptions unguarded;
  unguarded.checkpoint_guard = false;
  unguarded.batch_rows = 50000;
  MigrateResult without;
  PGLAYOUT_ASSERT_OK(MigratePlan(ts + move("g1"),
                                 Conninfo(pg.get(), "postgres"), true, &without,
                                 unguarded));
  EXPECT_GT(without.checkpoints_requested, 0)
      << "without the guard the copy must force checkpoints";
  Exec(s.get(), "CHECKPOINT");
  MigrateOptions guarded;
  guarded.batch_rows = 50000;
  // Told to wait (the default defers: GuardDefersTheRestore...), the run
  // waits for the timed checkpoint that makes room, then restores. That
  // checkpoint starts at most two checkpoint_timeout cycles after the copy
  // (the one in progress then may have begun before the copy's end) and
  // writes a few MB: the bound, read from the server, leaves a loaded
  // machine a third cycle and a minute. The wait ends when room is found.
  const double timeout_s = std::stod(Value(
      s.get(),
      "SELECT setting FROM pg_settings WHERE name = 'checkpoint_timeout'"));
  guarded.restore_wait_s = 3 * timeout_s + 60;
  // ALTER SYSTEM is cluster-wide: a run changing settings from another
  // database makes this one wait, then stop before changing anything.
  std::unique_ptr<SqlSession> other;
  Exec(s.get(), "CREATE DATABASE other");
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "other", &other));
  std::string other_pid = Value(other.get(), "SELECT pg_backend_pid()");
  Exec(other.get(), "SELECT pg_advisory_lock(1885826169, 2)");
  MigrateOptions impatient = guarded;
  impatient.lock_wait_s = 1;
  MigrateResult blocked;
  Status st = MigratePlan(ts + move("g2"), Conninfo(pg.get(), "postgres"), true,
                          &blocked, impatient);
  EXPECT_NE(st.message().find("changing server settings (ALTER SYSTEM) from "
                              "pid " +
                              other_pid + " in database other"),
            std::string::npos)
      << st.ToString();
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");
  Exec(other.get(), "SELECT pg_advisory_unlock(1885826169, 2)");
  MigrateResult with;
  PGLAYOUT_ASSERT_OK(MigratePlan(
      ts + move("g2"), Conninfo(pg.get(), "postgres"), true, &with, guarded));
  EXPECT_EQ(with.checkpoints_requested, 0);
  // The journal keeps the counters at both ends of each run.
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg((checkpoints_requested_end - "
                  "checkpoints_requested_start)::text, ',' ORDER BY run_id) "
                  "FROM pglayout.run WHERE state = 'done'"),
            fmt::format("{},0", without.checkpoints_requested));
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");
  EXPECT_EQ(Value(s.get(),
                  "SELECT state FROM pglayout.setting WHERE run_id = "
                  "2"),
            "restored");
  CheckOldAndPreparedTransactions(pg.get(), ts);
}

// The guard's wait for room before lowering max_wal_size again is skipped
// when the workload alone writes more WAL per checkpoint cycle than the
// original allows (no checkpoint could make room): a few seconds of
// measuring, not checkpoint_timeout and more. And a run can leave the
// setting raised for --finalize, which restores it.
TEST_P(MigrateTest, GuardSkipsAFutileWaitOrLeavesTheSettingForFinalize) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s, writer;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"max_wal_size", "32MB"},
                                    {"min_wal_size", "32MB"},
                                    {"checkpoint_timeout", "30s"}},
                                   &pg, &s));
  Exec(s.get(),
       "CREATE TABLE f1 (id int PRIMARY KEY, pad text);"
       "INSERT INTO f1 SELECT g, md5(g::text) FROM generate_series(1, 60000) g;"
       "CREATE TABLE f2 AS TABLE f1; ALTER TABLE f2 ADD PRIMARY KEY (id);"
       "CREATE TABLE busy (id int, pad text)");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_f", &dir));
  auto plan = [&](const char* table) {
    return "[[tablespace]]\nname = \"ts_f\"\npath = \"" + dir +
           "\"\n[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"ts_f\"]\n";
  };
  // About 0.1 MB of WAL every 100 ms: 30 MB per 30-s cycle, above the 15 MB
  // (32 MB / 1.9, less 10%) at which 32MB requests a checkpoint, and too
  // little to request one while the guard measures.
  PGLAYOUT_ASSERT_OK(Open(pg.get(), "postgres", &writer));
  std::atomic<bool> stop{false};
  std::thread busy([&]() {
    while (!stop) {
      (void)ExecuteSql(writer.get(),
                       "INSERT INTO busy SELECT g, repeat('x', 900) FROM "
                       "generate_series(1, 100) g");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  MigrateOptions options;
  options.batch_rows = 20000;
  MigrateResult futile;
  Status st = MigratePlan(plan("f1"), Conninfo(pg.get(), "postgres"), true,
                          &futile, options);
  stop = true;
  busy.join();
  PGLAYOUT_ASSERT_OK(st);
  // By the measured rate, or (should a timed checkpoint complete in those
  // seconds) by that checkpoint: either way no wait for the next one.
  EXPECT_TRUE(HasLine(futile, "the workload alone writes about"))
      << Lines(futile);
  EXPECT_FALSE(HasLine(futile, "checkpoint guard: waiting up to"))
      << Lines(futile);
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");

  MigrateOptions leave = options;
  leave.leave_guard_raised = true;
  MigrateResult left;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("f2"), Conninfo(pg.get(), "postgres"),
                                 true, &left, leave));
  EXPECT_TRUE(HasLine(left, "checkpoint guard: left max_wal_size at "))
      << Lines(left);
  EXPECT_NE(Value(s.get(), "SHOW max_wal_size"), "32MB");
  EXPECT_EQ(Value(s.get(),
                  "SELECT state FROM pglayout.setting WHERE kind = 'guard' "
                  "ORDER BY run_id DESC LIMIT 1"),
            "left");

  MigrateOptions finalize;
  finalize.mode = MigrateMode::kFinalize;
  finalize.restore_wait_s = 0;
  MigrateResult done;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("f2"), Conninfo(pg.get(), "postgres"),
                                 true, &done, finalize));
  EXPECT_TRUE(HasLine(done, "restored max_wal_size to 32MB")) << Lines(done);
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(state, ',' ORDER BY run_id) FROM "
                  "pglayout.setting WHERE kind = 'guard'"),
            "restored,restored");
}

// Waits (bounded) until a checkpoint has completed whose redo point is at or
// past |lsn|; false if none did within |seconds|.
bool CheckpointPast(SqlSession* s, const std::string& lsn, int seconds) {
  for (int i = 0; i < seconds * 2; ++i) {
    if (Value(s, "SELECT redo_lsn >= '" + lsn +
                     "'::pg_lsn FROM pg_control_checkpoint()") == "t") {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

// The command does not wait for a timed checkpoint before lowering
// max_wal_size: with the next one an hour away it measures the workload
// for 5 s, journals the restore as deferred and returns (the old default
// waited up to checkpoint_timeout x 1.1 + 60 s: longer than this test's
// timeout). A later invocation restores it once a timed checkpoint has made
// room, exactly once even when two race, and no requested checkpoint comes
// of it. A value a DBA set in between is left as it is, even by a
// --finalize told not to wait.
TEST_P(MigrateTest, GuardDefersTheRestoreAndALaterInvocationCompletesItOnce) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"max_wal_size", "32MB"},
                                    {"min_wal_size", "32MB"},
                                    {"checkpoint_timeout", "1h"},
                                    {"checkpoint_completion_target", "0.1"}},
                                   &pg, &s));
  Exec(s.get(),
       "CREATE TABLE d1 (id int PRIMARY KEY, pad text);"
       "INSERT INTO d1 SELECT g, md5(g::text) || md5((g + 1)::text) FROM "
       "generate_series(1, 200000) g;"
       "CREATE TABLE d2 AS TABLE d1; ALTER TABLE d2 ADD PRIMARY KEY (id);"
       "CHECKPOINT");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_d", &dir));
  auto plan = [&](const char* table) {
    return "[[tablespace]]\nname = \"ts_d\"\npath = \"" + dir +
           "\"\n[[placement]]\nrelation = \"public." + table +
           "\"\nstrategy = \"move\"\ntablespaces = [\"ts_d\"]\n";
  };
  const std::string conninfo = Conninfo(pg.get(), "postgres");
  auto set = [&](const std::string& name, const std::string& value) {
    Exec(s.get(), "ALTER SYSTEM SET " + name + " = '" + value + "'");
    Exec(s.get(), "SELECT pg_reload_conf()");
  };
  auto guard_states = [&]() {
    return Value(s.get(),
                 "SELECT string_agg(state, ',' ORDER BY run_id) FROM "
                 "pglayout.setting WHERE kind = 'guard'");
  };
  CheckpointCounts before;
  PGLAYOUT_ASSERT_OK(ReadCheckpointCounts(s.get(), &before));
  MigrateOptions options;
  options.batch_rows = 50000;
  options.throttle = ThrottleMode::kOff;
  MigrateResult run;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("d1"), conninfo, true, &run, options));
  EXPECT_EQ(run.checkpoints_requested, 0);
  EXPECT_TRUE(HasLine(run, "The restore is journaled as deferred"))
      << Lines(run);
  EXPECT_TRUE(HasLine(run, "s spent measuring the workload")) << Lines(run);
  EXPECT_FALSE(HasLine(run, "checkpoint guard: waiting up to")) << Lines(run);
  EXPECT_FALSE(HasLine(run, "restored max_wal_size")) << Lines(run);
  EXPECT_TRUE(HasLine(run, "run 1 done")) << Lines(run);
  EXPECT_EQ(guard_states(), "deferred");
  std::string raised = Value(s.get(), "SHOW max_wal_size");
  EXPECT_NE(raised, "32MB");
  // A dry run only says so.
  MigrateResult dry;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("d2"), conninfo, false, &dry, options));
  EXPECT_TRUE(HasLine(dry, "its restore to 32MB is deferred")) << Lines(dry);
  EXPECT_EQ(dry.settings.size(), 1u);

  // Before a timed checkpoint, --status only shows it (through the binary,
  // as JSON too).
  BinaryRun shown = RunPglayoutStdout(
      {"-q", "migrate", "--status", "--json", "--dsn", conninfo});
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  Json status = Json::parse(shown.output, nullptr, false);
  ASSERT_FALSE(status.is_discarded()) << shown.output;
  ASSERT_EQ(status["settings"].size(), 1u) << status.dump(2);
  EXPECT_EQ(status["settings"][0].value("state", ""), "deferred");
  EXPECT_EQ(status["settings"][0].value("original", ""), "32MB");
  EXPECT_EQ(status["settings"][0].value("run_id", 0), 1);
  EXPECT_EQ(guard_states(), "deferred");
  EXPECT_EQ(Value(s.get(), "SHOW max_wal_size"), raised);

  // A timed checkpoint makes room; two invocations race to complete it.
  std::string lsn = Value(s.get(), "SELECT pg_current_wal_lsn()");
  set("checkpoint_timeout", "30s");
  ASSERT_TRUE(CheckpointPast(s.get(), lsn, 180));
  MigrateOptions look;
  look.mode = MigrateMode::kStatus;
  MigrateResult first, second;
  Status first_st, second_st;
  std::thread a([&]() {
    first_st = MigratePlan(plan("d1"), conninfo, false, &first, look);
  });
  std::thread b([&]() {
    second_st = MigratePlan(plan("d1"), conninfo, false, &second, look);
  });
  a.join();
  b.join();
  PGLAYOUT_EXPECT_OK(first_st);
  PGLAYOUT_EXPECT_OK(second_st);
  EXPECT_EQ(HasLine(first, "restored max_wal_size to 32MB") +
                HasLine(second, "restored max_wal_size to 32MB"),
            1)
      << Lines(first) << "--\n"
      << Lines(second);
  EXPECT_EQ(guard_states(), "restored");
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");
  MigrateResult again;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("d1"), conninfo, false, &again, look));
  EXPECT_FALSE(HasLine(again, "restored max_wal_size")) << Lines(again);
  EXPECT_TRUE(again.settings.empty());
  CheckpointCounts after;
  PGLAYOUT_ASSERT_OK(ReadCheckpointCounts(s.get(), &after));
  EXPECT_EQ(after.requested, before.requested);
  EXPECT_GT(after.timed, before.timed);

  // Deferred again; then a DBA sets max_wal_size: no invocation touches it.
  set("checkpoint_timeout", "1h");
  MigrateResult run2;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("d2"), conninfo, true, &run2, options));
  EXPECT_EQ(guard_states(), "restored,deferred") << Lines(run2);
  std::string raised2 = Value(s.get(), "SHOW max_wal_size");
  set("max_wal_size", "100MB");
  MigrateResult noticed;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan("d2"), conninfo, false, &noticed, look));
  EXPECT_TRUE(HasLine(
      noticed, "max_wal_size was changed since run 2 set it to " + raised2 +
                   " (postgresql.auto.conf now has '100MB'): "
                   "left as it is, not restored to 32MB"))
      << Lines(noticed);
  MigrateOptions finalize;
  finalize.mode = MigrateMode::kFinalize;
  finalize.restore_wait_s = 0;
  MigrateResult finalized;
  PGLAYOUT_ASSERT_OK(
      MigratePlan(plan("d2"), conninfo, true, &finalized, finalize));
  EXPECT_EQ(guard_states(), "restored,changed");
  EXPECT_EQ(MaxWalSizeSettled(s.get(), "100MB"), "100MB");
  PGLAYOUT_ASSERT_OK(ReadCheckpointCounts(s.get(), &after));
  EXPECT_EQ(after.requested, before.requested);
}

// The WAL of an online move is about one copy of the table and its index,
// as pg_repack's is (heap inserts row by row, the index build's pages):
// 1.15x their size here on 15 and 18 (18 with data checksums). A second
// pass over the shadow (a rewrite, an update, hint bits written with full
// pages, a vacuum) would add most of a copy again. No other writer: no
// autovacuum, no timed checkpoint, no checkpoint guard.
TEST_P(MigrateTest, AnOnlineMoveWritesAboutOneCopyOfTheTableToWal) {
  std::unique_ptr<PgCluster> pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(PrivateServer({{"autovacuum", "off"},
                                    {"max_wal_size", "4GB"},
                                    {"checkpoint_timeout", "1h"}},
                                   &pg, &s));
  Exec(s.get(),
       "CREATE TABLE w (id int PRIMARY KEY, pad text);"
       "INSERT INTO w SELECT g, md5(g::text) || md5((g + 1)::text) FROM "
       "generate_series(1, 200000) g");
  Exec(s.get(), "VACUUM (FREEZE, ANALYZE) w");
  Exec(s.get(), "CHECKPOINT");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("ts_w", &dir));
  std::string plan = "[[tablespace]]\nname = \"ts_w\"\npath = \"" + dir +
                     "\"\n[[placement]]\nrelation = \"public.w\"\nstrategy "
                     "= \"move\"\ntablespaces = [\"ts_w\"]\n";
  std::string start = Value(s.get(), "SELECT pg_current_wal_lsn()");
  MigrateOptions options;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 50000;
  MigrateResult report;
  PGLAYOUT_ASSERT_OK(MigratePlan(plan, Conninfo(pg.get(), "postgres"), true,
                                 &report, options));
  double wal = std::stod(
      Value(s.get(), "SELECT pg_current_wal_lsn() - '" + start + "'::pg_lsn"));
  double size = std::stod(
      Value(s.get(), "SELECT pg_table_size('w') + pg_indexes_size('w')"));
  std::cerr << fmt::format("move WAL {:.1f} MB for {:.1f} MB: {:.2f}x\n",
                           wal / 1e6, size / 1e6, wal / size);
  EXPECT_LT(wal, 1.35 * size) << Lines(report);
  EXPECT_GT(wal, 0.9 * size) << "the copy is WAL-logged (wal_level replica)";
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(MigrateTest);

}  // namespace
}  // namespace pglayout::migrator
