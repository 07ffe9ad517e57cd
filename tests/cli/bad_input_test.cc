// Runs the real pglayout binary on issue 39's inputs that crashed, hung or
// bloated a command: each exits 2 naming file:line, or reads back correctly;
// none reaches the top-level "internal error" handler.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/files.h"
#include "tests/cli/fixtures.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

constexpr const char* kVolumes = testing_fixtures::kTwoVolumes;

constexpr const char* kWorkload = testing_fixtures::kOneRelationWorkload;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string With(std::string text, const std::string& from,
                 const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

Completion Plan(const std::string& volumes, const std::string& workload) {
  return RunPglayout({"plan", "--volumes", volumes, "--workload", workload,
                      "--out-dir", ::testing::TempDir() + "/bad_input_plan"});
}

void ExpectNoInternalError(const Completion& run) {
  EXPECT_FALSE(Contains(run.output, "internal error")) << run.output;
}

TEST(BadInput, ASubnormalIopsIsRefusedByCheckAndPlan) {
  const std::string volumes =
      WriteTempFile("subnormal_volumes.toml",
                    With(kVolumes, "read_iops = 3000", "read_iops = 1e-320"));
  Completion check = RunPglayout({"check", volumes});
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_TRUE(Contains(check.output, volumes + ":5:13: [[volume]] 'wal' key "
                                               "'read_iops': "))
      << check.output;
  Completion plan =
      Plan(volumes, WriteTempFile("subnormal_workload.toml", kWorkload));
  EXPECT_EQ(plan.exit_code, 2) << plan.output;
  EXPECT_TRUE(Contains(plan.output, volumes + ":5:13:")) << plan.output;
  ExpectNoInternalError(plan);
}

TEST(BadInput, ANearlyInfiniteRateIsRefusedByReport) {
  const std::string workload = WriteTempFile(
      "huge_workload.toml", With(kWorkload, "read_iops = 1000",
                                 "read_iops = 1.7976931348623157e308"));
  Completion run = RunPglayout({"report", "--workload", workload, "-o",
                                ::testing::TempDir() + "/huge.html"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, workload + ":9:13: [[relation]] "))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "must be at most 1e+15")) << run.output;
}

TEST(BadInput, ARelativeVolumePathIsTheVolumesFilesError) {
  const std::string volumes = WriteTempFile(
      "relative_volumes.toml", With(kVolumes, "\"/mnt/data\"", "\"mnt/data\""));
  Completion run =
      Plan(volumes, WriteTempFile("relative_workload.toml", kWorkload));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output, "pglayout: error: " + volumes +
                            ":10:8: [[volume]] 'data' key 'path': must be an "
                            "absolute path (got \"mnt/data\")\n");
}

TEST(BadInput, ALongKeyIsRefusedQuicklyAndCut) {
  const std::string volumes = WriteTempFile(
      "long_key_volumes.toml",
      std::string(kVolumes) + std::string(1000 * 1000, 'k') + " = 1\n");
  Completion run = RunPglayout({"check", volumes});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output, "pglayout: error: " + volumes + ":15:1: unknown key '" +
                            std::string(64, 'k') +
                            "...' in [[volume]] 'data'\n");
}

// Names with control characters: check shows them escaped, never raw.
TEST(BadInput, ControlCharactersInNamesReachTheTerminalEscaped) {
  const std::string workload = WriteTempFile(
      "control_workload.toml",
      With(kWorkload, "name = \"public.t\"",
           "name = \"public.t\\u001B]0;owned\\u0007\\u007F\\u202E\""));
  Completion run = RunPglayout({"check", workload});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_FALSE(Contains(run.output, "\x1B")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\x07")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\x7F")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\xE2\x80\xAE")) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "public.t\\u001B]0;owned\\u0007\\u007F"
                       "\\u202E"))
      << run.output;
}

// The same through plan: its report on stdout and its messages on stderr.
TEST(BadInput, ControlCharactersInNamesReachPlansOutputEscaped) {
  const std::string workload =
      WriteTempFile("control_plan_workload.toml",
                    With(kWorkload, "name = \"public.t\"",
                         "name = \"public.t\\u001B[2J\\u009B\\u2066\""));
  Completion run =
      Plan(WriteTempFile("control_plan_volumes.toml", kVolumes), workload);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_FALSE(Contains(run.output, "\x1B")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\xC2\x9B")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\xE2\x81\xA6")) << run.output;
  EXPECT_TRUE(Contains(run.output, "public.t\\u001B[2J\\u009B\\u2066"))
      << run.output;
}

// A file name that is not UTF-8: --json escapes its bytes instead of
// aborting on an uncaught exception.
TEST(BadInput, CheckJsonOfAFileNameThatIsNotUtf8) {
  const std::string volumes = WriteTempFile("caf\xE9_volumes.toml", kVolumes);
  Completion run = RunPglayout({"check", "--json", volumes});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ExpectNoInternalError(run);
  EXPECT_TRUE(Contains(run.output, "caf\\\\xE9_volumes.toml")) << run.output;
  EXPECT_FALSE(Contains(run.output, "\xE9")) << run.output;
}

// A Latin-1 Oracle export: its names become UTF-8 and the workload written
// reads back.
TEST(BadInput, ALatin1OracleExportIsConvertedToUtf8) {
  const std::string csv = WriteTempFile(
      "latin1_segments.csv",
      "OWNER,SEGMENT_NAME,SEGMENT_TYPE,PHYSICAL_READS,PHYSICAL_WRITES,BYTES,"
      "INTERVAL_SECONDS\nVENTES,COMMAND\xC9"
      "ES,TABLE,3600,360,1073741824,3600\n");
  const std::string out = ::testing::TempDir() + "/latin1_workload.toml";
  std::filesystem::remove(out);
  Completion run = RunPglayout({"observe", "--from-segments", csv, "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Workload w;
  Status st = ReadWorkloadFile(out, &w);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(w.relations.size(), 1u);
  // \xC9 is Latin-1 for U+00C9 (capital E acute); Oracle names are
  // lower-cased as ASCII, so it stays and the name is quoted.
  EXPECT_EQ(w.relations[0].name,
            "ventes.\"command\xC3\x89"
            "es\"");
  Completion check = RunPglayout({"check", out});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

}  // namespace
}  // namespace pglayout
