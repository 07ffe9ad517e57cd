// The reader of what a table allows, over the scripted session: the one
// JSON row the catalog query gives, into its groups, and the rule's facts.

#include "pg/table_facts_read.h"

#include <gtest/gtest.h>

#include "testing/fake_sql_session.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

// What PostgreSQL sends for a table with each kind of fact.
constexpr char kRow[] = R"json({
 "primary_key": ["id"], "unique_keys": [["u"]],
 "foreign_keys_out": [["up_fk", "\"My Schema\".t", "up_fk (up) -> \"My Schema\".t (id)"]],
 "foreign_keys_in": ["public.other.other_t_fk"], "dependent_views": ["public.v"],
 "triggers": [["audit", true, false, true], ["touch", true, true, false],
              ["stmt", false, false, false]],
 "identity_columns": ["id"], "publications": ["pub"],
 "key_constraints": [["primary", "t_pkey", "id"], ["unique_expressions", "t_lower"],
                     ["exclusion", "t_excl", "r"]],
 "no_inherit_checks": ["local"],
 "referenced_by_partitioned": [["ev_fk", "public.events"]],
 "row_key": ["id"], "replica_identity": "f", "persistence": "u",
 "row_security": true, "partitioned": false})json";

TEST(TableRuleFacts, ReadsEachGroupFromTheOneRow) {
  FakeSqlSession session;
  session.Answer("'key_constraints'", {{kRow}});
  TableRuleFacts f;
  PGLAYOUT_ASSERT_OK(ReadTableRuleFacts(&session, 16384, &f));
  // The table's oid, and the name of its move's own capture publication,
  // which is not one of its publications.
  ASSERT_EQ(session.last_params,
            (std::vector<SqlValue>{"16384", "pglayout_capture_16384"}));
  EXPECT_EQ(f.keys.primary_key, std::vector<std::string>{"id"});
  ASSERT_EQ(f.keys.constraints.size(), 3u);
  EXPECT_EQ(f.keys.constraints[1].kind, KeyConstraintFact::Kind::kUnique);
  EXPECT_TRUE(f.keys.constraints[1].has_expressions);
  EXPECT_TRUE(f.keys.constraints[1].columns.empty());
  EXPECT_EQ(f.keys.constraints[2].kind, KeyConstraintFact::Kind::kExclusion);
  EXPECT_EQ(f.keys.no_inherit_checks, std::vector<std::string>{"local"});
  ASSERT_EQ(f.dependents.fks_out.size(), 1u);
  EXPECT_EQ(f.dependents.fks_out[0].fact.table, "\"My Schema\".t");
  EXPECT_EQ(f.dependents.fks_out[0].described,
            "up_fk (up) -> \"My Schema\".t (id)");
  ASSERT_EQ(f.dependents.triggers.size(), 3u);
  EXPECT_TRUE(f.dependents.triggers[0].transition_tables);
  EXPECT_TRUE(f.dependents.triggers[1].before);
  EXPECT_FALSE(f.dependents.triggers[2].row);
  EXPECT_EQ(f.storage.persistence, Persistence::kUnlogged);
  EXPECT_EQ(f.storage.replica_identity, ReplicaIdentity::kFull);
  EXPECT_TRUE(f.security.row_security);

  // Everything the rule knows is in it: on 12 every blocker shows.
  const std::vector<std::string> reasons =
      CheckHashConversion(RuleFactsOf(f, 120000), {"id"});
  EXPECT_EQ(reasons.size(), 7u) << ::testing::PrintToString(reasons);
  EXPECT_EQ(CheckOnlineSwap(RuleFactsOf(f, 120000)).size(), 2u);
  EXPECT_EQ(CheckOnlineSwap(RuleFactsOf(f, 180000)).size(), 1u);
}

TEST(TableRuleFacts, AnythingButAJsonObjectIsAnError) {
  FakeSqlSession session;
  session.Answer("'key_constraints'", {{"[1, 2]"}});
  TableRuleFacts f;
  Status st = ReadTableRuleFacts(&session, 7, &f);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("relation 7"), std::string::npos) << st.message();
}

TEST(TableRuleFacts, MissingAndMistypedCellsGiveEmptyGroups) {
  FakeSqlSession session;
  session.Answer("'key_constraints'",
                 {{R"({"primary_key": null, "triggers": [["t", 1]],
                       "key_constraints": [["primary"]]})"}});
  TableRuleFacts f;
  PGLAYOUT_ASSERT_OK(ReadTableRuleFacts(&session, 7, &f));
  EXPECT_TRUE(f.keys.primary_key.empty());
  EXPECT_TRUE(f.keys.constraints.empty());
  EXPECT_TRUE(f.dependents.triggers.empty());
  EXPECT_EQ(f.storage.persistence, Persistence::kPermanent);
}

}  // namespace
}  // namespace pglayout
