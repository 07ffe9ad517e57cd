#include "probes/analysis.h"

#include <gtest/gtest.h>

#include "common/units.h"

namespace pglayout::probes {
namespace {

RandomReadPoint Read(int qd, double iops, double p99 = 500) {
  RandomReadPoint p;
  p.queue_depth = qd;
  p.iops = iops;
  p.p50_us = 100.0 * qd;
  p.p99_us = p99;
  return p;
}

TEST(FindKnee, SmallestDepthWithinTenPercentOfThePeak) {
  // A volume capped at 3000 IOPS (a gp3 baseline): flat from depth 4 on.
  std::vector<RandomReadPoint> curve = {Read(1, 1000), Read(2, 1900),
                                        Read(4, 2950), Read(8, 3000),
                                        Read(16, 2990)};
  int knee = FindKnee(curve);
  ASSERT_EQ(knee, 2);
  EXPECT_EQ(curve[knee].queue_depth, 4);
}

TEST(FindKnee, ANoisyDipAfterTheKneeDoesNotMoveIt) {
  std::vector<RandomReadPoint> curve = {
      Read(1, 10000),  Read(2, 20000),  Read(4, 39000), Read(8, 60000),
      Read(16, 64000), Read(32, 58000), Read(64, 65000)};
  // Peak 65000 -> 90% is 58500: depth 8 (60000) is the first to reach it.
  EXPECT_EQ(curve[FindKnee(curve)].queue_depth, 8);
}

TEST(FindKnee, EmptyCurve) { EXPECT_EQ(FindKnee({}), -1); }

TEST(SweepShouldContinue, StopsWhenADoublingAddsLessThanTenPercent) {
  std::vector<RandomReadPoint> curve = {Read(1, 1000)};
  EXPECT_TRUE(SweepShouldContinue(curve));
  curve.push_back(Read(2, 1900));
  EXPECT_TRUE(SweepShouldContinue(curve));
  curve.push_back(Read(4, 2050));  // +7.9%
  EXPECT_FALSE(SweepShouldContinue(curve));
}

TEST(SweepShouldContinue, StopsWhenLatencyExplodes) {
  std::vector<RandomReadPoint> curve = {Read(1, 100), Read(2, 200, 2e6)};
  EXPECT_FALSE(SweepShouldContinue(curve));
}

std::vector<SequentialReadPoint> RaidCurve() {
  // The simulated 4 x 512 KiB RAID0 at depth 1 (see simulated_device.h), plus
  // depth-8 points that must not count for the depth-1 answer.
  return {{128 * kKiB, 1, 567}, {256 * kKiB, 1, 724}, {512 * kKiB, 1, 840},
          {1 * kMiB, 1, 1680},  {2 * kMiB, 1, 3360},  {4 * kMiB, 1, 3652},
          {8 * kMiB, 1, 3818},  {16 * kMiB, 1, 3907}, {128 * kKiB, 8, 3900}};
}

TEST(StripeWideReadSize, FourDiskRaid0NeedsFourMiB) {
  EXPECT_EQ(StripeWideReadSize(RaidCurve()), 4 * kMiB);
  EXPECT_EQ(StripeWideReadSize(RaidCurve(), 8), 128 * kKiB);
  EXPECT_EQ(StripeWideReadSize(RaidCurve(), 4), 0u);
}

TEST(DeriveHeadlines, FillsTheHandWrittenFieldsFromTheCurves) {
  Volume v;
  v.randread = {Read(1, 9000, 180), Read(4, 30000), Read(16, 36000),
                Read(64, 37000)};
  v.randread[0].p50_us = 108;
  v.seqread = RaidCurve();
  v.syncwrite = {{"fdatasync", kPageSize, 2000, 450, 900},
                 {"open_datasync", kPageSize, 2500, 380, 700},
                 {"fdatasync", 128 * kKiB, 900, 1100, 1500}};
  v.randwrite = {{1, 8000, 120, 300}, {16, 42000, 380, 900}};
  DeriveHeadlines(&v);
  EXPECT_EQ(v.readers_to_saturate, 16);
  EXPECT_EQ(v.read_iops, 36000);
  EXPECT_EQ(v.read_latency_us, 108);
  EXPECT_EQ(v.read_latency_p99_us, 180);
  EXPECT_EQ(v.read_mbps, 3907);
  EXPECT_EQ(v.stripe_read_size, 4 * kMiB);
  EXPECT_EQ(v.sync_write_latency_us, 450);  // the 8 KiB fdatasync point
  EXPECT_EQ(v.sync_write_latency_p99_us, 900);
  EXPECT_EQ(v.write_iops, 42000);
}

}  // namespace
}  // namespace pglayout::probes
