// `pglayout probe --concurrent`: are "separate" volumes independent? After
// the individual probes, each volume runs one read mix alone, then all of
// them run it at the same time:
//   - random 8 KiB reads at the volume's knee depth (its saturation point),
//   - sequential 1 MiB reads at depth 4 (a scan or a backup reader),
// both at once on the volume's filled probe file. Together against the sum
// of alone exposes what sysfs cannot show (an instance-wide bandwidth cap,
// a SAN or hypervisor disk behind two block devices) and confirms what it
// does (two directories on one disk).

#ifndef PGLAYOUT_PROBES_CONCURRENT_H_
#define PGLAYOUT_PROBES_CONCURRENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/progress.h"
#include "common/status.h"
#include "probes/io_engine.h"

namespace pglayout::probes {

inline constexpr uint64_t kConcurrentSeqBlock = 1 * kMiB;
inline constexpr int kConcurrentSeqDepth = 4;
// Together below this share of alone (IOPS or MB/s) means a shared
// bottleneck; above it the volumes are independent at these loads.
inline constexpr double kIndependentRatio = 0.8;

struct ConcurrentTarget {
  std::string name;
  // Not owned. Real targets have one engine each (one probe file each);
  // targets simulated on one device share its engine and differ in region.
  IoEngine* engine = nullptr;
  uint64_t region_offset = 0;  // the readable part of its probe file
  uint64_t region_size = 0;    // at least 2 MiB
  int knee_depth = 1;          // its random-read knee (readers_to_saturate)
  // Physical disks under it (PhysicalDisks(topology)), or any token naming
  // the device when there is none; equal tokens mean sharing.
  std::vector<std::string> disks;
};

struct ConcurrentOptions {
  double warmup_seconds = 0.3;  // run, then discarded, at every start
  double seconds = 2;           // measured time of each run
  double interval_seconds = 0.1;
};

// Runs the mix on each target alone, then on all at once (one thread per
// engine, each job in its own thread or simulated together), and fills
// |result| with the per-volume and aggregate figures, the ratios and the
// verdict (ConcurrentVerdict). Takes (targets + 1) x (warm-up + seconds).
// InvalidInput for fewer than two targets or a target without an engine or
// room for a 1 MiB read; otherwise the first engine error.
Status RunConcurrent(const std::vector<ConcurrentTarget>& targets,
                     const ConcurrentOptions& options, ProgressSink* progress,
                     Concurrent* result);

// The sentence for people: which targets share which devices (from
// |targets|' disks), how much of alone they reached together, and what
// that means for planning. |result| has its ratios set.
std::string ConcurrentVerdict(const Concurrent& result,
                              const std::vector<ConcurrentTarget>& targets);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_CONCURRENT_H_
