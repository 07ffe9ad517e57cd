// The page as a whole: well-formed for every subset of inputs, carrying
// the charts and figures of known inputs, and immune to markup in names.

#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "common/json.h"
#include "report/inputs.h"
#include "report/journal_sql.h"
#include "report/xml_check.h"

namespace pglayout::report {
namespace {

using testing::XmlPage;

struct Fixture {
  VolumeSet volumes;
  Workload workload;
  Plan plan;
};

// The fixture scenario (the layout of
// docs/source-scenarios.md#oracle-to-the-cloud), read through the real
// readers.
const Fixture& Scenario() {
  static const Fixture* fixture = [] {
    auto* f = new Fixture;
    Status st = ReadVolumesFile("report/testdata/volumes.toml", &f->volumes);
    if (st.ok()) {
      st = ReadWorkloadFile("report/testdata/workload.toml", &f->workload);
    }
    if (st.ok()) st = ReadPlanFile("report/testdata/plan.toml", &f->plan);
    if (!st.ok()) ADD_FAILURE() << st.message();
    return f;
  }();
  return *fixture;
}

ReportInput FullInput(const Fixture& f) {
  ReportInput in;
  in.volumes = &f.volumes;
  in.workload = &f.workload;
  in.plan = &f.plan;
  in.volumes_source = "volumes.toml";
  in.workload_source = "workload.toml";
  in.plan_source = "plan.toml";
  in.generated_at = "2024-05-01 12:00 UTC";
  in.version = "0.1.0";
  return in;
}

std::unique_ptr<XmlPage> ParseOrFail(const std::string& html) {
  std::string error;
  std::unique_ptr<XmlPage> page = XmlPage::Parse(html, &error);
  EXPECT_NE(page, nullptr) << "not well-formed: " << error;
  return page;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

MigrationJournal SampleJournal() {
  MigrationJournal j;
  j.run = "run-7";
  j.plan = "plan.toml";
  j.status = "done";
  j.started_at = "2024-05-01 02:00:00+00";
  j.finished_at = "2024-05-01 02:41:10+00";
  j.checkpoints_timed = 8;
  j.checkpoints_requested = 1;
  j.steps = {
      {1, "create_tablespace", "", "CREATE TABLESPACE hot1", "done", 0.2, 0, 0,
       "", ""},
      {2, "copy", "public.table_a", "copy into 5 partitions", "done", 1830,
       750000000, 193273528320ULL, "", ""},
      {3, "move", "public.events", "ALTER TABLE ... SET TABLESPACE", "failed",
       12.5, 0, 0, "lock timeout", ""},
  };
  j.settings = {{"max_wal_size", true, "1GB", "64GB", "restored"},
                {"checkpoint_timeout", true, "5min", "30min", "applied"},
                {"min_wal_size", true, "80MB", "1GB", "deferred"},
                {"effective_io_concurrency", false, "1", "64", "applied"}};
  return j;
}

TEST(StepDescription, SaysInWordsWhatTheJournalRecords) {
  const std::string detail =
      "h2:1731c4\npublic\norders\ncopy=blocks\n16472\n75916\n{}";
  EXPECT_EQ(StepDescription("copy", detail),
            "copying rows into the shadow table (copy by heap block ranges)");
  EXPECT_EQ(StepDescription("done", detail), "copy by heap block ranges");
  EXPECT_EQ(StepDescription("catchup", "h\npublic\nt\n\n\n"),
            "replaying the changes captured during the copy (copy in key "
            "order)");
  EXPECT_EQ(StepDescription("", ""), "");
  EXPECT_EQ(StepDescription("verify", ""), "at verify");
}

TEST(Report, FullScenarioIsWellFormedWithEverySection) {
  std::string html = RenderPage(FullInput(Scenario()));
  auto page = ParseOrFail(html);
  ASSERT_NE(page, nullptr);
  for (const char* id : {"volumes", "workload", "plan"}) {
    EXPECT_EQ(page->Count(std::string("//h:section[@id='") + id + "']"), 1)
        << id;
  }
  EXPECT_EQ(page->Count("//h:section[@id='migration']"), 0);
  // No script, no external reference of any kind.
  EXPECT_EQ(page->Count("//h:script"), 0);
  EXPECT_EQ(page->Count("//@src"), 0);
  EXPECT_EQ(page->Count("//@href[not(starts-with(., '#'))]"), 0);
  EXPECT_EQ(page->Count("//h:meta[@http-equiv='Content-Security-Policy']"), 1);
}

// A WAL (or tablespace) placed on a stripe shows on its member volumes.
TEST(Report, StripeMembersShowWhatThePlanPutsOnTheStripe) {
  Fixture f = Scenario();
  f.plan.wal_volume = "wal_stripe";
  f.plan.stripes.push_back({"wal_stripe",
                            {"wal", "hot5"},
                            64 * 1024,
                            "mdadm",
                            "the WAL is too hot for one volume"});
  std::string text = ParseOrFail(RenderPage(FullInput(f)))->AllText();
  EXPECT_TRUE(Contains(text, "WAL on stripe wal_stripe")) << text;
  EXPECT_TRUE(Contains(text,
                       "tablespace hot5, WAL on stripe "
                       "wal_stripe"))
      << text;
}

TEST(Report, VolumeChartsCarryKneeStripeAndOperatingPoint) {
  std::string html = RenderPage(FullInput(Scenario()));
  auto page = ParseOrFail(html);
  ASSERT_NE(page, nullptr);
  // data has all three curves, hot1 a latency curve; wal and hot2..5 are
  // declared only.
  EXPECT_EQ(page->Count("//s:svg[@id='volume-1-latency']"), 1);
  EXPECT_EQ(page->Count("//s:svg[@id='volume-1-seq']"), 1);
  EXPECT_EQ(page->Count("//s:svg[@id='volume-1-write']"), 1);
  EXPECT_EQ(page->Count("//s:svg[@id='volume-3-latency']"), 1);
  EXPECT_EQ(page->Count("//s:svg[@id='volume-2-latency']"), 0);
  auto labels = [&](const std::string& svg) {
    std::string all;
    for (const std::string& t :
         page->Texts("//s:svg[@id='" + svg + "']//s:text")) {
      all += t + "\n";
    }
    return all;
  };
  std::string latency = labels("volume-1-latency");
  EXPECT_TRUE(Contains(latency, "knee: QD64 · 23k IOPS")) << latency;
  EXPECT_TRUE(Contains(latency, "planned 22% · 1.1 ms")) << latency;
  EXPECT_TRUE(Contains(latency, "today 135% · 15 ms")) << latency;
  // hot1's probe recorded 32 readers to saturate.
  EXPECT_TRUE(Contains(labels("volume-3-latency"), "knee: QD32 · 20k IOPS"));
  std::string seq = labels("volume-1-seq");
  EXPECT_TRUE(Contains(seq, "full stripe 1 MiB")) << seq;
  EXPECT_TRUE(Contains(seq, "90% of the plateau at 2 MiB")) << seq;
  EXPECT_TRUE(Contains(seq, "4 readers")) << seq;
  // Every chart is an image with a title and a description.
  int charts = page->Count("//s:svg");
  EXPECT_EQ(page->Count("//s:svg[@role='img']/s:title"), charts);
  EXPECT_EQ(page->Count("//s:svg[@role='img']/s:desc"), charts);
}

TEST(Report, WorkloadRanksRelationsAndJudgesCheckpoints) {
  std::string html = RenderPage(FullInput(Scenario()));
  auto page = ParseOrFail(html);
  ASSERT_NE(page, nullptr);
  std::vector<std::string> bars =
      page->Texts("//s:svg[@id='workload-hot']//s:text[@class='bar-label']");
  ASSERT_GE(bars.size(), 3u);
  // The title child carries the full name, then the shown text.
  EXPECT_EQ(bars[0], "public.table_apublic.table_a");
  EXPECT_EQ(bars[1], "public.table_bpublic.table_b");
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text, "11.2k"));
  EXPECT_TRUE(Contains(text, "14 MB/s average · 31 MB/s peak"));
  EXPECT_TRUE(Contains(text, "61% of checkpoints were requested"));
  // server_version_num 150010 as people write it.
  EXPECT_TRUE(Contains(text, "15.10")) << text;
  EXPECT_FALSE(Contains(text, "150010")) << text;
  EXPECT_EQ(page->Count("//s:svg[@id='workload-checkpoints']"), 1);
}

TEST(Report, PlanShowsUtilisationTargetMapAndSettings) {
  std::string html = RenderPage(FullInput(Scenario()));
  auto page = ParseOrFail(html);
  ASSERT_NE(page, nullptr);
  std::string util;
  for (const std::string& t :
       page->Texts("//s:svg[@id='plan-utilization']//s:text")) {
    util += t + "\n";
  }
  EXPECT_TRUE(Contains(util, "target 70%"));
  EXPECT_TRUE(Contains(util, "135% ▲"));  // over target, marked by shape
  EXPECT_TRUE(Contains(util, "22%"));
  EXPECT_TRUE(Contains(util, "unused"));  // hot2 carried nothing before
  // The map: table_b's 10 partitions over 5 tablespaces, p0 and p5 on hot1
  // (cells: strategy, hot1, hot2, ...).
  EXPECT_EQ(page->Texts("//h:table[@class='matrix']//h:tr[h:th='public."
                        "table_b']/h:td[2]")
                .at(0),
            "■ 2 partitions (p0, p5)");
  // And per volume, each hash-partitioned table in one row.
  EXPECT_EQ(page->Texts("//h:table[h:caption='Hash partitions per volume']"
                        "//h:tr[h:td[1]='public.table_b']/h:td"),
            (std::vector<std::string>{"public.table_b", "10",
                                      "hot1 2, hot2 2, hot3 2, hot4 2, "
                                      "hot5 2"}));
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text, "max_wal_size1GB16GB"));  // setting, now, planned
  EXPECT_TRUE(Contains(text, "WALG_DIRECT_IO_BLOCK_COUNT256"));
  EXPECT_TRUE(Contains(text, "The host carries the demand"));
}

// What plan.json holds beyond the Plan: the warnings and the WAL move, the
// two remedies side by side, and the Citus distribution.
constexpr char kPlanJsonWithDetails[] = R"json({
 "plan": {"target_utilization": 0.7, "prefer": "auto",
  "warnings": ["the data directory /srv/pg lives on no declared volume"],
  "verdicts": ["fits: every volume at or below the 70% target"]},
 "wal": {"volume": "fast", "reason": "lowest commit latency",
  "now": "base", "now_note": "resolved from /srv/pg/pg_wal",
  "move": {"needs_restart": true, "from_volume": "base",
   "from_path": "/srv/pg/pg_wal", "to_path": "/mnt/fast/pg_wal",
   "data_directory": "/srv/pg", "from_utilization_until_moved": 0.81}},
 "forecast": [{"volume": "base", "utilization_before": 1.2,
  "utilization_after": 0.6}],
 "analysis": {"remedies": {
  "hash_partition": {"possible": true, "blocker": "",
   "summary": "hash partitions: public.a in 5", "members": [],
   "worst_utilization": 0.656, "mean_read_latency_us": 1004.0,
   "meets_target": true},
  "stripe": {"possible": true, "blocker": "",
   "summary": "a stripe of 5 for public.a", "members": ["v1", "v2"],
   "worst_utilization": 0.91, "mean_read_latency_us": 1500.0,
   "meets_target": false},
  "chosen": "hash_partition",
  "reason": "only the plan with hash partitions meets the target"}},
 "citus": {"reason": "one host falls short", "workers": 3,
  "workers_reason": "the fewest workers", "shard_count": 48,
  "shard_count_reason": "8 per worker x 3 workers, doubled",
  "worker_volumes": "w.toml",
  "groups": [{"anchor": "public.customers", "columns": "id / customer_id",
   "tables": ["public.customers", "public.orders"], "bytes_needed": 1024,
   "edges": [{"from": "public.orders", "to": "public.customers",
              "constraint": "orders_customer_fkey"}]}],
  "tables": [
   {"name": "public.countries", "role": "reference", "bytes": 1048576,
    "why": "small and read-mostly", "cautions": [], "references": []},
   {"name": "public.customers", "role": "distributed", "column": "id",
    "group": 1, "colocate_with": "none", "bytes": 2048, "why": "its own key",
    "cautions": [], "references": []},
   {"name": "public.orders", "role": "distributed", "column": "customer_id",
    "group": 1, "colocate_with": "public.customers", "bytes": 4096,
    "why": "follows public.customers", "cautions": [],
    "references": ["public.customers", "public.countries"]},
   {"name": "public.daily", "role": "local", "bytes": 10,
    "why": "a materialized view", "cautions": [], "references": []}],
  "not_following": [], "dropped_foreign_keys": [],
  "worker_forecast": [
   {"name": "worker1", "bytes": 100, "read_iops": 1000, "write_iops": 10,
    "max_utilization": 0.55, "max_utilization_before": 0, "fits": true},
   {"name": "worker2", "bytes": 100, "read_iops": 1000, "write_iops": 10,
    "max_utilization": 0.55, "max_utilization_before": 0, "fits": true},
   {"name": "worker3", "bytes": 100, "read_iops": 1000, "write_iops": 10,
    "max_utilization": 0.55, "max_utilization_before": 0, "fits": true}],
  "coordinator": {"name": "coordinator", "bytes": 10, "read_iops": 1,
   "write_iops": 0, "max_utilization": 0.02, "max_utilization_before": 1.92,
   "fits": true, "note": "the local tables"},
  "verdicts": ["citus: 2 distributed table(s) in 1 co-location group(s)"]}
})json";

// |text| read as plan.json into *plan and *details, and the input of a
// page of that plan alone.
ReportInput PlanJsonInput(const char* text, Plan* plan, PlanDetails* details) {
  Status st = ParsePlanJson(text, "plan.json", plan, details);
  EXPECT_TRUE(st.ok()) << st.message();
  ReportInput in;
  in.plan = plan;
  in.plan_details = details;
  in.plan_source = "plan.json";
  return in;
}

TEST(Report, PlanJsonDetailsShowWarningsWalMoveRemediesAndCitus) {
  Plan plan;
  PlanDetails details;
  ReportInput in = PlanJsonInput(kPlanJsonWithDetails, &plan, &details);
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);

  // The warning comes first in the plan section, as a warning.
  const auto callouts =
      page->Texts("//h:section[@id='plan']//h:p[contains(@class,'callout')]");
  ASSERT_GE(callouts.size(), 3u);
  EXPECT_EQ(callouts[0],
            "⚠ the data directory /srv/pg lives on no declared volume");
  EXPECT_EQ(page->Count("//h:section[@id='plan']//h:p[@class='callout "
                        "warning'][contains(., 'no declared volume')]"),
            1);
  // The WAL move: where from and to, the load until it is done, the
  // commands with the restart.
  std::string plan_text = page->Texts("//h:section[@id='plan']").at(0);
  EXPECT_TRUE(
      Contains(plan_text, "Moving the WAL: a step by hand, with a restart"));
  EXPECT_TRUE(Contains(plan_text, "/srv/pg/pg_wal on base"));
  EXPECT_TRUE(Contains(plan_text, "base also carries the WAL: 81% busy"));
  EXPECT_TRUE(Contains(plan_text, "on base (resolved from /srv/pg/pg_wal)"));
  EXPECT_EQ(page->Texts("//h:pre[@class='commands']/h:code").at(0),
            "pg_ctl stop -D '/srv/pg' -m fast\n"
            "mv '/srv/pg/pg_wal' '/mnt/fast/pg_wal'\n"
            "ln -sfn '/mnt/fast/pg_wal' '/srv/pg'/pg_wal\n"
            "pg_ctl start -D '/srv/pg'\n");

  // The remedies side by side, the winner marked, and why the other lost.
  EXPECT_EQ(page->Count("//h:div[@class='remedies']/h:article"), 2);
  EXPECT_EQ(page->Texts("//h:article[@class='chosen']/h:h4").at(0),
            "The plan with hash partitions — chosen");
  std::string lost = page->Texts("//h:article[@class='lost']").at(0);
  EXPECT_TRUE(Contains(lost, "91% (ABOVE the 70% target)")) << lost;
  EXPECT_TRUE(Contains(lost, "1.5 ms")) << lost;
  EXPECT_TRUE(Contains(page->Texts("//h:article[@class='chosen']").at(0),
                       "66% (within the 70% target)"));
  EXPECT_TRUE(Contains(plan_text,
                       "Chosen: hash partitions. Why: only the plan with hash "
                       "partitions meets the target"));

  // Citus: its own section, the group's members and the reference table
  // in the diagram with the co-locating key, shards and per-node load.
  EXPECT_EQ(page->Count("//h:nav//h:a[@href='#citus']"), 1);
  EXPECT_EQ(page->Texts("//s:svg[@id='citus-groups']//s:g[@class='table']"
                        "/s:title"),
            (std::vector<std::string>{"public.customers", "public.orders"}));
  EXPECT_EQ(page->Texts("//s:svg[@id='citus-groups']//s:g[@class='table "
                        "reference']/s:title"),
            (std::vector<std::string>{"public.countries"}));
  EXPECT_EQ(page->Count("//s:svg[@id='citus-groups']//s:path[@class='fk']"), 1);
  EXPECT_EQ(
      page->Count("//s:svg[@id='citus-groups']//s:path[@class='fk-reference']"),
      1);
  std::string citus = page->Texts("//h:section[@id='citus']").at(0);
  EXPECT_TRUE(Contains(citus, "48 (8 per worker x 3 workers, doubled)"));
  EXPECT_TRUE(Contains(citus, "3 (the fewest workers)"));
  EXPECT_TRUE(Contains(citus, "public.dailylocal"));  // table, role
  // Busiest volume today and after, per node.
  auto today_and_after = [&](const std::string& node) {
    const auto cells = page->Texts(
        "//h:table[h:caption='Forecast per node (at the peak)']//h:tr[h:td[1]"
        "='" +
        node + "']/h:td");
    return cells.size() == 8u ? cells[4] + " -> " + cells[5] : "no row";
  };
  EXPECT_EQ(today_and_after("worker1"), "new host -> 55%");
  EXPECT_EQ(today_and_after("worker3"), "new host -> 55%");
  EXPECT_EQ(today_and_after("coordinator"), "192% -> 2%");

  // From plan.toml there are no details: no Citus section, no remedies.
  in.plan_details = nullptr;
  auto plain = ParseOrFail(RenderPage(in));
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->Count("//h:section[@id='citus']"), 0);
  EXPECT_EQ(plain->Count("//h:div[@class='remedies']"), 0);
}

// A table in 7 partitions over 3 volumes (2/2/3), the counts the plan tried
// for it, and room to grow: the placement map counts the partitions on
// each volume, the curve shows each count's busiest volume, the growth
// line says what a doubling takes.
constexpr char kPlanJsonWithCounts[] = R"json({
 "plan": {"target_utilization": 0.7, "prefer": "auto"},
 "tablespaces": [{"name": "t1", "path": "/v1/pg", "volume": "v1"},
  {"name": "t2", "path": "/v2/pg", "volume": "v2"},
  {"name": "t3", "path": "/v3/pg", "volume": "v3"}],
 "placements": [{"relation": "shop.events", "strategy": "hash_partition",
  "tablespaces": ["t1", "t2", "t3", "t1", "t2", "t3", "t3"],
  "partitions": 7, "key": ["id"], "online": true},
  {"relation": "shop.orders", "strategy": "move", "tablespaces": ["t2"]}],
 "analysis": {"hot": [{"table": "shop.events", "chosen": "hash_partition",
  "partitions": 7, "bound": 0.58, "room_to_grow": true,
  "counts": [{"partitions": 3, "worst_utilization": 0.78},
             {"partitions": 5, "worst_utilization": 0.731},
             {"partitions": 4, "worst_utilization": 0.76},
             {"partitions": 6, "worst_utilization": 0.68},
             {"partitions": 7, "worst_utilization": 0.651}]},
  {"table": "shop.big", "chosen": "stripe", "partitions": 0, "counts": []}]}
})json";

TEST(Report, PartitionsPerVolumeTheCountCurveAndTheGrowthLine) {
  Plan plan;
  PlanDetails details;
  ReportInput in = PlanJsonInput(kPlanJsonWithCounts, &plan, &details);
  ASSERT_EQ(details.hot.size(), 2u);
  EXPECT_EQ(details.hot[0].counts.size(), 5u);
  EXPECT_TRUE(details.hot[0].room_to_grow);
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);

  // The map: how many partitions on each tablespace, and which.
  EXPECT_EQ(page->Texts("//h:table[@class='matrix']//h:tr[h:th='shop.events']"
                        "/h:td"),
            (std::vector<std::string>{
                "hash_partition", "■ 2 partitions (p0, p3)",
                "■ 2 partitions (p1, p4)", "■ 3 partitions (p2, p5, p6)"}));
  EXPECT_EQ(page->Texts("//h:table[h:caption='Hash partitions per volume']"
                        "//h:tr[h:td]/h:td"),
            (std::vector<std::string>{"shop.events", "7", "v1 2, v2 2, v3 3"}));

  // The curve: one point per count tried, in increasing order, the chosen
  // one marked, the target and the perfect spread beside it.
  EXPECT_EQ(page->Count("//h:h3[.='Partition counts']"), 1);
  EXPECT_EQ(page->Count("//s:svg[@id='count-curve-0']"), 1);
  EXPECT_EQ(page->Count("//s:svg[starts-with(@id, 'count-curve-1')]"), 0)
      << "a striped table has no count curve";
  const auto rows = page->Texts(
      "//h:figure[h:figcaption='Partition counts tried for shop.events']"
      "//h:tbody/h:tr");
  EXPECT_EQ(rows,
            (std::vector<std::string>{"378%above", "476%above", "573%above",
                                      "668%within", "765%withinchosen"}));
  std::string svg;
  for (const std::string& t :
       page->Texts("//s:svg[@id='count-curve-0']//s:text")) {
    svg += t + "\n";
  }
  EXPECT_TRUE(Contains(svg, "chosen: 7")) << svg;
  EXPECT_TRUE(Contains(svg, "perfect spread")) << svg;
  EXPECT_TRUE(Contains(svg, "target")) << svg;

  // The growth line, once, as information.
  EXPECT_EQ(
      page->Texts("//h:section[@id='plan']//h:p[@class='callout info']"
                  "[contains(., 'Room to grow')]"),
      (std::vector<std::string>{
          "ℹ Room to grow: shop.events is planned in 7 partitions over 3 "
          "volumes, twice the count the spread needs, because its data grows "
          "over the horizon. When it doubles, adding 3 volumes like v1, v2 "
          "and v3 moves partitions 3-4 and 6 there, whole and online, with "
          "no conversion again."}));

  // Without room to grow, no growth line; the curve stays.
  details.hot[0].room_to_grow = false;
  auto plain = ParseOrFail(RenderPage(in));
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->Count("//h:p[contains(., 'Room to grow')]"), 0);
  EXPECT_EQ(plain->Count("//s:svg[@id='count-curve-0']"), 1);
}

// pglayout report --after: the plan's forecast held to the load observed
// after the migration, volume by volume.
TEST(Report, ForecastCheckSetsEachVolumesForecastBesideWhatWasObserved) {
  ReportInput in = FullInput(Scenario());
  std::vector<ForecastEntry> observed(2);
  observed[0].volume = "data";
  observed[0].utilization_before = 0.25;  // forecast 22%
  observed[0].read_latency_us_before = 1300;
  observed[1].volume = "hot1";
  observed[1].utilization_before = 0.45;  // forecast 61%
  observed[1].read_latency_us_before = 900;
  in.measured_after = &observed;
  in.after_source = "workload-after.toml";
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page->Count("//h:section[@id='forecast-check']"), 1);
  EXPECT_EQ(page->Count("//h:nav//h:a[@href='#forecast-check']"), 1);
  auto cells = [&](const std::string& volume) {
    std::string row;
    for (const std::string& t :
         page->Texts("//h:section[@id='forecast-check']//h:tr[h:td='" + volume +
                     "']/h:td")) {
      row += t + "|";
    }
    return row;
  };
  EXPECT_EQ(cells("data"), "data|22%|25%|+3 points|1.1 ms|1.3 ms|");
  EXPECT_EQ(cells("hot1"), "hot1|61%|45%|-16 points|1.45 ms|900 µs|");
  // Volumes without an observation after (none here but data and hot1)
  // are left out rather than shown as 0%.
  EXPECT_EQ(cells("hot2"), "");
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text, "A volume is 16 points from its forecast"))
      << text;
  // Without the observation after, no such section.
  EXPECT_EQ(ParseOrFail(RenderPage(FullInput(Scenario())))
                ->Count("//h:section[@id='forecast-check']"),
            0);
}

TEST(Report, EachInputAloneGivesOnlyItsSection) {
  const Fixture& f = Scenario();
  MigrationJournal journal = SampleJournal();
  struct Case {
    const char* section;
    ReportInput input;
  };
  std::vector<Case> cases(4);
  cases[0] = {"volumes", {}};
  cases[0].input.volumes = &f.volumes;
  cases[1] = {"workload", {}};
  cases[1].input.workload = &f.workload;
  cases[2] = {"plan", {}};
  cases[2].input.plan = &f.plan;
  cases[3] = {"migration", {}};
  cases[3].input.journal = &journal;
  for (const Case& c : cases) {
    auto page = ParseOrFail(RenderPage(c.input));
    ASSERT_NE(page, nullptr) << c.section;
    EXPECT_EQ(page->Count("//h:section"), 1) << c.section;
    EXPECT_EQ(page->Count(std::string("//h:section[@id='") + c.section + "']"),
              1);
  }
  auto empty = ParseOrFail(RenderPage({}));
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->Count("//h:section"), 0);
  EXPECT_TRUE(Contains(empty->AllText(), "Nothing to show"));
}

TEST(Report, MigrationJournalShowsStepsCheckpointsAndRestores) {
  MigrationJournal journal = SampleJournal();
  ReportInput in;
  in.journal = &journal;
  in.journal_source = "127.0.0.1:5432/app as dba";
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page->Count("//s:svg[@id='migration-steps']"), 1);
  EXPECT_EQ(
      page->Count("//s:svg[@id='migration-steps']//s:g[@class='bar-row']"), 3);
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text, "30 min 30 s"));  // step 2's duration
  EXPECT_TRUE(Contains(text, "180 GiB"));      // step 2 copied
  EXPECT_TRUE(Contains(text, "750M rows"));
  EXPECT_TRUE(Contains(text, "✗ failed"));
  EXPECT_TRUE(Contains(text, "lock timeout"));
  EXPECT_TRUE(Contains(text, "1 checkpoint(s) were requested"));
  EXPECT_TRUE(
      Contains(text, "max_wal_sizefor the run1GB64GB✓ restored to 1GB"));
  EXPECT_TRUE(Contains(
      text,
      "checkpoint_timeoutfor the run5min30min✗ still raised by this run, "
      "which has not finished: `pglayout migrate --apply` with its plan "
      "resumes it and restores it to 5min, `pglayout migrate --abort` "
      "restores it now"));
  EXPECT_TRUE(Contains(text,
                       "min_wal_sizefor the run80MB1GBrestore to 80MB deferred "
                       "until a timed checkpoint makes room"));
  EXPECT_TRUE(
      Contains(text, "effective_io_concurrencyplan164✓ set by the plan"));
}

// A run whose online copy skipped its final comparison says so, in the
// run's facts and on the step; a compared one says it was verified.
TEST(Report, AnUnverifiedRunSaysSo) {
  MigrationJournal journal = SampleJournal();
  ASSERT_GE(journal.steps.size(), 2u);
  ReportInput in;
  in.journal = &journal;
  in.journal_source = "127.0.0.1:5432/app as dba";
  auto render = [&]() {
    auto page = ParseOrFail(RenderPage(in));
    return page ? page->AllText() : std::string();
  };
  EXPECT_FALSE(Contains(render(), "Verification"));  // no online copy
  journal.steps[1].verify = "full";
  std::string text = render();
  EXPECT_TRUE(Contains(text,
                       "Verificationverified: 1 online copy compared with its "
                       "table"))
      << text;
  EXPECT_FALSE(Contains(text, "unverified"));
  journal.steps[1].verify = "off";
  text = render();
  EXPECT_TRUE(Contains(text,
                       "Verificationunverified: 1 online copy not compared "
                       "with its table (--verify off)"))
      << text;
  EXPECT_TRUE(Contains(text, "; unverified")) << text;
}

// After a server crash the statistics start over: the counts are unknown,
// not a difference of counters that restarted.
TEST(Report, CheckpointsAcrossAStatisticsResetAreUnknown) {
  MigrationJournal journal = SampleJournal();
  journal.checkpoints_timed = journal.checkpoints_requested = 0;
  journal.checkpoints_unknown = "statistics were reset by a server restart";
  ReportInput in;
  in.journal = &journal;
  in.journal_source = "127.0.0.1:5432/app as dba";
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text,
                       "Timed and requested checkpoints during the run: "
                       "unknown (statistics were reset by a server restart)"))
      << text;
  EXPECT_EQ(page->Count("//s:svg[@id='migration-checkpoints']"), 0);
  EXPECT_FALSE(Contains(text, "checkpoint(s) were requested"));
}

TEST(Report, UnreadableJournalIsExplainedInItsSection) {
  ReportInput in;
  in.journal_source = "127.0.0.1:5432/app";
  in.journal_problem = "no migration journal (schema pglayout does not exist)";
  auto page = ParseOrFail(RenderPage(in));
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page->Texts("//h:section[@id='migration']/h:p[@role='note']").at(0),
            "⚠ no migration journal (schema pglayout does not exist)");
}

// Names come from catalogs and hand-written files: whatever they hold must
// come out as text, never as markup.
TEST(Report, MarkupInInputsStaysText) {
  const std::string evil_relation = "public.\"<script>alert(1)</script>\"";
  const std::string evil_volume = "<img src=x onerror=alert(1)>";
  const std::string evil_text = "]]><!-- & \"quoted\" 'single' \x01 \xff";
  VolumeSet volumes = Scenario().volumes;
  volumes.volumes[0].name = evil_volume;
  volumes.volumes[0].kind = evil_text;
  volumes.volumes[0].topology->members[0] = evil_text;
  Workload workload = Scenario().workload;
  workload.relations[0].name = evil_relation;
  workload.settings["max_wal_size"] = evil_text;
  Plan plan = Scenario().plan;
  plan.forecast[0].volume = evil_volume;
  plan.placements[0].relation = evil_relation;
  plan.placements[0].reason = evil_text;
  plan.verdicts.push_back(evil_text);
  plan.settings[0].reason = evil_text;
  plan.backup_walg[evil_text] = evil_volume;
  MigrationJournal journal = SampleJournal();
  journal.steps[0].relation = evil_relation;
  journal.steps[0].error = evil_text;
  ReportInput in = FullInput(Scenario());
  in.volumes = &volumes;
  in.workload = &workload;
  in.plan = &plan;
  in.journal = &journal;
  in.plan_source = evil_text;
  std::string html = RenderPage(in);
  auto page = ParseOrFail(html);
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(page->Count("//h:script | //h:img | //s:script"), 0);
  EXPECT_EQ(page->Count("//@onerror"), 0);
  EXPECT_EQ(page->Count("//comment()"), 0);
  std::string text = page->AllText();
  EXPECT_TRUE(Contains(text, evil_relation));
  EXPECT_TRUE(Contains(text, evil_volume));
  EXPECT_TRUE(Contains(text, "]]><!-- & \"quoted\" 'single'"));
  EXPECT_FALSE(Contains(html, "<script"));
  EXPECT_FALSE(Contains(html, "<img"));
}

TEST(Report, SameInputsGiveSameBytes) {
  EXPECT_EQ(RenderPage(FullInput(Scenario())),
            RenderPage(FullInput(Scenario())));
}

TEST(PlanJson, ReadsWhatToJsonWrites) {
  const Plan& plan = Scenario().plan;
  Plan back;
  ASSERT_TRUE(ParsePlanJson(ToJson(plan).dump(2), "plan.json", &back).ok());
  EXPECT_EQ(PlanToToml(back), PlanToToml(plan));
}

TEST(PlanJson, ErrorsNameTheFileAndTheKey) {
  Plan plan;
  Status st = ParsePlanJson("{\"plan\": ", "x/plan.json", &plan);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message().rfind("x/plan.json: not JSON", 0), 0u) << st.message();
  st = ParsePlanJson("{\"plan\": {\"target_utilization\": \"high\"}}",
                     "plan.json", &plan);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_TRUE(Contains(st.message(), "plan.json: key 'target_utilization'"))
      << st.message();
  st = ParsePlanJson("[]", "plan.json", &plan);
  EXPECT_TRUE(st.IsInvalidInput());
  st = ParsePlanJson(
      "{\"placements\": [{\"relation\": \"a.b\", \"strategy\": \"shard\"}]}",
      "plan.json", &plan);
  EXPECT_TRUE(Contains(st.message(), "strategy 'shard'")) << st.message();
}

// plan.json is read within the limits of every input file (common/
// input_limits.h): each bad value is InvalidInput naming the file and
// where the value is, and nothing crashes, hangs or takes the memory.
TEST(PlanJson, RefusesValuesBeyondTheInputLimits) {
  struct Case {
    std::string json, expected;
  };
  const std::vector<Case> cases = {
      {R"({"forecast": [{"volume": "a", "utilization_after": 1e300}]})",
       "plan.json: forecast[0].utilization_after: must be at most 1e+15"},
      {R"({"forecast": [{"volume": "a", "read_latency_us_after": 1e-320}]})",
       "plan.json: forecast[0].read_latency_us_after: 1e-320 is too small"},
      {R"({"analysis": {"x": [-1e300]}})",
       "plan.json: analysis.x[0]: must be at most 1e+15"},
      {R"({"forecast": [{"utilization_after": 1e400}]})",
       "plan.json: a number is out of range"},
      {R"({"forecast": [{"utilization_after": NaN}]})", "plan.json: not JSON"},
      {R"({"forecast": [{"utilization_after": "NaN"}]})",
       "key 'utilization_after': expected a number, got string"},
      {R"({"forecast": [{"utilization_after": -2}]})",
       "key 'utilization_after': must not be negative"},
      {R"({"placements": [{"relation": "a.b", "partitions": 1.5}]})",
       "key 'partitions': expected a whole number from 0 to 1048576, got 1.5"},
      {R"({"placements": [{"relation": "a.b", "partitions": 99999999999}]})",
       "key 'partitions': expected a whole number"},
      {R"({"stripes": [{"name": "s", "chunk": -1}]})",
       "key 'chunk': expected a whole number of bytes"},
      {R"({"citus": {"coordinator": {"bytes": 18446744073709551615}}})",
       "plan.json: citus.coordinator.bytes: must be at most 2^60"},
      {R"({"placements": [{"relation": ["a"]}]})", "key 'relation'"},
      {R"({"placements": {"relation": "a"}})", "plan.json: "},
      {R"({"plan": {"warnings": "one"}})", "key 'warnings'"},
      {"{\"plan\": {\"prefer\": \"\xE9\"}}", "plan.json: not JSON"},
      {std::string(100, '[') + std::string(100, ']'), "plan.json: "},
      {"{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}",
       "plan.json: arrays and objects nest deeper than 32 levels"},
      {R"({"placements": [{"relation": "a\u001b[31m\nb", "strategy": "x"}]})",
       "placement 'a\\u001B[31m\\u000Ab': strategy 'x'"},
  };
  for (const Case& c : cases) {
    Plan plan;
    Status st = ParsePlanJson(c.json, "plan.json", &plan);
    EXPECT_TRUE(st.IsInvalidInput()) << c.json.substr(0, 200);
    EXPECT_TRUE(Contains(st.message(), c.expected))
        << c.json.substr(0, 200) << "\n"
        << st.message().substr(0, 400);
    EXPECT_LT(st.message().size(), 1000u);
  }
}

// A 100 MB string is refused by its length, named by where it is, and the
// message does not repeat it.
TEST(PlanJson, RefusesAHugeString) {
  std::string json = R"({"placements": [{"relation": "a.b", "reason": ")" +
                     std::string(100'000'000, 'x') + R"("}]})";
  Plan plan;
  Status st = ParsePlanJson(json, "plan.json", &plan);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_TRUE(Contains(st.message(),
                       "plan.json: placements[0].reason: is 100000000 bytes "
                       "long; a string may have at most 1048576"))
      << st.message().substr(0, 400);
  EXPECT_LT(st.message().size(), 1000u);
}

// A file larger than the cap is refused before it is read (a sparse file
// here: nothing is written).
TEST(PlanJson, RefusesAFileLargerThanTheCap) {
  const std::string path = ::testing::TempDir() + "/huge-plan.json";
  std::filesystem::remove(path);
  { std::ofstream(path) << "{}"; }
  std::filesystem::resize_file(path, (uint64_t{256} << 20) + 1);
  Plan plan;
  Status st = ReadPlanAnyFormat(path, &plan);
  std::filesystem::remove(path);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_TRUE(Contains(st.message(),
                       path + ": 268435457 bytes, more than the 256 MiB an "
                              "input file may have"))
      << st.message();
}

TEST(PlanJson, ChosenByExtension) {
  Plan plan;
  Status st = ReadPlanAnyFormat("report/testdata/plan.toml", &plan);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(plan.placements.size(), 5u);
  st = ReadPlanAnyFormat("/nonexistent/plan.json", &plan);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st.message(), "/nonexistent/plan.json"));
}

}  // namespace
}  // namespace pglayout::report

namespace pglayout::report {
namespace {

// The examples' scenarios (examples/*/): whichever of volumes.toml,
// workload.toml and plan.toml / plan.json a scenario has, its report is
// well-formed and shows a section per file, with a latency chart for each
// volume that has a measured curve.
TEST(ExamplesReport, EveryScenarioRendersItsSections) {
  namespace fs = std::filesystem;
  int scenarios = 0;
  for (const fs::directory_entry& dir : fs::directory_iterator("examples")) {
    if (!dir.is_directory()) continue;
    const std::string base = dir.path().string() + "/";
    VolumeSet volumes;
    Workload workload;
    Plan plan;
    ReportInput in;
    if (fs::exists(base + "volumes.toml")) {
      Status st = ReadVolumesFile(base + "volumes.toml", &volumes);
      ASSERT_TRUE(st.ok()) << st.message();
      in.volumes = &volumes;
    }
    if (fs::exists(base + "workload.toml")) {
      Status st = ReadWorkloadFile(base + "workload.toml", &workload);
      ASSERT_TRUE(st.ok()) << st.message();
      in.workload = &workload;
    }
    for (const char* name : {"plan.toml", "plan.json"}) {
      if (in.plan == nullptr && fs::exists(base + name)) {
        Status st = ReadPlanAnyFormat(base + name, &plan);
        ASSERT_TRUE(st.ok()) << st.message();
        in.plan = &plan;
      }
    }
    if (!in.volumes && !in.workload && !in.plan) continue;
    ++scenarios;
    auto page = ParseOrFail(RenderPage(in));
    ASSERT_NE(page, nullptr) << base;
    EXPECT_EQ(page->Count("//h:section[@id='volumes']"), in.volumes ? 1 : 0);
    EXPECT_EQ(page->Count("//h:section[@id='workload']"), in.workload ? 1 : 0);
    EXPECT_EQ(page->Count("//h:section[@id='plan']"), in.plan ? 1 : 0);
    if (in.volumes) {
      int curves = 0;
      for (const Volume& v : volumes.volumes) curves += !v.randread.empty();
      EXPECT_EQ(page->Count("//s:svg[starts-with(@id, 'volume-') and "
                            "contains(@id, '-latency')]"),
                curves)
          << base;
      EXPECT_EQ(page->Count("//h:table[h:caption='Volumes at a glance']"
                            "/h:tbody/h:tr"),
                static_cast<int>(volumes.volumes.size()));
    }
    if (in.workload && !workload.relations.empty()) {
      EXPECT_EQ(page->Count("//s:svg[@id='workload-hot']"), 1) << base;
    }
    if (in.plan && !plan.forecast.empty()) {
      EXPECT_EQ(page->Count("//s:svg[@id='plan-utilization']"), 1) << base;
    }
  }
  EXPECT_GE(scenarios, 1) << "no scenario found under examples/";
}

}  // namespace
}  // namespace pglayout::report
