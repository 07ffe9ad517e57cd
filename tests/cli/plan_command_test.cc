// Runs the real pglayout binary: `pglayout plan`'s options are checked
// where they are parsed, and a bad one is the user's to fix (exit 2) with
// an error naming the option.

#include <gtest/gtest.h>

#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

constexpr char kVolumes[] = R"(
[[volume]]
name = "wal"
path = "/mnt/wal"
capacity = "100GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 500
[[volume]]
name = "data"
path = "/mnt/data"
capacity = "500GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 900
)";

constexpr char kWorkload[] = R"(
[settings]
data_directory = "/mnt/data/pgdata"
[wal]
bytes_per_second = 14000000
commits_per_second = 500
[[relation]]
name = "public.t"
size = "10GB"
read_iops = 1000
write_iops = 100
)";

Completion Plan(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "plan",
      "--volumes",
      WriteTempFile("plan_volumes.toml", kVolumes),
      "--workload",
      WriteTempFile("plan_workload.toml", kWorkload),
      "--out-dir",
      ::testing::TempDir() + "/plan_out"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunPglayout(args);
}

// A log from before 9.6 has no checkpoint distances: observe --from-log
// -> plan must say the WAL rate is unknown, never "WAL keeps it 0% busy",
// and must not present the default max_wal_size as observed.
TEST(PlanCommand, AnUnknownWalRateFromALogIsSaidNotForecastAsIdle) {
  const std::string log = WriteTempFile(
      "old.log",
      "2016-03-01 10:00:00 UTC [1] LOG:  checkpoint starting: xlog\n"
      "2016-03-01 10:00:40 UTC [1] LOG:  checkpoint complete: wrote 900 "
      "buffers (5.5%); 0 transaction log file(s) added, 0 removed, 3 "
      "recycled; write=39.0 s, sync=0.5 s, total=40.0 s; sync files=9, "
      "longest=0.1 s, average=0.0 s\n"
      "2016-03-01 10:01:00 UTC [1] LOG:  checkpoint starting: xlog\n"
      "2016-03-01 10:01:40 UTC [1] LOG:  checkpoint complete: wrote 800 "
      "buffers (5.0%); 0 transaction log file(s) added, 0 removed, 3 "
      "recycled; write=39.0 s, sync=0.5 s, total=40.0 s; sync files=9, "
      "longest=0.1 s, average=0.0 s\n");
  const std::string workload = ::testing::TempDir() + "/old_workload.toml";
  Completion observe =
      RunPglayout({"observe", "--from-log", log, "-o", workload});
  ASSERT_EQ(observe.exit_code, 0) << observe.output;
  EXPECT_NE(observe.output.find("WAL rate unknown"), std::string::npos)
      << observe.output;
  Completion plan = RunPglayout(
      {"plan", "--volumes", WriteTempFile("old_volumes.toml", kVolumes),
       "--workload", workload, "--out-dir", ::testing::TempDir() + "/old"});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("WAL rate unknown (not in the workload)"),
            std::string::npos)
      << plan.output;
  EXPECT_EQ(plan.output.find("WAL keeps it 0% busy"), std::string::npos)
      << plan.output;
  // The log's two forced checkpoints are history under a max_wal_size the
  // log does not give: the default is assumed, and said to be.
  EXPECT_NE(plan.output.find("observed: 2 of 2 checkpoints requested (forced) "
                             "under max_wal_size 1GB (not recorded in the "
                             "workload: PostgreSQL's default assumed)"),
            std::string::npos)
      << plan.output;
}

TEST(PlanCommand, MalformedGrowthNamesTheOption) {
  Completion run = Plan({"--growth", "20"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--growth: '20' is not a growth rate: no "
                            "'/period'"),
            std::string::npos)
      << run.output;
  run = Plan({"--growth", "20%/fortnight"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("unknown period 'fortnight'"), std::string::npos)
      << run.output;
}

TEST(PlanCommand, MalformedBackupWindowNamesTheOption) {
  for (const char* bad : {"4 hours", "0"}) {
    Completion run = Plan({"--backup-window", bad});
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.output;
    EXPECT_NE(run.output.find("--backup-window"), std::string::npos)
        << run.output;
  }
}

// The options reach the plan: the growth verdict, the backup in the
// forecast, and an instance cap given on the command line.
TEST(PlanCommand, GrowthBackupAndInstanceCapReachThePlan) {
  Completion run =
      Plan({"--growth", "20%/year", "--horizon", "365d", "--backup-window",
            "4h", "--instance-cap-mbps", "10", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("growth: declared 20% per 365d"), std::string::npos)
      << run.output;
  // 10 GiB read within 4 h: 10737418240 / 14400 = 0.7 MB/s.
  EXPECT_NE(run.output.find("\"backup_read_mbps\": 0.7"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("host: does not fit the instance"),
            std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace pglayout
