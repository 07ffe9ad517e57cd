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

// "36%" as the page prints a fraction.
std::string Pct(double fraction) {
  return std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "%";
}

// The plan's warnings and its WAL move, read from plan.json.
TEST(ReportCommand, PlanJsonShowsTheWarningsAndTheWalMove) {
  Plan plan;
  ASSERT_TRUE(ReadPlanFile(kPlan, &plan).ok());
  plan.warnings = {"the data directory /srv/pg lives on no declared volume"};
  plan.wal_move =
      WalMove{"hot1", "/srv/pg/pg_wal", "/mnt/wal/pg_wal", "/srv/pg", 0.8};
  std::string json = TempPath("warned.json");
  ASSERT_TRUE(WriteTextFile(json, ToJson(plan).dump(2)).ok());
  std::string out = TempPath("warned.html");
  Completion run = RunPglayout({"report", "--plan", json, "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string page = ReadPage(out);
  EXPECT_TRUE(Contains(page,
                       "<p class=\"callout warning\" role=\"note\">⚠ the data "
                       "directory /srv/pg lives on no declared volume</p>"));
  EXPECT_TRUE(Contains(page, "Moving the WAL: a step by hand, with a restart"));
  EXPECT_TRUE(Contains(page, "pg_ctl stop -D &#39;/srv/pg&#39; -m fast"))
      << page.substr(page.find("Moving the WAL"), 2000);
  EXPECT_TRUE(Contains(page, "hot1 also carries the WAL: 80% busy"));
  unlink(json.c_str());
}

// pglayout plan writes plan.json; the report shows both remedies it
// weighed, with the reason it gives (examples/oracle_cloud, from the tree).
TEST(ReportCommand, PlanJsonShowsBothRemediesAndWhyTheLoserLost) {
  const std::string dir = TempPath("oracle");
  Completion plan = RunPglayout(
      {"plan", "--volumes", "examples/oracle_cloud/volumes.toml", "--workload",
       "examples/oracle_cloud/workload.toml", "--out-dir", dir});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  std::string text;
  ASSERT_TRUE(ReadTextFile(dir + "/plan.json", &text).ok());
  const Json remedies = Json::parse(text)["analysis"]["remedies"];
  std::string out = TempPath("oracle.html");
  Completion run =
      RunPglayout({"report", "--plan", dir + "/plan.json", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string page = ReadPage(out);
  ASSERT_EQ(remedies["chosen"], "hash_partition");
  EXPECT_TRUE(Contains(page, "The plan with hash partitions — chosen"));
  EXPECT_TRUE(Contains(page, "The plan with a stripe — not chosen"));
  EXPECT_TRUE(Contains(page, "Chosen: hash partitions. Why: " +
                                 remedies["reason"].get<std::string>()));
  for (const char* side : {"hash_partition", "stripe"}) {
    EXPECT_TRUE(Contains(page, remedies[side]["summary"].get<std::string>()));
    EXPECT_TRUE(
        Contains(page, Pct(remedies[side]["worst_utilization"].get<double>()) +
                           " (within the 70% target)"))
        << side;
  }
}

// The scale-out example's plan (--hosts auto): the report shows the
// distribution, its group as a diagram and each node's load.
TEST(ReportCommand, PlanJsonShowsTheCitusDistribution) {
  const std::string dir = TempPath("scale_out");
  Completion plan =
      RunPglayout({"plan", "--volumes", "examples/scale_out/volumes.toml",
                   "--workload", "examples/scale_out/workload.toml", "--hosts",
                   "auto", "--reference-max-size", "8GB", "--out-dir", dir});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  std::string text;
  ASSERT_TRUE(ReadTextFile(dir + "/plan.json", &text).ok());
  const Json citus = Json::parse(text)["citus"];
  ASSERT_TRUE(citus.is_object()) << text;
  // What examples/scale_out/README.md describes.
  EXPECT_EQ(citus["workers"], 3);
  EXPECT_EQ(citus["shard_count"], 48);
  EXPECT_EQ(citus["groups"][0]["tables"],
            (std::vector<std::string>{"public.a", "public.b"}));
  std::string out = TempPath("scale_out.html");
  Completion run =
      RunPglayout({"report", "--plan", dir + "/plan.json", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string page = ReadPage(out);
  EXPECT_TRUE(Contains(page, "<section id=\"citus\""));
  // A and B co-located by A's id; products a reference table.
  EXPECT_TRUE(Contains(page, "<g class=\"table\"><title>public.a</title>"));
  EXPECT_TRUE(Contains(page, "<g class=\"table\"><title>public.b</title>"));
  EXPECT_TRUE(Contains(
      page, "<g class=\"table reference\"><title>public.products</title>"));
  EXPECT_TRUE(
      Contains(page, "<title>public.b → public.a (co-located)</title>"));
  const int shards = citus["shard_count"].get<int>();
  EXPECT_TRUE(Contains(page, "<dd>" + std::to_string(shards) + " ("));
  for (const Json& w : citus["worker_forecast"]) {
    const std::string row = "<tr><td>" + w["name"].get<std::string>() + "</td>";
    const size_t at = page.find(row);
    ASSERT_NE(at, std::string::npos) << row;
    EXPECT_TRUE(Contains(page.substr(at, page.find("</tr>", at) - at),
                         ">" + Pct(w["max_utilization"].get<double>()) + "<"))
        << page.substr(at, 600);
  }
  const double before = citus["coordinator"]["max_utilization_before"];
  EXPECT_GT(before, 0.7);  // today's one host is over the target
  const size_t at = page.find("<tr><td>coordinator</td>");
  ASSERT_NE(at, std::string::npos);
  EXPECT_TRUE(Contains(page.substr(at, page.find("</tr>", at) - at),
                       ">" + Pct(before) + "<"));
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
  EXPECT_EQ(run.output,
            "pglayout: error: could not read \"/nonexistent/volumes.toml\": "
            "No such file or directory\n");
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "no page on failure";
}

TEST(ReportCommand, BadFileNamesFileLineAndKey) {
  std::string bad = TempPath("bad_workload.toml");
  ASSERT_TRUE(WriteTextFile(bad, "[wal]\nbytes_per_secnd = 5\n").ok());
  Completion run =
      RunPglayout({"report", "--workload", bad, "-o", TempPath("bad.html")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "pglayout: error: " + bad + ":2:1:"))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "bytes_per_second")) << run.output;

  std::string json = TempPath("bad_plan.json");
  ASSERT_TRUE(WriteTextFile(json, "{\"plan\": [").ok());
  run = RunPglayout({"report", "--plan", json, "-o", TempPath("bad2.html")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.output, "pglayout: error: " + json + ": not JSON"))
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
  EXPECT_EQ(run.output, std::string("pglayout: error: --after ") + kWorkload +
                            " needs --volumes and --plan: the forecast to "
                            "compare with and the volumes to place the "
                            "observed load on\npglayout: hint: Try "
                            "\"pglayout report --help\" for more "
                            "information.\n");
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
