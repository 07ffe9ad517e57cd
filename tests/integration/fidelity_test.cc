// The plan's forecast held to what the migrated layout measures: on the
// volume lab, a workload saturating "base" is observed, planned and
// migrated under load, then measured again (testing/fidelity_scenario.h;
// bench/fidelity runs the longer version). It fails when the planner's
// forecast drifts from reality: the share of the reads each data volume
// takes after the migration must be within 15 points of the forecast, and
// the hot volume must really fall below the plan's target.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

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
  ASSERT_EQ(result.volumes.size(), 5u);

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
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(FidelityTest);

}  // namespace
}  // namespace pglayout
