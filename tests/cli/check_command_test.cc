// Runs the real pglayout binary: exit codes and the one-line errors of
// `pglayout check` are part of its contract with capacity planners' scripts.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

constexpr char kGood[] =
    "[[volume]]\n"
    "name = \"d1\"\n"
    "capacity = \"600GB\"\n"
    "read_iops = 3000\n"
    "write_iops = 3000\n";

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CheckCommand, ValidFileExitsZeroWithSummary) {
  std::string path = WriteTempFile("good_volumes.toml", kGood);
  Completion run = RunPglayout({"check", path});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("volumes file, OK"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("600 GiB"), std::string::npos) << run.output;
}

struct BadCase {
  const char* name;
  const char* from;
  const char* to;
  const char* expected;  // the whole error line after "pglayout: error: "
};

class CheckBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(CheckBadInput, OneLineErrorNamingPositionAndKeyExitTwo) {
  const BadCase& c = GetParam();
  std::string text = kGood;
  text.replace(text.find(c.from), std::string(c.from).size(), c.to);
  std::string path = WriteTempFile(std::string(c.name) + ".toml", text);
  Completion run = RunPglayout({"check", path});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output, "pglayout: error: " + path + ":" + c.expected + "\n");
  EXPECT_EQ(CountLines(run.output), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Volumes, CheckBadInput,
    ::testing::Values(
        BadCase{"bad_unit", "\"600GB\"", "\"600 Gigs\"",
                "3:12: [[volume]] 'd1' key 'capacity': unknown size unit "
                "'Gigs' in '600 Gigs' (use B, kB, MB, GB, TB or KiB, MiB, "
                "GiB, TiB; all are powers of 1024)"},
        BadCase{"unknown_key", "write_iops", "write_iosp",
                "5:1: unknown key 'write_iosp' in [[volume]] 'd1' (did you "
                "mean 'write_iops'?)"},
        BadCase{"duplicate", "read_iops = 3000\n",
                "read_iops = 3000\n[[volume]]\nname = \"d1\"\ncapacity = 1\n",
                "6:8: [[volume]] key 'name': duplicate volume name 'd1'"},
        BadCase{"negative_iops", "read_iops = 3000", "read_iops = -3000",
                "4:13: [[volume]] 'd1' key 'read_iops': must not be negative "
                "(got -3000)"}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      return std::string(info.param.name);
    });

TEST(CheckCommand, MissingFileIsBadInput) {
  Completion run = RunPglayout({"check", "/nonexistent/volumes.toml"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output,
            "pglayout: error: could not read \"/nonexistent/volumes.toml\": "
            "No such file or directory\n");
}

TEST(CheckCommand, UsageErrorsExitTwo) {
  EXPECT_EQ(RunPglayout({"check"}).exit_code, 2);
  EXPECT_EQ(RunPglayout({"no-such-command"}).exit_code, 2);
  Completion help = RunPglayout({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("Exit codes"), std::string::npos);
}

TEST(CheckCommand, JsonOutputParsesBack) {
  std::string path = WriteTempFile("json_volumes.toml", kGood);
  Completion run = RunPglayout({"check", "--json", path});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("\"kind\": \"volumes\""), std::string::npos);
  EXPECT_NE(run.output.find("\"read_iops\": 3000"), std::string::npos);
}

}  // namespace
}  // namespace pglayout
