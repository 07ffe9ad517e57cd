// The plan's forecast held to what the migrated layout measures: on the
// volume lab, a workload saturating "base" is observed, planned and
// migrated under load, then measured again (testing/fidelity_scenario.h;
// bench/fidelity runs the longer version). It fails when the planner's
// forecast drifts from reality: the share of the reads each data volume
// takes after the migration must be within 15 points of the forecast, and
// the hot volume must really fall below the plan's target.
// On PostgreSQL 18 the same run is the demo's (testing/demo): the migration
// is killed with SIGKILL halfway through its copy and resumed, every table's
// rows are counted and checksummed before and after, each planned relation
// must be found in its planned tablespaces, and the report must hold the
// forecast against the layout.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/files.h"
#include "testing/fidelity_scenario.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"

namespace pglayout {
namespace {

constexpr double kShareTolerance = 0.15;

class FidelityTest : public PgVersionTest {};

double DataReads(const FidelityResult& r, bool forecast) {
  double sum = 0;
  for (const VolumeFidelity& v : r.volumes) {
    if (v.volume == "wal") continue;
    sum += forecast ? v.forecast_read_iops_after : v.reads_after;
  }
  return sum;
}

// What the demo shows, held true: the kill and the resume, the rows, the
// placements and the report.
void ExpectDemoChecks(const FidelityResult& result) {
  const KillResume& m = result.migration;
  EXPECT_TRUE(m.killed) << "the migration ended before it could be killed";
  EXPECT_GT(m.rows_copied, 0);
  EXPECT_TRUE(m.phase != "copy" || 2 * m.rows_copied >= m.rows_total)
      << m.rows_copied << " of " << m.rows_total;
  EXPECT_TRUE(m.resumed) << "the second migrate did not resume the run";
  EXPECT_EQ(m.run_state, "done");

  // pgbench's four tables, lookup and events.
  ASSERT_EQ(result.tables.size(), 6u);
  for (const TableCheck& t : result.tables) {
    SCOPED_TRACE(t.table);
    EXPECT_GT(t.rows_before, 0);
    EXPECT_EQ(t.rows_after, t.rows_before);
    EXPECT_EQ(t.checksum_after, t.checksum_before);
    EXPECT_GE(t.rows_now, t.rows_after);
  }
  ASSERT_FALSE(result.placements.empty());
  bool hot_table_moved = false;
  for (const PlacementCheck& p : result.placements) {
    SCOPED_TRACE(p.relation);
    ASSERT_FALSE(p.planned.empty());
    EXPECT_EQ(p.found, p.planned);
    hot_table_moved |= p.relation == "public.pgbench_accounts";
  }
  EXPECT_TRUE(hot_table_moved);
  ASSERT_FALSE(result.verifications.empty());
  for (const StepVerification& v : result.verifications) {
    SCOPED_TRACE(v.step);
    EXPECT_EQ(v.new_rows, v.source_rows);
    EXPECT_TRUE(v.sums_equal);
  }
  std::string html;
  PGLAYOUT_ASSERT_OK(ReadTextFile(result.report_path, &html));
  EXPECT_NE(html.find("Forecast against the layout"), std::string::npos);
}

TEST_P(FidelityTest, MeasuredLayoutMatchesTheForecast) {
  FidelitySpec spec;
  spec.version = GetParam();
  spec.pglayout = PGLAYOUT_BINARY;
  // A shorter run than bench/fidelity's: smaller tables and page cache in
  // the same proportions, shorter windows.
  spec.scale = 10;
  spec.lookup_rows = 400000;
  spec.page_cache_bytes = 112ull << 20;
  spec.warmup_s = 10;
  spec.observe_s = 20;
  // The move's pace is not what this test checks.
  spec.migrate_options = {"--throttle", "off"};
  const bool demo = spec.version == PgVersion::k18;
  spec.kill_and_resume = demo;
  spec.check_rows = demo;
  spec.report = demo;
  PGLAYOUT_ASSERT_OK(
      MakeTempDirectory("/tmp/pglayout-fidelity-test-XXXXXX", &spec.out_dir));
  struct RemoveAtEnd {
    std::string dir;
    ~RemoveAtEnd() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } remove_at_end{spec.out_dir};
  FidelityResult result;
  PGLAYOUT_ASSERT_OK(
      RunFidelityScenario(spec, &result, [](const std::string& line) {
        fprintf(stderr, "fidelity: %s\n", line.c_str());
      }));
  std::string table = FormatFidelity(result);
  printf("%s", table.c_str());
  for (const std::string& v : result.verdicts) printf("plan: %s\n", v.c_str());
  // base, wal and three spares, each listed once: by itself, or as a member
  // of a stripe the plan built (the planner chooses one when its forecast
  // is the better: one run forecast a mean read of 256 us for it, 278 us
  // for hash partitions).
  size_t lab_volumes = 0;
  for (const VolumeFidelity& v : result.volumes) {
    lab_volumes += std::max<size_t>(1, v.members.size());
  }
  ASSERT_EQ(lab_volumes, 5u) << table;

  // The workload did load the hot volume past the target before.
  const VolumeFidelity& base = result.volumes[0];
  ASSERT_EQ(base.volume, "base");
  EXPECT_GT(base.measured_before, result.target) << table;

  double forecast_reads = DataReads(result, true);
  double measured_reads = DataReads(result, false);
  ASSERT_GT(forecast_reads, 0) << table;
  ASSERT_GT(measured_reads, 0) << table;
  int volumes_used = 0;
  for (const VolumeFidelity& v : result.volumes) {
    if (v.volume == "wal") continue;
    SCOPED_TRACE(v.volume);
    double forecast = v.forecast_read_iops_after / forecast_reads;
    double measured = v.reads_after / measured_reads;
    EXPECT_NEAR(measured, forecast, kShareTolerance) << table;
    if (v.forecast_read_iops_after > 0) ++volumes_used;
  }
  // The plan spread the reads: base no longer takes them all.
  EXPECT_GE(volumes_used, 2) << table;
  EXPECT_LT(base.measured_after, result.target) << table;
  // Read latency is compared per read that reached a volume (FormatFidelity
  // prints it; no assertion on a time, docs/engineering.md#tests): the
  // window's device reads must be there to divide by.
  EXPECT_GT(result.after.device_reads_per_s, 0) << table;
  if (demo) ExpectDemoChecks(result);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(FidelityTest);

}  // namespace
}  // namespace pglayout
