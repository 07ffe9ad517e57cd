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
