// The planner and migrate's preflight judge a hash conversion by one rule
// (common/hash_rule.h), from one reading of a table's facts
// (pg/table_facts_read.h): the planner after observe wrote it into
// workload.toml's Relation (observe/rule_facts.h), the preflight through
// RuleFactsOf. For random readings (unique keys with and without the key,
// exclusion constraints, identity columns, foreign keys both ways, to
// itself, from partitioned tables, triggers with transition tables and
// BEFORE ROW, NO INHERIT checks, publications, nullable unique keys) on
// PostgreSQL 12, 15 and 18, both must give the same verdict and the same
// reasons.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"
#include "migrator/preflight_checks.h"
#include "observe/rule_facts.h"
#include "pg/table_facts_read.h"
#include "planner/remedy.h"

namespace pglayout {
namespace {

// One random reading of a table, what each side makes of it, and the key to
// convert it on.
struct Twin {
  TableRuleFacts read;
  Relation relation;
  migrator::TableFacts facts;
  std::vector<std::string> key;
  int version = 0;
};

class Dice {
 public:
  explicit Dice(uint32_t seed) : rng_(seed) {}
  bool Chance(int percent) { return Below(100) < percent; }
  int Below(int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng_);
  }

 private:
  std::mt19937 rng_;
};

const std::vector<std::string> kColumns = {"id", "a", "b", "c"};

void AddKey(Twin* t, KeyConstraintFact::Kind kind, const std::string& name,
            const std::vector<std::string>& columns, bool expressions) {
  t->read.keys.constraints.push_back({kind, name, columns, expressions});
  if (kind == KeyConstraintFact::Kind::kPrimaryKey) {
    t->read.keys.primary_key = columns;
  }
  if (kind == KeyConstraintFact::Kind::kUnique && !expressions) {
    t->read.keys.unique_keys.push_back(columns);
  }
}

void AddKeys(Dice* d, Twin* t) {
  const bool primary = d->Chance(80);
  if (primary) {
    AddKey(t, KeyConstraintFact::Kind::kPrimaryKey, "t_pkey", {"id"}, false);
  }
  for (int u = d->Below(3); u > 0; --u) {
    std::vector<std::string> columns = {kColumns[1 + d->Below(3)]};
    if (d->Chance(50)) columns.push_back("id");
    AddKey(t, KeyConstraintFact::Kind::kUnique, fmt::format("t_u{}", u),
           columns, d->Chance(10));
  }
  if (d->Chance(15)) {
    AddKey(t, KeyConstraintFact::Kind::kExclusion, "t_excl",
           d->Chance(50) ? std::vector<std::string>{"id", "b"}
                         : std::vector<std::string>{"b"},
           false);
  }
  // The row key: the primary key, else a unique key over NOT NULL
  // columns (here: when the dice say its columns are NOT NULL).
  if (primary) {
    t->read.keys.row_key = {"id"};
  } else if (!t->read.keys.unique_keys.empty() && d->Chance(50)) {
    t->read.keys.row_key = t->read.keys.unique_keys.front();
  }
}

TableRuleFacts::ForeignKey Fk(const std::string& name, const std::string& table,
                              const std::string& described) {
  return {{name, table}, described};
}

void AddForeignKeys(Dice* d, Twin* t) {
  TableRuleFacts::Dependents& deps = t->read.dependents;
  if (d->Chance(25)) {
    deps.fks_out.push_back(
        Fk("t_a_fkey", "public.other", "t_a_fkey (a) -> public.other (id)"));
  }
  if (d->Chance(20)) {  // to itself
    deps.fks_out.push_back(Fk("t_up", "public.t", "t_up (b) -> public.t (id)"));
  }
  if (d->Chance(25)) deps.fks_in.push_back("public.child.child_t_fkey");
  if (d->Chance(20)) {
    deps.fks_in.push_back("public.events.events_t_fkey");
    deps.fks_in_from_partitioned.push_back({"events_t_fkey", "public.events"});
  }
}

void AddOthers(Dice* d, Twin* t) {
  std::vector<TriggerFact>& triggers = t->read.dependents.triggers;
  if (d->Chance(20)) triggers.push_back({"t_audit", true, false, true});
  if (d->Chance(20)) triggers.push_back({"t_stmt", false, false, true});
  if (d->Chance(25)) triggers.push_back({"t_touch", true, true, false});
  if (d->Chance(15)) t->read.keys.no_inherit_checks.push_back("t_local");
  if (d->Chance(15)) t->read.dependents.publications.push_back("pub");
  if (d->Chance(20)) {
    t->read.keys.identity_columns.push_back("id");
    t->facts.columns[0].identity = 'a';
  }
}

Twin RandomTable(Dice* d) {
  const int versions[] = {120000, 150000, 180000};
  Twin t;
  t.version = versions[d->Below(3)];
  t.facts.schema = "public";
  t.facts.name = "t";
  t.facts.kind = 'r';
  t.facts.storage.persistence = Persistence::kPermanent;
  for (const std::string& c : kColumns) {
    migrator::ColumnFacts column;
    column.name = c;
    column.type = "integer";
    column.not_null = c == "id";
    t.facts.columns.push_back(column);
  }
  AddKeys(d, &t);
  AddForeignKeys(d, &t);
  AddOthers(d, &t);
  // What observe writes for the planner, and what the migrator keeps.
  t.relation.name = "public.t";
  WriteRuleFacts(t.read, &t.relation);
  t.facts.rule = RuleFactsOf(t.read, t.version);
  t.facts.keys.row_key = t.read.keys.row_key;
  t.key = d->Chance(70) ? std::vector<std::string>{"id"}
                        : std::vector<std::string>{kColumns[1 + d->Below(3)]};
  return t;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> PreflightRefusals(const Twin& t) {
  Placement p;
  p.relation = "public.t";
  p.strategy = Strategy::kHashPartition;
  p.tablespaces = {"a", "b"};
  p.partitions = 2;
  p.key = t.key;
  migrator::ServerFacts server;
  server.version_num = t.version;
  server.superuser = true;
  server.user = "postgres";
  std::vector<std::string> out;
  for (const migrator::Finding& f :
       migrator::CheckRelation(p, t.facts, server, 100)) {
    if (f.severity == migrator::Finding::Severity::kRefusal) {
      out.push_back(f.reason);
    }
  }
  return out;
}

TEST(HashRuleProperty, PlannerAndPreflightAgreeOnEveryRandomTable) {
  Dice dice(36);
  int feasible = 0, refused = 0;
  for (int i = 0; i < 300; ++i) {
    const Twin t = RandomTable(&dice);
    const planner::PartitionCheck check =
        planner::CheckHashPartitioning(t.relation, t.key, t.version);
    const std::vector<std::string> refusals = PreflightRefusals(t);
    EXPECT_EQ(check.feasible(), refusals.empty())
        << "table " << i << " on " << t.version;
    EXPECT_EQ(Sorted(check.blockers), Sorted(refusals))
        << "table " << i << " on " << t.version;
    (check.feasible() ? feasible : refused) += 1;
  }
  // Both verdicts are exercised, not only one.
  EXPECT_GT(feasible, 30);
  EXPECT_GT(refused, 30);
}

// A file written before observe recorded the rule's facts: the plan names
// what it does not know instead of judging it feasible in silence.
TEST(HashRuleProperty, AnOlderWorkloadFileSaysWhatItLacks) {
  Relation r;
  r.name = "public.t";
  r.persistence = Persistence::kPermanent;
  r.primary_key = {"id"};
  const planner::PartitionCheck check =
      planner::CheckHashPartitioning(r, {}, 150000);
  bool said = false;
  for (const std::string& c : check.cautions) {
    said |=
        c.find(
            "workload.toml does not record its index names and "
            "exclusion constraints, NO INHERIT checks") != std::string::npos;
  }
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(check.cautions, " | "));
}

}  // namespace
}  // namespace pglayout
