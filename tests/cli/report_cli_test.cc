// Runs the real pglayout binary: `pglayout report` with any subset of
// inputs, plan.toml or plan.json, and errors that name the file.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/files.h"
#include "common/json.h"
#include "testing/subprocess.h"

namespace pglayout {
namespace {

Completion RunPglayout(const std::vector<std::string>& args) {
  Command command;
  command.argv = {PGLAYOUT_BINARY};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  return RunToCompletion(command);
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + std::to_string(getpid()) + "_" + name;
}

// Reads and removes a page the command wrote.
std::string ReadPage(const std::string& path) {
  std::string text;
  EXPECT_TRUE(ReadTextFile(path, &text).ok()) << path;
  unlink(path.c_str());
  return text;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

constexpr char kVolumes[] = "report/testdata/volumes.toml";
constexpr char kWorkload[] = "report/testdata/workload.toml";
constexpr char kPlan[] = "report/testdata/plan.toml";

TEST(ReportCommand, WritesThePageAndPrintsItsPath) {
  std::string out = TempPath("all.html");
  Completion run = RunPglayout({"report", "--volumes", kVolumes, "--workload",
                                kWorkload, "--plan", kPlan, "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, out + "\n");
  std::string page = ReadPage(out);
  EXPECT_TRUE(Contains(page, "<section id=\"volumes\""));
  EXPECT_TRUE(Contains(page, "<section id=\"workload\""));
  EXPECT_TRUE(Contains(page, "<section id=\"plan\""));
  EXPECT_TRUE(Contains(page, "From report/testdata/plan.toml"));
}

TEST(ReportCommand, PlanJsonGivesTheSamePlanSection) {
  Plan plan;
  ASSERT_TRUE(ReadPlanFile(kPlan, &plan).ok());
  std::string json = TempPath("plan.json");
  ASSERT_TRUE(WriteTextFile(json, ToJson(plan).dump(2)).ok());
  std::string from_toml = TempPath("toml.html");
  std::string from_json = TempPath("json.html");
  ASSERT_EQ(RunPglayout({"report", "--plan", kPlan, "-o", from_toml}).exit_code,
            0);
  Completion run = RunPglayout({"report", "--plan", json, "-o", from_json});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto plan_section = [](const std::string& page) {
    size_t begin = page.find("<section id=\"plan\"");
    size_t from = page.find("</p>", begin);  // skip "From <file>"
    return page.substr(from, page.find("</section>", begin) - from);
  };
  EXPECT_EQ(plan_section(ReadPage(from_json)),
            plan_section(ReadPage(from_toml)));
  unlink(json.c_str());
}

TEST(ReportCommand, OnlyTheGivenSectionsAppear) {
  std::string out = TempPath("workload.html");
  ASSERT_EQ(
      RunPglayout({"report", "--workload", kWorkload, "-o", out}).exit_code, 0);
  std::string page = ReadPage(out);
  EXPECT_TRUE(Contains(page, "<section id=\"workload\""));
  EXPECT_FALSE(Contains(page, "<section id=\"volumes\""));
  EXPECT_FALSE(Contains(page, "<section id=\"plan\""));
}

TEST(ReportCommand, MissingFileIsBadInputNamingIt) {
  std::string out = TempPath("missing.html");
  Completion run = RunPglayout(
      {"report", "--volumes", "/nonexistent/volumes.toml", "-o", out});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output, "error: /nonexistent/volumes.toml: no such file\n");
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "no page on failure";
}

TEST(ReportCommand, BadFileNamesFileLineAndKey) {
  std::string bad = TempPath("bad_workload.toml");
  ASSERT_TRUE(WriteTextFile(bad, "[wal]\nbytes_per_secnd = 5\n").ok());
  Completion run =
      RunPglayout({"report", "--workload", bad, "-o", TempPath("bad.html")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "error: " + bad + ":2:1:")) << run.output;
  EXPECT_TRUE(Contains(run.output, "bytes_per_second")) << run.output;

  std::string json = TempPath("bad_plan.json");
  ASSERT_TRUE(WriteTextFile(json, "{\"plan\": [").ok());
  run = RunPglayout({"report", "--plan", json, "-o", TempPath("bad2.html")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "error: " + json + ": not JSON"))
      << run.output;
  unlink(bad.c_str());
  unlink(json.c_str());
}

// --after: the workload observed after the migration, placed where its
// data is, beside the plan's forecast. Given the workload observed before,
// the "observed" column is the plan's own "before".
TEST(ReportCommand, AfterHoldsTheForecastToTheObservedLoad) {
  std::string out = TempPath("after.html");
  Completion run = RunPglayout({"report", "--volumes", kVolumes, "--plan",
                                kPlan, "--after", kWorkload, "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string page = ReadPage(out);
  EXPECT_TRUE(Contains(page, "<section id=\"forecast-check\""));
  EXPECT_TRUE(Contains(page, "From report/testdata/workload.toml"));
  EXPECT_TRUE(Contains(page, "points from its forecast")) << page;

  run =
      RunPglayout({"report", "--plan", kPlan, "--after", kWorkload, "-o", out});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output, std::string("error: --after ") + kWorkload +
                            " needs --volumes and --plan: the forecast to "
                            "compare with and the volumes to place the "
                            "observed load on\n");
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "no page on failure";
}

TEST(ReportCommand, OutputIsRequired) {
  EXPECT_EQ(RunPglayout({"report", "--plan", kPlan}).exit_code, 2);
}

TEST(ReportCommand, UnreachableJournalDatabaseFails) {
  Completion run = RunPglayout({"report", "--journal",
                                "host=127.0.0.1 port=1 connect_timeout=5", "-o",
                                TempPath("journal.html")});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "127.0.0.1")) << run.output;
}

}  // namespace
}  // namespace pglayout
