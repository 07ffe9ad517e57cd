#include "planner/device_model.h"

#include <gtest/gtest.h>

namespace pglayout::planner {
namespace {

Volume Declared(double iops, double mbps, double latency_us) {
  Volume v;
  v.name = "v";
  v.capacity = 1ull << 40;
  v.read_iops = v.write_iops = iops;
  v.read_mbps = v.write_mbps = mbps;
  v.read_latency_us = latency_us;
  v.sync_write_latency_us = latency_us;
  return v;
}

TEST(MmcResponseFactor, OneServerIsMm1) {
  EXPECT_NEAR(MmcResponseFactor(0.5, 1), 2.0, 1e-9);
  EXPECT_NEAR(MmcResponseFactor(0.9, 1), 10.0, 1e-9);
  EXPECT_NEAR(MmcResponseFactor(0, 1), 1.0, 1e-9);
}

TEST(MmcResponseFactor, ManyServersStayFlatUntilTheKnee) {
  // 24 servers (a 24,000 IOPS volume at 1 ms): almost no queueing at 70%,
  // a clear rise near saturation.
  EXPECT_LT(MmcResponseFactor(0.7, 24), 1.02);
  EXPECT_GT(MmcResponseFactor(0.98, 24), 2.0);
  EXPECT_LT(MmcResponseFactor(0.5, 24), MmcResponseFactor(0.9, 24));
}

TEST(DeviceModel, BandwidthCapsIops) {
  // OCI Balanced: 25,000 IOPS sold, 200 MB/s at 8 KB => 24,414 pages/s.
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(Declared(25000, 200, 1000), &m).ok());
  EXPECT_NEAR(m.read_capacity(), 200e6 / 8192, 1e-6);
  EXPECT_DOUBLE_EQ(m.parallelism(), 24);
  EXPECT_NEAR(m.Utilization(12207.03125, 0), 0.5, 1e-9);
  EXPECT_NEAR(m.Utilization(0, 12207.03125), 0.5, 1e-9) << "writes count";
}

TEST(DeviceModel, MeasuredCurveUsesLittlesLaw) {
  Volume v = Declared(0, 0, 0);
  v.randread = {{1, 10000, 0, 100}, {8, 64000, 0, 120}, {32, 100000, 0, 300}};
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(v, &m).ok());
  EXPECT_TRUE(m.measured());
  EXPECT_DOUBLE_EQ(m.read_capacity(), 100000);
  EXPECT_NEAR(m.ReadLatencyUs(0.05), 100, 1e-9);  // below the first point
  EXPECT_NEAR(m.ReadLatencyUs(0.64), 8 / 64000.0 * 1e6, 1e-6);  // 125 us
  // Halfway between 64k and 100k IOPS: halfway between 125 and 320 us.
  EXPECT_NEAR(m.ReadLatencyUs(0.82), (125 + 320) / 2.0, 1e-6);
}

// A probed volume capped at 600 read IOPS: the depth sweep already runs at
// the cap at depth 1 (1 / 600 s = 1667 us by Little's law, and deeper steps
// add nothing), and the paced steps measured what the volume does below it.
Volume CappedAt600(bool with_paced_curve) {
  Volume v = Declared(0, 0, 0);
  v.read_iops = 600;
  v.randread = {{1, 600, 0, 1650}, {4, 601, 0, 6600}};
  v.probe_engine = "io_uring";
  if (with_paced_curve) {
    // offered, achieved, mean us
    v.paced_read = {{60, 60, 140},
                    {180, 179, 150},
                    {300, 301, 200},
                    {420, 418, 400},
                    {540, 536, 1100}};
  }
  return v;
}

TEST(DeviceModel, PacedCurveGivesTheLatencyBelowTheCap) {
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(CappedAt600(true), &m).ok());
  EXPECT_TRUE(m.paced());
  EXPECT_DOUBLE_EQ(m.read_capacity(), 600);
  // At 30% of the cap the volume answered in 0.15 ms, not 1/600 s.
  EXPECT_NEAR(m.ReadLatencyUs(0.3), 150, 1e-9);
  EXPECT_NEAR(m.ReadLatencyUs(0.05), 140, 1e-9) << "below the first point";
  // Between points, linear in the offered rate: 360/s is halfway between
  // 300 and 420.
  EXPECT_NEAR(m.ReadLatencyUs(0.6), (200 + 400) / 2.0, 1e-9);
  // Beyond the last point (540/s = 0.9 of the cap): M/M/1 anchored on it.
  EXPECT_NEAR(m.ReadLatencyUs(0.95), 1100 * (1 - 0.9) / (1 - 0.95), 1e-6);
  EXPECT_GT(m.ReadLatencyUs(0.99), m.ReadLatencyUs(0.95));
  EXPECT_NE(m.Describe().find("paced curve (5 points"), std::string::npos)
      << m.Describe();
}

TEST(DeviceModel, WithoutAPacedCurveTheDepthCurveStays) {
  // An older probe's file: the depth curve gives 1/IOPS at every load below
  // the cap, as before (the fallback; the plan says which model it used).
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(CappedAt600(false), &m).ok());
  EXPECT_FALSE(m.paced());
  EXPECT_TRUE(m.measured());
  EXPECT_NEAR(m.ReadLatencyUs(0.3), 1e6 / 600, 1e-6);
  EXPECT_NE(m.Describe().find("measured curve"), std::string::npos);
  // Declared figures keep the M/M/c.
  DeviceModel declared;
  ASSERT_TRUE(DeviceModel::Build(Declared(600, 0, 200), &declared).ok());
  EXPECT_FALSE(declared.paced());
  EXPECT_NEAR(declared.ReadLatencyUs(0.5), 200 * MmcResponseFactor(0.5, 1),
              1e-9);
}

TEST(DeviceModel, PacedPointsThatFellBehindAreLeftOut) {
  Volume v = CappedAt600(true);
  // The 90% step completed only 300 of 540/s: overloaded, not a steady
  // state. The model anchors on the 70% point instead. A step that
  // completed 80% of its rate (a short step's random arrivals) stays.
  v.paced_read.back() = {540, 300, 90000};
  v.paced_read[3].iops = 0.8 * 420;
  std::vector<LatencyPoint> curve = PacedCurve(v);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_DOUBLE_EQ(curve.back().iops, 420);
  // Unsorted input, a zero latency and a repeated rate are handled too.
  v.paced_read = {{300, 301, 200}, {60, 60, 140}, {300, 290, 250}, {1, 1, 0}};
  curve = PacedCurve(v);
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_DOUBLE_EQ(curve[0].iops, 60);
  EXPECT_DOUBLE_EQ(curve[1].latency_us, 200);
  // Noise that makes latency fall with load is pooled away: the bound needs
  // a latency that never decreases (a lab run measured these).
  v.paced_read = {{60, 61, 921},
                  {180, 142, 1750},
                  {300, 273, 768},
                  {420, 428, 1100},
                  {540, 540, 1010}};
  curve = PacedCurve(v);
  ASSERT_EQ(curve.size(), 5u);
  EXPECT_DOUBLE_EQ(curve[0].latency_us, 921);
  EXPECT_DOUBLE_EQ(curve[1].latency_us, (1750 + 768 + 1100 + 1010) / 4.0);
  EXPECT_DOUBLE_EQ(curve[4].latency_us, curve[1].latency_us);
  for (size_t i = 1; i < curve.size(); ++i) {
    EXPECT_GE(curve[i].latency_us, curve[i - 1].latency_us);
  }
  // Nothing usable: the depth curve again.
  v.paced_read = {{540, 100, 50000}};
  DeviceModel m;
  ASSERT_TRUE(DeviceModel::Build(v, &m).ok());
  EXPECT_FALSE(m.paced());
}

TEST(DeviceModel, StripeOfPacedMembersKeepsTheirLatencyAtTheSameLoad) {
  DeviceModel a, b;
  ASSERT_TRUE(DeviceModel::Build(CappedAt600(true), &a).ok());
  ASSERT_TRUE(DeviceModel::Build(CappedAt600(true), &b).ok());
  DeviceModel s = DeviceModel::Stripe("s", {&a, &b});
  EXPECT_TRUE(s.paced());
  EXPECT_DOUBLE_EQ(s.read_capacity(), 1200);
  EXPECT_NEAR(s.ReadLatencyUs(0.3), a.ReadLatencyUs(0.3), 1e-9);
  EXPECT_NEAR(s.ReadLatencyUs(0.95), a.ReadLatencyUs(0.95), 1e-6);
  // One member without a paced curve: the stripe keeps the M/M/c.
  DeviceModel declared;
  ASSERT_TRUE(DeviceModel::Build(Declared(600, 0, 200), &declared).ok());
  EXPECT_FALSE(DeviceModel::Stripe("s", {&a, &declared}).paced());
}

// A throttle with separate read and write limits (the volume lab's): reads
// and writes each use their own budget, and the busier one bounds the
// volume. Declared alike, one combined budget (gp3, io2) adds them.
TEST(DeviceModel, SeparateBudgetsCountTheBusierSide) {
  Volume v = Declared(600, 0, 200);
  DeviceModel combined;
  ASSERT_TRUE(DeviceModel::Build(v, &combined).ok());
  EXPECT_FALSE(combined.separate_budgets()) << "combined unless declared";
  EXPECT_NEAR(combined.Utilization(300, 240), 0.9, 1e-9);

  v.iops_budget = "separate";
  DeviceModel separate;
  ASSERT_TRUE(DeviceModel::Build(v, &separate).ok());
  EXPECT_TRUE(separate.separate_budgets());
  EXPECT_NEAR(separate.Utilization(300, 240), 0.5, 1e-9);
  EXPECT_NEAR(separate.Utilization(120, 480), 0.8, 1e-9);
  // Sequential reads draw on the read budget.
  EXPECT_NEAR(separate.Utilization(300, 240, 300 * 8192.0), 1.0, 1e-9);

  v.iops_budget = "combined";
  DeviceModel declared_combined;
  ASSERT_TRUE(DeviceModel::Build(v, &declared_combined).ok());
  EXPECT_NEAR(declared_combined.Utilization(300, 240), 0.9, 1e-9);

  // A stripe has separate budgets only when every member has.
  DeviceModel both = DeviceModel::Stripe("s", {&separate, &separate});
  EXPECT_TRUE(both.separate_budgets());
  EXPECT_NEAR(both.Utilization(600, 480), 0.5, 1e-9);
  DeviceModel mixed = DeviceModel::Stripe("s", {&separate, &combined});
  EXPECT_FALSE(mixed.separate_budgets());
  EXPECT_NEAR(mixed.Utilization(600, 480), 0.9, 1e-9);
}

TEST(DeviceModel, NothingDeclaredIsAnError) {
  Volume v = Declared(0, 0, 0);
  DeviceModel m;
  Status st = DeviceModel::Build(v, &m);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("declares no read performance"),
            std::string::npos);
}

TEST(DeviceModel, StripeAddsCapacityBoundedByTheSlowestMember) {
  DeviceModel a, b;
  ASSERT_TRUE(DeviceModel::Build(Declared(20000, 200, 1000), &a).ok());
  ASSERT_TRUE(DeviceModel::Build(Declared(30000, 500, 800), &b).ok());
  DeviceModel s = DeviceModel::Stripe("s", {&a, &b});
  EXPECT_DOUBLE_EQ(s.read_capacity(), 2 * 20000);
  EXPECT_DOUBLE_EQ(s.unloaded_read_latency_us(), 1000);
  EXPECT_EQ(s.capacity_bytes(), 2ull << 40);
}

}  // namespace
}  // namespace pglayout::planner
