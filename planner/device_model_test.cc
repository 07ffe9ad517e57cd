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
