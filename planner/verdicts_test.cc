#include "planner/verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <random>

#include "common/files.h"
#include "planner/plan_builder.h"

namespace pglayout::planner {
namespace {

TEST(AboveTarget, JudgesAtThePrecisionThePlanPrints) {
  EXPECT_FALSE(AboveTarget(0.7004, 0.7));  // printed "70%": at the target
  EXPECT_EQ(Percent(0.7004), "70%");
  EXPECT_TRUE(AboveTarget(0.706, 0.7));  // "71%"
  EXPECT_FALSE(AboveTarget(0.69, 0.7));
  EXPECT_TRUE(AboveTarget(1.88, 0.7));
}

// Issue 21, finding 5: demand is taken as fixed; the plan says so and how
// far it may grow.
TEST(HeadroomVerdict, SaysTheMultipleOfTodaysDemandTheBusiestVolumeTakes) {
  Plan plan;
  plan.target_utilization = 0.7;
  EXPECT_EQ(HeadroomVerdict(plan), "");
  plan.forecast.resize(3);
  plan.forecast[0].volume = "base";
  plan.forecast[0].utilization_after = 0.284;
  plan.forecast[1].volume = "v1";
  plan.forecast[1].utilization_after = 0.5;
  plan.forecast[2].volume = "wal";
  plan.forecast[2].utilization_after = 0.02;
  EXPECT_EQ(HeadroomVerdict(plan),
            "demand: the forecast holds the observed demand fixed; on this "
            "plan the busiest volume, v1 at 50%, reaches the 70% target at "
            "1.40x that demand and its capacity at 2.00x");
  plan.forecast[1].utilization_after = 0.8;
  EXPECT_EQ(HeadroomVerdict(plan),
            "demand: the forecast holds the observed demand fixed; on this "
            "plan the busiest volume, v1 at 80%, is above the 70% target "
            "already and reaches its capacity at 1.25x that demand");
  plan.forecast[1].utilization_after = 1.3;
  EXPECT_NE(HeadroomVerdict(plan).find("v1 at 130%, cannot carry even that"),
            std::string::npos);
}

// ------------------------------------------------- the choice of remedy --

RemedyForecast Option(const std::string& remedy, double worst, double latency,
                      double target = 0.7) {
  RemedyForecast f;
  f.remedy = remedy;
  f.possible = true;
  f.helps = true;
  f.width = remedy == "stripe" ? 2 : 3;
  f.worst_utilization = worst;
  f.mean_read_latency_us = latency;
  f.meets_target = !AboveTarget(worst, target);
  return f;
}

TEST(ChooseRemedy, PreferIsOverriddenWhenOnlyTheOtherMeetsTheTarget) {
  // Issue 19's reproduction: --prefer stripe, a 2-volume stripe at 94%,
  // hash partitioning at 66%.
  const RemedyChoice c =
      ChooseRemedy(Option("hash_partition", 0.66, 1004),
                   Option("stripe", 0.94, 1500), "stripe", true, 0.7);
  EXPECT_EQ(c.chosen, "hash_partition");
  EXPECT_EQ(c.reason,
            "--prefer stripe overridden: its plan keeps the worst volume at "
            "94%, above the 70% target, and the plan with hash partitions "
            "meets it at 66%");
}

TEST(ChooseRemedy, PreferIsKeptWhenThePreferredMeetsTheTarget) {
  const RemedyChoice c =
      ChooseRemedy(Option("hash_partition", 0.50, 1000),
                   Option("stripe", 0.69, 1000), "stripe", true, 0.7);
  EXPECT_EQ(c.chosen, "stripe");
  EXPECT_NE(c.reason.find("as preferred (--prefer stripe)"), std::string::npos);
}

TEST(ChooseRemedy, AutoChoosesByTheForecastThenTheOperationalCost) {
  // Only one meets the target.
  EXPECT_EQ(ChooseRemedy(Option("hash_partition", 0.8, 1000),
                         Option("stripe", 0.6, 1000), "auto", true, 0.7)
                .chosen,
            "stripe");
  // Both meet it; the stripe is lower by more than the tolerance.
  EXPECT_EQ(ChooseRemedy(Option("hash_partition", 0.69, 1000),
                         Option("stripe", 0.5, 1000), "auto", true, 0.7)
                .chosen,
            "stripe");
  // Alike: latency decides when it differs by more than 5%.
  EXPECT_EQ(ChooseRemedy(Option("hash_partition", 0.66, 1000),
                         Option("stripe", 0.65, 1200), "auto", false, 0.7)
                .chosen,
            "hash_partition");
  // Alike in every figure: live -> partitions, new build -> stripe.
  EXPECT_EQ(ChooseRemedy(Option("hash_partition", 0.66, 1004),
                         Option("stripe", 0.65, 1001), "auto", true, 0.7)
                .chosen,
            "hash_partition");
  EXPECT_EQ(ChooseRemedy(Option("hash_partition", 0.66, 1004),
                         Option("stripe", 0.65, 1001), "auto", false, 0.7)
                .chosen,
            "stripe");
}

TEST(ChooseRemedy, WhatIsImpossibleOrUselessIsNotChosen) {
  RemedyForecast blocked = Option("hash_partition", 0, 0);
  blocked.possible = false;
  blocked.blocker = "no primary key";
  const RemedyChoice c = ChooseRemedy(blocked, Option("stripe", 0.9, 1000),
                                      "partition", true, 0.7);
  EXPECT_EQ(c.chosen, "stripe");
  EXPECT_NE(c.reason.find("hash partitioning: no primary key"),
            std::string::npos);
  RemedyForecast useless = Option("stripe", 0.9, 1000);
  useless.helps = false;
  EXPECT_EQ(ChooseRemedy(blocked, useless, "auto", true, 0.7).chosen, "none");
}

// ------------------------------------------ no verdict contradicts another --

struct Example {
  VolumeSet volumes;
  Workload workload;
};

void ExpectNoContradiction(const Example& e, const PlanOptions& options,
                           const std::string& what) {
  PlanOutcome out;
  const Status st = BuildPlan(e.volumes, e.workload, options, &out);
  if (!st.ok()) {
    // Inputs the planner refuses (the data does not fit at all) have no
    // verdicts to contradict; they must be refused as the user's fault.
    EXPECT_TRUE(st.IsInvalidInput()) << what << ": " << st.ToString();
    return;
  }
  const std::vector<std::string> found = Contradictions(out);
  EXPECT_TRUE(found.empty())
      << what << ":\n  " << fmt::format("{}", fmt::join(found, "\n  "))
      << "\nverdicts:\n  "
      << fmt::format("{}", fmt::join(out.plan.verdicts, "\n  "));
}

TEST(Verdicts, NoContradictionInTheExamples) {
  for (const char* name :
       {"oracle_cloud", "checkpoints", "striped_nvme_backup"}) {
    Example e;
    const std::string dir = fmt::format("examples/{}/", name);
    ASSERT_TRUE(ReadVolumesFile(dir + "volumes.toml", &e.volumes).ok());
    ASSERT_TRUE(ReadWorkloadFile(dir + "workload.toml", &e.workload).ok());
    for (const char* prefer : {"auto", "partition", "stripe"}) {
      PlanOptions options;
      options.prefer = prefer;
      ExpectNoContradiction(e, options, fmt::format("{} {}", name, prefer));
    }
  }
}

// A random but plausible set of volumes: some alike (stripes need alike,
// empty ones), some holding the data now, a few fast ones for the WAL,
// some sharing a device, sometimes measured together below alone or under
// instance caps.
VolumeSet RandomVolumes(std::mt19937* rng) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  VolumeSet set;
  const int n = pick(1, 7);
  const int kinds = pick(1, 3);
  for (int i = 0; i < n; ++i) {
    Volume v;
    v.name = fmt::format("v{}", i);
    v.path = fmt::format("/mnt/v{}", i);
    const int kind = i % kinds;
    v.capacity = static_cast<uint64_t>(200 + 300 * kind) << 30;
    v.read_iops = v.write_iops = 3000.0 * (1 + 4 * kind);
    v.read_mbps = v.write_mbps = 125.0 * (1 + kind);
    v.read_latency_us = 1000 - 300 * kind;
    v.sync_write_latency_us = 1500 - 400 * kind;
    set.volumes.push_back(v);
  }
  // Some volumes share a device with another (two partitions of a disk).
  for (int i = 1; i < n; ++i) {
    if (pick(0, 3) == 0) {
      set.volumes[i].shares_device_with.push_back(
          set.volumes[pick(0, i - 1)].name);
    }
  }
  // Sometimes probe --concurrent measured them together below alone.
  if (n >= 2 && pick(0, 3) == 0) {
    Concurrent& c = set.concurrent.emplace();
    c.iops_ratio = c.mbps_ratio = 0.1 * pick(3, 9);
    for (const Volume& v : set.volumes) c.volumes.push_back({v.name});
  }
  if (pick(0, 3) == 0) {
    set.host.iops_cap = 10000.0 * pick(1, 6);
    set.host.bandwidth_cap_mbps = 100.0 * pick(1, 8);
  }
  return set;
}

Workload RandomWorkload(const VolumeSet& volumes, std::mt19937* rng) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  Workload w;
  w.source = pick(0, 1) ? "live" : "hand";
  w.settings["server_version_num"] = pick(0, 1) ? "180000" : "150000";
  w.settings["data_directory"] = volumes.volumes[0].path + "/pgdata";
  w.wal_bytes_per_second = 1e6 * pick(1, 120);
  w.commits_per_second = 100.0 * pick(1, 60);
  const int tables = pick(1, 9);
  for (int t = 0; t < tables; ++t) {
    Relation r;
    r.name = fmt::format("public.t{}", t);
    r.size = static_cast<uint64_t>(pick(1, 150)) << 30;
    r.read_iops = 100.0 * pick(0, 300);
    r.write_iops = 50.0 * pick(0, 100);
    if (pick(0, 3) > 0) r.primary_key = {"id"};
    r.persistence = Persistence::kPermanent;
    r.replica_identity = ReplicaIdentity::kDefault;
    w.relations.push_back(r);
  }
  return w;
}

TEST(Verdicts, NoContradictionOnRandomisedInputs) {
  std::mt19937 rng(19);
  const char* prefers[] = {"auto", "partition", "stripe"};
  for (int i = 0; i < 300; ++i) {
    Example e;
    e.volumes = RandomVolumes(&rng);
    e.workload = RandomWorkload(e.volumes, &rng);
    PlanOptions options;
    options.prefer = prefers[i % 3];
    options.target_utilization = 0.5 + 0.05 * static_cast<int>(rng() % 8);
    ExpectNoContradiction(e, options, fmt::format("case {}", i));
  }
}

}  // namespace
}  // namespace pglayout::planner
