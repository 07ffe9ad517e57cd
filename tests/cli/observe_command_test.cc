// `pglayout observe` bad inputs through the real binary (issue 4): the
// user's mistakes exit 2 with a message naming the problem, an unreachable
// server exits 1 naming host and port, and the password never appears.
// The library functions behind them have their own tests (planner/).

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ObserveCommand, DurationShorterThanTwoIntervalsExitsTwo) {
  // A server that would never answer: the options fail before connecting.
  Completion run = RunPglayout(
      {"observe", "--dsn", "host=192.0.2.1 connect_timeout=30", "--duration",
       "15s", "--interval", "10s", "-o", ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, "shorter than two intervals")) << run.output;
}

TEST(ObserveCommand, UnreachableServerNamesHostAndPortButNotThePassword) {
  std::string out = ::testing::TempDir() + "/unreachable.toml";
  std::filesystem::remove(out);
  Completion run =
      RunPglayout({"observe", "--dsn",
                   "host=127.0.0.1 port=1 user=monitor password=hunter2-secret "
                   "connect_timeout=3",
                   "--duration", "2s", "--interval", "1s", "-o", out});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "127.0.0.1")) << run.output;
  EXPECT_TRUE(Contains(run.output, "port 1")) << run.output;
  EXPECT_FALSE(Contains(run.output, "hunter2")) << run.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing observed, no file";
}

TEST(ObserveCommand, MalformedSegmentsCsvExitsTwoNamingLineAndColumn) {
  std::string csv = WriteTempFile(
      "bad_segments.csv",
      "owner,segment_name,segment_type,physical_reads,physical_writes,bytes,"
      "interval_seconds\nS,T,TABLE,12x,0,1,60\n");
  Completion run = RunPglayout({"observe", "--from-segments", csv, "-o",
                                ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(
      Contains(run.output, csv + ":2:11: column 'physical_reads' expected a "
                                 "non-negative number, got '12x'"))
      << run.output;
}

TEST(ObserveCommand, UnreadableLogNamesTheFile) {
  Completion run =
      RunPglayout({"observe", "--from-log", "/nonexistent/postgresql.log", "-o",
                   ::testing::TempDir() + "/w.toml"});
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "cannot read server log /nonexistent/postgresql.log"))
      << run.output;
}

}  // namespace
}  // namespace pglayout
