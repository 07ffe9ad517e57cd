#include "probes/prober.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/units.h"
#include "probes/analysis.h"
#include "probes/simulated_device.h"

namespace pglayout::probes {
namespace {

SimulatedDeviceConfig Raid0(int members, double noise = 0) {
  SimulatedDeviceConfig c;
  c.members = members;
  c.chunk = 512 * kKiB;
  c.noise = noise;
  return c;  // 100 us read access, 30 us write access, 1000 MB/s, 400 us flush
}

struct Probed {
  ProbeResult result;
  Volume volume;
  double simulated_seconds = 0;
};

// |relative_ci|: 0 = the mode's.
Probed ProbeSimulated(const SimulatedDeviceConfig& config, bool quick = false,
                      double relative_ci = 0) {
  SimulatedDevice device(config);
  ProbeOptions options;
  options.file_size = 1 * kGiB;
  options.quick = quick;
  options.relative_ci = relative_ci;
  Probed p;
  Status st = RunProbe(&device, options, nullptr, &p.result);
  EXPECT_TRUE(st.ok()) << st.ToString();
  ApplyProbeResult(p.result, &p.volume);
  p.simulated_seconds = device.simulated_seconds();
  return p;
}

TEST(Prober, FindsTheKnownAnswersOfAFourDiskRaid0) {
  Probed p = ProbeSimulated(Raid0(4));
  const Volume& v = p.volume;
  EXPECT_EQ(p.result.engine, "simulated");
  EXPECT_EQ(p.result.filled_bytes, 1 * kGiB);
  // Depth-1 8 KiB read: 100 + 8.192 us.
  EXPECT_NEAR(v.read_latency_us, 108.192, 108.192 / 100);
  // Saturation: 4 members / 108.192 us = 36,971 IOPS; the knee reaches 90%
  // of what the sweep saw, somewhere between one and sixteen per member.
  double peak = 4 * 1e6 / 108.192;
  EXPECT_GE(v.read_iops, 0.85 * peak);
  EXPECT_LE(v.read_iops, 1.001 * peak);
  EXPECT_GE(v.readers_to_saturate, 8);
  EXPECT_LE(v.readers_to_saturate, 64);
  // A 4-disk, 512 KiB-chunk RAID0 needs 4 MiB reads
  // (docs/device-model.md#stripe-wide-reads).
  EXPECT_EQ(v.stripe_read_size, 4 * kMiB);
  EXPECT_NEAR(v.read_mbps, 3907, 3907 * 0.02);  // 16 MiB at depth 1
  // Commit: 30 us write access + 8.192 us transfer + 400 us flush.
  EXPECT_NEAR(v.sync_write_latency_us, 438.192, 438.192 / 100);
  ASSERT_EQ(v.syncwrite.size(), 3u);
  EXPECT_EQ(v.syncwrite[1].method, "open_datasync");
  // The fill: 1 MiB writes, 4 in flight, over 4 members of 1000 MB/s.
  EXPECT_GT(v.write_mbps, 3000);
  EXPECT_LT(v.write_mbps, 4000);
  EXPECT_FALSE(v.randwrite.empty());
  EXPECT_LE(p.simulated_seconds, kFullBudgetSeconds);
}

TEST(Prober, OneDiskNeedsOneMiBReads) {
  Probed p = ProbeSimulated(Raid0(1));
  EXPECT_EQ(p.volume.stripe_read_size, 1 * kMiB);
  // One member: saturation at depth 1 already (no internal parallelism).
  EXPECT_EQ(p.volume.readers_to_saturate, 1);
  EXPECT_NEAR(p.volume.read_iops, 1e6 / 108.192, 1e6 / 108.192 * 0.01);
}

TEST(Prober, DeepNvmeQueuesMoveTheKneeOut) {
  SimulatedDeviceConfig c = Raid0(1);
  c.parallelism = 32;  // one NVMe drive serving 32 commands at once
  Probed p = ProbeSimulated(c);
  EXPECT_GE(p.volume.readers_to_saturate, 16);
  EXPECT_LE(p.volume.readers_to_saturate, 64);
  EXPECT_GE(p.volume.read_iops, 0.85 * 32 * 1e6 / 108.192);
}

TEST(Prober, NoiseDoesNotChangeTheAnswers) {
  Probed p = ProbeSimulated(Raid0(4, /*noise=*/0.3));
  EXPECT_NEAR(p.volume.read_latency_us, 108.192, 108.192 * 0.05);
  EXPECT_EQ(p.volume.stripe_read_size, 4 * kMiB);
  // Three sweeps, their knees recorded; the curve is their median, one
  // point per size.
  EXPECT_EQ(p.volume.stripe_read_repeats, 3);
  EXPECT_GE(p.volume.stripe_read_size_min, 2 * kMiB);
  EXPECT_LE(p.volume.stripe_read_size_max, 8 * kMiB);
  EXPECT_EQ(std::count_if(p.volume.seqread.begin(), p.volume.seqread.end(),
                          [](const auto& s) { return s.queue_depth == 1; }),
            8);
  EXPECT_LE(p.simulated_seconds, kFullBudgetSeconds);
}

// The paced read points run outside the budget: a few seconds more.
TEST(Prober, QuickModeStaysWithinTwentySeconds) {
  Probed p = ProbeSimulated(Raid0(4, 0.3), /*quick=*/true);
  EXPECT_LE(p.simulated_seconds, kQuickBudgetSeconds + 4);
  EXPECT_EQ(p.volume.stripe_read_size, 4 * kMiB);
  EXPECT_EQ(p.volume.stripe_read_repeats, 2);
  EXPECT_EQ(p.volume.syncwrite.size(), 1u);
  EXPECT_GE(p.volume.randread.size(), 3u);
}

TEST(Prober, ATinyBudgetSkipsPointsAndSaysSo) {
  SimulatedDevice device(Raid0(4, 0.3));
  ProbeOptions options;
  options.file_size = 1 * kGiB;
  options.budget_seconds = 3;
  ProbeResult result;
  ASSERT_TRUE(RunProbe(&device, options, nullptr, &result).ok());
  EXPECT_LE(device.simulated_seconds(), 3.5);
  ASSERT_FALSE(result.randread.empty());
  bool mentioned = false;
  for (const std::string& n : result.notes) {
    mentioned = mentioned || n.find("skipped") != std::string::npos;
  }
  EXPECT_TRUE(mentioned);
}

// A simulated device on which one job (by the order of Run calls) completes
// nothing: its intervals pass empty until the observer or the cap ends it.
class StallingDevice : public IoEngine {
 public:
  StallingDevice(const SimulatedDeviceConfig& config, int stalled_run)
      : device_(config), stalled_run_(stalled_run) {}
  std::string name() const override { return "stalling"; }
  Status Run(const IoJob& job, const IntervalObserver& observer,
             JobResult* result) override {
    if (++runs_ != stalled_run_) return device_.Run(job, observer, result);
    *result = JobResult();
    IntervalStats empty;
    empty.seconds = job.interval_seconds;
    while (result->total.seconds < job.max_seconds) {
      result->total.Merge(empty);
      if (!observer(empty)) break;
    }
    return Status::Ok();
  }
  Status RunTogether(const std::vector<IoJob>&,
                     const std::vector<IntervalObserver>&,
                     std::vector<JobResult>*) override {
    return Status::Unavailable("not used here");
  }

 private:
  SimulatedDevice device_;
  int stalled_run_;
  int runs_ = 0;
};

TEST(Prober, APointThatCompletesNothingIsLeftOutNotReadAsZero) {
  // Run 1 is the fill, run 2 the depth-1 reads, run 3 the depth-4 reads.
  StallingDevice device(Raid0(4), /*stalled_run=*/3);
  ProbeOptions options;
  options.file_size = 1 * kGiB;
  options.quick = true;
  ProbeResult result;
  ASSERT_TRUE(RunProbe(&device, options, nullptr, &result).ok());
  // The sweep went on past the stalled depth, and no point reads zero.
  ASSERT_GE(result.randread.size(), 2u);
  EXPECT_EQ(result.randread[0].queue_depth, 1);
  EXPECT_EQ(result.randread[1].queue_depth, 16);
  for (const RandomReadPoint& p : result.randread) EXPECT_GT(p.iops, 0);
  std::string notes;
  for (const std::string& n : result.notes) notes += n + "\n";
  EXPECT_NE(notes.find("randread 8KiB qd=4: no I/O completed"),
            std::string::npos)
      << notes;
}

TEST(Prober, EnospcDuringTheFillFailsWithAClearMessage) {
  SimulatedDeviceConfig c = Raid0(1);
  c.fail_after_write_bytes = 100 * kMiB;
  c.fail_errno = ENOSPC;
  SimulatedDevice device(c);
  ProbeOptions options;
  options.file_size = 1 * kGiB;
  ProbeResult result;
  Status st = RunProbe(&device, options, nullptr, &result);
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("filling the probe file"), std::string::npos);
  EXPECT_NE(st.message().find("ENOSPC"), std::string::npos);
}

TEST(Prober, NoDirectIoIsUnavailable) {
  SimulatedDeviceConfig c = Raid0(1);
  c.fail_after_write_bytes = 1;
  c.fail_errno = EINVAL;
  SimulatedDevice device(c);
  ProbeOptions options;
  options.file_size = 64 * kMiB;
  ProbeResult result;
  Status st = RunProbe(&device, options, nullptr, &result);
  EXPECT_EQ(st.code(), Status::Code::kUnavailable);
  EXPECT_NE(st.message().find("O_DIRECT"), std::string::npos) << st.message();
}

TEST(Prober, RefusesATinyFile) {
  SimulatedDevice device(Raid0(1));
  ProbeOptions options;
  options.file_size = 1 * kMiB;
  ProbeResult result;
  EXPECT_TRUE(RunProbe(&device, options, nullptr, &result).IsInvalidInput());
}

// ------------------------------------------------ the confidence target --

// The half-width a device reaches shrinks as the square root of the seconds
// measured: +/-2% in a full point of 3 s is +/-3.5% in a quick point of 1 s.
TEST(ModeRelativeCi, FollowsTheSquareRootOfThePointLength) {
  EXPECT_DOUBLE_EQ(ModeRelativeCi(kFullPointSeconds), kFullRelativeCi);
  EXPECT_NEAR(ModeRelativeCi(1.0), 0.0346, 1e-4);
}

bool HasNote(const ProbeResult& r, const std::string& text) {
  for (const std::string& n : r.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// A device noisy enough that a quick point misses +/-2% (the old target of
// every mode) while the full probe meets it: quick, at its own target,
// does not warn; held to +/-2% it warns, as it did on every run.
TEST(Prober, QuickModeJudgesItsPointsAtItsOwnTarget) {
  const SimulatedDeviceConfig noisy = Raid0(4, /*noise=*/0.6);
  EXPECT_FALSE(HasNote(ProbeSimulated(noisy, false, 0).result, "time cap"));
  EXPECT_FALSE(HasNote(ProbeSimulated(noisy, true, 0).result, "time cap"));
  EXPECT_TRUE(HasNote(ProbeSimulated(noisy, true, 0.02).result,
                      "points reached their time cap before +/-2.0% "
                      "confidence"));
}

// Open-loop reads at 10 to 90% of the saturated IOPS. One simulated disk
// serves one 8 KiB read in S = 108.192 us, so with Poisson arrivals it is
// an M/D/1 queue: mean latency S x (1 + rho / (2 (1 - rho))), 131 us at
// 30% and 595 us at 90%, where a closed-loop depth-1 point sees S at the
// saturated rate.
TEST(Prober, PacedPointsMeasureLatencyAgainstOfferedLoad) {
  Probed p = ProbeSimulated(Raid0(1));
  const std::vector<PacedReadPoint>& paced = p.volume.paced_read;
  ASSERT_EQ(paced.size(), 5u);
  double saturated = 0;
  for (const RandomReadPoint& r : p.volume.randread) {
    saturated = std::max(saturated, r.iops);
  }
  const double service = 108.192;
  const double loads[] = {0.1, 0.3, 0.5, 0.7, 0.9};
  for (size_t i = 0; i < paced.size(); ++i) {
    SCOPED_TRACE(loads[i]);
    EXPECT_NEAR(paced[i].offered_iops, loads[i] * saturated, 1e-6);
    EXPECT_NEAR(paced[i].iops, paced[i].offered_iops,
                0.05 * paced[i].offered_iops);
    const double rho = paced[i].offered_iops * service / 1e6;
    const double md1 = service * (1 + rho / (2 * (1 - rho)));
    EXPECT_NEAR(paced[i].mean_us, md1, (rho > 0.8 ? 0.3 : 0.1) * md1);
    EXPECT_GE(paced[i].p99_us, paced[i].p50_us);
    if (i > 0) {
      EXPECT_GT(paced[i].mean_us, paced[i - 1].mean_us);
    }
  }
  EXPECT_FALSE(HasNote(p.result, "paced reads completed less"));
}

// A paced job on a device that cannot keep up: the rate achieved falls
// short, and the backlog queued at the device counts as latency.
TEST(Prober, APacedJobThatFallsBehindCountsTheBacklogAsLatency) {
  SimulatedDevice device(Raid0(1));
  IoJob job;
  job.region_size = 1 * kGiB;
  job.queue_depth = 4;
  job.rate_iops = 2 * 1e6 / 108.192;  // twice what the disk serves
  job.max_seconds = 0.5;
  JobResult r;
  ASSERT_TRUE(device
                  .Run(
                      job, [](const IntervalStats&) { return true; }, &r)
                  .ok());
  EXPECT_LT(r.total.ios / r.total.seconds, 0.6 * job.rate_iops);
  EXPECT_GT(r.total.latency.mean_ns() / 1000, 10 * 108.192)
      << "the backlog counts as latency";
}

// ------------------------------------------------ I/O that is not ours --

// Counts what the probe transfers through |inner|, as the kernel would.
class CountingEngine : public IoEngine {
 public:
  explicit CountingEngine(SimulatedDevice* inner) : inner_(inner) {}
  std::string name() const override { return inner_->name(); }
  Status Run(const IoJob& job, const IntervalObserver& observer,
             JobResult* result) override {
    Status st = inner_->Run(job, observer, result);
    (job.kind == IoKind::kRead ? read_bytes : write_bytes) +=
        result->total.bytes;
    return st;
  }
  double seconds() const { return inner_->simulated_seconds(); }
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;

 private:
  SimulatedDevice* inner_;
};

// The device's counters: the probe's own I/O, plus another job reading
// |foreign_mbps| between simulated seconds |from| and |to|.
class BusyDevice : public DeviceCounters {
 public:
  BusyDevice(const CountingEngine* engine, double foreign_mbps, double from,
             double to)
      : engine_(engine), mbps_(foreign_mbps), from_(from), to_(to) {}
  std::string device() const override { return "vdb"; }
  Status Read(DiskCounters* out) override {
    if (fail) return Status::IoError("/proc/diskstats: permission denied");
    const double t = std::clamp(engine_->seconds(), from_, to_) - from_;
    out->read_bytes =
        engine_->read_bytes + static_cast<uint64_t>(mbps_ * 1e6 * t);
    out->write_bytes = engine_->write_bytes;
    return Status::Ok();
  }
  bool fail = false;

 private:
  const CountingEngine* engine_;
  double mbps_, from_, to_;
};

ProbeResult ProbeBeside(double foreign_mbps, double from, double to,
                        bool fail = false) {
  SimulatedDevice device(Raid0(4));
  CountingEngine engine(&device);
  BusyDevice counters(&engine, foreign_mbps, from, to);
  counters.fail = fail;
  ProbeOptions options;
  options.file_size = 1 * kGiB;
  options.quick = true;
  options.counters = &counters;
  ProbeResult result;
  EXPECT_TRUE(RunProbe(&engine, options, nullptr, &result).ok());
  return result;
}

TEST(ProbeBesideAJob, AnIdleDeviceSaysNothing) {
  const ProbeResult r = ProbeBeside(0, 0, 1e9);
  EXPECT_FALSE(HasNote(r, "not the probe's own")) << r.notes.size();
}

// Another job reads 200 MB/s throughout: every point sees it, is repeated,
// sees it again, and the result names the points.
TEST(ProbeBesideAJob, AJobBesideTheProbeIsNamedPointByPoint) {
  const ProbeResult r = ProbeBeside(200, 0, 1e9);
  ASSERT_TRUE(HasNote(r,
                      "saw I/O on vdb that was not the probe's own, even "
                      "when repeated: randread 8KiB qd=1: "))
      << (r.notes.empty() ? "" : r.notes.back());
  EXPECT_TRUE(HasNote(r,
                      "Another job uses the device, so these figures are "
                      "low; probe again when it is idle"));
  EXPECT_FALSE(HasNote(r, "measured again without it"));
}

// A burst of 200 MB/s during the first read point only: the point is
// measured again, clean, and the result says so without blaming it.
TEST(ProbeBesideAJob, APointDisturbedOnceIsMeasuredAgain) {
  // The fill takes the first ~0.3 simulated seconds of a quick probe of
  // 1 GiB at 4 GB/s; the first read point follows.
  const ProbeResult r = ProbeBeside(200, 0.4, 0.6);
  EXPECT_TRUE(HasNote(r,
                      "1 point(s) saw I/O on vdb that was not the probe's "
                      "own and were measured again without it"))
      << (r.notes.empty() ? "" : r.notes.back());
  EXPECT_FALSE(HasNote(r, "even when repeated"));
}

TEST(ProbeBesideAJob, UnreadableCountersAreSaidOnce) {
  const ProbeResult r = ProbeBeside(200, 0, 1e9, /*fail=*/true);
  EXPECT_TRUE(HasNote(r,
                      "the device's counters could not be read "
                      "(/proc/diskstats: permission denied): I/O by "
                      "others on vdb is not checked"));
  EXPECT_FALSE(HasNote(r, "even when repeated"));
}

TEST(MeasurePoint, StopsAsSoonAsTheEstimateIsStable) {
  SimulatedDevice device(Raid0(4));
  IoJob job;
  job.block_size = kPageSize;
  job.queue_depth = 8;
  job.region_size = 1 * kGiB;
  PointLimits limits;  // 0.3 s warm-up, 1..3 s, +/-2%
  PointResult r;
  ASSERT_TRUE(MeasurePoint(&device, job, limits, nullptr, &r).ok());
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.stats.seconds, 1.0, 0.11);  // deterministic: the minimum
  EXPECT_LT(r.relative_ci, 0.02);
  EXPECT_NEAR(r.engine_seconds, 1.3, 0.11);  // warm-up included
}

TEST(MeasurePoint, ANoisyDeviceRunsToTheCap) {
  SimulatedDeviceConfig c = Raid0(1, /*noise=*/0.9);
  SimulatedDevice device(c);
  IoJob job;
  job.block_size = 4 * kMiB;  // few, long I/Os per interval: noisy samples
  job.queue_depth = 1;
  job.access = Access::kSequential;
  job.region_size = 1 * kGiB;
  PointLimits limits;
  limits.relative_ci = 0.001;
  PointResult r;
  ASSERT_TRUE(MeasurePoint(&device, job, limits, nullptr, &r).ok());
  EXPECT_FALSE(r.converged);
  EXPECT_NEAR(r.stats.seconds, 3.0, 0.11);
}

}  // namespace
}  // namespace pglayout::probes
