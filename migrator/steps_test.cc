// Plan -> steps (steps.h): their order and SQL, and the checkpoint guard's
// decisions.

#include "migrator/steps.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/quote.h"
#include "common/units.h"
#include "migrator/sql_util.h"
#include "migrator/test_facts.h"

namespace pglayout::migrator {
namespace {

using fixtures::HashPlan;
using fixtures::MovePlan;
using fixtures::Orders;
using fixtures::SalesPartition;
using fixtures::Server;

std::vector<std::string> Keys(const std::vector<Step>& steps) {
  std::vector<std::string> keys;
  for (const Step& s : steps) keys.push_back(s.key);
  return keys;
}

TEST(BuildSteps, OrdersTablespacesGuardMovesSettingsAndCheck) {
  Plan plan = HashPlan();
  Placement offline;
  offline.relation = "public.small";
  offline.strategy = Strategy::kMove;
  offline.tablespaces = {"a"};
  offline.online = false;
  plan.placements.push_back(offline);
  std::map<std::string, TableFacts> tables = {{"public.orders", Orders()}};
  TableFacts small = Orders();
  small.name = "small";
  tables["public.small"] = small;
  auto steps = BuildSteps(plan, Server(), tables, StepOptions());
  EXPECT_EQ(Keys(steps),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:raise", "move:public.small",
                                      "partition:public.orders",
                                      "guard:restore", "settings", "verify"}));
  const Step& move = steps[3];
  EXPECT_EQ(move.sql,
            (std::vector<std::string>{
                "ALTER TABLE \"public\".\"small\" SET TABLESPACE \"a\"",
                "ALTER INDEX \"public\".\"orders_pkey\" SET "
                "TABLESPACE \"a\"",
                "ALTER INDEX \"public\".\"orders_customer\" SET "
                "TABLESPACE \"a\""}));
  EXPECT_NE(move.note.find("the longest about 4.2 s at 200 MB/s"),
            std::string::npos)
      << move.note;
}

std::string Joined(const Step& s) {
  std::string all;
  for (const std::string& sql : s.sql) all += sql + "\n";
  return all;
}

TEST(BuildSteps, HashPartitionStepPlacesPartitionsAndCapturesAlways) {
  Plan plan = HashPlan();
  auto steps =
      BuildSteps(plan, Server(), {{"public.orders", Orders()}}, StepOptions());
  std::string sql = Joined(steps[3]);
  for (const char* expected : {
           "PARTITION BY HASH (\"id\")",
           "SET LOCAL default_tablespace = 'a'\n"
           "CREATE TABLE \"public\".\"orders_p0\" PARTITION OF "
           "\"public\".\"pglayout_new_16384\" FOR VALUES WITH (MODULUS 2, "
           "REMAINDER 0) WITH (\"autovacuum_enabled\" = 'false') TABLESPACE "
           "\"a\"",
           "REMAINDER 1) WITH (\"autovacuum_enabled\" = 'false') TABLESPACE "
           "\"pg_default\"",
           // The partitions get the table's autovacuum setting back.
           "ALTER TABLE \"public\".\"orders_p1\" RESET (autovacuum_enabled)",
           "ENABLE ALWAYS TRIGGER pglayout_capture",
           "BEFORE TRUNCATE ON \"public\".\"orders\"",
           "IS DISTINCT FROM",
           "CREATE INDEX \"orders_customer_p1\" ON \"public\".\"orders_p1\" "
           "USING btree (customer)",
           "ALTER TABLE \"public\".\"orders\" RENAME TO \"old_16384\"\n"
           "ALTER TABLE \"public\".\"old_16384\" SET SCHEMA pglayout",
       }) {
    EXPECT_NE(sql.find(expected), std::string::npos) << expected << "\n" << sql;
  }
}

TEST(BuildSteps, NoGuardWithoutBulkWork) {
  Plan plan;
  plan.settings = {{"work_mem", "64MB", "", ""}};
  auto steps = BuildSteps(plan, Server(), {}, StepOptions());
  EXPECT_EQ(Keys(steps), (std::vector<std::string>{"settings", "verify"}));
}

// A run killed after raising max_wal_size to its cap resumes with the
// server at that cap: the raise is computed from the journaled original,
// and the restore step stays (without it the final check fails on the
// setting the run left raised).
TEST(BuildSteps, AResumedRunKeepsItsRestoreWhenTheRaiseIsCapped) {
  Plan plan = HashPlan();
  plan.settings.clear();
  ServerFacts raised = Server();
  raised.settings["max_wal_size"] = "2048";  // the killed attempt's raise
  std::map<std::string, TableFacts> tables = {{"public.orders", Orders()}};
  StepOptions capped;
  capped.max_wal_size_cap = 2 * kGiB;
  // What the resume used to build: no raise left, so no restore either.
  EXPECT_EQ(Keys(BuildSteps(plan, raised, tables, capped)),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "partition:public.orders", "verify"}));
  StepOptions resumed = capped;
  resumed.guard_original = kGiB;
  resumed.guard_restore_pending = true;
  auto steps = BuildSteps(plan, raised, tables, resumed);
  EXPECT_EQ(Keys(steps),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:raise", "partition:public.orders",
                                      "guard:restore", "verify"}));
  EXPECT_EQ(steps[2].title, "checkpoint guard: raise max_wal_size 1GB -> 2GB");
  EXPECT_EQ(steps[4].title, "checkpoint guard: restore max_wal_size to 1GB");
  // Nothing left to copy (or the guard off on resume): the restore alone.
  resumed.checkpoint_guard = false;
  EXPECT_EQ(Keys(BuildSteps(plan, raised, {}, resumed)),
            (std::vector<std::string>{"tablespace:a", "tablespace-options:a",
                                      "guard:restore", "verify"}));
}

TEST(Guard, RaisesToCoverTheCopyBoundedByFreeWal) {
  GuardDecision d = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 0, 0);
  EXPECT_TRUE(d.raise);
  // The current 1 GiB + 10 GiB x 3 of WAL x (1 + 0.9).
  EXPECT_EQ(d.target, 58 * kGiB);
  GuardDecision bounded = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 8 * kGiB, 0);
  EXPECT_EQ(bounded.target, 4 * kGiB);
  GuardDecision capped = DecideMaxWalSize(kGiB, 10 * kGiB, 0.9, 0, 2 * kGiB);
  EXPECT_EQ(capped.target, 2 * kGiB);
  GuardDecision enough = DecideMaxWalSize(100 * kGiB, kMiB, 0.9, 0, 0);
  EXPECT_FALSE(enough.raise);
}

TEST(Guard, RestoresOnlyWhenTheNextTimedCheckpointComesFirst) {
  // 1 GiB with completion target 0.9: requested at about 539 MiB.
  uint64_t original = kGiB;
  RestoreCheck check;
  check.wal_since_redo = 300.0 * kMiB;
  check.wal_rate = 1.0 * kMiB;
  check.seconds_to_next_start = 100;  // 400 MiB by then: fine
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kRestore);
  check.seconds_to_next_start = 250;  // 550 MiB by then: too late
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
  check.wal_since_redo = 2.0 * kGiB;  // the copy's WAL is still in the window
  check.seconds_to_next_start = 0;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
  // A checkpoint completed after the copy and the foreground alone still
  // outgrows the threshold: waiting longer cannot help.
  check.wal_since_redo = 600.0 * kMiB;
  check.checkpoint_since_wait = true;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kCannot);
  check.wal_since_redo = 100.0 * kMiB;
  check.wal_rate = 0.5 * kMiB;
  check.seconds_to_next_start = 30;
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kRestore);
}

// Known up front: a foreground that alone writes more WAL per cycle than
// the original allows cannot be waited out, once its rate is measured.
TEST(Guard, AMeasuredRateAboveTheOriginalMakesTheWaitFutile) {
  uint64_t original = 1 * kGiB;  // requests at 539 MiB (485 MiB with margin)
  RestoreCheck check;
  check.wal_since_redo = 600.0 * kMiB;
  check.seconds_to_next_start = 200;
  check.cycle_seconds = 300;
  check.wal_rate = 2.0 * kMiB;  // 600 MiB per cycle
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait)
      << "an assumed rate (the copy's WAL in it) decides nothing";
  check.rate_measured = true;
  EXPECT_EQ(ForegroundCycleWal(check), 600.0 * kMiB);
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kCannot);
  check.wal_rate = 1.0 * kMiB;  // 300 MiB per cycle: a checkpoint helps
  EXPECT_EQ(DecideRestore(original, 0.9, check), RestoreVerdict::kWait);
}

TEST(Guard, ReadsPgSettingsUnits) {
  EXPECT_EQ(SettingBytes("1024", "MB"), kGiB);
  EXPECT_EQ(SettingBytes("2048", "8kB"), 16 * kMiB);
  EXPECT_EQ(SettingBytes("", "MB"), 0u);
}

// ------------------------------------------- each step kind's SQL, hostile
// names: the statements, their order, and every name quoted.

// One plan with a step of every kind, every name made from |name|: a new
// tablespace T<name> (with an option), an offline move of table <name>, an
// online rebuild of index I<name> (14+), an online move of table M<name>,
// a setting whose value holds a quote and a backslash; the guard raises
// for the copies.
struct HostilePlan {
  explicit HostilePlan(const std::string& name)
      : ts(fixtures::Prefixed("T", name)) {
    plan.tablespaces = {
        {ts, "/vol/it's\\" + name, "d1", {{"random_page_cost", "1.1"}}}};
    TableFacts offline = fixtures::HostileTable(name);
    TableFacts online = fixtures::HostileTable(fixtures::Prefixed("M", name));
    online.oid = 16390;
    TableFacts index = fixtures::HostileTable(name);
    index.kind = 'i';
    index.name = fixtures::Prefixed("I", name);
    index.oid = 16395;
    index.indexes.clear();
    index.columns.clear();
    tables = {{"offline", offline}, {"index", index}, {"online", online}};
    for (const auto& [relation, t] : tables) {
      Placement p;
      p.relation = relation;
      p.strategy = Strategy::kMove;
      p.tablespaces = {ts};
      p.online = relation != "offline";
      plan.placements.push_back(p);
    }
    plan.settings = {{"search_path", "a'b\\c", "", ""}};
    server.settings["max_wal_size"] = "64";  // MB: the copies raise it
  }
  std::vector<Step> Build(StepOptions options = StepOptions()) const {
    return BuildSteps(plan, server, tables, options);
  }
  std::string ts;
  Plan plan;
  ServerFacts server = Server(140000);
  std::map<std::string, TableFacts> tables;
};

const Step& StepOf(const std::vector<Step>& steps, StepKind kind) {
  for (const Step& s : steps) {
    if (s.kind == kind) return s;
  }
  ADD_FAILURE() << "no step " << StepKindName(kind);
  return steps.front();
}

TEST(BuildSteps, EveryKindInOrderWithEveryNameQuoted) {
  for (const std::string& name : fixtures::HostileNames()) {
    SCOPED_TRACE(name);
    HostilePlan hp(name);
    std::vector<Step> steps = hp.Build();
    std::vector<StepKind> kinds;
    for (const Step& s : steps) {
      kinds.push_back(s.kind);
      EXPECT_EQ(fixtures::HostileNameProblems(s.sql), "") << s.key;
    }
    EXPECT_EQ(kinds, (std::vector<StepKind>{
                         StepKind::kCreateTablespace,
                         StepKind::kTablespaceOptions, StepKind::kGuardRaise,
                         StepKind::kMoveOffline, StepKind::kMoveIndexOnline,
                         StepKind::kOnlineCopy, StepKind::kGuardRestore,
                         StepKind::kPlanSettings, StepKind::kVerify}));
    const std::string ts = QuoteIdent(hp.ts);
    const TableFacts& t = hp.tables.at("offline");
    const std::string table = QuoteIdent(t.schema) + "." + QuoteIdent(t.name);
    EXPECT_EQ(
        StepOf(steps, StepKind::kCreateTablespace).sql,
        (std::vector<std::string>{"CREATE TABLESPACE " + ts + " LOCATION " +
                                  QuoteLiteral("/vol/it's\\" + name)}));
    EXPECT_EQ(
        StepOf(steps, StepKind::kTablespaceOptions).sql,
        (std::vector<std::string>{"ALTER TABLESPACE " + ts +
                                  " SET (\"random_page_cost\" = '1.1')"}));
    EXPECT_EQ(
        StepOf(steps, StepKind::kMoveOffline).sql,
        (std::vector<std::string>{
            "ALTER TABLE " + table + " SET TABLESPACE " + ts,
            "ALTER INDEX " + QuoteIdent(t.schema) + "." +
                QuoteIdent(t.indexes[0].name) + " SET TABLESPACE " + ts,
            "ALTER INDEX " + QuoteIdent(t.schema) + "." +
                QuoteIdent(t.indexes[1].name) + " SET TABLESPACE " + ts}));
    const TableFacts& index = hp.tables.at("index");
    EXPECT_EQ(StepOf(steps, StepKind::kMoveIndexOnline).sql,
              (std::vector<std::string>{
                  "REINDEX (TABLESPACE " + ts + ") INDEX CONCURRENTLY " +
                  QuoteIdent(index.schema) + "." + QuoteIdent(index.name)}));
    EXPECT_EQ(StepOf(steps, StepKind::kPlanSettings).sql,
              (std::vector<std::string>{
                  "ALTER SYSTEM SET \"search_path\" =  E'a''b\\\\c'",
                  "SELECT pg_catalog.pg_reload_conf()"}));
  }
}

// The same by hand for one name, so that a broken QuoteIdent cannot pass
// it: the double quote doubled, the backslash and newline kept inside.
TEST(BuildSteps, QuotesAreDoubledNotDropped) {
  HostilePlan hp("Zq\"uo\\te\nX");
  std::vector<Step> steps = hp.Build();
  EXPECT_EQ(StepOf(steps, StepKind::kMoveOffline).sql[0],
            "ALTER TABLE \"SZq\"\"uo\\te\nX\".\"Zq\"\"uo\\te\nX\" SET "
            "TABLESPACE \"TZq\"\"uo\\te\nX\"");
  EXPECT_EQ(StepOf(steps, StepKind::kCreateTablespace).sql[0],
            "CREATE TABLESPACE \"TZq\"\"uo\\te\nX\" LOCATION  "
            "E'/vol/it''s\\\\Zq\"uo\\\\te\nX'");
}

// The online copy's statements in the order a run executes them: shadow,
// capture, copy, indexes, replay, verification, the swap's lock, the swap,
// then ANALYZE and the capture's removal.
TEST(BuildSteps, AnOnlineCopyListsItsPhasesInRunOrder) {
  for (const std::string& name : fixtures::HostileNames()) {
    SCOPED_TRACE(name);
    HostilePlan hp(name);
    const Step copy = StepOf(hp.Build(), StepKind::kOnlineCopy);
    const TableFacts& t = hp.tables.at("online");
    const std::string table = QuoteIdent(t.schema) + "." + QuoteIdent(t.name);
    const std::string shadow = QuoteIdent(t.schema) + ".\"pglayout_new_16390\"";
    auto first = [&](const std::string& part) {
      for (size_t i = 0; i < copy.sql.size(); ++i) {
        if (copy.sql[i].find(part) != std::string::npos) return i;
      }
      ADD_FAILURE() << "no statement with " << part;
      return copy.sql.size();
    };
    std::vector<size_t> order = {
        first("CREATE TABLE " + shadow),
        first("CREATE TRIGGER pglayout_capture"),
        first("-- 2."),
        first("INSERT INTO " + shadow),
        first("-- 3."),
        first("-- 4."),
        first("DELETE FROM pglayout.log_16390"),
        first("-- 5."),
        first("-- 6."),
        first("LOCK TABLE " + table),
        first("ALTER TABLE " + table + " RENAME TO \"old_16390\""),
        first("-- 7."),
        first("ANALYZE " + table),
        first("DROP TABLE IF EXISTS pglayout.log_16390")};
    for (size_t i = 1; i < order.size(); ++i) {
      EXPECT_LT(order[i - 1], order[i]) << i;
    }
  }
}

// --verify off: the dry run shows no verification statements, and says so.
TEST(BuildSteps, AnUnverifiedOnlineCopyListsNoVerification) {
  HostilePlan hp("plain");
  StepOptions off;
  off.verify = false;
  auto has = [](const Step& s, const std::string& part) {
    for (const std::string& sql : s.sql) {
      if (sql.find(part) != std::string::npos) return true;
    }
    return false;
  };
  const Step verified = StepOf(hp.Build(), StepKind::kOnlineCopy);
  const Step unverified = StepOf(hp.Build(off), StepKind::kOnlineCopy);
  EXPECT_TRUE(has(verified, "-- 5. verify in one snapshot"));
  EXPECT_EQ(unverified.sql.size() + 3, verified.sql.size());
  EXPECT_TRUE(has(unverified,
                  "-- 5. no verification (--verify off): the copy is not "
                  "compared with the table"));
  EXPECT_FALSE(has(unverified, "-- 5. verify"));
  EXPECT_TRUE(has(unverified, "-- 6. swap"));
}

}  // namespace
}  // namespace pglayout::migrator
