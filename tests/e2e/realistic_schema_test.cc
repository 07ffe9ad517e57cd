// The whole pipeline through the real binary on a database shaped like a
// real application's, on PostgreSQL 12, 15 and 18: observe -> check -> plan
// -> migrate (dry run, then --apply) -> observe again -> plan again ->
// report. Every stage must accept what the previous one wrote, with no hand
// edits, and the migration must keep every row.
//
// The schema (written for this test) has what the team's own fixtures
// lacked: TOAST (text and jsonb values of several kB), a range-partitioned
// table with a dozen partitions and a default one, a foreign-key cycle
// through nullable keys, a trigger writing an audit table, a view and a
// materialized view, an unlogged table, identity columns and sequences, a
// stored generated column, several schemas, mixed-case, quoted and
// non-ASCII names, a table with no key, and a unique constraint that does
// not contain the hot table's key.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
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
CREATE SCHEMA shop;
CREATE SCHEMA "Billing";
CREATE SCHEMA "ärger";

CREATE TABLE shop.customers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  profile jsonb,
  favorite_order_id bigint
);
CREATE TABLE shop.orders (
  id bigserial PRIMARY KEY,
  customer_id bigint REFERENCES shop.customers,
  placed date NOT NULL,
  net numeric(12, 2) NOT NULL,
  gross numeric(12, 2) GENERATED ALWAYS AS (net * 1.2) STORED,
  note text
);
-- The cycle: customers -> orders -> customers, through nullable keys.
ALTER TABLE shop.customers ADD CONSTRAINT customers_favorite_fk
  FOREIGN KEY (favorite_order_id) REFERENCES shop.orders DEFERRABLE;
-- bigserial, not an identity column: partitioned tables take identity
-- columns only from PostgreSQL 17, and this is the table to partition.
-- No foreign key either, as on many large line tables: a partitioned table
-- takes outgoing foreign keys online only from 18 (the plan says so).
CREATE TABLE shop.order_lines (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL,
  sku text NOT NULL,
  qty int NOT NULL CHECK (qty > 0),
  detail text
);
CREATE INDEX order_lines_order_idx ON shop.order_lines (order_id);
CREATE TABLE shop.audit_log (at timestamptz DEFAULT now(), what text);
CREATE FUNCTION shop.audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO shop.audit_log (what) VALUES (TG_OP || ' ' || NEW.id);
  RETURN NEW;
END $$;
CREATE TRIGGER orders_audit AFTER INSERT OR UPDATE ON shop.orders
  FOR EACH ROW EXECUTE FUNCTION shop.audit();
CREATE VIEW shop.big_orders AS SELECT * FROM shop.orders WHERE net > 500;
CREATE MATERIALIZED VIEW shop.daily AS
  SELECT placed, count(*) AS n, sum(net) AS net FROM shop.orders GROUP BY 1;
CREATE UNLOGGED TABLE shop.sessions (token text PRIMARY KEY, data jsonb);
CREATE TABLE shop.clicks (at timestamptz, url text);  -- no key at all

CREATE TABLE shop.events (
  id bigint NOT NULL,
  at date NOT NULL,
  payload jsonb,
  PRIMARY KEY (id, at)
) PARTITION BY RANGE (at);
DO $$
BEGIN
  FOR m IN 1..12 LOOP
    EXECUTE format('CREATE TABLE shop.events_2026_%s PARTITION OF shop.events '
                   'FOR VALUES FROM (%L) TO (%L)', lpad(m::text, 2, '0'),
                   make_date(2026, m, 1), make_date(2026, m, 1) + interval '1 month');
  END LOOP;
END $$;
CREATE TABLE shop.events_other PARTITION OF shop.events DEFAULT;

CREATE TABLE "Billing"."Invoice Lines" (
  "Invoice No" bigint,
  "Line" int,
  "Amount" numeric,
  PRIMARY KEY ("Invoice No", "Line")
);
CREATE TABLE "ärger"."täbelle" (id int PRIMARY KEY, "wert" text);
CREATE SEQUENCE shop.ticket_seq;

INSERT INTO shop.customers (email, name, profile)
  SELECT 'c' || g || '@example.org', 'Customer ' || g,
         jsonb_build_object('bio', repeat(md5(g::text), 80), 'n', g)
  FROM generate_series(1, 2000) g;
INSERT INTO shop.orders (customer_id, placed, net, note)
  SELECT 1 + g % 2000, date '2026-01-01' + g % 365, (g % 1000) + 0.5,
         CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 100) END
  FROM generate_series(1, 20000) g;
UPDATE shop.customers SET favorite_order_id = id * 3 WHERE id % 7 = 0;
INSERT INTO shop.order_lines (order_id, sku, qty, detail)
  SELECT 1 + g % 20000, 'SKU-' || g % 500, 1 + g % 5, md5(g::text)
  FROM generate_series(1, 200000) g;
INSERT INTO shop.events
  SELECT g, date '2026-01-01' + g % 400, jsonb_build_object('g', g)
  FROM generate_series(1, 20000) g;
INSERT INTO shop.sessions SELECT md5(g::text), '{}' FROM generate_series(1, 500) g;
INSERT INTO shop.clicks SELECT now(), '/p/' || g FROM generate_series(1, 5000) g;
INSERT INTO "Billing"."Invoice Lines" SELECT g / 4, g % 4, g FROM generate_series(1, 4000) g;
INSERT INTO "ärger"."täbelle" SELECT g, 'ä' || g FROM generate_series(1, 100) g;
REFRESH MATERIALIZED VIEW shop.daily;
ANALYZE;
)sql";

// The application's load: random order-line lookups (the hot table),
// orders by key, and a few writes through the trigger.
constexpr char kLoadScript[] = R"(\set line random(1, 200000)
\set ord random(1, 20000)
SELECT sku, qty FROM shop.order_lines WHERE id = :line;
SELECT sku, qty FROM shop.order_lines WHERE id = :line + 7919;
SELECT net, gross FROM shop.orders WHERE id = :ord;
UPDATE shop.orders SET net = net + 1 WHERE id = :ord AND :line % 20 = 0;
)";

// Every table's rows, as one checksum per table, to compare before and
// after the migration (partitioned tables count through their parent).
constexpr char kChecksums[] =
    "SELECT string_agg(t || '=' || n, ' ' ORDER BY t) FROM ("
    " SELECT 'customers' AS t, md5(string_agg(c::text, ',' ORDER BY id)) AS n"
    "   FROM shop.customers c"
    " UNION ALL SELECT 'orders', md5(string_agg(o::text, ',' ORDER BY id))"
    "   FROM shop.orders o"
    " UNION ALL SELECT 'order_lines', md5(string_agg(l::text, ',' ORDER BY id))"
    "   FROM shop.order_lines l"
    " UNION ALL SELECT 'events', md5(string_agg(e::text, ',' ORDER BY id, at))"
    "   FROM shop.events e"
    " UNION ALL SELECT 'clicks', count(*)::text FROM shop.clicks"
    " UNION ALL SELECT 'invoice', md5(string_agg(i::text, ',' ORDER BY "
    "   \"Invoice No\", \"Line\")) FROM \"Billing\".\"Invoice Lines\" i"
    " UNION ALL SELECT 'taebelle', md5(string_agg(x::text, ',' ORDER BY id))"
    "   FROM \"ärger\".\"täbelle\" x"
    ") s";

class RealisticSchemaTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PgClusterOptions options;
    // Most reads miss shared_buffers, as on a server whose data outgrows
    // its memory: the observation sees a hot table.
    options.settings = {{"shared_buffers", "1MB"},
                        {"log_checkpoints", "on"},
                        {"max_connections", "20"}};
    PGLAYOUT_ASSERT_OK(StartCluster(options, &pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin_));
    PGLAYOUT_ASSERT_OK(ExecuteSql(admin_.get(), kSchema));
    dir_ = ::testing::TempDir() + "/realistic-" + PgVersionName(version()) +
           "-" +
           std::to_string(::testing::UnitTest::GetInstance()->random_seed());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    PGLAYOUT_ASSERT_OK(WriteTextFile(dir_ + "/load.sql", kLoadScript));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string File(const std::string& name) const { return dir_ + "/" + name; }

  // Runs `pglayout observe` for 6 s while the load runs.
  void ObserveUnderLoad(const std::string& out) {
    std::unique_ptr<BackgroundClient> load;
    PGLAYOUT_ASSERT_OK(pg_->StartClient({"pgbench", "-n", "-c", "2", "-j", "2",
                                         "-T", "60", "-f", File("load.sql")},
                                        &load));
    Completion observe =
        // --no-device-reads: the server's directory is on the machine's
        // own disk, which the rest of the suite reads too; the share of
        // reads that reached it would measure them (its own test: the
        // fidelity lab).
        RunPglayout({"observe", "--dsn", pg_->conninfo(), "--duration", "6s",
                     "--interval", "1s", "--no-device-reads", "-o", out});
    std::string load_output;
    PGLAYOUT_EXPECT_OK(load->Stop(&load_output)) << load_output;
    ASSERT_EQ(observe.exit_code, 0) << observe.output;
  }

  // A WAL volume, and three data volumes (tablespace directories of this
  // server) sized so that the hottest table needs two of them at the
  // target: the plan must spread it. The figures are declared relative to
  // what was observed.
  void WriteVolumes(const Workload& workload) {
    double hottest = 0;
    for (const Relation& r : workload.relations) {
      hottest = std::max(hottest, r.read_iops);
    }
    ASSERT_GT(hottest, 10) << "the load did not make any relation hot";
    const int data_iops = std::max(10, static_cast<int>(hottest / 1.2));
    // Capacities differ, so no two volumes are alike and no stripe can be
    // built: the hot table's remedy is hash partitioning, the path this
    // test takes through migrate.
    PGLAYOUT_ASSERT_OK(WriteTestVolumes(pg_.get(), "volumes", data_iops,
                                        File("volumes.toml")));
  }

  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> admin_;
  std::string dir_;
};

TEST_P(RealisticSchemaTest, EveryStageAcceptsWhatThePreviousOneWrote) {
  ASSERT_NO_FATAL_FAILURE(ObserveUnderLoad(File("workload.toml")));
  Completion check = RunPglayout({"check", File("workload.toml")});
  ASSERT_EQ(check.exit_code, 0) << check.output;

  Workload workload;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(File("workload.toml"), &workload));
  std::map<std::string, const Relation*> by_name;
  for (const Relation& r : workload.relations) by_name[r.name] = &r;
  // TOAST: the relation and its index belong to their table.
  int toast_of_customers = 0;
  for (const Relation& r : workload.relations) {
    EXPECT_NE(r.table.rfind("pg_toast.", 0), 0u) << r.name;
    if (r.kind == RelationKind::kToast && r.table == "shop.customers") {
      ++toast_of_customers;
    }
  }
  EXPECT_EQ(toast_of_customers, 2);
  // Names as PostgreSQL prints them, partitions as tables of their own.
  EXPECT_TRUE(by_name.count("\"Billing\".\"Invoice Lines\""));
  EXPECT_TRUE(by_name.count("\"ärger\".\"täbelle\"") ||
              by_name.count("ärger.täbelle"));
  EXPECT_TRUE(by_name.count("shop.events_2026_03"));
  EXPECT_TRUE(by_name.count("shop.events_other"));
  ASSERT_TRUE(by_name.count("shop.order_lines"));
  const Relation* hot = by_name["shop.order_lines"];
  for (const Relation& r : workload.relations) {
    if (r.kind == RelationKind::kTable) {
      EXPECT_LE(r.read_iops, hot->read_iops) << r.name << " is hotter";
    }
  }

  ASSERT_NO_FATAL_FAILURE(WriteVolumes(workload));
  Completion plan =
      RunPglayout({"plan", "--volumes", File("volumes.toml"), "--workload",
                   File("workload.toml"), "--out-dir", File("plan")});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  Plan parsed;
  PGLAYOUT_ASSERT_OK(ReadPlanFile(File("plan/plan.toml"), &parsed));
  const Placement* lines = nullptr;
  for (const Placement& p : parsed.placements) {
    if (p.relation == "shop.order_lines") lines = &p;
    EXPECT_EQ(p.relation.find("pg_toast"), std::string::npos) << p.relation;
  }
  ASSERT_NE(lines, nullptr) << plan.output;
  EXPECT_EQ(lines->strategy, Strategy::kHashPartition) << plan.output;
  EXPECT_EQ(lines->key, std::vector<std::string>{"id"});
  std::string sql;
  PGLAYOUT_ASSERT_OK(ReadTextFile(File("plan/plan.sql"), &sql));
  EXPECT_EQ(sql.find("pg_toast"), std::string::npos) << sql;

  const std::string before = Value(admin_.get(), kChecksums);
  Completion dry = RunPglayout(
      {"migrate", File("plan/plan.toml"), "--dsn", pg_->conninfo()});
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_EQ(Value(admin_.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname NOT IN "
                  "('pg_default', 'pg_global')"),
            "0")
      << "a dry run changed nothing";
  Completion apply =
      RunPglayout({"migrate", File("plan/plan.toml"), "--dsn", pg_->conninfo(),
                   "--apply", "--restore-wait", "0"});
  ASSERT_EQ(apply.exit_code, 0) << apply.output;
  EXPECT_EQ(Value(admin_.get(), kChecksums), before) << "rows changed";
  EXPECT_EQ(Value(admin_.get(),
                  "SELECT count(*) FROM pg_inherits WHERE inhparent = "
                  "'shop.order_lines'::regclass"),
            std::to_string(lines->partitions));

  // The migrated database, observed again: pglayout's journal and the old
  // copies are not workload, and the plan accepts the new shape.
  ASSERT_NO_FATAL_FAILURE(ObserveUnderLoad(File("workload-after.toml")));
  Workload after;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(File("workload-after.toml"), &after));
  for (const Relation& r : after.relations) {
    EXPECT_EQ(r.name.find("pglayout"), std::string::npos) << r.name;
    EXPECT_EQ(r.table.find("pglayout"), std::string::npos) << r.name;
  }
  Completion replan = RunPglayout({"plan", "--volumes", File("volumes.toml"),
                                   "--workload", File("workload-after.toml"),
                                   "--out-dir", File("plan-after")});
  EXPECT_EQ(replan.exit_code, 0) << replan.output;

  Completion report = RunPglayout(
      {"report", "--volumes", File("volumes.toml"), "--workload",
       File("workload-after.toml"), "--plan", File("plan/plan.json"),
       "--journal", pg_->conninfo(), "-o", File("report.html")});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::string html;
  PGLAYOUT_ASSERT_OK(ReadTextFile(File("report.html"), &html));
  EXPECT_NE(html.find("shop.order_lines"), std::string::npos);
  EXPECT_EQ(html.find("pglayout.old_"), std::string::npos);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(RealisticSchemaTest);

}  // namespace
}  // namespace pglayout
