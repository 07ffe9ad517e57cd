// Pure analysis of probe results: where a queue-depth sweep should stop,
// where its knee is, what read size spans the stripe, and how a volume's
// headline figures follow from its curves. No I/O; unit-tested on curves
// with known answers and on the simulated device.

#ifndef PGLAYOUT_PROBES_ANALYSIS_H_
#define PGLAYOUT_PROBES_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/model.h"

namespace pglayout::probes {

// Fraction of the peak that counts as "reached" for the knee of the
// queue-depth curve.
inline constexpr double kReachedFraction = 0.9;
// A depth point that adds less throughput than this no longer pays.
inline constexpr double kMinUsefulGain = 0.10;
// Latency at which a sweep stops whatever the throughput does: no database
// would run a volume there.
inline constexpr double kExplodedLatencyUs = 1e6;

// Whether a queue-depth sweep (points in increasing depth) should go on to
// the next depth: false once the last point raised IOPS by less than
// kMinUsefulGain, or its p99 passed kExplodedLatencyUs.
bool SweepShouldContinue(const std::vector<RandomReadPoint>& curve);
bool SweepShouldContinue(const std::vector<RandomWritePoint>& curve);

// The knee of a queue-depth curve: index of the smallest depth whose IOPS
// reach kReachedFraction of the curve's peak. -1 for an empty curve.
int FindKnee(const std::vector<RandomReadPoint>& curve);

// The stripe-wide read size: the smallest request size whose MB/s at
// |queue_depth| reaches kStripeReadFraction (90%) of the curve's plateau,
// PlateauMbps (common/stripe_read.h: the median of its three largest
// sizes, so one lucky point does not raise the line). On a RAID0 of 4 disks
// with 512 KiB chunks this is 2-4 MiB; on one disk about 1 MiB
// (docs/device-model.md#stripe-wide-reads). 0 when no point has that depth.
uint64_t StripeWideReadSize(const std::vector<SequentialReadPoint>& curve,
                            int queue_depth = 1);

// The stripe-wide read size from repeated depth-1 sweeps (each a curve of
// the same sizes): the knee of the median curve (per size, the median MB/s
// of the sweeps: one disturbed sweep cannot move it), and the smallest and
// largest knee of the single sweeps, which say how far one sweep alone could
// be trusted (common/stripe_read.h judges them).
struct StripeReadEstimate {
  std::vector<SequentialReadPoint> median;  // per size, in size order
  uint64_t size = 0;                        // StripeWideReadSize(median)
  uint64_t min_size = 0;
  uint64_t max_size = 0;
  int repeats = 0;  // sweeps with at least one point
};
StripeReadEstimate EstimateStripeReadSize(
    const std::vector<std::vector<SequentialReadPoint>>& sweeps);

// Fills the headline fields of |volume| from its curves (randread,
// seqread, syncwrite, randwrite must already be set): read_iops at the
// knee, readers_to_saturate = knee depth, read_latency_us and its p99 from
// depth 1, read_mbps = best sequential MB/s, stripe_read_size,
// sync_write_latency_us/p99 from the 8 KiB fdatasync point, write_iops =
// best durable random write IOPS. write_mbps is set by the caller (it comes
// from the fill). Fields without data are left as they are.
void DeriveHeadlines(Volume* volume);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_ANALYSIS_H_
