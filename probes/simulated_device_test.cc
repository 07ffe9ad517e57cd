#include "probes/simulated_device.h"

#include <gtest/gtest.h>

#include "common/units.h"

namespace pglayout::probes {
namespace {

SimulatedDeviceConfig Raid0(int members) {
  SimulatedDeviceConfig c;
  c.members = members;
  c.chunk = 512 * kKiB;
  return c;  // 100 us access, 1000 MB/s per member, no noise
}

IoJob ReadJob(uint64_t block, int depth, Access access = Access::kRandom) {
  IoJob job;
  job.block_size = block;
  job.queue_depth = depth;
  job.access = access;
  job.region_size = 1 * kGiB;
  job.max_seconds = 1;
  return job;
}

JobResult RunAll(SimulatedDevice* device, const IoJob& job) {
  JobResult r;
  Status st = device->Run(
      job, [](const IntervalStats&) { return true; }, &r);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return r;
}

TEST(SimulatedDevice, DepthOneLatencyIsAccessPlusTransfer) {
  SimulatedDevice device(Raid0(4));
  JobResult r = RunAll(&device, ReadJob(kPageSize, 1));
  // 100 us + 8192 B / 1000 MB/s = 108.192 us, every time.
  EXPECT_NEAR(r.total.latency.Percentile(0.5) / 1000, 108.192, 0.01);
  EXPECT_NEAR(r.total.ios / r.total.seconds, 1e6 / 108.192, 20);
  EXPECT_NEAR(r.total.mean_inflight(), 1, 1e-9);
  EXPECT_NEAR(r.total.cpu_seconds / r.total.ios * 1e6, 3, 1e-9);
}

TEST(SimulatedDevice, DeepQueuesSaturateEveryMember) {
  SimulatedDevice device(Raid0(4));
  JobResult r = RunAll(&device, ReadJob(kPageSize, 256));
  double peak = 4 * 1e6 / 108.192;  // 36,971 IOPS
  EXPECT_GT(r.total.ios / r.total.seconds, 0.97 * peak);
  EXPECT_LE(r.total.ios / r.total.seconds, 1.001 * peak);
}

TEST(SimulatedDevice, AStripeWideReadUsesAllMembersAtDepthOne) {
  SimulatedDevice device(Raid0(4));
  JobResult small =
      RunAll(&device, ReadJob(512 * kKiB, 1, Access::kSequential));
  JobResult wide = RunAll(&device, ReadJob(4 * kMiB, 1, Access::kSequential));
  // 512 KiB: one member, 100 + 524.288 us. 4 MiB: 1 MiB on each member,
  // 100 + 1048.576 us, in parallel.
  EXPECT_NEAR(small.total.latency.Percentile(0.5) / 1000, 624.288,
              624.288 / 128);
  EXPECT_NEAR(wide.total.latency.Percentile(0.5) / 1000, 1148.576,
              1148.576 / 128);
}

TEST(SimulatedDevice, MaxBytesWritesTheRegionExactlyOnce) {
  SimulatedDevice device(Raid0(1));
  IoJob job = ReadJob(1 * kMiB, 4, Access::kSequential);
  job.kind = IoKind::kWrite;
  job.region_size = 64 * kMiB;
  job.max_bytes = 64 * kMiB;
  job.max_seconds = 100;
  job.durability = Durability::kFdatasyncAtEnd;
  JobResult r = RunAll(&device, job);
  EXPECT_EQ(r.total.bytes, 64 * kMiB);
  EXPECT_EQ(device.bytes_written(), 64 * kMiB);
  EXPECT_DOUBLE_EQ(r.sync_seconds, 400e-6);
}

TEST(SimulatedDevice, TheObserverStopsTheJob) {
  SimulatedDevice device(Raid0(1));
  int calls = 0;
  JobResult r;
  ASSERT_TRUE(device
                  .Run(
                      ReadJob(kPageSize, 4),
                      [&](const IntervalStats&) { return ++calls < 3; }, &r)
                  .ok());
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(r.stopped_by_observer);
  EXPECT_NEAR(r.total.seconds, 0.3, 1e-6);
}

TEST(SimulatedDevice, InjectedEnospcIsReported) {
  SimulatedDeviceConfig c = Raid0(1);
  c.fail_after_write_bytes = 8 * kMiB;
  c.fail_errno = ENOSPC;
  SimulatedDevice device(c);
  IoJob job = ReadJob(1 * kMiB, 1, Access::kSequential);
  job.kind = IoKind::kWrite;
  job.max_bytes = 64 * kMiB;
  JobResult r;
  Status st = device.Run(
      job, [](const IntervalStats&) { return true; }, &r);
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("ENOSPC"), std::string::npos) << st.message();
}

TEST(SimulatedDevice, RejectsAMisalignedJob) {
  SimulatedDevice device(Raid0(1));
  IoJob job = ReadJob(1000, 1);
  JobResult r;
  EXPECT_TRUE(device
                  .Run(
                      job, [](const IntervalStats&) { return true; }, &r)
                  .IsInvalidInput());
}

}  // namespace
}  // namespace pglayout::probes
