#include "observe/workload_stats.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace pglayout {
namespace {

// Workload rates are rounded to a thousandth.
#define EXPECT_RATE(actual, expected) EXPECT_NEAR(actual, expected, 5e-4)

TEST(Percentile95, InterpolatesBetweenNearestRanks) {
  EXPECT_DOUBLE_EQ(Percentile95({}), 0);
  EXPECT_DOUBLE_EQ(Percentile95({7}), 7);
  // rank 0.95 * 4 = 3.8: 4 + 0.8 * (5 - 4)
  EXPECT_DOUBLE_EQ(Percentile95({5, 1, 4, 2, 3}), 4.8);
  std::vector<double> hundred;
  for (int i = 1; i <= 101; ++i) hundred.push_back(i);
  EXPECT_DOUBLE_EQ(Percentile95(hundred), 96);
}

TEST(CounterDelta, TreatsADecreaseAsAReset) {
  EXPECT_DOUBLE_EQ(CounterDelta(10, 25), 15);
  EXPECT_DOUBLE_EQ(CounterDelta(100, 7), 7);
}

RelationInfo Table(uint32_t oid, std::string name) {
  RelationInfo r;
  r.oid = oid;
  r.name = std::move(name);
  r.kind = RelationKind::kTable;
  r.tablespace = "pg_default";
  return r;
}

RelationInfo Index(uint32_t oid, std::string name, const RelationInfo& table) {
  RelationInfo r = Table(oid, std::move(name));
  r.kind = RelationKind::kIndex;
  r.table = table.name;
  r.table_oid = table.oid;
  return r;
}

TEST(EstimateBlocksWritten, TablesCountGrowthAndOneBlockPerChangedRow) {
  RelationInfo t = Table(1, "public.t");
  IntervalDelta d;
  d.size = 10 * 8192;  // 10 new blocks
  d.updated = 5;
  d.deleted = 2;
  EXPECT_DOUBLE_EQ(EstimateBlocksWritten(t, d, nullptr, 1000 * 8192), 17);
  // Random changes cannot dirty more blocks than the relation has.
  d.updated = 5000;
  EXPECT_DOUBLE_EQ(EstimateBlocksWritten(t, d, nullptr, 100 * 8192), 110);
  // Inserts into free space: rows per page from reltuples / relpages.
  IntervalDelta inserts;
  inserts.inserted = 600;
  t.reltuples = 6000;
  t.relpages = 100;  // 60 rows per page -> 10 blocks
  EXPECT_DOUBLE_EQ(EstimateBlocksWritten(t, inserts, nullptr, 100 * 8192), 10);
}

TEST(EstimateBlocksWritten, IndexesFollowNonHotUpdatesOfTheirTable) {
  RelationInfo t = Table(1, "public.t");
  RelationInfo i = Index(2, "public.t_pkey", t);
  IntervalDelta own, parent;
  parent.updated = 100;
  parent.hot_updated = 90;  // HOT updates touch no index
  EXPECT_DOUBLE_EQ(EstimateBlocksWritten(i, own, &parent, 50 * 8192), 10);
  RelationInfo p = Table(3, "public.parent");
  p.kind = RelationKind::kPartitioned;
  EXPECT_DOUBLE_EQ(EstimateBlocksWritten(p, parent, nullptr, 0), 0);
}

Sample At(double time, double lsn, int64_t commits) {
  Sample s;
  s.server.time = time;
  s.server.wal_lsn = lsn;
  s.server.commits = commits;
  return s;
}

RelationCounters Counters(int64_t read, int64_t hit, uint64_t size) {
  RelationCounters c;
  c.blocks_read = read;
  c.blocks_hit = hit;
  c.size = size;
  return c;
}

// Three tables and an index over four samples 10 s apart.
ObservedData Scripted() {
  RelationInfo hot = Table(1, "public.hot");
  RelationInfo cold = Table(2, "public.cold");
  RelationInfo idx = Index(3, "public.hot_pkey", hot);
  RelationInfo fresh = Table(4, "public.fresh");  // created meanwhile
  ObservedData d;
  d.reported = {cold, hot, idx, fresh};
  d.samples = {At(1000, 0, 0), At(1010, 10e6, 100), At(1020, 30e6, 300),
               At(1030, 40e6, 400)};
  // hot: reads 100, 300 (peak), 100 blocks per interval.
  d.samples[0].relations[1] = Counters(1000, 0, 8192 * 100);
  d.samples[1].relations[1] = Counters(1100, 50, 8192 * 100);
  d.samples[2].relations[1] = Counters(1400, 90, 8192 * 110);
  d.samples[3].relations[1] = Counters(1500, 100, 8192 * 120);
  d.samples[3].relations[1].tuples_updated = 0;
  // cold: no activity.
  for (Sample& s : d.samples) s.relations[2] = Counters(5, 5, 8192);
  // index: a statistics reset before the third sample.
  d.samples[0].relations[3] = Counters(500, 0, 8192 * 10);
  d.samples[1].relations[3] = Counters(520, 0, 8192 * 10);
  d.samples[2].relations[3] = Counters(30, 0, 8192 * 10);  // reset: +30
  d.samples[3].relations[3] = Counters(40, 0, 8192 * 10);
  // fresh appears in the third sample with 16 blocks.
  d.samples[2].relations[4] = Counters(0, 0, 8192 * 16);
  d.samples[3].relations[4] = Counters(0, 0, 8192 * 16);
  // Checkpoints: one requested during the second interval.
  for (Sample& s : d.samples) s.server.checkpoints.timed = 3;
  d.samples[2].server.checkpoints.requested = 1;
  d.samples[3].server.checkpoints.requested = 1;
  d.samples[2].server.checkpoints.buffers_written = 500;
  d.samples[3].server.checkpoints.buffers_written = 500;
  return d;
}

TEST(BuildWorkloadFromSamples, RatesAveragesAndPeaks) {
  ObservedData data = Scripted();
  Workload w;
  w.settings["max_wal_size"] = "1GB";  // kept
  ServerRates rates;
  Status st = BuildWorkloadFromSamples(data, &w, &rates);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(w.settings["max_wal_size"], "1GB");
  EXPECT_RATE(w.duration, 30);
  EXPECT_EQ(rates.intervals, 3);
  EXPECT_FALSE(w.write_method.empty());

  ASSERT_EQ(w.relations.size(), 4u);
  const Relation& hot = w.relations[0];
  EXPECT_EQ(hot.name, "public.hot");
  // Per-interval read rates 10, 30, 10 blocks/s; rank 0.95 * 2 = 1.9 over
  // sorted {10, 10, 30}: 10 + 0.9 * 20 = 28.
  EXPECT_RATE(hot.read_iops, 28);
  EXPECT_RATE(hot.read_iops_avg, 500.0 / 30);
  EXPECT_RATE(hot.growth_bytes_per_second, 8192.0 * 20 / 30);
  EXPECT_EQ(hot.size, 8192u * 120);
  // Growth of 10 blocks in the last two intervals: 1 block/s each.
  EXPECT_RATE(hot.write_iops_avg, 20.0 / 30);

  const Relation* idx = w.Find("public.hot_pkey");
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->kind, RelationKind::kIndex);
  EXPECT_EQ(idx->table, "public.hot");
  EXPECT_RATE(idx->read_iops_avg, (20.0 + 30 + 10) / 30)
      << "the reset interval counts the new value, not a negative delta";

  const Relation* fresh = w.Find("public.fresh");
  ASSERT_NE(fresh, nullptr);
  EXPECT_RATE(fresh->growth_bytes_per_second, 8192.0 * 16 / 30);

  EXPECT_EQ(w.relations.back().name, "public.cold") << "idle sorts last";
  EXPECT_RATE(w.Find("public.cold")->read_iops, 0);

  EXPECT_RATE(w.wal_bytes_per_second.value_or(-1), 40e6 / 30);
  // WAL per interval 1, 2, 1 MB/s: peak 1 + 0.9 * 1 = 1.9 MB/s.
  EXPECT_RATE(w.wal_bytes_per_second_peak, 1.9e6);
  EXPECT_RATE(w.commits_per_second, 400.0 / 30);
  EXPECT_FALSE(w.wal_syncs_per_second.has_value()) << "12 and 13 count none";
  EXPECT_EQ(w.checkpoints.timed, 0);
  EXPECT_EQ(w.checkpoints.requested, 1);
  EXPECT_EQ(w.checkpoints.buffers_written, 500);
  EXPECT_RATE(rates.measured_blocks_written_per_second, 500.0 / 30);
}

// The WAL flushes the server counted (14+) become the WAL's flush rate; a
// sample without the count (a server before 14) leaves it unknown.
TEST(BuildWorkloadFromSamples, WalSyncsAreCountedWhereTheServerCountsThem) {
  ObservedData data = Scripted();
  for (size_t i = 0; i < data.samples.size(); ++i) {
    data.samples[i].server.wal_syncs = 1000 + 60 * static_cast<int64_t>(i);
  }
  Workload w;
  ServerRates rates;
  ASSERT_TRUE(BuildWorkloadFromSamples(data, &w, &rates).ok());
  EXPECT_RATE(w.wal_syncs_per_second.value_or(-1), 180.0 / 30);
  data.samples[1].server.wal_syncs = -1;
  Workload partial;
  ASSERT_TRUE(BuildWorkloadFromSamples(data, &partial, &rates).ok());
  EXPECT_FALSE(partial.wal_syncs_per_second.has_value());
}

// The samples' clock jitters by milliseconds: an observation of 30 s is
// written as 30 s, not 29999 ms.
TEST(BuildWorkloadFromSamples, TheDurationHasTheObservationsPrecision) {
  ObservedData data = Scripted();
  data.samples.back().server.time -= 0.001;
  Workload w;
  ServerRates rates;
  ASSERT_TRUE(BuildWorkloadFromSamples(data, &w, &rates).ok());
  EXPECT_EQ(w.duration, 30);
  EXPECT_NE(WorkloadToToml(w).find("duration = \"30s\""), std::string::npos)
      << WorkloadToToml(w);
}

TEST(BuildWorkloadFromSamples, PgStatIoRowsBecomeAverageRates) {
  ObservedData data = Scripted();
  for (size_t i = 0; i < data.samples.size(); ++i) {
    IoCounters io{"checkpointer", "relation", "normal"};
    io.writes = 300.0 * static_cast<double>(i);
    IoCounters idle{"walsender", "relation", "normal"};
    data.samples[i].server.io = {io, idle};
  }
  Workload w;
  ServerRates rates;
  ASSERT_TRUE(BuildWorkloadFromSamples(data, &w, &rates).ok());
  ASSERT_EQ(w.io.size(), 1u) << "rows without activity are left out";
  EXPECT_EQ(w.io[0].backend_type, "checkpointer");
  EXPECT_DOUBLE_EQ(w.io[0].writes_per_second, 30);
  EXPECT_DOUBLE_EQ(rates.measured_blocks_written_per_second, 30);
}

TEST(BuildWorkloadFromSamples, RejectsTooFewSamplesAndAStoppedClock) {
  ObservedData data = Scripted();
  Workload w;
  ServerRates rates;
  data.samples.resize(1);
  Status st = BuildWorkloadFromSamples(data, &w, &rates);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("at least two samples"), std::string::npos);

  data = Scripted();
  data.samples[2].server.time = data.samples[1].server.time;
  st = BuildWorkloadFromSamples(data, &w, &rates);
  EXPECT_NE(st.message().find("sample 3 is not later than sample 2"),
            std::string::npos)
      << st.message();
}

// An SQL_ASCII database hands names over as raw bytes: observe refuses a
// name that is not UTF-8, showing its bytes, instead of writing TOML that
// no reader takes.
TEST(CheckWorkloadText, ANameThatIsNotUtf8IsRefusedWithItsBytesEscaped) {
  Workload w;
  Relation r;
  r.name = "public.caf\xE9";
  w.relations.push_back(r);
  Status st = CheckWorkloadText(w);
  ASSERT_TRUE(st.IsInvalidInput());
  EXPECT_TRUE(
      st.message().starts_with("relation 'public.caf\\xE9' is not "
                               "UTF-8 text"))
      << st.message();

  w.relations[0].name = "public.caf\xC3\xA9";
  w.relations[0].triggers = {"t\xFF"};
  st = CheckWorkloadText(w);
  ASSERT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("trigger name of relation 'public.caf\xC3\xA9'"),
            std::string::npos)
      << st.message();

  w.relations[0].triggers.clear();
  EXPECT_TRUE(CheckWorkloadText(w).ok());
  w.tablespaces.push_back({"ts\x80", "/mnt/ts"});
  EXPECT_TRUE(
      CheckWorkloadText(w).message().starts_with("tablespace 'ts\\x80'"));
  w.tablespaces.clear();
  w.settings["search_path"] = "\xE9";
  EXPECT_TRUE(CheckWorkloadText(w).message().starts_with(
      "the value of setting search_path '\\xE9'"));
}

}  // namespace
}  // namespace pglayout
