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
#include <functional>
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
               MigrateOptions options, MigrateResult* report) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(toml, "plan.toml", &plan));
  options.conninfo = conninfo;
  options.apply = true;
  options.checkpoint_guard = false;
  options.throttle = ThrottleMode::kOff;
  options.batch_rows = 500;
  return Migrate(plan, options, nullptr, report);
}

// Splitting a hash partition (docs/online-migration.md#splitting-a-hash-
// partition): ev, hash-partitioned by id in 3, with a primary key and a
// foreign key to ref declared on the parent; ev_twin holds the same rows.
constexpr char kHashSchema[] =
    "CREATE TABLE ref (id int PRIMARY KEY);"
    "INSERT INTO ref SELECT generate_series(1, 20);"
    "CREATE TABLE ev (id bigint PRIMARY KEY, r int NOT NULL REFERENCES ref, "
    "v text) PARTITION BY HASH (id);"
    "CREATE INDEX ev_v ON ev (v);"
    "CREATE TABLE ev_p0 PARTITION OF ev FOR VALUES WITH (MODULUS 3, "
    "REMAINDER 0);"
    "CREATE TABLE ev_p1 PARTITION OF ev FOR VALUES WITH (MODULUS 3, "
    "REMAINDER 1);"
    "CREATE TABLE ev_p2 PARTITION OF ev FOR VALUES WITH (MODULUS 3, "
    "REMAINDER 2);"
    "INSERT INTO ev SELECT g, g % 20 + 1, md5(g::text) FROM "
    "generate_series(1, 6000) g;"
    "CREATE TABLE ev_twin AS TABLE ev;"
    "ANALYZE";

// A writer in a thread of its own: transaction i is |sql|(i), until
// stopped or one fails.
class Writer {
 public:
  Writer(SqlSession* s, std::function<std::string(int)> sql)
      : session_(s), sql_(std::move(sql)) {
    thread_ = std::thread([this]() { Run(); });
  }
  ~Writer() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Returns once |n| more writes committed (or the writer failed).
  void Meanwhile(int n) {
    int from = writes_;
    while (writes_ < from + n && !failed_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  int writes() const { return writes_; }
  std::string error() {
    Stop();
    return error_;
  }

 private:
  void Run() {
    for (int i = 0; !stop_; ++i) {
      Status st = ExecuteSql(session_, sql_(i));
      if (!st.ok()) {
        error_ = st.ToString();
        failed_ = true;
        return;
      }
      ++writes_;
    }
  }
  SqlSession* session_;
  std::function<std::string(int)> sql_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<int> writes_{0};
  std::string error_;
  std::thread thread_;
};

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

  // Database |db| with kHashSchema, a second session |w| for a writer, and
  // directories |a|, |b| for the split's tablespaces.
  Status SplitDatabase(const std::string& db, PgCluster** pg,
                       std::unique_ptr<SqlSession>* s,
                       std::unique_ptr<SqlSession>* w, std::string* a,
                       std::string* b) const {
    PGLAYOUT_RETURN_IF_ERROR(FreshDatabase(db, pg, s));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(s->get(), kHashSchema));
    PGLAYOUT_RETURN_IF_ERROR(
        OpenPgSessionAsConfigured(Conninfo(*pg, db), "pglayout-test", w));
    PGLAYOUT_RETURN_IF_ERROR((*pg)->MakeDirectory(db + "_a", a));
    return (*pg)->MakeDirectory(db + "_b", b);
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
  Writer writer(w.get(), [](int i) {
    return fmt::format(
        "BEGIN;"
        "INSERT INTO m VALUES ({0}, 'w{0}', {1});"
        "INSERT INTO m_twin VALUES ({0}, 'w{0}', {1});"
        "UPDATE m SET v = v || '+' WHERE id = {2};"
        "UPDATE m_twin SET v = v || '+' WHERE id = {2};"
        "COMMIT",
        12000 + i, i % 50 + 1, 10000 + (i * 7) % 2000);
  });
  // Each phase goes on only once the writer has written meanwhile.
  auto writes_meanwhile = [&](int n) { writer.Meanwhile(n); };
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
  MigrateResult report;
  Status st = RunPlan(MovePlan("partmove_ts", dir, {"public.m_p2"}),
                      Conninfo(pg, "partmove"), options, &report);
  writes_meanwhile(20);  // and after the swap, into the new partition
  ASSERT_EQ(writer.error(), "");
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(phases.size(), 3u);

  // Every row is there, each once, and in its partition.
  EXPECT_EQ(Diff(s.get(), "m", "m_twin"), "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT (SELECT count(*) FROM m_p2) = (SELECT count(*) FROM "
                  "m_twin WHERE id >= 10000 AND id < 20000)"),
            "t");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM audit"),
            std::to_string(6000 + writer.writes()))
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
  MigrateResult report;
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

// Tablespaces |ts|_a in |a| and |ts|_b in |b| (tablespaces are the
// cluster's: each test names its own).
std::string SplitPlan(const std::string& ts, const std::string& a,
                      const std::string& b) {
  return fmt::format(
      "[[tablespace]]\nname = \"{0}_a\"\npath = \"{1}\"\n[[tablespace]]\n"
      "name = \"{0}_b\"\npath = \"{2}\"\n[[placement]]\nrelation = "
      "\"public.ev_p1\"\nstrategy = \"hash_partition\"\npartitions = 2\n"
      "key = [\"id\"]\ntablespaces = [\"{0}_a\", \"{0}_b\"]\n",
      ts, a, b);
}

// Through ev over every partition: new rows and updates, each mirrored
// into ev_twin in its transaction.
std::string TwinWrite(int i) {
  return fmt::format(
      "BEGIN;"
      "INSERT INTO ev VALUES ({0}, {1}, 'w{0}');"
      "INSERT INTO ev_twin VALUES ({0}, {1}, 'w{0}');"
      "UPDATE ev SET v = v || '+' WHERE id = {2};"
      "UPDATE ev_twin SET v = v || '+' WHERE id = {2};"
      "COMMIT",
      10000 + i, i % 20 + 1, 1 + (i * 7) % 6000);
}

// ev_p1 split in 2 as the plan says: partitioned by id with modulus 6,
// remainders 1 and 4, one in each tablespace with its indexes, every row
// of remainder 1 of 3 in the one its hash says, equal to the twin; the
// parent's foreign key holds on each new partition.
void ExpectSplit(SqlSession* s, const std::string& ts) {
  EXPECT_EQ(Diff(s, "ev", "ev_twin"), "0");
  EXPECT_EQ(PartitionsOf(s, "public.ev"),
            "ev_p0 FOR VALUES WITH (modulus 3, remainder 0), ev_p1 FOR "
            "VALUES WITH (modulus 3, remainder 1), ev_p2 FOR VALUES WITH "
            "(modulus 3, remainder 2)");
  EXPECT_EQ(PartitionsOf(s, "public.ev_p1"),
            "ev_p1_p0 FOR VALUES WITH (modulus 6, remainder 1), ev_p1_p1 FOR "
            "VALUES WITH (modulus 6, remainder 4)");
  for (const auto& [part, remainder] : std::vector<std::pair<std::string, int>>{
           {"ev_p1_p0", 1}, {"ev_p1_p1", 4}}) {
    Exec(s, fmt::format("CREATE OR REPLACE TEMP VIEW twin_{0} AS SELECT * "
                        "FROM ev_twin WHERE satisfies_hash_partition("
                        "'ev'::regclass, 6, {0}, id)",
                        remainder));
    EXPECT_EQ(Diff(s, part, fmt::format("twin_{}", remainder)), "0") << part;
    EXPECT_NE(Value(s, "SELECT count(*) FROM " + part), "0") << part;
  }
  EXPECT_EQ(TablespaceOf(s, "public.ev_p1_p0"), ts + "_a");
  EXPECT_EQ(TablespaceOf(s, "public.ev_p1_p1"), ts + "_b");
  EXPECT_EQ(TablespaceOf(s, "public.ev_p1_p1_pkey"), ts + "_b");
  EXPECT_EQ(TablespaceOf(s, "public.ev_p0"), "default");
  EXPECT_EQ(Value(s,
                  "SELECT string_agg(conrelid::regclass || ' ' || "
                  "convalidated, ', ' ORDER BY conrelid::regclass::text) FROM "
                  "pg_constraint WHERE contype = 'f' AND confrelid = "
                  "'ref'::regclass AND conrelid::regclass::text LIKE "
                  "'ev_p1%'"),
            "ev_p1 true, ev_p1_p0 true, ev_p1_p1 true");
  Status bad = ExecuteSql(s, "INSERT INTO ev VALUES (3, 99, 'no such ref')");
  EXPECT_FALSE(bad.ok()) << "the foreign key holds on the new partitions";
  EXPECT_EQ(Value(s,
                  "SELECT (SELECT count(*) FROM pg_constraint WHERE conname "
                  "LIKE 'pglayout%') + (SELECT count(*) FROM pg_trigger WHERE "
                  "tgname LIKE 'pglayout%') + (SELECT count(*) FROM pg_class "
                  "WHERE relname LIKE 'pglayout\\_new%')"),
            "0");
}

TEST_P(PartitionMoveTest, AHashPartitionSplitsOnlineWhileWritesGoOn) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, w;
  std::string a, b;
  PGLAYOUT_ASSERT_OK(SplitDatabase("partsplit", &pg, &s, &w, &a, &b));
  const std::string oid = Value(s.get(), "SELECT 'ev_p1'::regclass::oid");
  Writer writer(w.get(), TwinWrite);
  std::vector<std::string> phases;
  MigrateOptions options;
  options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:2:after-commit" ||
        name == "before-verify:partition:public.ev_p1" ||
        name == "before-swap:partition:public.ev_p1") {
      phases.push_back(name);
      writer.Meanwhile(20);
    }
  };
  MigrateResult report;
  Status st = RunPlan(SplitPlan("partsplit", a, b), Conninfo(pg, "partsplit"),
                      options, &report);
  writer.Meanwhile(20);  // and after the swap, into the new partitions
  ASSERT_EQ(writer.error(), "");
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(phases.size(), 3u);
  ExpectSplit(s.get(), "partsplit");
  // The old partition is kept, detached, for --finalize.
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_inherits WHERE inhrelid = "
                  "$1::regclass",
                  {"pglayout.old_" + oid}),
            "0");
  bool titled = false;
  for (const Step& step : report.steps) {
    titled |=
        step.title.find(
            "split public.ev_p1 (hash partition 1 of 3 of "
            "public.ev) into 2 partitions of modulus 6") != std::string::npos;
  }
  EXPECT_TRUE(titled);
}

// Killed with -9 at steps of the split while a writer goes on through the
// parent, the parent checked each time (its three partitions, every row);
// the resumed run finishes it.
TEST_P(PartitionMoveTest, AKilledSplitResumesUnderWrites) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, w;
  std::string a, b;
  PGLAYOUT_ASSERT_OK(SplitDatabase("partsplitkill", &pg, &s, &w, &a, &b));
  std::string plan = ::testing::TempDir() + "/partsplitkill_" +
                     PgVersionName(version()) + ".toml";
  ASSERT_TRUE(WriteTextFile(plan, SplitPlan("partsplitkill", a, b)).ok());
  auto run = [&](const std::string& failpoint) {
    Command c;
    c.argv = {PGLAYOUT_BINARY,
              "-q",
              "migrate",
              plan,
              "--dsn",
              Conninfo(pg, "partsplitkill"),
              "--batch-rows",
              "300",
              "--no-checkpoint-guard",
              "--throttle",
              "off",
              "--apply"};
    if (!failpoint.empty()) c.env = FailpointEnv(failpoint);
    return RunToCompletion(c);
  };
  Writer writer(w.get(), TwinWrite);
  for (const char* failpoint :
       {"copy-batch:2:before-commit", "index:ev_p1_pkey:before-commit",
        "attach-prep-added:partition:public.ev_p1", "replay:before-commit",
        "swap:before-commit", "after-swap:partition:public.ev_p1"}) {
    const bool swapped = std::string(failpoint).starts_with("after-swap");
    Completion killed = run(failpoint);
    ASSERT_EQ(killed.signal, SIGKILL) << failpoint << "\n" << killed.output;
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) FROM pg_inherits WHERE "
                    "inhparent = 'ev'::regclass"),
              "3")
        << failpoint;
    EXPECT_EQ(Value(s.get(),
                    "SELECT relkind FROM pg_class WHERE oid = "
                    "'ev_p1'::regclass"),
              swapped ? "p" : "r")
        << failpoint;
    writer.Meanwhile(10);
  }
  Completion last = run("");
  writer.Meanwhile(10);
  ASSERT_EQ(writer.error(), "");
  ASSERT_EQ(last.exit_code, 0) << last.output;
  ExpectSplit(s.get(), "partsplitkill");
}

// The parent is referenced by a plain table whose rows point into the
// partition split (DETACH alone would refuse): the swap drops the key,
// detaches, attaches the copy and adds the key back NOT VALID in one
// transaction, then validates it. Writes go on through the parent and the
// referencing table meanwhile; afterwards the key is valid, every note
// still points at its row, and an orphan is refused.
TEST_P(PartitionMoveTest, APartitionOfAReferencedParentSplitsOnline) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, w;
  std::string a, b;
  PGLAYOUT_ASSERT_OK(SplitDatabase("partsplitref", &pg, &s, &w, &a, &b));
  Exec(s.get(),
       "CREATE TABLE \"Note;x\" (id serial PRIMARY KEY, ev bigint NOT NULL "
       "CONSTRAINT note_ev_fkey REFERENCES ev, t text);"
       "INSERT INTO \"Note;x\" (ev, t) SELECT g, 'n' FROM "
       "generate_series(1, 6000, 3) g");
  Writer writer(w.get(), [](int i) {
    return TwinWrite(i) + fmt::format(
                              ";INSERT INTO \"Note;x\" (ev, t) VALUES ({}, "
                              "'w')",
                              10000 + i);
  });
  MigrateOptions options;
  int phases = 0;
  options.failpoint = [&](const std::string& name) {
    if (name == "copy-batch:2:after-commit" ||
        name == "before-swap:partition:public.ev_p1") {
      ++phases;
      writer.Meanwhile(20);
    }
  };
  MigrateResult report;
  Status st = RunPlan(SplitPlan("partsplitref", a, b),
                      Conninfo(pg, "partsplitref"), options, &report);
  writer.Meanwhile(20);
  ASSERT_EQ(writer.error(), "");
  PGLAYOUT_ASSERT_OK(st);
  EXPECT_EQ(phases, 2);
  ExpectSplit(s.get(), "partsplitref");
  EXPECT_EQ(Value(s.get(),
                  "SELECT string_agg(conname || ' ' || convalidated, ', ') "
                  "FROM pg_constraint WHERE conrelid = '\"Note;x\"'::regclass "
                  "AND contype = 'f' AND conparentid = 0"),
            "note_ev_fkey true");
  // Its clones, one per partition of ev (new ones included): before 18
  // VALIDATE marks only the key itself (docs/online-migration.md#moving-a-
  // partition).
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) || ' ' || bool_and(convalidated) FROM "
                  "pg_constraint WHERE conrelid = '\"Note;x\"'::regclass AND "
                  "contype = 'f' AND conparentid <> 0"),
            version() < PgVersion::k18 ? "5 false" : "5 true");
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM \"Note;x\" n WHERE NOT EXISTS "
                  "(SELECT FROM ev WHERE ev.id = n.ev)"),
            "0");
  EXPECT_EQ(Value(s.get(), "SELECT count(*) > 2000 FROM \"Note;x\""), "t");
  Status orphan =
      ExecuteSql(s.get(), "INSERT INTO \"Note;x\" (ev, t) VALUES (-1, 'x')");
  EXPECT_FALSE(orphan.ok()) << "the key holds on the new partitions";
  // Deleting a referenced row of the new partitions is refused too: the
  // key's triggers are on them.
  Status referenced = ExecuteSql(
      s.get(),
      "DELETE FROM ev WHERE id = (SELECT min(n.ev) FROM \"Note;x\" n JOIN "
      "ev_p1 e ON e.id = n.ev)");
  EXPECT_FALSE(referenced.ok());
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_constraint WHERE conname LIKE "
                  "'pglayout%'"),
            "0");
}

// What a split cannot do is refused before anything changes, naming the
// partition: another key than the parent's, and before 18 a partitioned
// table's key to the parent (the swap re-adds it NOT VALID); a partition
// of a range parent is preflight_test's.
TEST_P(PartitionMoveTest, ASplitIsRefusedNamingThePartition) {
  PgCluster* pg;
  std::unique_ptr<SqlSession> s, unused;
  std::string a, b;
  PGLAYOUT_ASSERT_OK(SplitDatabase("partsplitno", &pg, &s, &unused, &a, &b));
  Exec(s.get(),
       "CREATE TABLE note (ev bigint REFERENCES ev, t text) PARTITION BY "
       "HASH (ev);"
       "CREATE TABLE note_0 PARTITION OF note FOR VALUES WITH (MODULUS 1, "
       "REMAINDER 0);"
       "INSERT INTO note VALUES (1, 'x')");
  std::string by_r = SplitPlan("partsplitno", a, b);
  by_r.replace(by_r.find("key = [\"id\"]"), 12, "key = [\"r\"]");
  MigrateResult report;
  Status st =
      RunPlan(by_r, Conninfo(pg, "partsplitno"), MigrateOptions(), &report);
  ASSERT_FALSE(st.ok());
  std::string refusals;
  for (const Finding& f : report.findings) refusals += f.ToString() + "\n";
  EXPECT_NE(refusals.find("public.ev_p1: its parent public.ev is "
                          "partitioned by HASH (id): a split partitions by "
                          "the same key"),
            std::string::npos)
      << refusals;
  const bool before_18 = version() < PgVersion::k18;
  EXPECT_EQ(refusals.find("public.ev_p1: foreign key note_ev_fkey of "
                          "partitioned table public.note references its "
                          "parent public.ev: the swap re-adds it NOT VALID") !=
                std::string::npos,
            before_18)
      << refusals;
  EXPECT_EQ(Value(s.get(),
                  "SELECT relkind FROM pg_class WHERE oid = "
                  "'ev_p1'::regclass"),
            "r");
  EXPECT_EQ(Diff(s.get(), "ev", "ev_twin"), "0");
  EXPECT_EQ(Value(s.get(),
                  "SELECT coalesce(string_agg(relname, ', '), '') FROM "
                  "pg_class WHERE relname LIKE 'pglayout\\_%' OR relname ~ "
                  "'^ev_p1_p[0-9]'"),
            "");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(PartitionMoveTest);

}  // namespace
}  // namespace pglayout::migrator
