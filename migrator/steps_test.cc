// Plan -> steps (steps.h): their order and SQL, and the checkpoint guard's
// decisions.

#include "migrator/steps.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace pglayout::migrator
