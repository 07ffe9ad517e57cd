// On real servers (PostgreSQL 12, 15 and 18), for a table with each
// blocker of a hash conversion or an online move: the facts observe reads
// (into workload.toml, and back) give the planner the verdict and the
// reasons the migrator's preflight gives from its own reading of the
// catalog (common/hash_rule.h). What the plan proposes, migrate accepts.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/files.h"
#include "migrator/preflight_checks.h"
#include "migrator/server_facts.h"
#include "observe/observe_pg.h"
#include "pg/sql.h"
#include "planner/remedy.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

constexpr char kSchema[] = R"sql(
CREATE SCHEMA rule;
CREATE FUNCTION rule.noop() RETURNS trigger LANGUAGE plpgsql
  AS 'BEGIN RETURN NULL; END';
CREATE TABLE rule.plain (id int PRIMARY KEY, v text);
CREATE TABLE rule.unique_other (id int PRIMARY KEY, u int UNIQUE);
CREATE TABLE rule.unique_expr (id int PRIMARY KEY, v text);
CREATE UNIQUE INDEX unique_expr_lower ON rule.unique_expr (lower(v));
CREATE TABLE rule.identity (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
CREATE TABLE rule.fk_out (id int PRIMARY KEY, p int REFERENCES rule.plain);
CREATE TABLE rule.self (id int PRIMARY KEY, up int REFERENCES rule.self);
CREATE TABLE rule.by_partitioned (id int PRIMARY KEY);
CREATE TABLE rule.events (id int, ref int REFERENCES rule.by_partitioned)
  PARTITION BY HASH (id);
CREATE TABLE rule.events_0 PARTITION OF rule.events
  FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE TABLE rule.transition (id int PRIMARY KEY);
CREATE TRIGGER rows_seen AFTER INSERT ON rule.transition REFERENCING NEW
  TABLE AS added FOR EACH ROW EXECUTE PROCEDURE rule.noop();
CREATE TABLE rule.before_row (id int PRIMARY KEY);
CREATE TRIGGER touch BEFORE INSERT ON rule.before_row FOR EACH ROW
  EXECUTE PROCEDURE rule.noop();
CREATE TABLE rule.no_inherit (id int PRIMARY KEY,
  v int CONSTRAINT v_local CHECK (v > 0) NO INHERIT);
CREATE TABLE rule.published (id int PRIMARY KEY);
CREATE PUBLICATION rule_pub FOR TABLE rule.published;
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE rule.exclusion (id int PRIMARY KEY, r int4range,
  EXCLUDE USING gist (r WITH &&));
CREATE TABLE rule.nullable_unique (u int UNIQUE, v text);
CREATE TABLE rule.not_null_unique (u int NOT NULL UNIQUE, v text);
)sql";

const char* kTables[] = {
    "rule.plain",           "rule.unique_other",   "rule.unique_expr",
    "rule.identity",        "rule.fk_out",         "rule.self",
    "rule.by_partitioned",  "rule.transition",     "rule.before_row",
    "rule.no_inherit",      "rule.published",      "rule.exclusion",
    "rule.nullable_unique", "rule.not_null_unique"};

class HashRuleAgreementTest : public PgVersionTest {};

std::vector<std::string> Refusals(const std::vector<migrator::Finding>& f) {
  std::vector<std::string> out;
  for (const migrator::Finding& x : f) {
    if (x.severity == migrator::Finding::Severity::kRefusal) {
      out.push_back(x.reason);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The relation as observe wrote it into workload.toml, read back.
Relation ThroughTheFile(const Relation& r) {
  Workload w;
  w.relations = {r};
  std::string text = WorkloadToToml(w);
  Workload back;
  Status st = ParseWorkload(text, "workload.toml", &back);
  EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << text;
  return back.relations.empty() ? Relation() : back.relations[0];
}

TEST_P(HashRuleAgreementTest, ThePlannerJudgesObservedFactsAsThePreflight) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin, observing, migrating;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS rule_agree"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE rule_agree"));
  const std::string conninfo =
      "host=127.0.0.1 port=" + std::to_string(pg->port()) +
      " dbname=rule_agree user=postgres";
  PGLAYOUT_ASSERT_OK(OpenPgSessionAsConfigured(conninfo, "rule", &migrating));
  PGLAYOUT_ASSERT_OK(ExecuteSql(migrating.get(), kSchema));
  PGLAYOUT_ASSERT_OK(OpenPgSession(conninfo, "rule-observe", &observing));
  std::unique_ptr<StatsSource> source;
  PGLAYOUT_ASSERT_OK(OpenPgStatsSource(observing.get(), &source));
  std::vector<RelationInfo> relations;
  PGLAYOUT_ASSERT_OK(source->ReadRelations(&relations));
  const int version = migrating->server_version();
  migrator::ServerFacts server;
  server.version_num = version;
  server.superuser = true;
  server.user = "postgres";

  int refused = 0, accepted = 0;
  for (const char* name : kTables) {
    auto info = std::find_if(relations.begin(), relations.end(),
                             [&](const auto& r) { return r.name == name; });
    ASSERT_NE(info, relations.end()) << name;
    Relation observed;
    PGLAYOUT_ASSERT_OK(source->ReadFacts(*info, &observed));
    observed.name = name;
    observed.persistence = Persistence::kPermanent;
    const Relation r = ThroughTheFile(observed);
    EXPECT_TRUE(r.rule_facts) << name;

    migrator::TableFacts t;
    PGLAYOUT_ASSERT_OK(
        migrator::GatherTableFacts(migrating.get(), info->oid, &t));
    Placement p;
    p.relation = name;
    p.strategy = Strategy::kHashPartition;
    p.tablespaces = {"pg_default"};
    p.partitions = 2;
    const std::string key =
        std::string(name).find("unique") != std::string::npos &&
                std::string(name).find("null") != std::string::npos
            ? "u"
            : "id";
    p.key = {key};
    const planner::PartitionCheck check =
        planner::CheckHashPartitioning(r, {key}, version);
    const std::vector<std::string> preflight =
        Refusals(migrator::CheckRelation(p, t, server, 100));
    EXPECT_EQ(Sorted(check.blockers), preflight) << name << " on " << version;
    (preflight.empty() ? accepted : refused) += 1;

    // An online move: the planner moves it online exactly when the
    // preflight's shared swap rule lets it.
    const std::vector<std::string> swap =
        CheckOnlineSwap(planner::RuleFacts(r, version));
    p.strategy = Strategy::kMove;
    p.key.clear();
    std::vector<std::string> move =
        Refusals(migrator::CheckRelation(p, t, server, 100));
    for (std::string& reason : move) {
      reason = reason.substr(0, reason.find("; online = false"));
    }
    EXPECT_EQ(Sorted(swap), move) << name << " moved, on " << version;
  }
  EXPECT_GE(accepted, 3);
  EXPECT_GE(refused, 6);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(HashRuleAgreementTest);

}  // namespace
}  // namespace pglayout
