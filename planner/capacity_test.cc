#include "planner/capacity.h"

#include <gtest/gtest.h>

#include <string>

#include "common/files.h"
#include "common/units.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// Scales with size only (OCI Balanced's shape).
VolumeType SizeScaled() {
  VolumeType t;
  t.name = "scaled";
  t.provider = "p";
  t.min_size = 50 * kGiB;
  t.max_size = 32 * 1024 * kGiB;
  t.iops_per_gib = 60;
  t.iops_max = 25000;
  t.throughput_unit = "MB/s";
  t.throughput_per_gib = 0.48;
  t.throughput_max = 480;
  t.read_latency_us = t.sync_write_latency_us = 1000;
  t.price_per_gib = 0.0425;
  return t;
}

// Included baseline, provisioned above it (gp3's shape).
VolumeType Provisioned() {
  VolumeType t;
  t.name = "prov";
  t.provider = "p";
  t.min_size = kGiB;
  t.max_size = 64 * 1024 * kGiB;
  t.iops_base = 3000;
  t.iops_max = 80000;
  t.iops_max_per_gib = 500;
  t.iops_provisioned = true;
  t.throughput_unit = "MiB/s";
  t.throughput_base = 125;
  t.throughput_max = 2000;
  t.throughput_max_per_iops = 0.25;
  t.throughput_provisioned = true;
  t.read_latency_us = t.sync_write_latency_us = 1000;
  t.price_per_gib = 0.08;
  t.iops_price = {{0, 0.005}};
  t.price_per_throughput = 0.04;
  return t;
}

// A fixed-performance type: |iops| included, nothing provisioned.
VolumeType Fixed(const std::string& name, double iops, double price_per_gib,
                 uint64_t min_size) {
  VolumeType t;
  t.name = name;
  t.provider = "p";
  t.min_size = min_size;
  t.max_size = 1024 * kGiB;
  t.iops_base = iops;
  t.iops_max = iops;
  t.throughput_unit = "MB/s";
  t.throughput_base = 1000;
  t.throughput_max = 1000;
  t.read_latency_us = t.sync_write_latency_us = 1000;
  t.price_per_gib = price_per_gib;
  return t;
}

TEST(CheapestConfig, ProvisionsIopsAboveTheBaseline) {
  VolumeType t = Provisioned();
  VolumeConfig c;
  std::string why;
  ASSERT_TRUE(CheapestConfig(t, {12000, 100, 100 * kGiB}, &c, &why)) << why;
  EXPECT_EQ(c.size, 100 * kGiB);
  EXPECT_DOUBLE_EQ(c.iops, 12000);
  EXPECT_DOUBLE_EQ(c.paid_iops, 9000);
  EXPECT_DOUBLE_EQ(c.throughput, 125);  // 100 MB/s = 95.4 MiB/s, included
  EXPECT_DOUBLE_EQ(c.paid_throughput, 0);
  EXPECT_NEAR(c.price, 100 * 0.08 + 9000 * 0.005, 1e-9);
}

TEST(CheapestConfig, GrowsTheSizeWhenTheIopsRatioNeedsIt) {
  VolumeType t = Provisioned();
  VolumeConfig c;
  std::string why;
  // 40,000 IOPS at 500 per GiB need 80 GiB, though 10 GiB hold the data.
  ASSERT_TRUE(CheapestConfig(t, {40000, 10, 10 * kGiB}, &c, &why)) << why;
  EXPECT_EQ(c.size, 80 * kGiB);
}

TEST(CheapestConfig, ThroughputBuysIopsWhenCappedPerIops) {
  VolumeType t = Provisioned();
  VolumeConfig c;
  std::string why;
  // 1,500 MiB/s at 0.25 MiB/s per IOPS needs 6,000 IOPS.
  const double mbps = 1500 * 1048576.0 / 1e6;
  ASSERT_TRUE(CheapestConfig(t, {1000, mbps, 100 * kGiB}, &c, &why)) << why;
  EXPECT_DOUBLE_EQ(c.iops, 6000);
  EXPECT_DOUBLE_EQ(c.throughput, 1500);
  EXPECT_DOUBLE_EQ(c.paid_throughput, 1375);
}

TEST(CheapestConfig, SizeScaledTypesBuyBytesForPerformance) {
  VolumeType t = SizeScaled();
  VolumeConfig c;
  std::string why;
  // 12,000 IOPS need 200 GiB at 60 IOPS/GiB, and their 98.3 MB/s of 8 KiB
  // pages need 205 GiB at 0.48 MB/s per GiB: the larger wins.
  ASSERT_TRUE(
      CheapestConfig(t, {12000, 12000 * 8192 / 1e6, 50 * kGiB}, &c, &why))
      << why;
  EXPECT_EQ(c.size, 205 * kGiB);
  EXPECT_DOUBLE_EQ(c.paid_iops, 0);
  EXPECT_NEAR(c.price, 205 * 0.0425, 1e-9);
}

TEST(CheapestConfig, TieredIopsPrices) {
  VolumeType t = Provisioned();
  t.iops_base = 0;
  t.throughput_base = 0;
  t.throughput_provisioned = false;
  t.throughput_per_iops = 0.256;
  t.throughput_max_per_iops = 0;
  t.iops_max_per_gib = 1000;
  t.iops_price = {{32000, 0.065}, {64000, 0.0455}, {0, 0.032}};
  t.price_per_gib = 0.125;
  VolumeConfig c;
  std::string why;
  ASSERT_TRUE(CheapestConfig(t, {70000, 10, 100 * kGiB}, &c, &why)) << why;
  EXPECT_EQ(c.size, 100 * kGiB);  // 70 GiB would do for the IOPS ratio
  EXPECT_NEAR(c.price,
              100 * 0.125 + 32000 * 0.065 + 32000 * 0.0455 + 6000 * 0.032,
              1e-6);
}

TEST(CheapestConfig, SaysWhichLimitStopsIt) {
  VolumeConfig c;
  std::string why;
  EXPECT_FALSE(CheapestConfig(Provisioned(), {90000, 10, kGiB}, &c, &why));
  EXPECT_NE(why.find("needs 90000 IOPS per volume; prov gives at most 80000"),
            std::string::npos)
      << why;
  EXPECT_FALSE(
      CheapestConfig(SizeScaled(), {1000, 8, 40 * 1024 * kGiB}, &c, &why));
  EXPECT_NE(why.find("holds at most"), std::string::npos) << why;
}

// |n| tables of |gib| GiB and |iops| reads each, no primary key (so no
// hash partitioning), 100 commits/s.
Workload Tables(int n, double gib, double iops) {
  Workload w;
  w.source = "hand";
  w.commits_per_second = 100;
  for (int i = 0; i < n; ++i) {
    Relation r;
    r.name = "public.t" + std::to_string(i);
    r.size = static_cast<uint64_t>(gib * kGiB);
    r.read_iops = iops;
    w.relations.push_back(r);
  }
  return w;
}

CapacityPlan Plan(const Catalog& catalog, const Workload& workload,
                  const CapacityOptions& capacity = {}) {
  CapacityPlan plan;
  Status st = PlanCapacity(catalog, workload, PlanOptions{}, capacity, &plan);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return plan;
}

TEST(PlanCapacity, ChoosesTheCheapestSetThePlannerAccepts) {
  // Three 20 GiB tables of 800 IOPS at the 70% target: one 3,000-IOPS
  // volume cannot carry 2,400 IOPS (3,429 needed); two 38 GiB volumes (the
  // perfect-spread bound, $76) cannot hold three whole tables within their
  // 20% headroom; three volumes at the 30 GiB minimum ($90) can. The
  // 10,000-IOPS type at $5/GiB is cheaper for the 2 GiB WAL volume ($10)
  // and dearer for the data (75 GiB, $375).
  Catalog catalog;
  catalog.types = {Fixed("a", 3000, 1, 30 * kGiB), Fixed("b", 10000, 5, kGiB)};
  CapacityPlan plan = Plan(catalog, Tables(3, 20, 800));
  ASSERT_TRUE(plan.found) << plan.verdict;
  ASSERT_EQ(plan.bill.size(), 4u);
  EXPECT_EQ(plan.bill[0].volume, "wal");
  EXPECT_EQ(plan.bill[0].role, "wal");
  EXPECT_EQ(plan.bill[0].config.type->name, "b");
  EXPECT_EQ(plan.bill[0].config.size, 2 * kGiB);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(plan.bill[i].config.type->name, "a");
    EXPECT_EQ(plan.bill[i].config.size, 30 * kGiB);
    EXPECT_DOUBLE_EQ(plan.bill[i].config.iops, 3000);
  }
  EXPECT_NEAR(plan.total, 100, 1e-9);
  // Why not cheaper: the two-volume set, priced lower, and why it failed.
  ASSERT_FALSE(plan.cheaper.empty());
  EXPECT_NEAR(plan.cheaper.back().price, 86, 1e-9);
  EXPECT_NE(plan.cheaper.back().description.find("2 x a 38 GiB"),
            std::string::npos)
      << plan.cheaper.back().description;
  for (const Alternative& a : plan.cheaper) {
    EXPECT_LT(a.price, plan.total);
    EXPECT_FALSE(a.failed.empty());
  }
  EXPECT_NE(plan.verdict.find("100.00 USD per month"), std::string::npos)
      << plan.verdict;
  // The normal plan ran on the chosen set: the WAL alone on its volume and
  // every volume within the target.
  EXPECT_EQ(plan.outcome.plan.wal_volume, "wal");
  for (const ForecastEntry& f : plan.outcome.plan.forecast) {
    EXPECT_LE(f.utilization_after, 0.7) << f.volume;
  }
}

TEST(PlanCapacity, AStripeLetsTwoSmallVolumesCarryOneHotTable) {
  // One 2,500-IOPS table without a primary key: 83% of a 3,000-IOPS volume.
  // Two such volumes striped carry it at 42% for $20, cheaper than one
  // 10,000-IOPS volume at $50.
  Catalog catalog;
  catalog.types = {Fixed("a", 3000, 1, 10 * kGiB),
                   Fixed("b", 10000, 5, 10 * kGiB)};
  CapacityPlan plan = Plan(catalog, Tables(1, 5, 2500));
  ASSERT_TRUE(plan.found) << plan.verdict;
  ASSERT_EQ(plan.bill.size(), 3u);
  EXPECT_EQ(plan.bill[1].role, "stripe member");
  EXPECT_EQ(plan.bill[2].role, "stripe member");
  EXPECT_NEAR(plan.total, 10 + 20, 1e-9);
  ASSERT_EQ(plan.outcome.plan.stripes.size(), 1u);
}

TEST(PlanCapacity, NeverMixesProviders) {
  Catalog catalog;
  VolumeType cheap_wal = Fixed("x-wal", 3000, 0.01, kGiB);
  cheap_wal.provider = "x";
  catalog.types = {cheap_wal, Fixed("a", 3000, 1, 10 * kGiB)};
  CapacityPlan plan = Plan(catalog, Tables(1, 5, 1000));
  ASSERT_TRUE(plan.found) << plan.verdict;
  for (const BillLine& line : plan.bill) {
    EXPECT_EQ(line.config.type->provider, plan.provider) << line.volume;
  }
  ASSERT_EQ(plan.other_providers.size(), 1u);
}

TEST(PlanCapacity, OneVolumeSharesTheWal) {
  Catalog catalog;
  catalog.types = {Fixed("a", 3000, 1, 10 * kGiB)};
  CapacityOptions capacity;
  capacity.max_volumes = 1;
  CapacityPlan plan = Plan(catalog, Tables(1, 5, 1000), capacity);
  ASSERT_TRUE(plan.found) << plan.verdict;
  ASSERT_EQ(plan.bill.size(), 1u);
  EXPECT_EQ(plan.bill[0].role, "wal+data");
}

TEST(PlanCapacity, InstanceCapsAreRespected) {
  Catalog catalog;
  catalog.types = {Provisioned()};
  CapacityOptions capacity;
  capacity.instance_cap_iops = 40000;
  capacity.instance_cap_mbps = 1000;
  CapacityPlan plan = Plan(catalog, Tables(4, 10, 5000), capacity);
  ASSERT_TRUE(plan.found) << plan.verdict;
  EXPECT_DOUBLE_EQ(plan.volumes.host.iops_cap, 40000);
  EXPECT_DOUBLE_EQ(plan.volumes.host.bandwidth_cap_mbps, 1000);
  for (const BillLine& line : plan.bill) {
    EXPECT_LE(line.config.iops, 80000);
    // The ratio limits provisioning; the 3,000 baseline comes at any size.
    EXPECT_LE(line.config.iops,
              std::max<double>(3000, 500 * line.config.size / kGiB));
    EXPECT_LE(line.config.throughput, 0.25 * line.config.iops + 1e-9);
  }

  capacity.instance_cap_iops = 15000;  // the peak is 20,100
  plan = Plan(catalog, Tables(4, 10, 5000), capacity);
  EXPECT_FALSE(plan.found);
  EXPECT_NE(plan.verdict.find("instance cap"), std::string::npos)
      << plan.verdict;
  EXPECT_NE(plan.verdict.find("20100 IOPS at the peak, the instance allows "
                              "15000"),
            std::string::npos)
      << plan.verdict;
  EXPECT_NE(plan.verdict.find("Citus"), std::string::npos) << plan.verdict;

  // Within the cap but above the target: the plan would judge the instance
  // 80% busy, so no set is chosen either (one judgement of the instance).
  capacity.instance_cap_iops = 25000;
  plan = Plan(catalog, Tables(4, 10, 5000), capacity);
  EXPECT_FALSE(plan.found);
  EXPECT_NE(plan.verdict.find("20100 IOPS at the peak, the instance allows "
                              "25000 (80%, above the 70% target)"),
            std::string::npos)
      << plan.verdict;
}

// Backup reads count against the instance's bandwidth: 20,000 reads/s are
// 163.84 MB/s; reading the 40 GiB within 100 s adds 42,949,672,960 / 100 =
// 429.50 MB/s: 593 MB/s, over a 500 MB/s cap that the reads alone fit.
TEST(PlanCapacity, BackupReadsCountAgainstTheInstanceCap) {
  Catalog catalog;
  catalog.types = {Provisioned()};
  CapacityOptions capacity;
  capacity.instance_cap_mbps = 500;
  EXPECT_TRUE(Plan(catalog, Tables(4, 10, 5000), capacity).found);
  PlanOptions options;
  options.backup_window_seconds = 100;
  CapacityPlan plan;
  ASSERT_TRUE(
      PlanCapacity(catalog, Tables(4, 10, 5000), options, capacity, &plan)
          .ok());
  EXPECT_FALSE(plan.found);
  EXPECT_NE(plan.verdict.find("593 MB/s at the peak, the instance allows 500"),
            std::string::npos)
      << plan.verdict;
}

TEST(PlanCapacity, MoreVolumesThanAllowedIsAVerdict) {
  // 4,800 IOPS at 70% need 6,857 IOPS of 3,000-IOPS volumes: three; the
  // limit of three volumes leaves two for data.
  Catalog catalog;
  catalog.types = {Fixed("a", 3000, 1, 10 * kGiB)};
  CapacityOptions capacity;
  capacity.max_volumes = 3;
  CapacityPlan plan = Plan(catalog, Tables(6, 1, 800), capacity);
  EXPECT_FALSE(plan.found);
  EXPECT_NE(plan.verdict.find("more volumes than allowed"), std::string::npos)
      << plan.verdict;
  EXPECT_NE(plan.verdict.find("about 3 data volumes of a"), std::string::npos)
      << plan.verdict;
  EXPECT_NE(plan.verdict.find("Citus"), std::string::npos) << plan.verdict;
  ASSERT_EQ(plan.impossible.size(), 1u);
  EXPECT_NE(plan.impossible[0].failed.find("gives at most 3000"),
            std::string::npos)
      << plan.impossible[0].failed;

  capacity.max_volumes = 4;
  EXPECT_TRUE(Plan(catalog, Tables(6, 1, 800), capacity).found);
}

TEST(PlanCapacity, BadOptions) {
  Catalog catalog;
  catalog.types = {Fixed("a", 3000, 1, 10 * kGiB)};
  CapacityPlan plan;
  CapacityOptions capacity;
  capacity.max_volumes = 0;
  Status st =
      PlanCapacity(catalog, Tables(1, 1, 10), PlanOptions{}, capacity, &plan);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  capacity.max_volumes = 4;
  capacity.provider = "q";
  st = PlanCapacity(catalog, Tables(1, 1, 10), PlanOptions{}, capacity, &plan);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_NE(st.message().find("it has p"), std::string::npos) << st.message();
  // Workload errors are the user's, not a shortfall of some set.
  PlanOptions options;
  options.keys["public.nope"] = {"id"};
  capacity.provider.clear();
  st = PlanCapacity(catalog, Tables(1, 1, 10), options, capacity, &plan);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_NE(st.message().find("public.nope"), std::string::npos);
}

// examples/catalog: the Oracle->cloud workload bought from the shipped
// catalog (the README walks through this outcome).
TEST(PlanCapacity, OracleCloudExample) {
  Catalog catalog;
  Workload workload;
  ASSERT_TRUE(
      ReadCatalogFile("examples/catalog/cloud_volumes.toml", &catalog).ok());
  ASSERT_TRUE(
      ReadWorkloadFile("examples/oracle_cloud/workload.toml", &workload).ok());
  CapacityPlan plan = Plan(catalog, workload);
  ASSERT_TRUE(plan.found) << plan.verdict;
  EXPECT_EQ(plan.outcome.plan.wal_volume, "wal");
  double sum = 0;
  for (const BillLine& line : plan.bill) {
    EXPECT_EQ(line.config.type->provider, plan.provider);
    sum += line.config.price;
  }
  EXPECT_NEAR(sum, plan.total, 1e-6);
  for (const ForecastEntry& f : plan.outcome.plan.forecast) {
    // Judged as the plan prints it (verdicts.h).
    EXPECT_FALSE(AboveTarget(f.utilization_after, 0.7)) << f.volume;
  }
  for (const Alternative& a : plan.other_providers) {
    if (a.failed.empty()) {
      EXPECT_GE(a.price, plan.total) << a.provider;
    }
  }
}

}  // namespace
}  // namespace pglayout::planner
