#include "common/files.h"

#include <gtest/gtest.h>

#include "common/json.h"
#include "common/toml_writer.h"
#include "common/units.h"

namespace pglayout {
namespace {

constexpr char kVolumes[] = R"(# hand-written
[host]
vcpus = 16
memory = "117GB"
instance_type = "VM.Standard2.8"

[[volume]]
name = "wal"
path = "/mnt/wal"
capacity = "600GB"
read_iops = 25000
write_iops = 25000
read_mbps = 480
write_mbps = 480
read_latency_us = 900
sync_write_latency_us = 1100

[[volume]]
name = "data1"
path = "/mnt/d1"
capacity = "1.5TiB"
read_iops = 2000
write_iops = 2000
read_mbps = 200
write_mbps = 200
read_latency_us = 1000
sync_write_latency_us = 2000
members = 4
chunk = "512KiB"
)";

VolumeSet ParseVolumesOrDie(std::string_view text) {
  VolumeSet v;
  Status st = ParseVolumes(text, "volumes.toml", &v);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return v;
}

// The first line of the error for |text|.
std::string VolumesError(std::string_view text) {
  VolumeSet v;
  Status st = ParseVolumes(text, "volumes.toml", &v);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  return st.message();
}

TEST(VolumesFile, ReadsTheHandWrittenFields) {
  VolumeSet v = ParseVolumesOrDie(kVolumes);
  EXPECT_EQ(v.host.vcpus, 16);
  EXPECT_EQ(v.host.memory, 117 * kGiB);
  ASSERT_EQ(v.volumes.size(), 2u);
  const Volume& d = v.volumes[1];
  EXPECT_EQ(d.name, "data1");
  EXPECT_EQ(d.capacity, kTiB + kTiB / 2);
  EXPECT_DOUBLE_EQ(d.read_iops, 2000);
  EXPECT_DOUBLE_EQ(d.sync_write_latency_us, 2000);
  EXPECT_EQ(d.members, 4);
  EXPECT_EQ(d.chunk, 512 * kKiB);
  EXPECT_EQ(v.volumes[0].members, 1) << "members defaults to 1";
}

VolumeSet ProbedVolumes() {
  VolumeSet v = ParseVolumesOrDie(kVolumes);
  Volume& d = v.volumes[1];
  d.kind = "md-raid0";
  d.stripe_read_size = 2 * kMiB;
  d.readers_to_saturate = 32;
  d.shares_device_with = {"wal"};
  d.topology = Topology{};
  d.topology->device = "md0";
  d.topology->members = {"nvme1n1", "nvme2n1"};
  d.topology->chunk = 512 * kKiB;
  d.topology->logical_block_size = 512;
  d.topology->raid_disks = 3;
  d.topology->degraded = 1;
  d.topology->sync_action = "recover";
  d.topology->partition_start = 1 * kMiB;
  d.topology->warnings = {"md0: degraded, 1 of 3 devices missing"};
  d.randread = {{1, 5000, 40.96, 190, 250, 400, 900, 2000, 6.5},
                {32, 90000.5, 737, 350, 500, 800, 1500, 4000, 4.25}};
  d.seqread = {{128 * kKiB, 1, 800}, {4 * kMiB, 1, 8500}};
  d.randwrite = {{1, 3000, 300, 800}};
  d.syncwrite = {{"fdatasync", 8 * kKiB, 2500.5, 390, 1200},
                 {"open_datasync", 128 * kKiB, 900, 1100, 2100}};
  d.probe_engine = "io_uring";
  d.iops_budget = "separate";
  d.buffered_vs_direct =
      BufferedVsDirect{{64 * kMiB, 640.5, 0.105, 0.08, 0.004, 0.061},
                       {64 * kMiB, 960.25, 0.07, 0.002, 0.001, 0.012}};
  v.concurrent = Concurrent{
      2,
      30000,
      900,
      56000.5,
      1700,
      0.536,
      0.53,
      "wal and data1 share device vda",
      {{"wal", 28000, 850, 15000, 450}, {"data1", 28000.5, 850, 15000, 450}}};
  return v;
}

TEST(VolumesFile, RoundTripsEveryField) {
  VolumeSet original = ProbedVolumes();
  std::string text = VolumesToToml(original);
  VolumeSet back = ParseVolumesOrDie(text);
  EXPECT_EQ(VolumesToToml(back), text) << "write(read(write(x))) == write(x)";
  EXPECT_EQ(ToJson(ParseVolumesOrDie(VolumesToToml(back))).dump(),
            ToJson(back).dump());
  ASSERT_TRUE(back.volumes[1].topology.has_value());
  EXPECT_EQ(back.volumes[1].topology->members.size(), 2u);
  EXPECT_EQ(back.volumes[1].topology->raid_disks, 3);
  EXPECT_EQ(back.volumes[1].topology->sync_action, "recover");
  EXPECT_EQ(back.volumes[1].topology->partition_start, 1 * kMiB);
  EXPECT_EQ(back.volumes[1].topology->warnings.size(), 1u);
  // Measured figures to four significant figures.
  EXPECT_DOUBLE_EQ(back.volumes[1].randread[1].iops, 90000);
  EXPECT_DOUBLE_EQ(back.volumes[1].randread[1].cpu_us_per_io, 4.25);
  EXPECT_EQ(back.volumes[1].seqread[1].request_size, 4 * kMiB);
  ASSERT_EQ(back.volumes[1].syncwrite.size(), 2u);
  EXPECT_EQ(back.volumes[1].syncwrite[1].method, "open_datasync");
  EXPECT_EQ(back.volumes[1].syncwrite[1].request_size, 128 * kKiB);
  EXPECT_DOUBLE_EQ(back.volumes[1].syncwrite[0].iops, 2501);
  EXPECT_EQ(back.volumes[1].probe_engine, "io_uring");
  EXPECT_EQ(back.volumes[1].iops_budget, "separate");
  EXPECT_EQ(back.volumes[0].iops_budget, "") << "unset: the combined budget";
  ASSERT_TRUE(back.volumes[1].buffered_vs_direct.has_value());
  const BufferedVsDirect& b = *back.volumes[1].buffered_vs_direct;
  EXPECT_EQ(b.buffered.bytes, 64 * kMiB);
  EXPECT_DOUBLE_EQ(b.buffered.sync_seconds, 0.08);
  EXPECT_DOUBLE_EQ(b.direct.mbps, 960.3);
  EXPECT_DOUBLE_EQ(b.direct.system_cpu_seconds, 0.012);
  EXPECT_FALSE(back.volumes[0].buffered_vs_direct.has_value());
  ASSERT_TRUE(back.concurrent.has_value());
  EXPECT_DOUBLE_EQ(back.concurrent->sum_alone_read_iops, 56000);
  EXPECT_EQ(back.concurrent->verdict, "wal and data1 share device vda");
  ASSERT_EQ(back.concurrent->volumes.size(), 2u);
  EXPECT_DOUBLE_EQ(back.concurrent->volumes[1].alone_read_iops, 28000);
  EXPECT_NE(text.find("[volume.buffered_vs_direct.buffered]"),
            std::string::npos);
  EXPECT_NE(text.find("[[concurrent.volume]]"), std::string::npos);
}

// A probe's figures are written to the precision a measurement has, a
// person's declared figures as they were written.
TEST(VolumesFile, MeasuredFiguresToTheirPrecisionDeclaredOnesAsWritten) {
  VolumeSet set = ProbedVolumes();
  Volume& probed = set.volumes[1];
  probed.read_iops = 68747.07522101629;
  probed.read_latency_us = 72.1915;  // a histogram bucket: 3 figures
  probed.free_bytes = 81897488384;   // 79978016 KiB
  Volume& declared = set.volumes[0];
  declared.read_iops = 24414.5;
  std::string text = VolumesToToml(set);
  EXPECT_NE(text.find("read_iops = 68750\n"), std::string::npos) << text;
  EXPECT_NE(text.find("read_latency_us = 72.2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("free_bytes = \"76.2GiB\""), std::string::npos) << text;
  EXPECT_NE(text.find("read_iops = 24414.5\n"), std::string::npos) << text;
  EXPECT_DOUBLE_EQ(internal::RoundToSignificant(0.0012345, 4), 0.001235);
  EXPECT_DOUBLE_EQ(internal::RoundToSignificant(-1234.5, 2), -1200);
}

TEST(VolumesFile, BufferedVsDirectNeedsBothHalves) {
  std::string text = std::string(kVolumes) +
                     "[volume.buffered_vs_direct.buffered]\nbytes = "
                     "\"1GiB\"\nmbps = 600\nseconds_to_durable = 1.8\n";
  EXPECT_NE(VolumesError(text).find("'direct'"), std::string::npos)
      << VolumesError(text);
}

TEST(VolumesFile, JsonCarriesTheCurves) {
  Json j = ToJson(ProbedVolumes());
  const Json& curves = j["volumes"][1]["curves"];
  EXPECT_EQ(curves["randread"][1]["queue_depth"], 32);
  EXPECT_EQ(curves["seqread"][0]["request_size"], 128 * kKiB);
  EXPECT_DOUBLE_EQ(curves["seqread"][1]["mbps"].get<double>(), 8500);
  EXPECT_DOUBLE_EQ(
      j["volumes"][1]["buffered_vs_direct"]["buffered"]["mbps"].get<double>(),
      640.5);
  EXPECT_DOUBLE_EQ(j["concurrent"]["iops_ratio"].get<double>(), 0.536);
}

// [[volume.paced_read]]: latency against offered load, read back as
// written; a file without it (every probe before it existed) still loads,
// and the planner then keeps the depth curve (device_model.h).
TEST(VolumesFile, PacedReadCurveRoundTripsAndIsOptional) {
  std::string text = std::string(kVolumes) +
                     "[[volume.paced_read]]\noffered_iops = 180\niops = "
                     "179.6\nmean_us = 150\np50_us = 120\np99_us = 900\n"
                     "[[volume.paced_read]]\noffered_iops = 540\niops = "
                     "538\nmean_us = 2200\n";
  VolumeSet set = ParseVolumesOrDie(text);
  ASSERT_EQ(set.volumes.size(), 2u);
  EXPECT_TRUE(set.volumes[0].paced_read.empty()) << "optional";
  const std::vector<PacedReadPoint>& paced = set.volumes[1].paced_read;
  ASSERT_EQ(paced.size(), 2u);
  EXPECT_DOUBLE_EQ(paced[0].offered_iops, 180);
  EXPECT_DOUBLE_EQ(paced[0].iops, 179.6);
  EXPECT_DOUBLE_EQ(paced[0].mean_us, 150);
  EXPECT_DOUBLE_EQ(paced[0].p50_us, 120);
  EXPECT_DOUBLE_EQ(paced[0].p99_us, 900);
  EXPECT_DOUBLE_EQ(paced[1].mean_us, 2200);
  EXPECT_DOUBLE_EQ(paced[1].p99_us, 0) << "p50 and p99 are optional";

  std::string written = VolumesToToml(set);
  EXPECT_NE(written.find("[[volume.paced_read]]\noffered_iops = 180\n"),
            std::string::npos)
      << written;
  VolumeSet back = ParseVolumesOrDie(written);
  ASSERT_EQ(back.volumes[1].paced_read.size(), 2u);
  EXPECT_DOUBLE_EQ(back.volumes[1].paced_read[0].mean_us, 150);
  EXPECT_EQ(VolumesToToml(back), written);
  Json j = ToJson(back);
  EXPECT_DOUBLE_EQ(
      j["volumes"][1]["curves"]["paced_read"][1]["offered_iops"].get<double>(),
      540);
  EXPECT_TRUE(j["volumes"][0]["curves"]["paced_read"].empty());
}

TEST(VolumesFile, PacedReadNeedsARateAndALatency) {
  const std::string point = std::string(kVolumes) + "[[volume.paced_read]]\n";
  EXPECT_NE(VolumesError(point + "iops = 100\nmean_us = 150\n")
                .find("missing the required key 'offered_iops'"),
            std::string::npos);
  EXPECT_NE(VolumesError(point + "offered_iops = 100\niops = 100\n")
                .find("missing the required key 'mean_us'"),
            std::string::npos);
  std::string zero =
      VolumesError(point + "offered_iops = 0\niops = 0\nmean_us = 150\n");
  EXPECT_NE(zero.find("[[paced_read]]"), std::string::npos) << zero;
  EXPECT_NE(zero.find("'offered_iops': must be above 0"), std::string::npos)
      << zero;
  EXPECT_NE(VolumesError(point + "offered_iops = 100\niops = 100\nmean_us = "
                                 "150\nmean = 3\n")
                .find("unknown key 'mean'"),
            std::string::npos);
}

TEST(VolumesFile, UnknownKeySuggestsTheNearestOne) {
  std::string text = kVolumes;
  text.replace(text.find("read_iops = 2000"), 16, "read_iop = 2000");
  std::string err = VolumesError(text);
  EXPECT_EQ(err,
            "volumes.toml:22:1: unknown key 'read_iop' in [[volume]] 'data1' "
            "(did you mean 'read_iops'?)");
}

TEST(VolumesFile, BadUnitNamesFileLineColumnAndKey) {
  std::string text = kVolumes;
  text.replace(text.find("\"1.5TiB\""), 8, "\"1.5TB!\"");
  std::string err = VolumesError(text);
  EXPECT_TRUE(
      err.starts_with("volumes.toml:21:12: [[volume]] 'data1' key "
                      "'capacity': unknown size unit 'TB!'"))
      << err;
}

TEST(VolumesFile, DuplicateVolumeName) {
  std::string text = kVolumes;
  text.replace(text.find("name = \"data1\""), 14, "name = \"wal\"");
  EXPECT_EQ(VolumesError(text),
            "volumes.toml:19:8: [[volume]] key 'name': duplicate volume name "
            "'wal'");
}

TEST(VolumesFile, NegativeIops) {
  std::string text = kVolumes;
  text.replace(text.find("write_iops = 2000"), 17, "write_iops = -5");
  EXPECT_EQ(VolumesError(text),
            "volumes.toml:23:14: [[volume]] 'data1' key 'write_iops': must "
            "not be negative (got -5)");
}

TEST(VolumesFile, OtherBadInputs) {
  EXPECT_NE(VolumesError("[host]\nvcpus = 4\n").find("no [[volume]]"),
            std::string::npos);
  EXPECT_NE(VolumesError("[[volume]]\nname = \"a\"\n")
                .find("missing the required key 'capacity'"),
            std::string::npos);
  EXPECT_NE(VolumesError("[[volume]]\nname = \"a\"\ncapacity = true\n")
                .find("volumes.toml:3:12"),
            std::string::npos);
  EXPECT_NE(VolumesError("[[volume]]\nname = \"a\"\ncapacity = 1\nmembers = "
                         "4\n")
                .find("needs 'chunk'"),
            std::string::npos);
  EXPECT_NE(VolumesError("[[volume]]\nname = \"a\"\ncapacity = 1\n"
                         "iops_budget = \"both\"\n")
                .find("key 'iops_budget': must be \"combined\" or "
                      "\"separate\", got \"both\""),
            std::string::npos);
  EXPECT_NE(VolumesError("[[volume]\n").find("volumes.toml:1:"),
            std::string::npos)
      << "syntax errors carry a position too";
  EXPECT_NE(VolumesError("[hots]\n[[volume]]\nname=\"a\"\ncapacity=1\n")
                .find("did you mean 'host'?"),
            std::string::npos);
}

constexpr char kWorkload[] = R"(
[observation]
duration = "5min"
source = "live"
write_method = "estimated from tuple changes"

[server]
in_recovery = true

[settings]
max_wal_size = "1GB"
checkpoint_completion_target = 0.9
server_version_num = 150020
log_checkpoints = true

[wal]
bytes_per_second = 12000000
bytes_per_second_peak = 18000000.5

[checkpoints]
timed = 10
requested = 18

[[tablespace]]
name = "pg_default"

[[io]]
backend_type = "checkpointer"
object = "relation"
context = "normal"
writes_per_second = 120.5
fsyncs_per_second = 2

[[relation]]
name = "public.pgbench_accounts"
kind = "table"
size = "12GB"
read_iops = 900.5
write_iops = 300
tablespace = "pg_default"
primary_key = ["aid"]
unique_keys = [["aid"], ["bid", "aid"]]
triggers = ["audit"]

[[relation]]
name = "public.pgbench_accounts_pkey"
kind = "index"
table = "public.pgbench_accounts"
size = "2GB"
read_iops = 100
write_iops = 50

[[relation]]
name = "public.events_2025"
kind = "table"
size = "1GB"
partition_of = "public.events"
partition_parent = "public.events_y2025"
)";

TEST(WorkloadFile, ReadsAndRoundTrips) {
  Workload w;
  Status st = ParseWorkload(kWorkload, "workload.toml", &w);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(w.Setting("max_wal_size").value_or(""), "1GB");
  EXPECT_EQ(w.Setting("checkpoint_completion_target").value_or(""), "0.9");
  EXPECT_EQ(w.Setting("log_checkpoints").value_or(""), "on");
  EXPECT_DOUBLE_EQ(w.duration, 300);
  EXPECT_EQ(w.checkpoints.requested, 18);
  ASSERT_EQ(w.relations.size(), 3u);
  EXPECT_EQ(w.relations[0].size, 12 * kGiB);
  EXPECT_EQ(w.relations[0].partition_of, "");
  EXPECT_EQ(w.relations[2].partition_of, "public.events");
  EXPECT_EQ(PartitionParent(w.relations[2]), "public.events_y2025");
  EXPECT_TRUE(w.relations[2].partitioned);  // a partition is one
  EXPECT_EQ(w.relations[0].unique_keys[1][0], "bid");
  EXPECT_EQ(w.relations[1].kind, RelationKind::kIndex);
  EXPECT_EQ(w.relations[1].table, "public.pgbench_accounts");
  EXPECT_EQ(w.write_method, "estimated from tuple changes");
  EXPECT_TRUE(w.in_recovery);
  ASSERT_EQ(w.io.size(), 1u);
  EXPECT_EQ(w.io[0].backend_type, "checkpointer");
  EXPECT_DOUBLE_EQ(w.io[0].writes_per_second, 120.5);

  std::string text = WorkloadToToml(w);
  Workload back;
  ASSERT_TRUE(ParseWorkload(text, "out.toml", &back).ok()) << text;
  EXPECT_EQ(WorkloadToToml(back), text);
  EXPECT_EQ(ToJson(back).dump(), ToJson(w).dump());
  EXPECT_EQ(back.write_method, w.write_method);
  EXPECT_EQ(back.relations.at(2).partition_of, "public.events");
  EXPECT_EQ(back.relations.at(2).partition_parent, "public.events_y2025");
  // A partition of the root: the parent is not written again, and an
  // older file's root stands for it.
  back.relations.at(2).partition_parent = "public.events";
  Workload older;
  ASSERT_TRUE(ParseWorkload(WorkloadToToml(back), "o.toml", &older).ok());
  EXPECT_EQ(older.relations.at(2).partition_parent, "");
  EXPECT_EQ(PartitionParent(older.relations.at(2)), "public.events");
  EXPECT_TRUE(back.in_recovery);
  ASSERT_EQ(back.io.size(), 1u);
  EXPECT_DOUBLE_EQ(back.io[0].fsyncs_per_second, 2);
}

// A workload without a WAL rate (a log without distances, a hand-written
// file) keeps it unknown through the file and the JSON: unknown is not 0.
TEST(WorkloadFile, AnUnknownWalRateStaysUnknown) {
  Workload w;
  Status st = ParseWorkload("[wal]\ncommits_per_second = 10\n", "w.toml", &w);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_FALSE(w.wal_bytes_per_second.has_value());
  std::string text = WorkloadToToml(w);
  EXPECT_NE(text.find("# bytes_per_second: unknown"), std::string::npos)
      << text;
  Workload back;
  ASSERT_TRUE(ParseWorkload(text, "out.toml", &back).ok()) << text;
  EXPECT_FALSE(back.wal_bytes_per_second.has_value());
  EXPECT_TRUE(ToJson(back)["wal"]["bytes_per_second"].is_null());
  ASSERT_TRUE(
      ParseWorkload("[wal]\nbytes_per_second = 0\n", "w.toml", &back).ok());
  EXPECT_EQ(back.wal_bytes_per_second.value_or(-1), 0) << "a measured 0";
}

TEST(WorkloadFile, BadInputs) {
  auto error = [](std::string text) {
    Workload w;
    Status st = ParseWorkload(text, "w.toml", &w);
    EXPECT_TRUE(st.IsInvalidInput());
    return st.message();
  };
  EXPECT_NE(error("[[relation]]\nname = \"t\"\nkind = \"view\"\n")
                .find("'view' is not one of table, index"),
            std::string::npos);
  EXPECT_NE(error("[[relation]]\nname = \"a.b.c\"\n").find("w.toml:2:8"),
            std::string::npos);
  EXPECT_NE(error("[[relation]]\nname = \"t\"\n[[relation]]\nname = \"t\"\n")
                .find("duplicate relation 't'"),
            std::string::npos);
  EXPECT_NE(
      error("[checkpoints]\nrequestd = 3\n").find("did you mean 'requested'"),
      std::string::npos);
  EXPECT_NE(
      error("[wal]\nbytes_per_second = \"fast\"\n").find("expected a number"),
      std::string::npos);
}

constexpr char kPlan[] = R"(
[plan]
target_utilization = 0.7
prefer = "partition"

[wal]
volume = "wal"
reason = "lowest fdatasync latency"

[[tablespace]]
name = "ts_d1"
path = "/mnt/d1/pg"
volume = "d1"
[tablespace.options]
random_page_cost = 1.1
effective_io_concurrency = 200

[[tablespace]]
name = "ts_d2"
path = "/mnt/d2/pg"
volume = "d2"

[[placement]]
relation = "public.a"
strategy = "hash_partition"
tablespaces = ["ts_d1", "ts_d2"]
key = ["id"]

[[placement]]
relation = "public.\"B table\""
strategy = "move"
tablespaces = ["ts_d2"]
online = false

[settings]
max_wal_size = "20GB"
checkpoint_completion_target = "0.9"

[settings_reason]
max_wal_size = "WAL peaks at 60 MB/s"

[[stripe]]
name = "wal_stripe"
members = ["w1", "w2"]
chunk = "512KiB"
tool = "lvm"

[backup.wal-g]
WALG_DIRECT_IO = "true"
)";

TEST(PlanFile, ReadsAndRoundTrips) {
  Plan p;
  Status st = ParsePlan(kPlan, "plan.toml", &p);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.prefer, "partition");
  ASSERT_EQ(p.placements.size(), 2u);
  EXPECT_EQ(p.placements[0].strategy, Strategy::kHashPartition);
  EXPECT_EQ(p.placements[0].partitions, 2) << "defaults to one per tablespace";
  EXPECT_FALSE(p.placements[1].online);
  EXPECT_EQ(p.tablespaces[0].options.at("random_page_cost"), "1.1");
  ASSERT_EQ(p.settings.size(), 2u);
  EXPECT_EQ(p.settings[1].name, "max_wal_size");
  EXPECT_EQ(p.settings[1].reason, "WAL peaks at 60 MB/s");
  EXPECT_EQ(p.backup_walg.at("WALG_DIRECT_IO"), "true");

  std::string text = PlanToToml(p);
  Plan back;
  ASSERT_TRUE(ParsePlan(text, "out.toml", &back).ok()) << text;
  EXPECT_EQ(PlanToToml(back), text);
  Json j = ToJson(back);
  EXPECT_EQ(j["placements"][0]["volumes"], Json({"d1", "d2"}));
  EXPECT_EQ(j["stripes"][0]["chunk"], 512 * kKiB);
}

TEST(PlanFile, BadInputs) {
  auto error = [](std::string text) {
    Plan p;
    Status st = ParsePlan(text, "plan.toml", &p);
    EXPECT_TRUE(st.IsInvalidInput());
    return st.message();
  };
  EXPECT_NE(error("[[placement]]\nrelation = \"t\"\nstrategy = \"move\"\n"
                  "tablespaces = [\"nowhere\"]\n")
                .find("tablespace 'nowhere' is not defined"),
            std::string::npos);
  EXPECT_NE(
      error("[[placement]]\nrelation = \"t\"\nstrategy = \"hash_partition\"\n"
            "tablespaces = [\"pg_default\"]\n")
          .find("needs the partition key"),
      std::string::npos);
  EXPECT_NE(error("[[placement]]\nrelation = \"t\"\nstrategy = \"shard\"\n")
                .find("'shard' is not one of"),
            std::string::npos);
  EXPECT_NE(error("[[tablespace]]\nname = \"pg_x\"\npath = \"/x\"\n")
                .find("reserved"),
            std::string::npos);
  EXPECT_NE(
      error("[[tablespace]]\nname = \"x\"\npath = \"rel\"\n").find("absolute"),
      std::string::npos);
  EXPECT_NE(error("[settings]\na = \"1\"\n[settings_reason]\nb = \"why\"\n")
                .find("'b' has no value in [settings]"),
            std::string::npos);
}

// migrate applies [settings] with ALTER SYSTEM as a superuser: a plan edited
// to hold archive_command (a shell command the server runs) or a library to
// preload is refused where it is read, naming the line and the setting.
TEST(PlanFile, RefusesSettingsThePlannerNeverWrites) {
  for (const std::string name :
       {"archive_command", "shared_preload_libraries", "made_up_key"}) {
    Plan plan;
    const std::string text =
        "[settings]\nmax_wal_size = \"2GB\"\n" + name + " = \"x\"\n";
    Status st = ParsePlan(text, "plan.toml", &plan);
    ASSERT_TRUE(st.IsInvalidInput()) << name << ": " << st.message();
    EXPECT_NE(st.message().find("plan.toml:3:"), std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("setting '" + name + "'"), std::string::npos)
        << st.message();
  }
  Plan plan;
  ASSERT_TRUE(ParsePlan("[settings]\nmax_wal_size = \"2GB\"\n"
                        "io_workers = \"8\"\n",
                        "plan.toml", &plan)
                  .ok());
  EXPECT_EQ(plan.settings.size(), 2u);
}

TEST(DetectFileKind, TellsTheThreeFilesApart) {
  FileKind kind;
  ASSERT_TRUE(DetectFileKind(kVolumes, "v", &kind).ok());
  EXPECT_EQ(kind, FileKind::kVolumes);
  ASSERT_TRUE(DetectFileKind(kWorkload, "w", &kind).ok());
  EXPECT_EQ(kind, FileKind::kWorkload);
  ASSERT_TRUE(DetectFileKind(kPlan, "p", &kind).ok());
  EXPECT_EQ(kind, FileKind::kPlan);
  EXPECT_TRUE(DetectFileKind("x = 1\n", "junk.toml", &kind).IsInvalidInput());
}

// One parse gives both the kind and the model, the same as the Parse* of
// that kind, and the same errors (file:line:col and key).
TEST(ParsePipelineFile, KindAndModelFromOneParse) {
  PipelineFile f;
  ASSERT_TRUE(ParsePipelineFile(kVolumes, "v", &f).ok());
  EXPECT_EQ(f.kind, FileKind::kVolumes);
  VolumeSet volumes;
  ASSERT_TRUE(ParseVolumes(kVolumes, "v", &volumes).ok());
  EXPECT_EQ(VolumesToToml(f.volumes), VolumesToToml(volumes));
  ASSERT_TRUE(ParsePipelineFile(kWorkload, "w", &f).ok());
  EXPECT_EQ(f.kind, FileKind::kWorkload);
  EXPECT_FALSE(f.workload.relations.empty());
  ASSERT_TRUE(ParsePipelineFile(kPlan, "p", &f).ok());
  EXPECT_EQ(f.kind, FileKind::kPlan);
  EXPECT_FALSE(f.plan.placements.empty());
  std::string bad = kVolumes;
  bad.replace(bad.find("read_iops"), 9, "read_iopz");
  Status st = ParsePipelineFile(bad, "v.toml", &f);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(), ParseVolumes(bad, "v.toml", &volumes).message());
  EXPECT_TRUE(ParsePipelineFile("x = 1\n", "junk", &f).IsInvalidInput());
}

TEST(TextFiles, WriteIsAtomicAndReadReportsMissingFiles) {
  std::string path = ::testing::TempDir() + "/pglayout_files_test.toml";
  ASSERT_TRUE(WriteTextFile(path, "a = 1\n").ok());
  std::string back;
  ASSERT_TRUE(ReadTextFile(path, &back).ok());
  EXPECT_EQ(back, "a = 1\n");
  Status st = ReadTextFile(path + ".missing", &back);
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_NE(st.message().find(".missing"), std::string::npos);
}

}  // namespace
}  // namespace pglayout
