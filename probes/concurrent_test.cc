#include "probes/concurrent.h"

#include <gtest/gtest.h>

#include "common/units.h"
#include "probes/simulated_device.h"

namespace pglayout::probes {
namespace {

SimulatedDeviceConfig OneDisk() {
  SimulatedDeviceConfig c;
  c.parallelism = 4;  // an SSD serving 4 commands at once
  return c;           // 100 us read access, 1000 MB/s
}

ConcurrentTarget Target(const std::string& name, IoEngine* engine,
                        uint64_t offset, const std::string& disk) {
  ConcurrentTarget t;
  t.name = name;
  t.engine = engine;
  t.region_offset = offset;
  t.region_size = 256 * kMiB;
  t.knee_depth = 4;
  t.disks = {disk};
  return t;
}

Concurrent RunAll(const std::vector<ConcurrentTarget>& targets) {
  Concurrent c;
  Status st = RunConcurrent(targets, ConcurrentOptions{}, nullptr, &c);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return c;
}

TEST(Concurrent, TwoDirectoriesOnOneDiskShareItsThroughput) {
  SimulatedDevice disk(OneDisk());
  Concurrent c = RunAll(
      {Target("a", &disk, 0, "vda"), Target("b", &disk, 256 * kMiB, "vda")});
  ASSERT_EQ(c.volumes.size(), 2u);
  EXPECT_GT(c.volumes[0].alone_read_iops, 1000);
  EXPECT_GT(c.volumes[0].alone_read_mbps, 100);
  EXPECT_NEAR(c.sum_alone_read_iops,
              c.volumes[0].alone_read_iops + c.volumes[1].alone_read_iops, 1);
  // One disk busy serving two volumes gives each about half.
  EXPECT_NEAR(c.iops_ratio, 0.5, 0.1);
  EXPECT_NEAR(c.mbps_ratio, 0.5, 0.1);
  EXPECT_NEAR(c.read_iops, c.iops_ratio * c.sum_alone_read_iops, 1);
  EXPECT_DOUBLE_EQ(c.seconds, ConcurrentOptions{}.seconds);
  EXPECT_NE(c.verdict.find("a and b share device vda"), std::string::npos)
      << c.verdict;
  EXPECT_NE(c.verdict.find("plan them as one volume"), std::string::npos);
}

TEST(Concurrent, SeparateDisksAddUp) {
  SimulatedDevice d1(OneDisk()), d2(OneDisk());
  Concurrent c =
      RunAll({Target("a", &d1, 0, "nvme1n1"), Target("b", &d2, 0, "nvme2n1")});
  EXPECT_NEAR(c.iops_ratio, 1.0, 0.02);
  EXPECT_NEAR(c.mbps_ratio, 1.0, 0.02);
  EXPECT_NEAR(c.volumes[1].together_read_iops, c.volumes[1].alone_read_iops,
              c.volumes[1].alone_read_iops * 0.02);
  EXPECT_EQ(c.verdict.find("share"), std::string::npos) << c.verdict;
  EXPECT_NE(c.verdict.find("independent"), std::string::npos) << c.verdict;
}

TEST(Concurrent, AHiddenSharedDeviceIsExposedByTheRatio) {
  // Two block devices that sysfs shows as separate but that one backend
  // serves (two EBS volumes under one instance cap, two LUNs of one SAN).
  SimulatedDevice backend(OneDisk());
  Concurrent c = RunAll({Target("data", &backend, 0, "nvme1n1"),
                         Target("wal", &backend, 256 * kMiB, "nvme2n1")});
  EXPECT_LT(c.iops_ratio, kIndependentRatio);
  EXPECT_NE(c.verdict.find("bottleneck sysfs does not show"), std::string::npos)
      << c.verdict;
}

TEST(Concurrent, ThreeTargetsNameEverySharingPair) {
  SimulatedDevice disk(OneDisk()), other(OneDisk());
  Concurrent c = RunAll({Target("a", &disk, 0, "vda"),
                         Target("b", &disk, 256 * kMiB, "vda"),
                         Target("c", &other, 0, "vdb")});
  ASSERT_EQ(c.volumes.size(), 3u);
  // c is alone on its disk: together it keeps what it had.
  EXPECT_NEAR(c.volumes[2].together_read_iops, c.volumes[2].alone_read_iops,
              c.volumes[2].alone_read_iops * 0.02);
  EXPECT_LT(c.volumes[0].together_read_iops,
            0.7 * c.volumes[0].alone_read_iops);
  EXPECT_NE(c.verdict.find("a and b share device vda"), std::string::npos);
  EXPECT_EQ(c.verdict.find("and c share"), std::string::npos) << c.verdict;
}

TEST(Concurrent, RefusesOneTargetAndTargetsWithoutAFile) {
  SimulatedDevice disk(OneDisk());
  Concurrent c;
  Status st = RunConcurrent({Target("a", &disk, 0, "vda")}, {}, nullptr, &c);
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
  ConcurrentTarget tiny = Target("b", &disk, 0, "vda");
  tiny.region_size = 1 * kMiB;
  st = RunConcurrent({Target("a", &disk, 0, "vda"), tiny}, {}, nullptr, &c);
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
  EXPECT_NE(st.message().find("b:"), std::string::npos) << st.message();
}

TEST(ConcurrentVerdict, SharedButWithHeadroom) {
  ConcurrentTarget a, b;
  a.name = "x";
  b.name = "y";
  a.disks = {"nvme1n1", "nvme2n1"};
  b.disks = {"nvme2n1", "nvme1n1"};
  Concurrent c;
  c.iops_ratio = 0.95;
  c.mbps_ratio = 0.9;
  std::string v = ConcurrentVerdict(c, {a, b});
  EXPECT_EQ(v.rfind("x and y share devices nvme1n1, nvme2n1 (topology); ", 0),
            0u)
      << v;
  EXPECT_NE(v.find("95% of the random-read IOPS and 90%"), std::string::npos);
  EXPECT_NE(v.find("room for both"), std::string::npos);
}

}  // namespace
}  // namespace pglayout::probes
