// Partition counts in proportion to capacity, and no moves that buy
// nothing (docs/planning.md#partition-counts, #moves-worth-making).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

#include "common/files.h"
#include "planner/citus_plan.h"
#include "planner/plan_builder.h"
#include "planner/plan_sql.h"
#include "planner/remedy.h"

namespace pglayout::planner {
namespace {

std::string Volume(const std::string& name, int iops, int sync_us = 900) {
  return fmt::format(
      "[[volume]]\nname = \"{0}\"\npath = \"/mnt/{0}\"\ncapacity = "
      "\"500GB\"\nread_iops = {1}\nwrite_iops = {1}\n"
      "sync_write_latency_us = {2}\n",
      name, iops, sync_us);
}

std::string Relation(const std::string& name, int read_iops,
                     const std::string& size = "30GB") {
  return fmt::format(
      "[[relation]]\nname = \"{}\"\nsize = \"{}\"\nread_iops = {}\n"
      "primary_key = [\"id\"]\npersistence = \"permanent\"\n",
      name, size, read_iops);
}

constexpr char kHeader[] = R"(
[observation]
duration = "1h"
source = "live"
[settings]
data_directory = "/mnt/base/pgdata"
server_version_num = "180000"
[wal]
bytes_per_second = 1000000
commits_per_second = 100
)";

PlanOutcome Plan(const std::string& volumes, const std::string& workload,
                 const std::string& prefer = "auto") {
  VolumeSet v;
  Workload w;
  Status st = ParseVolumes(volumes, "v.toml", &v);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = ParseWorkload(workload, "w.toml", &w);
  EXPECT_TRUE(st.ok()) << st.ToString();
  PlanOptions options;
  options.prefer = prefer;
  PlanOutcome out;
  st = BuildPlan(v, w, options, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

const Placement* Find(const pglayout::Plan& plan, const std::string& rel) {
  for (const Placement& p : plan.placements) {
    if (p.relation == rel) return &p;
  }
  return nullptr;
}

std::string Verdicts(const PlanOutcome& out) {
  return fmt::format("{}", fmt::join(out.plan.verdicts, "\n"));
}

// The issue's unequal volumes: shop.events (9,000 read IOPS) on spare
// volumes of 4,000, 4,000 and 6,000 IOPS. One partition per volume left v1
// and v2 at 75%, above the target; the count from capacity puts two on v3
// and keeps every volume within it, with the curve in the reason.
TEST(PartitionCount, UnequalVolumesStayWithinTheTarget) {
  const std::string volumes = Volume("base", 3000) + Volume("wal", 3000, 300) +
                              Volume("v1", 4000) + Volume("v2", 4000) +
                              Volume("v3", 6000);
  const std::string workload = std::string(kHeader) +
                               Relation("shop.events", 9000) +
                               Relation("shop.orders", 500, "10GB");
  const PlanOutcome out = Plan(volumes, workload, "stripe");
  const Placement* events = Find(out.plan, "shop.events");
  ASSERT_NE(events, nullptr) << Verdicts(out);
  ASSERT_EQ(events->strategy, Strategy::kHashPartition) << Verdicts(out);
  EXPECT_GT(events->partitions, 3);
  ASSERT_EQ(events->tablespaces.size(),
            static_cast<size_t>(events->partitions));
  // Several partitions on one tablespace: v3 carries more than one.
  EXPECT_GE(std::count(events->tablespaces.begin(), events->tablespaces.end(),
                       "pglayout_v3"),
            2)
      << fmt::format("{}", fmt::join(events->tablespaces, ", "));
  for (const ForecastEntry& f : out.plan.forecast) {
    EXPECT_LE(f.utilization_after, 0.7 + 1e-9) << f.volume;
  }
  EXPECT_NE(events->reason.find("the worst volume at each count tried: 3 -> "),
            std::string::npos)
      << events->reason;
  EXPECT_NE(events->reason.find("2 on v3"), std::string::npos)
      << events->reason;
  // plan.sql creates each partition on its tablespace, its indexes with it.
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(out.plan, out.sql_objects, &steps).ok());
  int on_v3 = 0;
  for (const SqlStep& s : steps) {
    if (s.sql.find("PARTITION OF") != std::string::npos &&
        s.sql.ends_with("TABLESPACE \"pglayout_v3\"")) {
      ++on_v3;
    }
  }
  EXPECT_GE(on_v3, 2);
}

// A hot table of a live workload whose facts observe did not read (it reads
// those of its --facts hottest tables only) is not judged "no primary key",
// nor blamed on an older observe: the plan says what is missing.
TEST(PartitionCount, AHotTableWithoutFactsIsNotGuessedAt) {
  const std::string volumes = Volume("base", 3000) + Volume("wal", 3000, 300) +
                              Volume("v1", 4000) + Volume("v2", 4000);
  const std::string workload = std::string(kHeader) +
                               "[[relation]]\nname = \"shop.events\"\n"
                               "size = \"30GB\"\nread_iops = 7000\n"
                               "persistence = \"permanent\"\n";
  const PlanOutcome out = Plan(volumes, workload);
  ASSERT_EQ(out.hot.size(), 1u) << Verdicts(out);
  const HotRelation& h = out.hot.front();
  EXPECT_EQ(h.table, "shop.events");
  EXPECT_NE(h.chosen, "hash_partition");
  ASSERT_EQ(h.partition.blockers.size(), 1u)
      << fmt::format("{}", fmt::join(h.partition.blockers, " | "));
  EXPECT_EQ(h.partition.blockers[0],
            "workload.toml records none of its keys (observe reads the facts "
            "of its --facts hottest tables only)");
  EXPECT_TRUE(h.partition.cautions.empty())
      << fmt::format("{}", fmt::join(h.partition.cautions, " | "));
}

// Growth projected: twice the count the spread needs, and the reason names
// what the next doubling takes (docs/planning.md#growth): each volume keeps
// the first half of its partitions, a new volume like it takes the rest.
TEST(Growth, RoomToGrowNamesThePartitionsADoublingMoves) {
  VolumeSet v;
  Workload w;
  ASSERT_TRUE(ParseVolumes(Volume("base", 3000) + Volume("wal", 3000, 300) +
                               Volume("v1", 4000) + Volume("v2", 4000),
                           "v.toml", &v)
                  .ok());
  ASSERT_TRUE(ParseWorkload(
                  std::string(kHeader) + Relation("shop.events", 4500, "30GB"),
                  "w.toml", &w)
                  .ok());
  PlanOptions options;
  GrowthRate rate;
  ASSERT_TRUE(ParseGrowthRate("20%/year", &rate).ok());
  options.growth = rate;
  PlanOutcome out;
  ASSERT_TRUE(BuildPlan(v, w, options, &out).ok());
  const Placement* events = Find(out.plan, "shop.events");
  ASSERT_NE(events, nullptr) << Verdicts(out);
  ASSERT_EQ(events->strategy, Strategy::kHashPartition) << Verdicts(out);
  ASSERT_EQ(out.hot.size(), 1u);
  EXPECT_TRUE(out.hot[0].room_to_grow) << events->reason;
  EXPECT_EQ(events->partitions, 10) << events->reason;
  // Partition j on tablespaces[j]: v1 holds 0, 3, 6, 9, v2 1, 4, 7 and the
  // database's volume 2, 5, 8; each gives its later half.
  EXPECT_EQ(events->tablespaces,
            (std::vector<std::string>{
                "pglayout_v1", "pglayout_v2", "pg_default", "pglayout_v1",
                "pglayout_v2", "pg_default", "pglayout_v1", "pglayout_v2",
                "pg_default", "pglayout_v1"}));
  EXPECT_NE(events->reason.find(
                "room to grow: the data grows over the horizon, so 10 "
                "partitions (twice the count the spread needs): when it "
                "doubles, adding 3 volumes like v1, v2 and base moves "
                "partitions 6-9 there, whole and online"),
            std::string::npos)
      << events->reason;
  // Without growth, the count the spread needs and no growth line.
  options.growth.reset();
  options.horizon_seconds = 0;
  ASSERT_TRUE(BuildPlan(v, w, options, &out).ok());
  events = Find(out.plan, "shop.events");
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->partitions, 5) << events->reason;
  EXPECT_EQ(events->reason.find("room to grow"), std::string::npos)
      << events->reason;
}

// Random sets of spare volumes, one hot table, the bound at or below the
// target: every volume within the target when the bound is 5 points or more
// below it, else within 5 points of the bound.
TEST(PartitionCount, RandomVolumesComeWithinTheBound) {
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> spares(2, 5), iops(10, 80), share(30, 100);
  int checked = 0, tight = 0;
  for (int round = 0; round < 60; ++round) {
    const int n = spares(rng);
    std::string volumes = Volume("base", 3000) + Volume("wal", 3000, 300);
    int capacity = 3000;
    for (int i = 0; i < n; ++i) {
      const int c = iops(rng) * 100;
      capacity += c;
      volumes += Volume(fmt::format("v{}", i + 1), c);
    }
    const int hot = static_cast<int>(0.7 * capacity * share(rng) / 100);
    const std::string workload =
        std::string(kHeader) + Relation("shop.events", hot);
    const PlanOutcome out = Plan(volumes, workload);
    const double bound = out.bound.max_utilization;
    if (bound > 0.7) continue;
    ++checked;
    const std::string what =
        fmt::format("{} read IOPS on\n{}\n{}", hot, volumes, Verdicts(out));
    if (bound <= 0.7 - 0.05) {
      EXPECT_LE(out.max_utilization, 0.7 + 1e-9) << what;
    } else {
      ++tight;
      EXPECT_LE(out.max_utilization, bound + 0.05 + 1e-9) << what;
    }
  }
  EXPECT_GE(checked, 40);
  EXPECT_GE(tight, 3);
}

// Every volume well under the target: nothing moves, and the plan says why.
TEST(NoMoveThatBuysNothing, CalmVolumesKeepEveryTableWhereItIs) {
  const std::string volumes = Volume("base", 3000) + Volume("wal", 3000, 300) +
                              Volume("v1", 3000) + Volume("v2", 3000);
  const std::string workload =
      std::string(kHeader) + Relation("public.a", 300, "10GB") +
      Relation("public.b", 200, "10GB") + Relation("public.c", 100, "10GB");
  const PlanOutcome out = Plan(volumes, workload);
  for (const Placement& p : out.plan.placements) {
    EXPECT_EQ(p.strategy, Strategy::kStay) << p.relation << ": " << p.reason;
  }
  EXPECT_EQ(out.moves, 0);
  EXPECT_NE(Verdicts(out).find("moves: none: the busiest data volume is at "
                               "20%, 10 points or more under the 70% target"),
            std::string::npos)
      << Verdicts(out);
}

// Near the target, moving still pays: the busiest volume (66%) gives a
// table away.
TEST(NoMoveThatBuysNothing, NearTheTargetATableMoves) {
  const std::string volumes = Volume("base", 3000) + Volume("wal", 3000, 300) +
                              Volume("v1", 3000) + Volume("v2", 3000);
  const std::string workload =
      std::string(kHeader) + Relation("public.a", 1000, "10GB") +
      Relation("public.b", 600, "10GB") + Relation("public.c", 400, "10GB");
  const PlanOutcome out = Plan(volumes, workload);
  EXPECT_EQ(Verdicts(out).find("moves: none"), std::string::npos);
  EXPECT_LT(out.max_utilization, 0.4);
}

// The issue's growth: shop.events already in 3 hash partitions of 4,000
// read IOPS each, on v1, v2, v3, and two new empty volumes v4, v5.
std::string GrowthVolumes() {
  return Volume("base", 3000) + Volume("wal", 3000, 300) + Volume("v1", 4000) +
         Volume("v2", 4000) + Volume("v3", 6000) + Volume("v4", 4000) +
         Volume("v5", 4000);
}

std::string GrowthWorkload(const std::string& partition_key) {
  std::string workload = std::string(kHeader) + R"(
[[tablespace]]
name = "ts_v1"
location = "/mnt/v1/ts"
[[tablespace]]
name = "ts_v2"
location = "/mnt/v2/ts"
[[tablespace]]
name = "ts_v3"
location = "/mnt/v3/ts"
[[relation]]
name = "shop.events"
kind = "partitioned"
primary_key = ["id"]
persistence = "permanent"
)" + partition_key;
  for (int p = 0; p < 3; ++p) {
    workload += fmt::format(
        "[[relation]]\nname = \"shop.events_p{0}\"\nsize = \"10GB\"\n"
        "read_iops = 4000\nprimary_key = [\"id\"]\npersistence = "
        "\"permanent\"\npartition_of = \"shop.events\"\ntablespace = "
        "\"ts_v{1}\"\n",
        p, p + 1);
  }
  return workload;
}

// Each partition that changes moves whole (online, the partition move) or
// is split by the parent's key into partitions of its own (online, the
// split), none is converted again, v4 and v5 take their share, every
// volume ends within the target (the bound is 48%), and Citus is not
// advised.
TEST(Growth, PartitionsMoveOrSplitOnlineOntoTheNewVolumes) {
  const PlanOutcome out =
      Plan(GrowthVolumes(), GrowthWorkload("partition_key = \"HASH (id)\"\n"));
  EXPECT_LE(out.bound.max_utilization, 0.5);
  EXPECT_LE(out.max_utilization, 0.7) << Verdicts(out);
  std::set<std::string> used;
  int splits = 0;
  for (int p = 0; p < 3; ++p) {
    const std::string name = fmt::format("shop.events_p{}", p);
    const Placement* pl = Find(out.plan, name);
    ASSERT_NE(pl, nullptr) << name << "\n" << Verdicts(out);
    EXPECT_TRUE(pl->online) << name << ": " << pl->reason;
    EXPECT_EQ(pl->reason.find("offline"), std::string::npos) << pl->reason;
    used.insert(pl->tablespaces.begin(), pl->tablespaces.end());
    if (pl->strategy != Strategy::kHashPartition) continue;
    ++splits;
    EXPECT_EQ(pl->key, std::vector<std::string>{"id"});
    EXPECT_EQ(pl->tablespaces.size(), static_cast<size_t>(pl->partitions));
    EXPECT_NE(pl->reason.find("partitions of its own by (id), its parent "
                              "shop.events's key"),
              std::string::npos)
        << pl->reason;
    EXPECT_NE(pl->reason.find("online: 10 GiB copied with change capture, "
                              "then the parent is locked only for the swap"),
              std::string::npos)
        << pl->reason;
  }
  EXPECT_GE(splits, 1);
  // plan.sql shows a split as migrate runs it: partitions of the
  // partition, then the swap by DETACH and ATTACH, not a rename.
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(out.plan, out.sql_objects, &steps).ok());
  std::string sql;
  for (const SqlStep& step : steps)
    sql += step.comment + "\n" + step.sql + "\n";
  EXPECT_NE(sql.find("shop.events_p0: a hash partition of shop.events split "
                     "into"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("ALTER TABLE \"shop\".\"events\" DETACH PARTITION "
                     "\"shop\".\"events_p0\""),
            std::string::npos)
      << sql;
  EXPECT_EQ(sql.find("RENAME TO \"events_p0\""), std::string::npos) << sql;
  EXPECT_TRUE(used.count("pglayout_v4")) << fmt::format("{}", used);
  EXPECT_TRUE(used.count("pglayout_v5")) << fmt::format("{}", used);
  std::string why;
  EXPECT_FALSE(SingleHostFallsShort(out, PlanOptions{}, &why)) << why;
  EXPECT_EQ(Verdicts(out).find("Citus"), std::string::npos) << Verdicts(out);
}

// Without the parent's key (a workload.toml from an older observe) no
// partition is split (CheckHashSplit says why,
// Growth.SplitsAreJudgedFromTheParentsFacts); what moves moves whole, online.
TEST(Growth, WithoutTheParentsKeyPartitionsOnlyMove) {
  const PlanOutcome out = Plan(GrowthVolumes(), GrowthWorkload(""));
  for (int p = 0; p < 3; ++p) {
    const std::string name = fmt::format("shop.events_p{}", p);
    const Placement* pl = Find(out.plan, name);
    ASSERT_NE(pl, nullptr) << name << "\n" << Verdicts(out);
    EXPECT_NE(pl->strategy, Strategy::kHashPartition) << name;
    if (pl->strategy == Strategy::kMove) {
      EXPECT_TRUE(pl->online) << name << ": " << pl->reason;
    }
  }
  EXPECT_TRUE(out.hot.empty()) << out.hot.front().why;
}

// What a split needs, judged from the workload's facts.
TEST(Growth, SplitsAreJudgedFromTheParentsFacts) {
  Workload w;
  ASSERT_TRUE(
      ParseWorkload(GrowthWorkload("partition_key = \"HASH (id)\"\n"), "w", &w)
          .ok());
  const pglayout::Relation* leaf = w.Find("shop.events_p0");
  pglayout::Relation root = *w.Find("shop.events");
  ASSERT_NE(leaf, nullptr);
  EXPECT_TRUE(CheckHashSplit(*leaf, &root, &root, 150000).feasible());
  EXPECT_EQ(CheckHashSplit(*leaf, &root, &root, 150000).key,
            std::vector<std::string>{"id"});
  EXPECT_NE(CheckHashSplit(*leaf, nullptr, nullptr, 150000)
                .blockers.at(0)
                .find("a partition of shop.events, whose partition key "
                      "workload.toml does not record"),
            std::string::npos);
  root.partition_key = "RANGE (at)";
  EXPECT_NE(
      CheckHashSplit(*leaf, &root, &root, 150000)
          .blockers.at(0)
          .find("which is partitioned by RANGE (at): only a partition of a "
                "table hash-partitioned on plain columns is split"),
      std::string::npos);
  root.partition_key = "HASH (id)";
  // A foreign key it has from its parent is the split's to keep, on 15
  // too; one of its own is a conversion's, which needs 18.
  pglayout::Relation with_fk = *leaf;
  with_fk.foreign_keys_out = {"events_r_fkey (r) -> shop.ref (id)"};
  root.foreign_keys_out = with_fk.foreign_keys_out;
  EXPECT_TRUE(CheckHashSplit(with_fk, &root, &root, 150000).feasible());
  root.foreign_keys_out.clear();
  EXPECT_NE(CheckHashSplit(with_fk, &root, &root, 150000)
                .blockers.at(0)
                .find("foreign key events_r_fkey references shop.ref"),
            std::string::npos);
  // Keys to the parent: a plain table's are dropped and added back around
  // the swap; without the facts of which is partitioned, no guess; a
  // partitioned referencer needs 18, and the parent's key to itself is
  // refused.
  root.foreign_keys_in = {"shop.notes.notes_event_fkey"};
  root.rule_facts = false;
  EXPECT_EQ(CheckHashSplit(*leaf, &root, &root, 150000).blockers,
            std::vector<std::string>{
                "foreign key shop.notes.notes_event_fkey references its parent "
                "shop.events, and workload.toml does not record whether its "
                "table is partitioned (pglayout observe records it)"});
  root.rule_facts = true;
  EXPECT_TRUE(CheckHashSplit(*leaf, &root, &root, 150000).feasible());
  root.referenced_by_partitioned = {{"notes_event_fkey", "shop.notes"}};
  EXPECT_EQ(CheckHashSplit(*leaf, &root, &root, 150000).blockers,
            std::vector<std::string>{
                "foreign key notes_event_fkey of partitioned table shop.notes "
                "references its parent shop.events: the swap re-adds it NOT "
                "VALID, which a partitioned table accepts from PostgreSQL 18"});
  EXPECT_TRUE(CheckHashSplit(*leaf, &root, &root, 180000).feasible());
  root.referenced_by_partitioned.push_back({"events_up_fkey", "shop.events"});
  EXPECT_EQ(CheckHashSplit(*leaf, &root, &root, 180000).blockers,
            std::vector<std::string>{
                "its parent shop.events has foreign key events_up_fkey to "
                "itself: the swap would drop and validate it again over every "
                "partition"});
}

TEST(Growth, HashKeyColumnsOfAPartitionKey) {
  EXPECT_EQ(HashKeyColumns("HASH (id)"), std::vector<std::string>{"id"});
  EXPECT_EQ(HashKeyColumns("HASH (a, \"B \"\"c\")"),
            (std::vector<std::string>{"a", "B \"c"}));
  for (const char* other :
       {"RANGE (id)", "HASH (id int8_ops)", "HASH (((id + 1)))",
        "HASH (\"A\" COLLATE \"C\")", "HASH ()", ""}) {
    EXPECT_EQ(HashKeyColumns(other), std::vector<std::string>{}) << other;
  }
}

}  // namespace
}  // namespace pglayout::planner
