// Online moves of a partition of a partitioned table, on PostgreSQL 12, 15
// and 18: the partition is copied like a plain table, and the swap detaches
// it and attaches the copy with the same bounds in one transaction
// (docs/online-migration.md#moving-a-partition). Rows written through the
// parent during the whole run land, the partition's structure (what it has
// from its parent included) is the same afterwards apart from the
// tablespace, and a run killed with -9 at any step, resumed or aborted,
// leaves the parent with exactly its partition and every row.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/files.h"
#include "migrator/migrator.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"
#include "tests/integration/structure_fingerprint.h"
#include "tests/run_pglayout.h"

namespace pglayout::migrator {
namespace {

std::string Conninfo(PgCluster* pg, const std::string& db) {
  return "host=127.0.0.1 port=" + std::to_string(pg->port()) + " dbname=" + db +
         " user=postgres";
}

void Exec(SqlSession* s, const std::string& sql) {
  Status st = ExecuteSql(s, sql);
  ASSERT_TRUE(st.ok()) << sql << ": " << st.ToString();
}

// Rows in one relation and not the other, both ways.
std::string Diff(SqlSession* s, const std::string& a, const std::string& b) {
  return Value(s, "SELECT count(*) FROM ((TABLE " + a + " EXCEPT ALL TABLE " +
                      b + ") UNION ALL (TABLE " + b + " EXCEPT ALL TABLE " + a +
                      ")) d");
}

// The fingerprint without its rows line: rows written meanwhile are
// compared with a twin instead.
std::vector<std::string> Structure(SqlSession* s, const std::string& table) {
  std::vector<std::string> lines;
  Status st = TableFingerprint(s, table, &lines);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::erase_if(lines,
                [](const std::string& l) { return l.starts_with("rows | "); });
  return lines;
}

std::string TablespaceOf(SqlSession* s, const std::string& relation) {
  return Value(s,
               "SELECT coalesce((SELECT t.spcname FROM pg_class c JOIN "
               "pg_tablespace t ON t.oid = c.reltablespace WHERE c.oid = "
               "$1::regclass), 'default')",
               {relation});
}

// What hangs on the parent, where a partition's bounds and its attachment
// show: "public.m_p2 FOR VALUES FROM (10000) TO (20000)".
std::string PartitionsOf(SqlSession* s, const std::string& parent) {
  return Value(s,
               "SELECT string_agg(c.oid::regclass || ' ' || "
               "pg_get_expr(c.relpartbound, c.oid), ', ' ORDER BY "
               "c.oid::regclass::text) FROM pg_inherits h JOIN pg_class c ON "
               "c.oid = h.inhrelid WHERE h.inhparent = $1::regclass",
               {parent});
}

std::string MovePlan(const std::string& ts, const std::string& dir,
                     const std::vector<std::string>& relations) {
  std::string plan =
      "[[tablespace]]\nname = \"" + ts + "\"\npath = \"" + dir + "\"\n";
  for (const std::string& r : relations) {
    plan += "[[placement]]\nrelation = \"" + r +
            "\"\nstrategy = \"move\"\ntablespaces = [\"" + ts + "\"]\n";
  }
  return plan;
}

Status RunPlan(const std::string& toml, const std::string& conninfo,
               MigrateOptions options, MigrateReport* report) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(toml, "plan.toml", &plan));
  options.conninfo = conninfo;
  options.apply = true;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 500;
  return Migrate(plan, options, nullptr, report);
}

class PartitionMoveTest : public PgVersionTest {
 protected:
  Status FreshDatabase(const std::string& db, PgCluster** pg,
                       std::unique_ptr<SqlSession>* s) const {
    PGLAYOUT_RETURN_IF_ERROR(SharedCluster(pg));
    std::unique_ptr<SqlSession> admin;
    PGLAYOUT_RETURN_IF_ERROR((*pg)->Connect(&admin));
    PGLAYOUT_RETURN_IF_ERROR(
        ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS " + db));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(admin.get(), "CREATE DATABASE " + db));
    return OpenPgSessionAsConfigured(Conninfo(*pg, db), "pglayout-test", s);
  }
};

// A range-partitioned parent m (3 partitions of 2,000 rows) with a primary
// key, a secondary index, a foreign key to ref, a CHECK and a row trigger
// on the parent, and things of the middle partition's own (an index, a
// trigger, a grant, comments, a statistics object); m_twin holds the same
// rows as one plain table.
constexpr char kRangeSchema[] =
    "CREATE ROLE part_reader;"
    "CREATE TABLE ref (id int PRIMARY KEY);"
    "INSERT INTO ref SELECT generate_series(1, 50);"
    "CREATE TABLE audit (n bigint);"
    "CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS "
    "'BEGIN INSERT INTO audit VALUES (NEW.id); RETURN NULL; END';"
    "CREATE TABLE m (id int, v text, r int NOT NULL REFERENCES ref, "
    "CONSTRAINT v_not_x CHECK (v <> 'x'), PRIMARY KEY (id)) PARTITION BY "
    "RANGE (id);"
    "CREATE INDEX m_v ON m (v);"
    "CREATE TRIGGER m_audit AFTER INSERT ON m FOR EACH ROW EXECUTE "
    "PROCEDURE audit_row();"
    "CREATE TABLE m_p1 PARTITION OF m FOR VALUES FROM (0) TO (10000);"
    "CREATE TABLE m_p2 PARTITION OF m FOR VALUES FROM (10000) TO (20000);"
    "CREATE TABLE m_p3 PARTITION OF m FOR VALUES FROM (20000) TO (30000);"
    "CREATE INDEX m_p2_r ON m_p2 (r);"
    "CREATE TRIGGER m_p2_own BEFORE UPDATE ON m_p2 FOR EACH ROW EXECUTE "
    "PROCEDURE suppress_redundant_updates_trigger();"
    "GRANT SELECT ON m_p2 TO part_reader;"
    "COMMENT ON TABLE m_p2 IS 'the middle one';"
    "COMMENT ON INDEX m_p2_pkey IS 'its key';"
    "CREATE STATISTICS m_p2_stat ON v, r FROM m_p2;"
    "ALTER TABLE m_p2 SET (fillfactor = 90);"
    "INSERT INTO m SELECT b + g, md5(g::text), g % 50 + 1 FROM "
    "generate_series(0, 1999) g, (VALUES (0), (10000), (20000)) o(b);"
    "CREATE TABLE m_twin AS TABLE m;"
    "ANALYZE";

TEST_P(PartitionMoveTest, APartitionMovesOnlineWhileWritesGoThroughTheParent) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, w;
  PGLAYOUT_ASSERT_OK(FreshDatabase("partmove", &pg, &s));
  Exec(s.get(), "DROP ROLE IF EXISTS part_reader");
  Exec(s.get(), kRangeSchema);
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(Conninfo(pg, "partmove"), "pglayout-test", &w));
  const std::vector<std::string> before = Structure(s.get(), "public.m_p2");
  const std::string bounds = PartitionsOf(s.get(), "public.m");

  // A writer through the parent, in the moved partition's range: new rows
  // and updates of old ones, each mirrored into the twin in its
  // transaction.
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::string writer_error;
  std::thread writer([&]() {
    for (int i = 0; !stop; ++i) {
      Status st = ExecuteSql(
          w.get(), fmt::format("BEGIN;"
                               "INSERT INTO m VALUES ({0}, 'w{0}', {1});"
                               "INSERT INTO m_twin VALUES ({0}, 'w{0}', {1});"
                               "UPDATE m SET v = v || '+' WHERE id = {2};"
                               "UPDATE m_twin SET v = v || '+' WHERE id = {2};"
                               "COMMIT",
                               12000 + i, i % 50 + 1, 10000 + (i * 7) % 2000));
      if (!st.ok()) {
        writer_error = st.ToString();
        return;
      }
      ++writes;
    }
  });
  // Each phase goes on only once the writer has written meanwhile.
  auto writes_meanwhile = [&](int n) {
    int from = writes;
    while (writes < from + n && writer_error.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  std::vector<std::string> phases;
  MigrateOptions options;
  options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:2:after-commit" ||
        name == "before-verify:move:public.m_p2" ||
        name == "before-swap:move:public.m_p2") {
      phases.push_back(name);
      writes_meanwhile(20);
    }
  };
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("partmove_ts", &dir));
  MigrateReport report;
  Status st = RunPlan(MovePlan("partmove_ts", dir, {"public.m_p2"}),
                      Conninfo(pg, "partmove"), options, &report);
  writes_meanwhile(20);  // and after the swap, into the new partition
  stop = true;
  writer.join();
  PGLAYOUT_ASSERT_OK(st);
  ASSERT_EQ(writer_error, "");
  EXPECT_EQ(phases.size(), 3u);

  // Every row is there, each once, and in its partition.
  EXPECT_EQ(Diff(s.get(), "m", "m_twin"), "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT (SELECT count(*) FROM m_p2) = (SELECT count(*) FROM "
                  "m_twin WHERE id >= 10000 AND id < 20000)"),
            "t");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM audit"),
            std::to_string(6000 + writes))
      << "the parent's trigger fired for every row written through it";
  // In the target tablespace with its indexes; bounds and structure kept.
  EXPECT_EQ(TablespaceOf(s.get(), "public.m_p2"), "partmove_ts");
  EXPECT_EQ(TablespaceOf(s.get(), "public.m_p2_pkey"), "partmove_ts");
  EXPECT_EQ(TablespaceOf(s.get(), "public.m_p1"), "default");
  EXPECT_EQ(PartitionsOf(s.get(), "public.m"), bounds);
  EXPECT_EQ(FingerprintDiff(before, Structure(s.get(), "public.m_p2")), "");
  // The old partition is detached and kept for --finalize, without the
  // foreign key that would keep rows of ref from being deleted.
  std::string old = "pglayout.old_" + Value(s.get(),
                                            "SELECT substring(relname from "
                                            "'[0-9]+$') FROM pg_class WHERE "
                                            "relname LIKE 'old\\_%' AND "
                                            "relkind = 'r'");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_inherits WHERE inhrelid = "
                  "$1::regclass",
                  {old}),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conrelid "
                  "= $1::regclass AND contype = 'f'",
                  {old}),
            "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conname "
                  "LIKE 'pglayout%'"),
            "0");
  // The dry run's step says what the swap locks.
  bool forecast = false;
  for (const Step& step : report.steps) {
    forecast |=
        step.title.find("(a partition of public.m)") != std::string::npos &&
        step.note.find("ACCESS EXCLUSIVE on public.m") != std::string::npos;
  }
  EXPECT_TRUE(forecast);
}

// A list-partitioned parent with a DEFAULT partition: a listed partition
// moves (a validated CHECK on the DEFAULT partition spares ATTACH its scan,
// and goes with the swap), then the DEFAULT partition itself.
TEST_P(PartitionMoveTest, ListPartitionsAndTheDefaultPartitionMove) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("partlist", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE l (id int, region text, v text, PRIMARY KEY (id, region)) "
       "PARTITION BY LIST (region);"
       "CREATE INDEX l_v ON l (v);"
       "CREATE TABLE l_eu PARTITION OF l FOR VALUES IN ('eu', 'uk');"
       "CREATE TABLE l_us PARTITION OF l FOR VALUES IN ('us');"
       "CREATE TABLE l_rest PARTITION OF l DEFAULT;"
       "INSERT INTO l SELECT g, (ARRAY['eu', 'uk', 'us', 'jp'])[g % 4 + 1], "
       "md5(g::text) FROM generate_series(1, 3000) g;"
       "CREATE TABLE l_twin AS TABLE l");
  std::map<std::string, std::vector<std::string>> before;
  for (const char* t : {"public.l_eu", "public.l_rest"}) {
    before[t] = Structure(s.get(), t);
  }
  const std::string bounds = PartitionsOf(s.get(), "public.l");
  std::string checks_at_swap;
  int n = 0;
  MigrateOptions options;
  options.failpoint = [&](const std::string& name) {
    if (!name.starts_with("before-swap:")) return;
    if (name == "before-swap:move:public.l_eu") {
      checks_at_swap = Value(s.get(),
                             "SELECT string_agg(conrelid::regclass || ' ' || "
                             "convalidated, ',') FROM pg_constraint WHERE "
                             "conname LIKE 'pglayout\\_excl\\_%'");
    }
    ++n;
    Exec(s.get(),
         fmt::format("INSERT INTO l VALUES ({0}, 'eu', 'x'), ({0}, 'jp', "
                     "'x'); INSERT INTO l_twin VALUES ({0}, 'eu', 'x'), "
                     "({0}, 'jp', 'x'); UPDATE l SET v = 'y' WHERE id IN "
                     "({1}, {2}); UPDATE l_twin SET v = 'y' WHERE id IN "
                     "({1}, {2})",
                     5000 + n, n * 4, n * 4 + 3));
  };
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("partlist_ts", &dir));
  MigrateReport report;
  PGLAYOUT_ASSERT_OK(
      RunPlan(MovePlan("partlist_ts", dir, {"public.l_eu", "public.l_rest"}),
              Conninfo(pg, "partlist"), options, &report));
  EXPECT_EQ(n, 2);
  EXPECT_EQ(checks_at_swap, "l_rest true");
  EXPECT_EQ(Diff(s.get(), "l", "l_twin"), "0");
  EXPECT_EQ(PartitionsOf(s.get(), "public.l"), bounds);
  EXPECT_EQ(Value(s.get(),
                  "SELECT (SELECT count(*) FROM l_rest) = (SELECT count(*) "
                  "FROM l_twin WHERE region NOT IN ('eu', 'uk', 'us'))"),
            "t");
  for (const auto& [table, lines] : before) {
    EXPECT_EQ(TablespaceOf(s.get(), table), "partlist_ts");
    EXPECT_EQ(FingerprintDiff(lines, Structure(s.get(), table)), "") << table;
  }
  EXPECT_EQ(TablespaceOf(s.get(), "public.l_us"), "default");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conname "
                  "LIKE 'pglayout%'"),
            "0");
}

// kill -9 at every step of a partition's move, each time with the parent
// checked (its partition attached with its bounds, every row), then the
// resumed run finishes it; a second move killed before its swap and
// aborted leaves the partition as it was.
TEST_P(PartitionMoveTest, AKilledMoveResumesAndAnAbortLeavesThePartition) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(FreshDatabase("partkill", &pg, &s));
  Exec(s.get(),
       "CREATE TABLE ref (id int PRIMARY KEY);"
       "INSERT INTO ref SELECT generate_series(1, 10);"
       "CREATE TABLE k (id int PRIMARY KEY, r int REFERENCES ref, v text) "
       "PARTITION BY RANGE (id);"
       "CREATE TABLE k_p1 PARTITION OF k FOR VALUES FROM (0) TO (1000);"
       "CREATE TABLE k_p2 PARTITION OF k FOR VALUES FROM (1000) TO (2000);"
       "CREATE TABLE k_rest PARTITION OF k DEFAULT;"
       "INSERT INTO k SELECT g, g % 10 + 1, md5(g::text) FROM "
       "generate_series(0, 2999, 2) g;"
       "ANALYZE");
  const std::string bounds = PartitionsOf(s.get(), "public.k");
  const std::string rows = Value(s.get(), "SELECT count(*) FROM k");
  const std::vector<std::string> before = Structure(s.get(), "public.k_p2");
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("partkill_ts", &dir));
  std::string plan =
      ::testing::TempDir() + "/partkill_" + PgVersionName(version()) + ".toml";
  ASSERT_TRUE(
      WriteTextFile(plan, MovePlan("partkill_ts", dir, {"public.k_p2"})).ok());
  auto run = [&](const std::string& failpoint,
                 const std::vector<std::string>& more = {"--apply"}) {
    Command c;
    c.argv = {PGLAYOUT_BINARY,
              "-q",
              "migrate",
              plan,
              "--dsn",
              Conninfo(pg, "partkill"),
              "--batch-rows",
              "300",
              "--no-checkpoint-guard",
              "--throttle",
              "off"};
    c.argv.insert(c.argv.end(), more.begin(), more.end());
    if (!failpoint.empty()) c.env = FailpointEnv(failpoint);
    return RunToCompletion(c);
  };
  int n = 0;
  for (const char* failpoint :
       {"copy-batch:2:before-commit", "index:k_p2_pkey:before-commit",
        "attach-prep-added:move:public.k_p2", "replay:before-commit",
        "swap:before-commit", "after-swap:move:public.k_p2"}) {
    Completion killed = run(failpoint);
    ASSERT_EQ(killed.signal, SIGKILL) << failpoint << "\n" << killed.output;
    EXPECT_EQ(PartitionsOf(s.get(), "public.k"), bounds) << failpoint;
    ++n;
    Exec(s.get(), fmt::format("INSERT INTO k VALUES ({}, 1, 'after kill')",
                              1001 + 2 * n));
    EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM k"),
              std::to_string(std::stoi(rows) + n))
        << failpoint;
  }
  Completion last = run("");
  ASSERT_EQ(last.exit_code, 0) << last.output;
  EXPECT_EQ(PartitionsOf(s.get(), "public.k"), bounds);
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM k_p2"),
            std::to_string(500 + n));
  EXPECT_EQ(TablespaceOf(s.get(), "public.k_p2"), "partkill_ts");
  EXPECT_EQ(FingerprintDiff(before, Structure(s.get(), "public.k_p2")), "");

  // Killed before its swap, then --abort: k_p1 is the same table with
  // its rows, and nothing of the run is left (the DEFAULT partition's
  // CHECK included).
  const std::string p1_oid = Value(s.get(), "SELECT 'k_p1'::regclass::oid");
  const std::vector<std::string> p1 = Structure(s.get(), "public.k_p1");
  ASSERT_TRUE(
      WriteTextFile(plan, MovePlan("partkill_ts", dir, {"public.k_p1"})).ok());
  Completion killed = run("before-swap:move:public.k_p1");
  ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conname "
                  "LIKE 'pglayout\\_excl\\_%'"),
            "1");
  Completion aborted = run("", {"--abort"});
  EXPECT_EQ(aborted.exit_code, 0) << aborted.output;
  EXPECT_EQ(PartitionsOf(s.get(), "public.k"), bounds);
  EXPECT_EQ(Value(s.get(), "SELECT 'k_p1'::regclass::oid"), p1_oid);
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM k_p1"), "500");
  EXPECT_EQ(TablespaceOf(s.get(), "public.k_p1"), "default");
  EXPECT_EQ(FingerprintDiff(p1, Structure(s.get(), "public.k_p1")), "");
  EXPECT_EQ(Value(s.get(),
                  "SELECT (SELECT count(*) FROM pg_constraint WHERE conname "
                  "LIKE 'pglayout%') + (SELECT count(*) FROM pg_trigger WHERE "
                  "tgname LIKE 'pglayout%') + (SELECT count(*) FROM pg_class "
                  "WHERE relname LIKE 'pglayout\\_new%')"),
            "0");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(PartitionMoveTest);

}  // namespace
}  // namespace pglayout::migrator
