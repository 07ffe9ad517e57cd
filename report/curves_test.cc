#include "report/curves.h"

#include <gtest/gtest.h>

namespace pglayout::report {
namespace {

Volume Curve(std::vector<std::pair<int, double>> depth_iops) {
  Volume v;
  v.name = "v";
  for (auto [depth, iops] : depth_iops) {
    RandomReadPoint p;
    p.queue_depth = depth;
    p.iops = iops;
    p.p50_us = depth * 100.0;
    v.randread.push_back(p);
  }
  return v;
}

TEST(KneeIndex, FirstPointAtNinetyPercentOfPeak) {
  Volume v =
      Curve({{1, 1000}, {8, 7000}, {32, 19000}, {64, 23000}, {128, 24000}});
  ASSERT_TRUE(KneeIndex(v).has_value());
  EXPECT_EQ(*KneeIndex(v), 3u);  // 23000 >= 0.9 * 24000
}

TEST(KneeIndex, ProbeRecordedDepthWins) {
  Volume v = Curve({{1, 1000}, {8, 7000}, {32, 19000}, {64, 23000}});
  v.readers_to_saturate = 20;  // no such depth: the next one up
  EXPECT_EQ(*KneeIndex(v), 2u);
  v.readers_to_saturate = 500;  // beyond the curve: fall back to the rule
  EXPECT_EQ(*KneeIndex(v), 3u);
}

TEST(KneeIndex, NoneWithoutCurve) { EXPECT_FALSE(KneeIndex(Volume{})); }

TEST(SaturationIops, DeclaredThenMeasured) {
  Volume v = Curve({{1, 1000}, {64, 23000}});
  EXPECT_EQ(SaturationIops(v), 23000);
  v.read_iops = 24000;
  EXPECT_EQ(SaturationIops(v), 24000);
  EXPECT_EQ(SaturationIops(Volume{}), 0);
}

TEST(MedianLatencyAt, InterpolatesAndClamps) {
  Volume v = Curve({{1, 1000}, {2, 2000}});  // 100 us, 200 us
  EXPECT_DOUBLE_EQ(*MedianLatencyAt(v, 1500), 150);
  EXPECT_DOUBLE_EQ(*MedianLatencyAt(v, 10), 100);
  EXPECT_DOUBLE_EQ(*MedianLatencyAt(v, 9000), 200);
  EXPECT_FALSE(MedianLatencyAt(Volume{}, 1));
}

}  // namespace
}  // namespace pglayout::report
