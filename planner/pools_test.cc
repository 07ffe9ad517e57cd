#include "planner/pools.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace pglayout::planner {
namespace {

// Volumes named |names|; shares[i] lists what volume i shares a device
// with, disks[i] the disk its probe found ("" = not probed).
VolumeSet Set(const std::vector<std::string>& names,
              const std::vector<std::vector<std::string>>& shares,
              const std::vector<std::string>& disks = {}) {
  VolumeSet set;
  for (size_t i = 0; i < names.size(); ++i) {
    Volume& v = set.volumes.emplace_back();
    v.name = names[i];
    v.shares_device_with = shares[i];
    if (i < disks.size() && !disks[i].empty())
      v.topology.emplace().disk = disks[i];
  }
  return set;
}

// ------------------------------------------------------------ the pools --

// shares_device_with is read both ways and through a third volume: a names
// b, c names b, so a, b and c are one device; d is alone.
TEST(DevicePools, SharingIsSymmetricAndTransitive) {
  const VolumeSet set = Set({"a", "b", "d", "c"}, {{"b"}, {}, {}, {"b"}});
  DevicePools pools;
  ASSERT_TRUE(FindDevicePools(set, &pools).ok());
  EXPECT_EQ(pools.pool_of, (std::vector<int>{0, 0, -1, 0}));
  ASSERT_EQ(pools.members.size(), 1u);
  EXPECT_EQ(pools.members[0], (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(pools.names[0], "the device a, b, c share");
  EXPECT_EQ(pools.Devices(), 2);
  EXPECT_TRUE(pools.Same(0, 3));
  EXPECT_FALSE(pools.Same(0, 2));
}

TEST(DevicePools, NamedByTheProbedDiskAndUnknownNamesAreRefused) {
  DevicePools pools;
  ASSERT_TRUE(
      FindDevicePools(Set({"a", "b"}, {{"b"}, {}}, {"vda", "vda"}), &pools)
          .ok());
  EXPECT_EQ(pools.names, std::vector<std::string>{"device vda"});
  const Status st = FindDevicePools(Set({"a"}, {{"gone"}}), &pools);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(),
            "volume 'a': shares_device_with names 'gone', which is not a "
            "volume of the set");
}

TEST(InstancePool, TheNearerCapDecides) {
  Host host;
  EXPECT_FALSE(InstancePool(host, {1000, 10}).has_value());
  host.bandwidth_cap_mbps = 100;
  host.iops_cap = 4000;
  const std::optional<PoolForecast> p = InstancePool(host, {3000, 50});
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->utilization, 0.75);  // 3000 of 4000 IOPS; MB/s at 50%
  EXPECT_FALSE(p->in_forecast);
  EXPECT_EQ(p->detail,
            "50 MB/s needed, the instance allows 100; 3000 IOPS needed, the "
            "instance allows 4000");
}

// probe --concurrent: a and b together reached 50% of their IOPS alone
// (60% of their MB/s): they carry 0.5 x 2 = one volume's worth, so own
// loads of 30% and 20% make the pool 50% busy.
TEST(MeasuredPool, TogetherBelowAloneIsOneBottleneck) {
  VolumeSet set = Set({"a", "b", "c"}, {{}, {}, {}});
  Concurrent& c = set.concurrent.emplace();
  c.iops_ratio = 0.5;
  c.mbps_ratio = 0.6;
  c.volumes = {{"a"}, {"b"}, {"gone"}};
  DevicePools devices;
  ASSERT_TRUE(FindDevicePools(set, &devices).ok());
  const std::optional<PoolForecast> p =
      MeasuredPool(set, devices, {0.3, 0.2, 0.9});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->kind, "measured");
  EXPECT_DOUBLE_EQ(p->utilization, 0.5);
  EXPECT_EQ(p->volumes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p->detail,
            "probe --concurrent: a, b together reached 50% of what they "
            "reach alone, so they carry 1 volumes' worth: a 30% + b 20% of "
            "it");
  // Independent at the probe's threshold: no pool.
  c.iops_ratio = c.mbps_ratio = 0.85;
  EXPECT_FALSE(MeasuredPool(set, devices, {0.3, 0.2, 0.9}).has_value());
  // A device sysfs found explains it: the device pool is the model.
  c.iops_ratio = 0.5;
  set.volumes[1].shares_device_with = {"a"};
  ASSERT_TRUE(FindDevicePools(set, &devices).ok());
  EXPECT_FALSE(MeasuredPool(set, devices, {0.3, 0.2, 0.9}).has_value());
}

}  // namespace
}  // namespace pglayout::planner
