#include "planner/recommend.h"

#include <gtest/gtest.h>

#include "common/units.h"
#include "planner/remedy.h"

namespace pglayout::planner {
namespace {

const SettingChange* FindSetting(const std::vector<SettingChange>& s,
                                 const std::string& name) {
  for (const SettingChange& c : s) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(RecommendCheckpoints, MaxWalSizeFromTheWalRate) {
  Workload w;
  w.settings = {{"max_wal_size", "1GB"},
                {"checkpoint_timeout", "5min"},
                {"checkpoint_completion_target", "0.9"},
                {"log_checkpoints", "on"}};
  w.checkpoints.requested = 18;
  CheckpointInput in{&w, 14e6, 50 * kGiB, 900};
  std::vector<SettingChange> s = RecommendCheckpoints(in);
  const SettingChange* max = FindSetting(s, "max_wal_size");
  ASSERT_NE(max, nullptr);
  // 14 MB/s x 300 s x 1.9 x 1.2 = 9.58e9 bytes -> 9GB (rounded up).
  EXPECT_EQ(max->value, "9GB");
  EXPECT_EQ(max->previous, "1GB");
  EXPECT_NE(max->reason.find("max_wal_size / (1 + 0.9)"), std::string::npos);
  EXPECT_EQ(FindSetting(s, "min_wal_size")->value, "2GB");
  EXPECT_EQ(FindSetting(s, "log_checkpoints"), nullptr) << "already on";
}

TEST(RecommendCheckpoints, BoundedByTheWalVolume) {
  Workload w;
  w.settings = {{"max_wal_size", "1024"}};  // bare number: megabytes
  CheckpointInput in{&w, 200e6, 20 * kGiB, 3600};
  std::vector<SettingChange> s = RecommendCheckpoints(in);
  const SettingChange* max = FindSetting(s, "max_wal_size");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->value, "12GB") << "60% of 20 GiB, whole GiB";
  EXPECT_NE(max->reason.find("capped"), std::string::npos);
  EXPECT_NE(FindSetting(s, "log_checkpoints"), nullptr);
}

TEST(RecommendCheckpoints, EstimatesTheRateFromRequestedCheckpoints) {
  Workload w;
  w.duration = 600;
  w.checkpoints.requested = 18;
  CheckpointInput in{&w, 0, 100 * kGiB, 900};
  std::vector<SettingChange> s = RecommendCheckpoints(in);
  const SettingChange* max = FindSetting(s, "max_wal_size");
  ASSERT_NE(max, nullptr);
  EXPECT_NE(max->reason.find("estimated"), std::string::npos) << max->reason;
  // A log carries no settings: the default is assumed, and said to be.
  EXPECT_NE(max->reason.find("under max_wal_size 1GB (not recorded in the "
                             "workload: PostgreSQL's default assumed)"),
            std::string::npos)
      << max->reason;
  EXPECT_EQ(max->previous, "");
}

TEST(RecommendCheckpoints, ARecordedSettingIsObserved) {
  Workload w;
  w.duration = 600;
  w.checkpoints.requested = 18;
  w.settings = {{"max_wal_size", "1GB"}};
  CheckpointInput in{&w, 0, 100 * kGiB, 900};
  std::vector<SettingChange> s = RecommendCheckpoints(in);
  const SettingChange* max = FindSetting(s, "max_wal_size");
  ASSERT_NE(max, nullptr);
  EXPECT_NE(max->reason.find("18 of 18 checkpoints requested (forced) under "
                             "max_wal_size 1GB"),
            std::string::npos)
      << max->reason;
  EXPECT_EQ(max->reason.find("not recorded"), std::string::npos);
}

TEST(RecommendBackup, DenseNvmeUsesEveryVcpuAndSpansTheStripe) {
  Host host{48, 384 * kGiB, "i8ge.12xlarge", 0, 0};
  BackupAdvice a = RecommendBackup(host, 4);
  EXPECT_EQ(a.walg.at("WALG_DIRECT_IO"), "true");
  EXPECT_EQ(a.walg.at("WALG_DIRECT_IO_BLOCK_COUNT"), "1024");  // 4 MiB
  EXPECT_EQ(a.walg.at("WALG_UPLOAD_DISK_CONCURRENCY"), "48");
  EXPECT_EQ(a.walg.at("CPUWeight"), "25");
  EXPECT_EQ(a.pgbackrest.at("process-max"), "24");
}

TEST(RecommendBackup, OtherFamiliesUseHalfAndTinyHostsAll) {
  Host m6i{32, 128 * kGiB, "m6i.8xlarge", 0, 0};
  EXPECT_EQ(RecommendBackup(m6i, 1).walg.at("WALG_UPLOAD_DISK_CONCURRENCY"),
            "16");
  EXPECT_EQ(RecommendBackup(m6i, 1).walg.at("WALG_DIRECT_IO_BLOCK_COUNT"),
            "256");
  Host tiny{2, 4 * kGiB, "t3.small", 0, 0};
  EXPECT_EQ(RecommendBackup(tiny, 1).walg.at("WALG_UPLOAD_DISK_CONCURRENCY"),
            "2");
  EXPECT_EQ(
      RecommendBackup(Host{}, 1).walg.count("WALG_UPLOAD_DISK_CONCURRENCY"),
      0u);
}

TEST(TablespaceOptions, FromThroughputRatioAndLittlesLaw) {
  Volume v;
  v.name = "hdd";
  v.capacity = kTiB;
  v.read_iops = v.write_iops = 200;
  v.read_mbps = v.write_mbps = 200;
  v.read_latency_us = 5000;
  DeviceModel hdd;
  ASSERT_TRUE(DeviceModel::Build(v, &hdd).ok());
  auto o = TablespaceOptions(hdd, nullptr, 160000);
  EXPECT_EQ(o.at("seq_page_cost"), "1");
  EXPECT_EQ(o.at("random_page_cost"), "4") << "capped at 4";
  EXPECT_EQ(o.at("effective_io_concurrency"), "1");
  // Little's law asks for 1 in flight; PostgreSQL's defaults are the floor.
  EXPECT_EQ(o.at("maintenance_io_concurrency"), "10");
  auto o18 = TablespaceOptions(hdd, nullptr, 180000);
  EXPECT_EQ(o18.at("effective_io_concurrency"), "16");
  EXPECT_EQ(o18.at("maintenance_io_concurrency"), "16");
  EXPECT_EQ(TablespaceOptions(hdd, nullptr, 120000)
                .count("maintenance_io_concurrency"),
            0u)
      << "maintenance_io_concurrency is a tablespace option from 13";
}

// A 2000-IOPS volume at 1 ms asks Little's law for 2 reads in flight: the
// plan raises effective_io_concurrency from 1 to 2 on PostgreSQL 15, but
// never lowers maintenance_io_concurrency below its default 10 for that
// (issue 19, item 5).
TEST(RecommendIo, NeverBelowTheDefaultAtSmallScale) {
  Volume v;
  v.name = "small";
  v.capacity = kTiB;
  v.read_iops = v.write_iops = 2000;
  v.read_mbps = v.write_mbps = 125;
  v.read_latency_us = 1000;
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(v, &m).ok());
  Workload w;
  w.settings["server_version_num"] = "150013";
  IoInput in;
  in.server_version_num = 150013;
  in.workload = &w;
  in.default_volume = &m;
  std::map<std::string, std::string> proposed;
  for (const SettingChange& c : RecommendIo(in)) proposed[c.name] = c.value;
  EXPECT_EQ(proposed["effective_io_concurrency"], "2");
  EXPECT_EQ(proposed.count("maintenance_io_concurrency"), 0u)
      << proposed["maintenance_io_concurrency"];
}

TEST(CheckHashPartitioning, Rules) {
  Relation t;
  t.name = "public.a";
  t.primary_key = {"id"};
  EXPECT_TRUE(CheckHashPartitioning(t, {}, 160000).feasible());

  Relation no_pk = t;
  no_pk.primary_key.clear();
  EXPECT_FALSE(CheckHashPartitioning(no_pk, {}, 160000).feasible());

  Relation unique = t;
  unique.unique_keys = {{"email"}};
  PartitionCheck c = CheckHashPartitioning(unique, {}, 160000);
  ASSERT_FALSE(c.feasible());
  EXPECT_NE(c.blockers[0].find("(email)"), std::string::npos);

  Relation identity = t;
  identity.identity_columns = {"id"};
  EXPECT_FALSE(CheckHashPartitioning(identity, {}, 160000).feasible());
  EXPECT_TRUE(CheckHashPartitioning(identity, {}, 170000).feasible());

  Relation unlogged = t;
  unlogged.persistence = "unlogged";
  EXPECT_FALSE(CheckHashPartitioning(unlogged, {}, 170000).feasible());
  EXPECT_FALSE(CheckHashPartitioning(unlogged, {}, 180000).feasible());

  Relation matview = t;
  matview.kind = RelationKind::kMaterializedView;
  EXPECT_FALSE(CheckHashPartitioning(matview, {}, 180000).feasible());

  // Outgoing foreign keys: migrate adds them NOT VALID, which a partitioned
  // table takes from 18 on.
  Relation referencing = t;
  referencing.foreign_keys_out = {"lines_order_fkey -> public.orders"};
  c = CheckHashPartitioning(referencing, {}, 170000);
  ASSERT_FALSE(c.feasible());
  EXPECT_NE(c.blockers[0].find("from 18"), std::string::npos) << c.blockers[0];
  EXPECT_TRUE(CheckHashPartitioning(referencing, {}, 180000).feasible());

  Relation published = t;
  published.publications = {"pub"};
  EXPECT_FALSE(CheckHashPartitioning(published, {}, 160000).feasible());

  Relation referenced = t;
  referenced.foreign_keys_in = {"public.b.b_a_fkey"};
  referenced.triggers = {"audit"};
  c = CheckHashPartitioning(referenced, {}, 160000);
  EXPECT_TRUE(c.feasible());
  EXPECT_EQ(c.cautions.size(), 2u);
}

}  // namespace
}  // namespace pglayout::planner
