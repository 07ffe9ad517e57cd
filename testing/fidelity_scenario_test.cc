// The fidelity scenario's arithmetic: the read latency it compares with the
// forecast is per read that reached a volume, not per block the server
// read (docs/fidelity.md#what-is-compared).

#include "testing/fidelity_scenario.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(FidelityArithmeticTest, ReadLatencyIsPerReadThatReachedAVolume) {
  // 30 s of blk_read_time over 50,000 device reads: 600 us each, although
  // the server counted 80,000 blocks read (375 us each, hits included).
  EXPECT_DOUBLE_EQ(ReadLatencyPerDeviceReadUs(30000, 50000), 600);
  EXPECT_DOUBLE_EQ(ReadLatencyPerDeviceReadUs(30000, 80000), 375);
  EXPECT_EQ(ReadLatencyPerDeviceReadUs(30000, 0), 0);
}

TEST(FidelityArithmeticTest, UtilisationFollowsTheVolumesBudget) {
  // 300 reads and 240 writes/s on 600 IOPS caps: 0.9 of one combined
  // budget, 0.5 of the busier of two separate ones (the lab's throttle).
  EXPECT_DOUBLE_EQ(MeasuredUtilisation(300, 240, 600, 600, false), 0.9);
  EXPECT_DOUBLE_EQ(MeasuredUtilisation(300, 240, 600, 600, true), 0.5);
  EXPECT_DOUBLE_EQ(MeasuredUtilisation(60, 480, 600, 600, true), 0.8);
  EXPECT_DOUBLE_EQ(MeasuredUtilisation(60, 480, 600, 0, true), 0.1)
      << "an uncapped side uses none of a budget";
}

TEST(FidelityArithmeticTest, ForecastLatencyIsWeightedByReads) {
  // 300 reads/s at 1000 us and 100 at 200 us: 800 us; a volume without
  // reads does not count, whatever its latency.
  EXPECT_DOUBLE_EQ(ReadWeightedLatencyUs({300, 100, 0}, {1000, 200, 5000}),
                   800);
  EXPECT_EQ(ReadWeightedLatencyUs({0, 0}, {1000, 200}), 0);
  EXPECT_EQ(ReadWeightedLatencyUs({}, {}), 0);
}

TEST(FidelityArithmeticTest, ReportedLatencyIsPerDeviceRead) {
  FidelityResult r;
  r.forecast_read_latency_before_us = 640;
  r.forecast_read_latency_after_us = 1250;
  r.before.read_latency_us = 400;  // hits included
  r.before.device_read_latency_us = 625;
  r.after.read_latency_us = 500;
  r.after.device_read_latency_us = 1000;
  const std::string table = FormatFidelity(r);
  EXPECT_NE(table.find("after forecast 1250 us, measured 1000 us (0.80x)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("before forecast 640 us, measured 625 us (0.98x)"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace pglayout
