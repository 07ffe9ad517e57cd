#include "planner/plan_builder.h"

#include <gtest/gtest.h>

#include <set>

#include "common/files.h"
#include "common/json.h"
#include "common/units.h"
#include "planner/plan_sql.h"
#include "planner/report.h"
#include "planner/stripe_script.h"

namespace pglayout::planner {
namespace {

struct Example {
  VolumeSet volumes;
  Workload workload;
};

Example LoadExample(const std::string& name) {
  Example e;
  const std::string dir = "examples/" + name + "/";
  Status st = ReadVolumesFile(dir + "volumes.toml", &e.volumes);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = ReadWorkloadFile(dir + "workload.toml", &e.workload);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return e;
}

PlanOutcome PlanOrDie(const Example& e, PlanOptions options = {}) {
  PlanOutcome out;
  Status st = BuildPlan(e.volumes, e.workload, options, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

const Placement* FindPlacement(const Plan& plan, const std::string& relation) {
  for (const Placement& p : plan.placements) {
    if (p.relation == relation) return &p;
  }
  return nullptr;
}

const SettingChange* FindSetting(const Plan& plan, const std::string& name) {
  for (const SettingChange& s : plan.settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string VolumeOf(const Plan& plan, const std::string& tablespace,
                     const std::string& default_volume) {
  if (tablespace == "pg_default") return default_volume;
  const TablespaceSpec* ts = plan.FindTablespace(tablespace);
  return ts ? ts->volume : "";
}

// Every output file, as the CLI writes them.
std::string AllOutputs(const PlanOutcome& out, const Example& e) {
  std::vector<SqlStep> steps;
  EXPECT_TRUE(PlanSqlSteps(out.plan, out.catalog, &steps).ok());
  return PlanToToml(out.plan) + PlanJson(out).dump(2) + RenderPlanSql(steps) +
         StripeScript(out.plan, e.volumes,
                      e.workload.Setting("data_directory").value_or("")) +
         RenderReport(out);
}

// ---------------------------------------------------- BRIEF.md section 4 --

TEST(OracleToCloudExample, HotTableIsHashPartitionedOverTheFiveNewVolumes) {
  Example e = LoadExample("oracle_cloud");
  PlanOutcome out = PlanOrDie(e);
  const Plan& plan = out.plan;
  EXPECT_EQ(plan.wal_volume, "sdc");
  const Placement* a = FindPlacement(plan, "public.a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->strategy, Strategy::kHashPartition);
  EXPECT_EQ(a->partitions, 5);
  EXPECT_EQ(a->key, std::vector<std::string>{"id"});
  std::set<std::string> volumes;
  for (const std::string& ts : a->tablespaces) {
    volumes.insert(VolumeOf(plan, ts, "sdb"));
  }
  EXPECT_EQ(volumes,
            (std::set<std::string>{"sdd", "sde", "sdf", "sdg", "sdh"}));
  // B and C (insert-hot) are not put on the same volume as each other.
  auto where = [&](const std::string& table) {
    const Placement* p = FindPlacement(plan, table);
    if (p == nullptr || p->tablespaces.empty()) return std::string("sdb");
    return VolumeOf(plan, p->tablespaces[0], "sdb");
  };
  EXPECT_NE(where("public.b"), where("public.c"));
  // Nobody shares the WAL's volume; the forecast says every volume fits.
  for (const TablespaceSpec& ts : plan.tablespaces) EXPECT_NE(ts.volume, "sdc");
  for (const ForecastEntry& f : plan.forecast) {
    EXPECT_LE(f.utilization_after, 0.7 + 1e-9) << f.volume;
    if (f.volume == "sdb") {
      EXPECT_GT(f.utilization_before, 1.0);
    }
  }
  EXPECT_LE(out.bound.max_utilization, out.max_utilization + 1e-9);
}

TEST(OracleToCloudExample, PreferStripeBuildsOneFromTheEmptyVolumes) {
  Example e = LoadExample("oracle_cloud");
  PlanOptions options;
  options.prefer = "stripe";
  PlanOutcome out = PlanOrDie(e, options);
  ASSERT_EQ(out.plan.stripes.size(), 1u);
  const Stripe& s = out.plan.stripes[0];
  EXPECT_EQ(s.members,
            (std::vector<std::string>{"sdd", "sde", "sdf", "sdg", "sdh"}));
  EXPECT_EQ(s.chunk, 512 * kKiB);
  EXPECT_EQ(s.tool, "lvm");
  const Placement* a = FindPlacement(out.plan, "public.a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->strategy, Strategy::kMove);
  EXPECT_EQ(VolumeOf(out.plan, a->tablespaces[0], "sdb"), s.name);
  std::string script = StripeScript(out.plan, e.volumes, "/mnt/sdb/pgdata");
  EXPECT_NE(script.find("# lvcreate --type striped --stripes 5 --stripesize "
                        "512k"),
            std::string::npos);
}

// ---------------------------------------------------- BRIEF.md section 2 --

TEST(CheckpointExample, RaisesMaxWalSizeWithTheReason) {
  Example e = LoadExample("checkpoints");
  PlanOutcome out = PlanOrDie(e);
  EXPECT_EQ(out.plan.wal_volume, "wal");
  const SettingChange* max = FindSetting(out.plan, "max_wal_size");
  ASSERT_NE(max, nullptr);
  uint64_t bytes = 0;
  ASSERT_TRUE(ParseSize(max->value, &bytes).ok());
  EXPECT_GE(bytes, 4 * kGiB);
  EXPECT_LE(bytes, 20 * kGiB);
  EXPECT_EQ(max->previous, "1GB");
  EXPECT_NE(max->reason.find("18 of 20 checkpoints requested"),
            std::string::npos)
      << max->reason;
  EXPECT_NE(FindSetting(out.plan, "min_wal_size"), nullptr);
  for (const Placement& p : out.plan.placements) {
    EXPECT_EQ(p.strategy, Strategy::kStay) << p.relation;
  }
}

// ---------------------------------------------------- BRIEF.md section 1 --

TEST(StripedNvmeExample, BackupReadsSpanTheStripeWithEveryVcpu) {
  Example e = LoadExample("striped_nvme_backup");
  PlanOutcome out = PlanOrDie(e);
  EXPECT_EQ(out.plan.backup_walg.at("WALG_DIRECT_IO"), "true");
  EXPECT_EQ(out.plan.backup_walg.at("WALG_DIRECT_IO_BLOCK_COUNT"), "1024");
  EXPECT_EQ(out.plan.backup_walg.at("WALG_UPLOAD_DISK_CONCURRENCY"), "48");
  EXPECT_EQ(out.plan.backup_walg.at("CPUWeight"), "25");
  EXPECT_EQ(out.plan.wal_volume, "md0");
  EXPECT_NE(out.plan.wal_reason.find("only one volume"), std::string::npos);
  ASSERT_NE(FindSetting(out.plan, "io_combine_limit"), nullptr);
  EXPECT_EQ(FindSetting(out.plan, "io_combine_limit")->value, "1MB");
  EXPECT_NE(FindSetting(out.plan, "io_workers"), nullptr);
}

// ------------------------------------------------------------ properties --

TEST(BuildPlan, SameInputsSameBytes) {
  for (const char* name :
       {"oracle_cloud", "checkpoints", "striped_nvme_backup"}) {
    Example e = LoadExample(name);
    EXPECT_EQ(AllOutputs(PlanOrDie(e), e), AllOutputs(PlanOrDie(e), e)) << name;
  }
}

TEST(BuildPlan, PlanTomlValidatesAndRoundTrips) {
  for (const char* name :
       {"oracle_cloud", "checkpoints", "striped_nvme_backup"}) {
    Example e = LoadExample(name);
    for (const char* prefer : {"auto", "partition", "stripe"}) {
      PlanOptions options;
      options.prefer = prefer;
      PlanOutcome out = PlanOrDie(e, options);
      std::string toml = PlanToToml(out.plan);
      Plan back;
      Status st = ParsePlan(toml, "plan.toml", &back);
      ASSERT_TRUE(st.ok()) << name << " " << prefer << ": " << st.ToString();
      EXPECT_EQ(PlanToToml(back), toml);
    }
  }
}

TEST(BuildPlan, WalNeverSharesWhenAnotherVolumeExists) {
  for (const char* name : {"oracle_cloud", "checkpoints"}) {
    Example e = LoadExample(name);
    for (const char* prefer : {"auto", "partition", "stripe"}) {
      PlanOptions options;
      options.prefer = prefer;
      PlanOutcome out = PlanOrDie(e, options);
      for (const TablespaceSpec& ts : out.plan.tablespaces) {
        EXPECT_NE(ts.volume, out.plan.wal_volume) << name << " " << prefer;
      }
      for (const Stripe& s : out.plan.stripes) {
        for (const std::string& m : s.members) {
          EXPECT_NE(m, out.plan.wal_volume);
        }
      }
    }
  }
}

// ------------------------------------------------------------ bad inputs --

Status PlanError(const Example& e, PlanOptions options = {}) {
  PlanOutcome out;
  return BuildPlan(e.volumes, e.workload, options, &out);
}

TEST(BuildPlan, NoVolumes) {
  Example e = LoadExample("checkpoints");
  e.volumes.volumes.clear();
  Status st = PlanError(e);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("no volumes"), std::string::npos);
}

TEST(BuildPlan, RelationLargerThanEveryVolume) {
  Example e = LoadExample("checkpoints");
  e.workload.relations[0].size = 200 * kGiB;
  Status st = PlanError(e);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("'public.pgbench_accounts' (200 GiB) is larger "
                              "than every volume"),
            std::string::npos)
      << st.message();
}

TEST(BuildPlan, KeyForAMissingTableOrColumn) {
  Example e = LoadExample("oracle_cloud");
  PlanOptions options;
  options.keys["public.nope"] = {"id"};
  Status st = PlanError(e, options);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("'public.nope', which is not a table"),
            std::string::npos);
  options.keys.clear();
  options.keys["public.a"] = {"customer_id"};
  st = PlanError(e, options);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("column 'customer_id' is not in its primary key"),
            std::string::npos);
}

TEST(BuildPlan, IndexOfAMissingTable) {
  Example e = LoadExample("checkpoints");
  Relation orphan;
  orphan.name = "public.orphan_idx";
  orphan.kind = RelationKind::kIndex;
  orphan.table = "public.gone";
  e.workload.relations.push_back(orphan);
  Status st = PlanError(e);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("belongs to table 'public.gone'"),
            std::string::npos);
}

TEST(BuildPlan, BadOptions) {
  Example e = LoadExample("checkpoints");
  PlanOptions options;
  options.target_utilization = 1.5;
  EXPECT_TRUE(PlanError(e, options).IsInvalidInput());
  options = {};
  options.prefer = "shard";
  EXPECT_TRUE(PlanError(e, options).IsInvalidInput());
}

TEST(BuildPlan, PartitioningBlockedFallsBackToAStripe) {
  Example e = LoadExample("oracle_cloud");
  for (Relation& r : e.workload.relations) {
    if (r.name == "public.a") r.unique_keys = {{"email"}};
  }
  PlanOutcome out = PlanOrDie(e);
  ASSERT_EQ(out.plan.stripes.size(), 1u);
  ASSERT_FALSE(out.hot.empty());
  EXPECT_EQ(out.hot[0].chosen, "stripe");
  EXPECT_FALSE(out.hot[0].partition.feasible());
}

TEST(BuildPlan, TooMuchForTheHostSaysWhatIsNeeded) {
  Example e = LoadExample("checkpoints");
  e.workload.relations[0].read_iops = 20000;
  PlanOutcome out = PlanOrDie(e);
  bool said = false;
  for (const std::string& v : out.plan.verdicts) {
    said = said || (v.find("does not fit") != std::string::npos &&
                    v.find("Citus") != std::string::npos);
  }
  EXPECT_TRUE(said);
}

// A table without any key cannot be copied online (migrate identifies rows
// by a key), so its move is planned offline; a keyed table stays online.
TEST(BuildPlan, TableWithoutAKeyMovesOffline) {
  Example e;
  Status st = ParseVolumes(R"(
[[volume]]
name = "wal"
path = "/mnt/wal"
capacity = "100GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 500
[[volume]]
name = "d1"
path = "/mnt/d1"
capacity = "100GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 900
)",
                           "v.toml", &e.volumes);
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = ParseWorkload(R"(
[observation]
source = "live"
[settings]
data_directory = "/var/lib/postgresql/data"
[[relation]]
name = "public.history"
size = "1GB"
read_iops = 50
write_iops = 200
persistence = "permanent"
[[relation]]
name = "public.accounts"
size = "2GB"
read_iops = 400
write_iops = 100
persistence = "permanent"
primary_key = ["aid"]
)",
                     "w.toml", &e.workload);
  ASSERT_TRUE(st.ok()) << st.ToString();
  PlanOutcome out = PlanOrDie(e);
  const Placement* history = FindPlacement(out.plan, "public.history");
  const Placement* accounts = FindPlacement(out.plan, "public.accounts");
  ASSERT_NE(history, nullptr);
  ASSERT_NE(accounts, nullptr);
  ASSERT_EQ(history->strategy, Strategy::kMove);
  EXPECT_FALSE(history->online);
  EXPECT_NE(history->reason.find("no primary key"), std::string::npos);
  ASSERT_EQ(accounts->strategy, Strategy::kMove);
  EXPECT_TRUE(accounts->online);
}

// Growth seen over seconds says nothing about months: it is not projected,
// and the plan says so.
TEST(BuildPlan, ShortObservationDoesNotProjectGrowth) {
  Example e = LoadExample("checkpoints");
  e.workload.duration = 30;
  for (Relation& r : e.workload.relations) r.growth_bytes_per_second = 1e6;
  PlanOutcome out = PlanOrDie(e);
  bool said = false;
  for (const std::string& v : out.plan.verdicts) {
    said = said || v.find("growth: not projected") != std::string::npos;
  }
  EXPECT_TRUE(said);
  e.workload.duration = 7200;
  Status st = BuildPlan(e.volumes, e.workload, {}, &out);
  EXPECT_FALSE(st.ok()) << "1 MB/s per table over 180 days does not fit";
}

}  // namespace
}  // namespace pglayout::planner
