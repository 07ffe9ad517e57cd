// The probe suites of one volume, run through an IoEngine on a probe file
// that exists but holds no data yet: fill (the sequential write), random
// reads against queue depth, paced random reads against offered load,
// sequential reads against request size (swept more than once), WAL-style
// durable writes, random overwrites. Each point runs until its confidence
// target or its share of the time budget; with ProbeOptions::counters, a
// point during which the device served I/O the probe did not issue is
// repeated once and, if it happens again, reported.
// The suites and their rules: docs/probe.md#the-suites.

#ifndef PGLAYOUT_PROBES_PROBER_H_
#define PGLAYOUT_PROBES_PROBER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/progress.h"
#include "common/status.h"
#include "probes/device_counters.h"
#include "probes/io_engine.h"

namespace pglayout::probes {

struct ProbeOptions {
  uint64_t file_size = 0;  // bytes of the probe file, >= kMinProbeFileSize
  bool quick = false;
  // 0 = the default for the mode (90 s, or 20 s with quick).
  double budget_seconds = 0;
  // Stop a point at this relative half-width of the 95% confidence interval
  // of its IOPS; 0 = the mode's (ModeRelativeCi).
  double relative_ci = 0;
  std::string task = "probe";  // for progress lines: "probe data1"
  // The probed device's counters (not owned); null = not checked.
  DeviceCounters* counters = nullptr;
};

inline constexpr uint64_t kMinProbeFileSize = 16 * kMiB;
inline constexpr double kFullBudgetSeconds = 90;
inline constexpr double kQuickBudgetSeconds = 20;
// The confidence target of a full probe's points (up to kFullPointSeconds).
inline constexpr double kFullRelativeCi = 0.02;
inline constexpr double kFullPointSeconds = 3;

// The target for points of up to |max_point_seconds|: kFullRelativeCi x
// sqrt(kFullPointSeconds / max_point_seconds), +/-3.5% for quick's 1 s.
double ModeRelativeCi(double max_point_seconds);

// How long one point may run, and when it is good enough.
struct PointLimits {
  double warmup_seconds = 0.3;  // measured, then discarded
  double min_seconds = 1;
  double max_seconds = 3;
  double relative_ci = 0.02;
  size_t min_samples = 5;
};

// The figures of one point, warm-up excluded.
struct PointResult {
  IntervalStats stats;        // merged measured intervals
  double sync_seconds = 0;    // closing fdatasync, for durable write points
  double engine_seconds = 0;  // everything the point took, warm-up included
  bool converged = false;     // the CI target was met before the time cap
  double relative_ci = 0;     // achieved relative half-width of IOPS
  uint64_t retries = 0;
  uint64_t issued_bytes = 0;  // every byte of the point, warm-up included

  double iops() const;  // ios / (measured seconds + sync_seconds)
  double mbps() const;  // 10^6 bytes per second, same time base
  double cpu_us_per_io() const;
};

// Runs |job| (max_seconds is overwritten from |limits|) and applies the
// warm-up and the stopping rule. |on_interval| (may be empty) sees every
// interval, for progress.
Status MeasurePoint(
    IoEngine* engine, IoJob job, const PointLimits& limits,
    const std::function<void(const IntervalStats&)>& on_interval,
    PointResult* result);

// The job of the fill and of every durable sequential write: direct 1 MiB
// writes at depth 4 over [0, size) (size rounded down to whole MiB), each
// block written once, ending in one fdatasync (JobResult::sync_seconds),
// within |max_seconds|.
IoJob SequentialWriteJob(uint64_t size, double max_seconds);

// Fills [0, size) of the probe file by direct sequential 1 MiB writes at
// depth 4 ending in fdatasync, for at most |max_seconds|. *filled is the
// written prefix (whole MiB), *mbps the durable rate. Needed before any
// read: never-written extents read as zeros without touching the device.
// |on_interval| may be empty; it sees each interval and may stop the fill.
Status FillProbeFile(IoEngine* engine, uint64_t size, double max_seconds,
                     const IntervalObserver& on_interval, uint64_t* filled,
                     double* mbps, double* seconds);

struct ProbeResult {
  std::string engine;         // IoEngine::name()
  uint64_t filled_bytes = 0;  // the readable part of the probe file
  double write_mbps = 0;      // the fill, durable
  std::vector<RandomReadPoint> randread;
  std::vector<PacedReadPoint> paced_read;    // increasing offered rate
  std::vector<SequentialReadPoint> seqread;  // depth 1: the sweeps' median
  // The knees of the single depth-1 sweeps, and how many there were.
  uint64_t stripe_read_size_min = 0;
  uint64_t stripe_read_size_max = 0;
  int stripe_read_repeats = 0;
  std::vector<SyncWritePoint> syncwrite;
  std::vector<RandomWritePoint> randwrite;
  std::vector<std::string> notes;  // for people: caps hit, points skipped
  double seconds = 0;              // engine time used
};

// Runs all suites. Progress goes to |progress| (may be null). Fails on the
// first I/O error (ENOSPC mid-fill included) with the engine's message; the
// caller owns the probe file and removes it.
Status RunProbe(IoEngine* engine, const ProbeOptions& options,
                ProgressSink* progress, ProbeResult* result);

// Copies the result's curves into |volume| and derives its headline fields
// (see DeriveHeadlines).
void ApplyProbeResult(const ProbeResult& result, Volume* volume);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_PROBER_H_
