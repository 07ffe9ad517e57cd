// citus.sql run by psql against stub functions with Citus's signatures
// (create_distributed_table(regclass, text, text, text, integer),
// create_reference_table(regclass), citus_add_node(text, integer)) on a
// real server: the co-location groups it asks for are the plan's, and each
// colocate_with names a table distributed before it whose distribution
// column has the same type (Citus refuses otherwise). The stubs record
// every call. On 12, 15 and 18.

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "common/model.h"
#include "pg/sql.h"
#include "planner/citus_plan.h"
#include "testing/pg_cluster.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

constexpr char kStubs[] = R"(
CREATE SCHEMA sales;
CREATE TABLE sales.orders (order_id bigint PRIMARY KEY, placed date);
CREATE TABLE sales.order_lines (order_id bigint, line_no int, sku text,
                                PRIMARY KEY (order_id, line_no));
CREATE TABLE sales.events (event_id bigint PRIMARY KEY, what text);
CREATE TABLE sales.returns (order_id integer, n int, PRIMARY KEY (order_id, n));
CREATE TABLE citus_calls (n serial, tbl regclass, col text, colocate_with text,
                          shard_count int);
CREATE FUNCTION citus_add_node(nodename text, nodeport integer,
                               groupid integer DEFAULT -1,
                               noderole text DEFAULT 'primary',
                               nodecluster name DEFAULT 'default')
  RETURNS integer LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION create_reference_table(table_name regclass)
  RETURNS void LANGUAGE sql
  AS 'INSERT INTO citus_calls (tbl) VALUES (table_name)';
CREATE FUNCTION create_distributed_table(table_name regclass,
    distribution_column text, distribution_type text DEFAULT 'hash',
    colocate_with text DEFAULT 'default', shard_count integer DEFAULT NULL)
  RETURNS void LANGUAGE plpgsql AS $$
#variable_conflict use_variable
BEGIN
  IF colocate_with NOT IN ('none', 'default') THEN
    IF shard_count IS NOT NULL THEN
      RAISE EXCEPTION 'Cannot use colocate_with with a table and shard_count';
    END IF;
    IF NOT EXISTS (SELECT FROM citus_calls
                   WHERE citus_calls.tbl = colocate_with::regclass
                     AND citus_calls.col IS NOT NULL) THEN
      RAISE EXCEPTION '% is not distributed', colocate_with;
    END IF;
    IF (SELECT pg_catalog.format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = table_name AND attname = distribution_column)
       IS DISTINCT FROM
       (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod)
        FROM citus_calls c JOIN pg_attribute a ON a.attrelid = c.tbl
          AND a.attname = c.col
        WHERE c.tbl = colocate_with::regclass) THEN
      RAISE EXCEPTION 'cannot colocate tables % and %', colocate_with,
        table_name;
    END IF;
  END IF;
  INSERT INTO citus_calls (tbl, col, colocate_with, shard_count)
  VALUES (table_name, distribution_column, colocate_with, shard_count);
END $$;
)";

// |types|: the key columns' types, as observe records them from the
// catalogs (format_type), the same as kStubs declares.
Relation Table(const std::string& name, uint64_t gib,
               std::vector<std::string> pk,
               std::vector<std::vector<std::string>> types) {
  Relation r;
  r.name = name;
  r.column_types = std::move(types);
  r.size = gib << 30;
  r.primary_key = std::move(pk);
  r.read_iops = 1000;
  r.updates_per_second = 100;
  r.persistence = Persistence::kPermanent;
  return r;
}

class CitusStubTest : public PgVersionTest {};

TEST_P(CitusStubTest, TheSalesTablesAreCoLocatedByOrderIdAndItsType) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &pg));
  std::string out;
  ASSERT_TRUE(
      pg->RunClient({"psql", "-X", "-v", "ON_ERROR_STOP=1", "-c", kStubs}, &out)
          .ok())
      << out;
  Workload w;
  w.source = "hand";
  w.relations = {
      Table("sales.orders", 200, {"order_id"}, {{"order_id", "bigint"}}),
      Table("sales.order_lines", 400, {"order_id", "line_no"},
            {{"order_id", "bigint"}, {"line_no", "integer"}}),
      Table("sales.events", 300, {"event_id"}, {{"event_id", "bigint"}}),
      Table("sales.returns", 100, {"order_id", "n"},
            {{"order_id", "integer"}, {"n", "integer"}})};
  planner::CitusPlan plan;
  plan.reason = "--hosts 3";
  ASSERT_TRUE(planner::BuildDistribution(w, planner::PlanOptions{},
                                         planner::CitusOptions{},
                                         &plan.distribution)
                  .ok());
  plan.workers = 3;
  plan.shard_count = 48;
  plan.worker_forecast.resize(3);
  for (int i = 0; i < 3; ++i) {
    plan.worker_forecast[i].name = "worker" + std::to_string(i + 1);
  }
  std::string sql = planner::CitusSql(plan);
  // The stubs stand in for the extension.
  const std::string ext = "CREATE EXTENSION IF NOT EXISTS citus;";
  ASSERT_NE(sql.find(ext), std::string::npos);
  sql.replace(sql.find(ext), ext.size(), "-- (the stubs)");
  std::string dir;
  ASSERT_TRUE(pg->MakeDirectory("citus", &dir).ok());
  const std::string file = dir + "/citus.sql";
  std::ofstream(file) << sql;
  ASSERT_TRUE(
      pg->RunClient({"psql", "-X", "-v", "ON_ERROR_STOP=1", "-f", file}, &out)
          .ok())
      << out << "\n"
      << sql;
  std::unique_ptr<SqlSession> s;
  ASSERT_TRUE(pg->Connect(&s).ok());
  // order_lines (the larger, created first) anchors; orders joins it;
  // events is a group of its own, and so is returns (order_id integer).
  EXPECT_EQ(Value(s.get(),
                  "SELECT pg_catalog.string_agg(tbl::pg_catalog.text || ' ' || "
                  "col || ' ' || colocate_with::pg_catalog.regclass::"
                  "pg_catalog.text, ', ' ORDER BY n) FROM citus_calls "
                  "WHERE colocate_with NOT IN ('none', 'default')"),
            "sales.orders order_id sales.order_lines");
  EXPECT_EQ(Value(s.get(),
                  "SELECT pg_catalog.string_agg(tbl::pg_catalog.text || ' ' || "
                  "shard_count, ', ' ORDER BY n) FROM citus_calls "
                  "WHERE colocate_with = 'none'"),
            "sales.events 48, sales.order_lines 48, sales.returns 48");
  const planner::ColocationGroup& g =
      plan.distribution.groups[plan.distribution.Find("sales.orders")->group];
  EXPECT_EQ(g.evidence, (std::vector<std::string>{
                            "sales.order_lines and sales.orders are both "
                            "distributed by order_id bigint (the same key "
                            "name and type)"}));
  ASSERT_EQ(plan.distribution.not_following.size(), 1u);
  EXPECT_NE(plan.distribution.not_following[0].find(
                "sales.returns: distributed by order_id like "),
            std::string::npos)
      << plan.distribution.not_following[0];
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(CitusStubTest);

}  // namespace
}  // namespace pglayout
