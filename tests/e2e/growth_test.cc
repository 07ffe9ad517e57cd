// A hash-partitioned layout grown onto new volumes, through the real binary
// on PostgreSQL 12, 15 and 18 (docs/planning.md#growth): two tables already
// hash-partitioned by id, observed under load, and a volumes file with two
// new empty volumes; `plan` moves whole partitions and splits those too hot
// for one volume, and `migrate --apply`, killed once and resumed while a
// writer goes on through the parents, puts every row where the plan says,
// equal to a twin written in the same transactions.
//
// The observation gives the structure (partition_of, the parents' keys,
// foreign keys); the read rates are then set in the workload file, so that
// the plan's choices do not depend on how fast this machine is.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "common/quote.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

// shop.events: 3 hash partitions, one per old volume, each to be too hot
// for any one volume; shop.clicks: 3 hash partitions all on v1, each light.
// Both with a foreign key to shop.ref declared on the parent.
// The tablespaces ts_v1..ts_v3 exist.
std::string Schema() {
  std::string sql =
      "CREATE SCHEMA shop;"
      "CREATE TABLE shop.ref (id int PRIMARY KEY);"
      "INSERT INTO shop.ref SELECT generate_series(1, 20);";
  for (const char* t : {"events", "clicks"}) {
    sql += fmt::format(
        "CREATE TABLE shop.{0} (id bigint PRIMARY KEY, r int NOT NULL "
        "REFERENCES shop.ref, v text) PARTITION BY HASH (id);",
        t);
    for (int p = 0; p < 3; ++p) {
      sql += fmt::format(
          "CREATE TABLE shop.{0}_p{1} PARTITION OF shop.{0} FOR VALUES WITH "
          "(MODULUS 3, REMAINDER {1}) TABLESPACE ts_v{2};",
          t, p, std::string(t) == "events" ? p + 1 : 1);
    }
    sql += fmt::format(
        "INSERT INTO shop.{0} SELECT g, g % 20 + 1, md5(g::text) FROM "
        "generate_series(1, 6000) g;"
        "CREATE TABLE shop.{0}_twin AS TABLE shop.{0};",
        t);
  }
  return sql + "ANALYZE;";
}

constexpr char kLoadScript[] = R"(\set id random(1, 6000)
SELECT v FROM shop.events WHERE id = :id;
SELECT v FROM shop.clicks WHERE id = :id;
)";

// Rows of one query and not the other, both ways.
std::string Diff(SqlSession* s, const std::string& a, const std::string& b) {
  return Value(s, fmt::format("SELECT count(*) FROM ((({0}) EXCEPT ALL ({1})) "
                              "UNION ALL (({1}) EXCEPT ALL ({0}))) d",
                              a, b));
}

std::string TablespaceOf(SqlSession* s, const std::string& relation) {
  return Value(s,
               "SELECT coalesce((SELECT t.spcname FROM pg_class c JOIN "
               "pg_tablespace t ON t.oid = c.reltablespace WHERE c.oid = "
               "$1::regclass), 'pg_default')",
               {relation});
}

bool IsPartition(const std::string& relation) {
  return relation.starts_with("shop.events_p") ||
         relation.starts_with("shop.clicks_p");
}

class GrowthTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PgClusterOptions options;
    options.settings = {{"shared_buffers", "1MB"}, {"max_connections", "20"}};
    PGLAYOUT_ASSERT_OK(StartCluster(options, &pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin_));
    for (const char* v : {"wal", "v1", "v2", "v3", "v4", "v5"}) {
      std::string path;
      PGLAYOUT_ASSERT_OK(
          pg_->MakeDirectory(std::string("volumes/") + v, &path));
      dirs_.push_back(path);
    }
    for (int v = 1; v <= 3; ++v) {
      PGLAYOUT_ASSERT_OK(
          ExecuteSql(admin_.get(),
                     fmt::format("CREATE TABLESPACE ts_v{} LOCATION {}", v,
                                 QuoteLiteral(dirs_[static_cast<size_t>(v)]))));
    }
    PGLAYOUT_ASSERT_OK(ExecuteSql(admin_.get(), Schema()));
    dir_ = ::testing::TempDir() + "/growth-" + PgVersionName(version());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    PGLAYOUT_ASSERT_OK(WriteTextFile(File("load.sql"), kLoadScript));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string File(const std::string& name) const { return dir_ + "/" + name; }

  // What observe saw, with the read rates set: each events partition 800
  // reads/s (80% of a 1,000-IOPS volume, above the 70% target alone), each
  // clicks partition 150.
  void Observe() {
    std::unique_ptr<BackgroundClient> load;
    PGLAYOUT_ASSERT_OK(pg_->StartClient({"pgbench", "-n", "-c", "2", "-j", "2",
                                         "-T", "60", "-f", File("load.sql")},
                                        &load));
    Completion observe = RunPglayout(
        {"observe", "--dsn", pg_->conninfo(), "--duration", "4s", "--interval",
         "1s", "--no-device-reads", "-o", File("observed.toml")});
    std::string load_output;
    PGLAYOUT_EXPECT_OK(load->Stop(&load_output)) << load_output;
    ASSERT_EQ(observe.exit_code, 0) << observe.output;
    Workload w;
    PGLAYOUT_ASSERT_OK(ReadWorkloadFile(File("observed.toml"), &w));
    int set = 0;
    for (Relation& r : w.relations) {
      if (r.name == "shop.events") {
        EXPECT_EQ(r.partition_key, "HASH (id)") << "observe records the key";
      }
      const bool events = r.name.starts_with("shop.events_p");
      if (!events && !r.name.starts_with("shop.clicks_p")) continue;
      if (r.kind != RelationKind::kTable) continue;
      EXPECT_EQ(r.partition_of, events ? "shop.events" : "shop.clicks");
      r.read_iops = events ? 800 : 150;
      r.write_iops = 5;
      ++set;
    }
    EXPECT_EQ(set, 6);
    PGLAYOUT_ASSERT_OK(WriteTextFile(File("workload.toml"), WorkloadToToml(w)));
  }

  // base holds the data directory (the twins and shop.ref), v1..v3 the
  // partitions, v4 and v5 are new and empty; 1,000 IOPS each, capacities
  // unlike, so that no two empty volumes make a stripe.
  void WriteVolumes() {
    std::string text = "[host]\nvcpus = 2\nmemory = \"4GB\"\n";
    const char* names[] = {"wal", "v1", "v2", "v3", "v4", "v5"};
    std::vector<std::pair<std::string, std::string>> volumes = {
        {"base", pg_->data_dir()}};
    for (size_t v = 0; v < dirs_.size(); ++v) {
      volumes.push_back({names[v], dirs_[v]});
    }
    int capacity_gb = 20;
    for (const auto& [name, path] : volumes) {
      const bool wal = name == "wal";
      text += fmt::format(
          "[[volume]]\nname = \"{}\"\npath = \"{}\"\ncapacity = "
          "\"{}GB\"\nread_iops = {}\nwrite_iops = {}\nread_mbps = 200\n"
          "write_mbps = 200\nread_latency_us = 500\nsync_write_latency_us "
          "= {}\nmembers = 1\n",
          name, path, capacity_gb++, wal ? 100000 : 1000, wal ? 100000 : 1000,
          wal ? 100 : 900);
    }
    PGLAYOUT_ASSERT_OK(WriteTextFile(File("volumes.toml"), text));
  }

  Completion Migrate(const std::string& failpoint) {
    Command c;
    c.argv = {PGLAYOUT_BINARY, "-q",
              "migrate",       File("plan/plan.toml"),
              "--dsn",         pg_->conninfo(),
              "--apply",       "--batch-rows",
              "300",           "--no-checkpoint-guard",
              "--throttle",    "off"};
    if (!failpoint.empty()) c.env = FailpointEnv(failpoint);
    return RunToCompletion(c);
  }

  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> admin_;
  std::vector<std::string> dirs_;
  std::string dir_;
};

// Placement |p| of partition |p.relation| of |root|, remainder |remainder|
// of 3, carried out: moved whole to its tablespace, or split into its
// partitions, each in its tablespace with exactly the twin's rows of its
// hash.
void ExpectPlaced(SqlSession* s, const Placement& p, const std::string& root,
                  int remainder) {
  if (p.strategy == Strategy::kMove) {
    EXPECT_EQ(TablespaceOf(s, p.relation), p.tablespaces[0]) << p.relation;
    return;
  }
  ASSERT_EQ(p.strategy, Strategy::kHashPartition) << p.relation;
  EXPECT_EQ(Value(s,
                  "SELECT count(*) FROM pg_inherits WHERE inhparent = "
                  "$1::regclass",
                  {p.relation}),
            std::to_string(p.partitions))
      << p.relation;
  for (int i = 0; i < p.partitions; ++i) {
    const std::string part = fmt::format("{}_p{}", p.relation, i);
    EXPECT_EQ(TablespaceOf(s, part),
              p.tablespaces[static_cast<size_t>(i) % p.tablespaces.size()])
        << part;
    EXPECT_EQ(
        Diff(s, "TABLE " + part,
             fmt::format("SELECT * FROM {}_twin WHERE "
                         "satisfies_hash_partition('{}'::regclass, {}, "
                         "{}, id)",
                         root, root, 3 * p.partitions, remainder + 3 * i)),
        "0")
        << part;
  }
}

TEST_P(GrowthTest, PartitionsMoveAndSplitOntoNewVolumesKilledAndResumed) {
  ASSERT_NO_FATAL_FAILURE(Observe());
  ASSERT_NO_FATAL_FAILURE(WriteVolumes());
  Completion plan =
      RunPglayout({"plan", "--volumes", File("volumes.toml"), "--workload",
                   File("workload.toml"), "--out-dir", File("plan")});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  Plan parsed;
  PGLAYOUT_ASSERT_OK(ReadPlanFile(File("plan/plan.toml"), &parsed));
  int splits = 0;
  std::set<std::string> used;
  for (const Placement& p : parsed.placements) {
    if (p.strategy == Strategy::kStay) continue;
    if (!IsPartition(p.relation)) continue;
    EXPECT_TRUE(p.online) << p.relation << ": " << p.reason;
    used.insert(p.tablespaces.begin(), p.tablespaces.end());
    if (p.strategy == Strategy::kHashPartition) {
      EXPECT_TRUE(p.relation.starts_with("shop.events_p")) << p.relation;
      EXPECT_EQ(p.key, std::vector<std::string>{"id"});
      ++splits;
    }
  }
  EXPECT_GE(splits, 1) << plan.output;
  EXPECT_TRUE(used.count("pglayout_v4") || used.count("pglayout_v5"))
      << plan.output;

  std::unique_ptr<SqlSession> w;
  PGLAYOUT_ASSERT_OK(pg_->Connect(&w));
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::string writer_error;
  std::thread writer([&]() {
    for (int i = 0; !stop; ++i) {
      Status st = ExecuteSql(
          w.get(),
          fmt::format("BEGIN;"
                      "INSERT INTO shop.events VALUES ({0}, {1}, 'w{0}');"
                      "INSERT INTO shop.events_twin VALUES ({0}, {1}, 'w{0}');"
                      "INSERT INTO shop.clicks VALUES ({0}, {1}, 'w{0}');"
                      "INSERT INTO shop.clicks_twin VALUES ({0}, {1}, 'w{0}');"
                      "UPDATE shop.events SET v = v || '+' WHERE id = {2};"
                      "UPDATE shop.events_twin SET v = v || '+' WHERE id = {2};"
                      "COMMIT",
                      10000 + i, i % 20 + 1, 1 + (i * 7) % 6000));
      if (!st.ok()) {
        writer_error = st.ToString();
        return;
      }
      ++writes;
    }
  });
  Completion killed = Migrate("swap:before-commit");
  EXPECT_EQ(killed.signal, SIGKILL) << killed.output;
  const int at_kill = writes;
  Completion resumed = Migrate("");
  stop = true;
  writer.join();
  ASSERT_EQ(writer_error, "");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_GT(writes, at_kill) << "the writer wrote while the run resumed";

  for (const char* t : {"shop.events", "shop.clicks"}) {
    EXPECT_EQ(Diff(admin_.get(), fmt::format("TABLE {}", t),
                   fmt::format("TABLE {}_twin", t)),
              "0")
        << t;
  }
  for (const Placement& p : parsed.placements) {
    if (p.strategy == Strategy::kStay || !IsPartition(p.relation)) continue;
    const std::string root =
        p.relation.starts_with("shop.events") ? "shop.events" : "shop.clicks";
    ASSERT_NO_FATAL_FAILURE(
        ExpectPlaced(admin_.get(), p, root, p.relation.back() - '0'));
  }
  // The parents' foreign key holds on every partition, new ones included.
  EXPECT_FALSE(
      ExecuteSql(admin_.get(), "INSERT INTO shop.events VALUES (3, 99, 'x')")
          .ok());
  EXPECT_EQ(Value(admin_.get(),
                  "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND "
                  "confrelid = 'shop.ref'::regclass AND NOT convalidated"),
            "0");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(GrowthTest);

}  // namespace
}  // namespace pglayout
