#include "planner/recommend.h"

#include <gtest/gtest.h>

#include <set>

#include "common/files.h"
#include "common/plan_setting_names.h"
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

// -------------------------------------------------- checkpoint_timeout --

// public.hot: 2 GiB (262,144 blocks), 2000 block writes/s: every block is
// dirtied within any cycle of 5 min or more, so each is imaged once per
// cycle: 262,144 x 8 KiB / 300 s = 7.16 MB/s of full-page images in the
// measured 14 MB/s of WAL. Every T they cost 2.15 GB / T: at 20 min 1.79
// MB/s, so the WAL is 14 - 7.16 + 1.79 = 8.63 MB/s (38% less). 30 min
// would need max_wal_size 8.03 MB/s x 1800 x 1.9 x 1.2 = 31GB, beyond 60%
// of the WAL volume's 50 GiB (30 GiB); 20 min needs 22GB.
Workload HotTableWorkload() {
  Workload w;
  w.settings = {{"max_wal_size", "1GB"},
                {"checkpoint_timeout", "5min"},
                {"checkpoint_completion_target", "0.9"},
                {"log_checkpoints", "on"}};
  Relation& hot = w.relations.emplace_back();
  hot.name = "public.hot";
  hot.size = 2 * kGiB;
  hot.write_iops = 2000;
  return w;
}

TEST(RecommendCheckpointTimeout, LongerWhenItSavesFullPageImages) {
  const Workload w = HotTableWorkload();
  std::vector<SettingChange> s =
      RecommendCheckpoints({&w, 14e6, 50 * kGiB, 900});
  const SettingChange* timeout = FindSetting(s, "checkpoint_timeout");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->value, "20min");
  EXPECT_EQ(timeout->previous, "5min");
  EXPECT_NE(timeout->reason.find(
                "dirty 262144 blocks per 5min cycle (each block once, at "
                "most its relation's blocks), ~7.2 MB/s of the measured 14.0 "
                "MB/s WAL; every 20min they dirty 262144, ~1.8 MB/s, so the "
                "WAL drops to ~8.6 MB/s (38% less) and checkpoint writes "
                "from 971 to 243 IOPS"),
            std::string::npos)
      << timeout->reason;
  EXPECT_NE(timeout->reason.find("30min would need max_wal_size 31GB, beyond "
                                 "the bound"),
            std::string::npos)
      << timeout->reason;
  // max_wal_size follows: one 20 min cycle of the lower WAL rate.
  const SettingChange* max = FindSetting(s, "max_wal_size");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->value, "22GB");
  EXPECT_NE(max->reason.find("WAL peaks at 14.0 MB/s, ~8.6 MB/s with "
                             "checkpoint_timeout 20min"),
            std::string::npos)
      << max->reason;
  EXPECT_NE(max->reason.find("timed (every 20min)"), std::string::npos)
      << max->reason;
}

// The recovery budget bounds it: 7 min at 50 MB/s of replay allows 19 GiB
// of max_wal_size: 15 min (18GB) fits, 20 min (22GB) does not; 5 min of
// budget (13 GiB) leaves even 10 min (14GB) out, and the server keeps its
// 5 min.
TEST(RecommendCheckpointTimeout, BoundedByTheRecoveryBudget) {
  const Workload w = HotTableWorkload();
  std::vector<SettingChange> s = RecommendCheckpoints({&w, 14e6, 0, 420});
  const SettingChange* timeout = FindSetting(s, "checkpoint_timeout");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->value, "15min");
  EXPECT_NE(timeout->reason.find("a 7min crash-recovery budget"),
            std::string::npos)
      << timeout->reason;
  s = RecommendCheckpoints({&w, 14e6, 0, 300});
  EXPECT_EQ(FindSetting(s, "checkpoint_timeout"), nullptr);
}

// Without a measured reason the server's default stays: writes spread
// over more blocks than a cycle re-dirties (no image is saved), no
// measured WAL rate, or no full-page images at all.
TEST(RecommendCheckpointTimeout, TheServersSettingStaysWithoutAMeasuredReason) {
  Workload spread = HotTableWorkload();
  spread.relations[0].size = 1000 * kGiB;  // 2000/s x 30 min < its blocks
  EXPECT_EQ(FindSetting(RecommendCheckpoints({&spread, 14e6, 50 * kGiB, 900}),
                        "checkpoint_timeout"),
            nullptr);
  const Workload hot = HotTableWorkload();
  EXPECT_EQ(FindSetting(RecommendCheckpoints({&hot, 0, 50 * kGiB, 900}),
                        "checkpoint_timeout"),
            nullptr);
  Workload no_fpw = HotTableWorkload();
  no_fpw.settings["full_page_writes"] = "off";
  EXPECT_EQ(FindSetting(RecommendCheckpoints({&no_fpw, 14e6, 50 * kGiB, 900}),
                        "checkpoint_timeout"),
            nullptr);
  // Images that would save under 10% of the WAL: a 1.4 GB/s WAL.
  EXPECT_EQ(FindSetting(RecommendCheckpoints({&hot, 1.4e9, 0, 1e6}),
                        "checkpoint_timeout"),
            nullptr);
}

// checkpoint_completion_target 0.5 (PostgreSQL 13's default) -> 0.9, with
// what it changes: 262,144 blocks per 5 min cycle go out over 270 s, 971
// IOPS, instead of 150 s, 1748 IOPS.
TEST(RecommendCheckpointTimeout, CompletionTargetWithItsArithmetic) {
  Workload w = HotTableWorkload();
  w.settings.erase("checkpoint_completion_target");
  w.settings["server_version_num"] = "130000";
  std::vector<SettingChange> s = RecommendCheckpoints({&w, 0, 0, 900});
  const SettingChange* cct = FindSetting(s, "checkpoint_completion_target");
  ASSERT_NE(cct, nullptr);
  EXPECT_EQ(cct->value, "0.9");
  EXPECT_EQ(cct->reason,
            "spread timed checkpoint writes over 5min x 0.9 = 270s of each "
            "5min cycle instead of 5min x 0.5 = 150s (the default since "
            "PostgreSQL 14; the forecast counts it): the relations dirty "
            "262144 blocks per cycle, written at 971 IOPS instead of 1748");
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

// The volume of |toml| (one [[volume]] of a volumes.toml), as read.
Volume FromToml(const std::string& toml) {
  VolumeSet vs;
  Status st = ParseVolumes(toml, "volumes.toml", &vs);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return vs.volumes.empty() ? Volume{} : vs.volumes[0];
}

// A 4-disk md RAID0 of 512 KiB chunks, probed: three sweeps of 4 MiB.
constexpr char kMdRaid0[] = R"(
[[volume]]
name = "md0"
capacity = "7TB"
members = 4
chunk = "512KiB"
stripe_read_size = "4MiB"
stripe_read_size_min = "4MiB"
stripe_read_size_max = "4MiB"
stripe_read_repeats = 3
stripe_width = "2MiB"
probe_engine = "io_uring"
)";

Volume OneMember(int repeats, uint64_t size, uint64_t min, uint64_t max) {
  Volume v;
  v.name = "data";
  v.probe_engine = "io_uring";
  v.stripe_read_size = size;
  v.stripe_read_size_min = min;
  v.stripe_read_size_max = max;
  v.stripe_read_repeats = repeats;
  return v;
}

Volume Striped(int members, uint64_t chunk) {
  Volume v = OneMember(3, 1 * kMiB, 128 * kKiB, 16 * kMiB);  // unstable
  v.members = members;
  v.chunk = chunk;
  return v;
}

TEST(ChooseBackupReadSize, TheMeasuredSizeWhenItIsTrusted) {
  BackupReadSize r = ChooseBackupReadSize(FromToml(kMdRaid0));
  EXPECT_EQ(r.source, "measured");
  EXPECT_EQ(r.bytes, 4 * kMiB);
  EXPECT_EQ(r.measured, 4 * kMiB);
  EXPECT_EQ(r.full_stripe, 2 * kMiB);
  EXPECT_NE(r.why.find("3 sweeps agree"), std::string::npos) << r.why;
  // One disk whose sweeps agree on 512 KiB: 128 blocks, not the rule's 256.
  r = ChooseBackupReadSize(OneMember(3, 512 * kKiB, 512 * kKiB, 1 * kMiB));
  EXPECT_EQ(r.source, "measured");
  EXPECT_EQ(r.bytes, 512 * kKiB);
  // A RAID5 of 4 disks has 3 data members: 2 MiB is rounded up to two
  // whole stripes of 1.5 MiB.
  Volume raid5 = OneMember(3, 2 * kMiB, 2 * kMiB, 2 * kMiB);
  raid5.topology.emplace();
  raid5.topology->chunk = 512 * kKiB;
  raid5.stripe_width = 1536 * kKiB;
  r = ChooseBackupReadSize(raid5);
  EXPECT_EQ(r.source, "measured");
  EXPECT_EQ(r.bytes, 3 * kMiB);
  EXPECT_NE(r.why.find("rounded up to whole stripes"), std::string::npos);
}

TEST(ChooseBackupReadSize, TheGeometryWhenTheMeasurementIsNotTrusted) {
  struct Case {
    int members;
    uint64_t chunk;
    uint64_t bytes;
  };
  // At least 1 MiB per member, in whole stripes: LVM's 64 KiB chunks need
  // 16 stripes; 2 MiB chunks one stripe of 8 MiB (the rule's 4 MiB would
  // leave two members idle).
  for (Case c : {Case{4, 512 * kKiB, 4 * kMiB}, Case{4, 64 * kKiB, 4 * kMiB},
                 Case{4, 2 * kMiB, 8 * kMiB}}) {
    BackupReadSize r = ChooseBackupReadSize(Striped(c.members, c.chunk));
    EXPECT_EQ(r.source, "geometry");
    EXPECT_EQ(r.bytes, c.bytes) << c.chunk;
    EXPECT_NE(r.why.find("its measured 1 MiB is not used: 3 sweeps disagree"),
              std::string::npos)
        << r.why;
  }
  // Trusted sweeps that contradict the geometry: 1 MiB on a 2 MiB stripe.
  Volume md0 = FromToml(kMdRaid0);
  md0.stripe_read_size = md0.stripe_read_size_min = md0.stripe_read_size_max =
      1 * kMiB;
  BackupReadSize r = ChooseBackupReadSize(md0);
  EXPECT_EQ(r.source, "geometry");
  EXPECT_EQ(r.bytes, 4 * kMiB);
  EXPECT_NE(r.why.find("below the full stripe"), std::string::npos) << r.why;
}

TEST(ChooseBackupReadSize, TheRuleWhenNeitherIsKnown) {
  BackupReadSize r =
      ChooseBackupReadSize(OneMember(3, 1 * kMiB, 128 * kKiB, 16 * kMiB));
  EXPECT_EQ(r.source, "rule");
  EXPECT_EQ(r.bytes, 1 * kMiB);
  EXPECT_NE(r.why.find("range from 128 KiB to 16 MiB"), std::string::npos)
      << r.why;
  Volume declared;
  declared.name = "data";
  r = ChooseBackupReadSize(declared);
  EXPECT_EQ(r.source, "rule");
  EXPECT_NE(r.why.find("no stripe-wide read size was measured"),
            std::string::npos);
}

TEST(RecommendBackup, DenseNvmeUsesEveryVcpuAndSpansTheStripe) {
  Host host{48, 384 * kGiB, "i8ge.12xlarge", 0, 0};
  BackupAdvice a =
      RecommendBackup(host, ChooseBackupReadSize(Striped(4, 512 * kKiB)));
  EXPECT_EQ(a.walg.at("WALG_DIRECT_IO"), "true");
  EXPECT_EQ(a.walg.at("WALG_DIRECT_IO_BLOCK_COUNT"), "1024");  // 4 MiB
  EXPECT_EQ(a.walg.at("WALG_UPLOAD_DISK_CONCURRENCY"), "48");
  EXPECT_EQ(a.walg.at("CPUWeight"), "25");
  EXPECT_EQ(a.pgbackrest.at("process-max"), "24");
  EXPECT_NE(
      a.reasons[0].find("4 MiB = 1024 blocks of 4 KiB, from the geometry"),
      std::string::npos)
      << a.reasons[0];
}

TEST(RecommendBackup, OtherFamiliesUseHalfAndTinyHostsAll) {
  const BackupReadSize one = ChooseBackupReadSize(Volume{});
  Host m6i{32, 128 * kGiB, "m6i.8xlarge", 0, 0};
  EXPECT_EQ(RecommendBackup(m6i, one).walg.at("WALG_UPLOAD_DISK_CONCURRENCY"),
            "16");
  EXPECT_EQ(RecommendBackup(m6i, one).walg.at("WALG_DIRECT_IO_BLOCK_COUNT"),
            "256");
  Host tiny{2, 4 * kGiB, "t3.small", 0, 0};
  EXPECT_EQ(RecommendBackup(tiny, one).walg.at("WALG_UPLOAD_DISK_CONCURRENCY"),
            "2");
  EXPECT_EQ(
      RecommendBackup(Host{}, one).walg.count("WALG_UPLOAD_DISK_CONCURRENCY"),
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
// The plan reader refuses any [settings] name outside PlanSettingNames():
// every setting the recommenders can write is in that list, and every name
// in the list is one they write (the two cannot drift apart).
TEST(RecommendSettings, EveryNameIsOneAPlanMayCarry) {
  Volume v;
  v.name = "nvme";
  v.capacity = kTiB;
  v.read_iops = v.write_iops = 100000;
  v.read_mbps = v.write_mbps = 2000;
  v.read_latency_us = 1000;
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(v, &m).ok());
  Workload w = HotTableWorkload();
  w.settings["server_version_num"] = "180000";
  w.settings["checkpoint_completion_target"] = "0.5";
  w.settings["log_checkpoints"] = "off";
  std::set<std::string> names;
  for (const SettingChange& c :
       RecommendCheckpoints({&w, 14e6, 50 * kGiB, 900})) {
    names.insert(c.name);
  }
  IoInput in;
  in.server_version_num = 180000;
  in.workload = &w;
  in.default_volume = &m;
  in.read_iops = 20000;
  in.read_latency_us = 1000;
  in.stripe_width = 4 * kMiB;
  for (const SettingChange& c : RecommendIo(in)) names.insert(c.name);
  for (const std::string& name : names) {
    EXPECT_TRUE(IsPlanSetting(name)) << name;
  }
  const std::vector<std::string>& listed = PlanSettingNames();
  EXPECT_EQ(names, std::set<std::string>(listed.begin(), listed.end()));
}

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
  // migrate converts a table with identity columns on every version (the
  // structure suite's k_identity, on 12 too).
  EXPECT_TRUE(CheckHashPartitioning(identity, {}, 120000).feasible());
  EXPECT_TRUE(CheckHashPartitioning(identity, {}, 170000).feasible());

  Relation unlogged = t;
  unlogged.persistence = Persistence::kUnlogged;
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
  // The referencing key, the trigger, and the facts an older workload file
  // does not carry.
  ASSERT_EQ(c.cautions.size(), 3u);
  EXPECT_NE(c.cautions[0].find("observe again to judge it"), std::string::npos)
      << c.cautions[0];
  EXPECT_NE(c.cautions[1].find("re-pointed at the new parent"),
            std::string::npos)
      << c.cautions[1];
  EXPECT_NE(c.cautions[2].find("(audit)"), std::string::npos) << c.cautions[2];
}

}  // namespace
}  // namespace pglayout::planner
