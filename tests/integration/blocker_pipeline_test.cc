// The pipeline through the real binary for each blocker the hash rule
// knows (common/hash_rule.h), on PostgreSQL 12, 15 and 18: `observe` a
// database with one table per blocker (and tables without any), then for
// each table `plan` with that table too hot for one volume and
// `--prefer partition`, then `migrate` (a dry run) of that plan. Every dry
// run must exit 0 with no refusal: what the plan proposes from observed
// facts, the preflight accepts from the live catalog. The plan must
// hash-partition a table exactly where the rule allows it on that version
// (for a partition: split it by its parent's hash key).
//
// A pgbench client updates a row of every table while observe samples, so
// that observe reads every table's facts (it does for the hottest only).
// Then only the load figure of the table under test is raised in the
// observed workload: its facts stay as observe wrote them, and no timed
// load has to make it hot enough.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

constexpr char kSchema[] = R"sql(
CREATE SCHEMA b;
CREATE FUNCTION b.noop() RETURNS trigger LANGUAGE plpgsql
  AS 'BEGIN RETURN NULL; END';
CREATE FUNCTION b.keep() RETURNS trigger LANGUAGE plpgsql
  AS 'BEGIN RETURN NEW; END';
CREATE TABLE b.plain (id int PRIMARY KEY, v text);
CREATE TABLE b.referencing (id int PRIMARY KEY, p int REFERENCES b.plain);
CREATE TABLE b.unique_other (id int PRIMARY KEY, u int UNIQUE);
CREATE TABLE b.unique_expr (id int PRIMARY KEY, v text);
CREATE UNIQUE INDEX unique_expr_lower ON b.unique_expr (lower(v));
CREATE TABLE b.nullable_unique (u int UNIQUE, v text);
CREATE TABLE b.not_null_unique (u int NOT NULL UNIQUE, v text);
CREATE TABLE b.identity (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  v text);
CREATE TABLE b.self (id int PRIMARY KEY, up int REFERENCES b.self);
CREATE TABLE b.by_partitioned (id int PRIMARY KEY);
CREATE TABLE b.events (id int, ref int REFERENCES b.by_partitioned)
  PARTITION BY HASH (id);
CREATE TABLE b.events_0 PARTITION OF b.events
  FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE TABLE b.no_inherit (id int PRIMARY KEY,
  v int CONSTRAINT v_local CHECK (v > 0) NO INHERIT);
CREATE TABLE b.transition (id int PRIMARY KEY);
CREATE TRIGGER rows_seen AFTER INSERT ON b.transition REFERENCING NEW
  TABLE AS added FOR EACH ROW EXECUTE PROCEDURE b.noop();
CREATE TABLE b.before_row (id int PRIMARY KEY);
CREATE TRIGGER touch BEFORE INSERT ON b.before_row FOR EACH ROW
  EXECUTE PROCEDURE b.keep();
CREATE TABLE b.published (id int PRIMARY KEY);
CREATE PUBLICATION blocker_pub FOR TABLE b.published;
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE b.exclusion (id int PRIMARY KEY, r int4range,
  EXCLUDE USING gist (r WITH &&));
CREATE TABLE b.exclusion_keyed (id int, r int4range,
  EXCLUDE USING gist (id WITH =, r WITH &&));
CREATE UNLOGGED TABLE b.unlogged (id int PRIMARY KEY);
CREATE TABLE b.replica_full (id int PRIMARY KEY);
ALTER TABLE b.replica_full REPLICA IDENTITY FULL;
CREATE TABLE b.range_root (id int, at date, PRIMARY KEY (id, at))
  PARTITION BY RANGE (at);
CREATE TABLE b.range_2025 PARTITION OF b.range_root
  FOR VALUES FROM ('2025-01-01') TO ('2026-01-01') PARTITION BY HASH (id);
CREATE TABLE b.range_2025_h0 PARTITION OF b.range_2025
  FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE TABLE b.hash_root (id int, at date, PRIMARY KEY (id, at))
  PARTITION BY HASH (id);
CREATE TABLE b.hash_0 PARTITION OF b.hash_root
  FOR VALUES WITH (MODULUS 1, REMAINDER 0) PARTITION BY RANGE (at);
CREATE TABLE b.hash_0_all PARTITION OF b.hash_0
  FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
CREATE TABLE b.secured (id int PRIMARY KEY, owner text);
ALTER TABLE b.secured ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON b.secured USING (owner = current_user);
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE n.nspname = 'b' AND c.relkind = 'r'
    AND c.relname NOT IN ('events_0', 'exclusion', 'exclusion_keyed',
                          'identity', 'nullable_unique', 'not_null_unique',
                          'referencing', 'self', 'no_inherit',
                          'range_2025_h0', 'hash_0_all')
  LOOP
    EXECUTE format('INSERT INTO b.%I (id) SELECT g FROM '
                   'generate_series(1, 1000) g', t);
  END LOOP;
END $$;
INSERT INTO b.referencing SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO b.nullable_unique SELECT g, 'v' FROM generate_series(1, 1000) g;
INSERT INTO b.not_null_unique SELECT g, 'v' FROM generate_series(1, 1000) g;
INSERT INTO b.identity (v) SELECT 'v' FROM generate_series(1, 1000) g;
INSERT INTO b.self SELECT g, NULLIF(g - 1, 0) FROM generate_series(1, 1000) g;
INSERT INTO b.no_inherit SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO b.range_root SELECT g, '2025-06-01' FROM generate_series(1, 1000) g;
INSERT INTO b.hash_root SELECT g, '2025-06-01' FROM generate_series(1, 1000) g;
INSERT INTO b.exclusion SELECT g, int4range(g, g + 1)
  FROM generate_series(1, 1000) g;
INSERT INTO b.exclusion_keyed SELECT g, int4range(g, g + 1)
  FROM generate_series(1, 1000) g;
ANALYZE;
)sql";

constexpr int kNever = 1000000;

struct Case {
  const char* table;
  const char* column;  // updated to itself by the load
  // The first server_version_num on which the plan hash-partitions it
  // (kNever: on none, 0: on every one).
  int hash_from;
};

constexpr Case kCases[] = {
    {"b.plain", "id", 0},
    {"b.referencing", "id", 180000},   // a foreign key out: NOT VALID from 18
    {"b.unique_other", "id", kNever},  // a unique key without the partition key
    {"b.unique_expr", "id", kNever},   // a unique index on an expression
    {"b.nullable_unique", "u", kNever},  // no primary key, no row key
    {"b.not_null_unique", "u", kNever},  // no primary key to hash on
    {"b.identity", "v", 0},
    {"b.self", "id", 180000},            // a foreign key to itself
    {"b.by_partitioned", "id", 180000},  // referenced by a partitioned table
    {"b.no_inherit", "id", kNever},
    {"b.transition", "id", kNever},
    {"b.before_row", "id", 130000},
    {"b.published", "id", kNever},
    {"b.exclusion", "id", kNever},        // without the key
    {"b.exclusion_keyed", "id", kNever},  // no primary key to hash on
    {"b.unlogged", "id", kNever},
    {"b.replica_full", "id", 0},
    {"b.secured", "id", 0},
    // Two-level trees: a leaf is split by its parent's key, not its root's.
    {"b.range_2025_h0", "id", 0},    // RANGE root, HASH parent: split
    {"b.hash_0_all", "id", kNever},  // HASH root, RANGE parent: moved whole
};

class BlockerPipelineTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PGLAYOUT_ASSERT_OK(SharedCluster(&pg_));
    std::unique_ptr<SqlSession> admin, db;
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin));
    PGLAYOUT_ASSERT_OK(
        ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS blockers"));
    PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE blockers"));
    conninfo_ = "host=127.0.0.1 port=" + std::to_string(pg_->port()) +
                " dbname=blockers user=postgres";
    PGLAYOUT_ASSERT_OK(OpenPgSessionAsConfigured(conninfo_, "blockers", &db));
    PGLAYOUT_ASSERT_OK(ExecuteSql(db.get(), kSchema));
    dir_ = ::testing::TempDir() + "/blockers-" + PgVersionName(version());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `pglayout observe` for 3 s while every table gets updates.
  void ObserveUnderLoad() {
    std::string script;
    for (const Case& c : kCases) {
      script +=
          fmt::format("UPDATE {0} SET {1} = {1} WHERE {2} = 7;\n", c.table,
                      c.column, std::string(c.column) == "v" ? "id" : c.column);
    }
    PGLAYOUT_ASSERT_OK(WriteTextFile(File("load.sql"), script));
    std::unique_ptr<BackgroundClient> load;
    PGLAYOUT_ASSERT_OK(pg_->StartClient({"pgbench", "-n", "-c", "1", "-T", "60",
                                         "-f", File("load.sql"), "blockers"},
                                        &load));
    Completion observe = RunPglayout(
        {"observe", "--dsn", conninfo_, "--duration", "3s", "--interval", "1s",
         "--facts", "100", "--no-device-reads", "-o", File("workload.toml")});
    std::string load_output;
    PGLAYOUT_EXPECT_OK(load->Stop(&load_output)) << load_output;
    ASSERT_EQ(observe.exit_code, 0) << observe.output;
  }

  std::string File(const std::string& name) const { return dir_ + "/" + name; }

  PgCluster* pg_ = nullptr;
  std::string conninfo_;
  std::string dir_;
};

// The observed workload with |table| reading 3000 blocks/s at its peak,
// too hot for any one volume at the target.
std::string WithHotTable(Workload w, const std::string& table) {
  bool found = false;
  for (Relation& r : w.relations) {
    if (r.name != table) continue;
    r.read_iops = 3000;
    r.read_iops_avg = 2500;
    found = true;
  }
  EXPECT_TRUE(found) << table << " was not observed";
  return WorkloadToToml(w);
}

const Placement* FindPlacement(const Plan& plan, const std::string& table) {
  for (const Placement& p : plan.placements) {
    if (p.relation == table) return &p;
  }
  return nullptr;
}

TEST_P(BlockerPipelineTest, MigrateAcceptsWhatThePlanProposesForEachBlocker) {
  // 3000 reads/s for a hot table: too hot for one volume at the target.
  PGLAYOUT_ASSERT_OK(
      WriteTestVolumes(pg_, "blocker-volumes", 2000, File("volumes.toml")));
  ASSERT_NO_FATAL_FAILURE(ObserveUnderLoad());
  Workload observed;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(File("workload.toml"), &observed));
  const int version = std::stoi(observed.settings["server_version_num"]);

  int hashed = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("{} on {}", c.table, version));
    const Relation* facts = observed.Find(c.table);
    ASSERT_NE(facts, nullptr);
    EXPECT_TRUE(facts->rule_facts) << "observe read no facts of it";
    const std::string name = std::string(c.table).substr(2);
    const std::string workload = File(name + ".toml");
    PGLAYOUT_ASSERT_OK(
        WriteTextFile(workload, WithHotTable(observed, c.table)));
    const std::string out = File("plan-" + name);
    Completion plan =
        RunPglayout({"plan", "--volumes", File("volumes.toml"), "--workload",
                     workload, "--prefer", "partition", "--out-dir", out});
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    Plan parsed;
    PGLAYOUT_ASSERT_OK(ReadPlanFile(out + "/plan.toml", &parsed));
    const Placement* p = FindPlacement(parsed, c.table);
    const bool hash = p != nullptr && p->strategy == Strategy::kHashPartition;
    EXPECT_EQ(hash, version >= c.hash_from) << plan.output;
    hashed += hash;

    Completion dry =
        RunPglayout({"migrate", out + "/plan.toml", "--dsn", conninfo_});
    EXPECT_EQ(dry.exit_code, 0) << dry.output;
    EXPECT_EQ(dry.output.find("refused"), std::string::npos) << dry.output;
  }
  EXPECT_GE(hashed, 4);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(BlockerPipelineTest);

}  // namespace
}  // namespace pglayout
