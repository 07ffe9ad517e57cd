// The seam between the probe suites and the disk: an IoEngine runs one job
// (N I/Os of one shape, kept at a fixed queue depth) against the probe file
// and reports what it saw, interval by interval, to an observer that decides
// when to stop. Three implementations:
//   - io_uring with O_DIRECT and registered buffers (uring_engine.h), the
//     real one and the only code that includes <liburing.h>;
//   - a pread/pwrite thread pool (thread_pool_engine.h), used when io_uring
//     is unavailable (disabled by sysctl, blocked by seccomp);
//   - a simulated RAID0 device (simulated_device.h) with known answers, for
//     the unit tests of everything above the seam.

#ifndef PGLAYOUT_PROBES_IO_ENGINE_H_
#define PGLAYOUT_PROBES_IO_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/units.h"
#include "probes/latency_histogram.h"

namespace pglayout::probes {

enum class IoKind { kRead, kWrite };
enum class Access { kRandom, kSequential };

// How writes are made durable.
enum class Durability {
  kNone,            // no flush (reads; or writes measured without flushing)
  kFdatasyncEach,   // write then fdatasync, each pair one I/O (WAL, default
                    // wal_sync_method on Linux)
  kDsyncEach,       // each write with RWF_DSYNC (wal_sync_method=open_datasync)
  kFdatasyncAtEnd,  // one fdatasync after the last write, timed separately
};

struct IoJob {
  IoKind kind = IoKind::kRead;
  Access access = Access::kRandom;
  uint64_t block_size = kPageSize;  // bytes; a multiple of the DIO alignment
  int queue_depth = 1;              // I/Os kept in flight, 1..1024
  // I/Os stay inside [region_offset, region_offset + region_size), aligned
  // to block_size from region_offset. Sequential access wraps around.
  uint64_t region_offset = 0;
  uint64_t region_size = 0;
  Durability durability = Durability::kNone;
  // Stop submitting after this many bytes (0 = no limit): a fill writes the
  // region exactly once.
  uint64_t max_bytes = 0;
  double max_seconds = 1;         // hard cap on the job, drain included
  double interval_seconds = 0.1;  // how often the observer is called
  uint64_t seed = 1;              // random offsets and data
  // Open loop when > 0: I/Os are issued on a schedule, this many per second
  // on average (a Poisson process, PacedSchedule in io_pattern.h), whatever
  // has completed, with up to queue_depth in flight. Latency counts from
  // submission, as in a closed-loop job: an I/O submitted late (every slot
  // busy, or the probe itself scheduled late on a busy CPU) is not the
  // device's delay; a rate achieved below the offered one says the job
  // could not keep up. 0 = closed loop: queue_depth I/Os always in flight.
  double rate_iops = 0;
};

// What happened during one interval (or a whole job, when merged).
struct IntervalStats {
  double seconds = 0;       // elapsed time covered
  uint64_t ios = 0;         // completed I/Os (a write+fdatasync pair is one)
  uint64_t bytes = 0;       // bytes transferred by them
  double cpu_seconds = 0;   // user + sys CPU of the whole process, all
                            // threads (io_uring workers included)
  double inflight_sum = 0;  // sum over submissions of the in-flight count
  uint64_t submissions = 0;
  LatencyHistogram latency;  // per-I/O, submission to completion, ns

  double mean_inflight() const {
    return submissions == 0 ? 0 : inflight_sum / submissions;
  }
  void Merge(const IntervalStats& other);
};

struct JobResult {
  IntervalStats total;      // every interval of the job, merged
  double sync_seconds = 0;  // the final fdatasync of kFdatasyncAtEnd
  uint64_t retries = 0;     // I/Os resubmitted after EAGAIN
  bool stopped_by_observer = false;
};

// Called after each interval with that interval's figures. Return false to
// stop the job: no new I/O is submitted and the ones in flight are drained.
using IntervalObserver = std::function<bool(const IntervalStats&)>;

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  // "io_uring", "pread-threads", "simulated": printed with the results.
  virtual std::string name() const = 0;
  // Runs |job| until the observer says stop, max_bytes are done or
  // max_seconds pass, then fills |result|. Errors: IoError with errno text
  // (ENOSPC, EIO, ...), Unavailable when direct I/O is refused (EINVAL on
  // the first transfer), InvalidInput for a malformed job.
  virtual Status Run(const IoJob& job, const IntervalObserver& observer,
                     JobResult* result) = 0;
  // Runs every job of |jobs| at the same time against this engine's file,
  // observers[i] watching jobs[i] (called from the job's own thread, so an
  // observer must touch only its own state), and fills results[i]. Both
  // vectors must have the same size. The default gives each job a thread
  // calling Run, which the real engines support (every Run has its own ring
  // or threads); the simulated device overrides it so the jobs compete for
  // its members in simulated time. Returns the first job's error.
  virtual Status RunTogether(const std::vector<IoJob>& jobs,
                             const std::vector<IntervalObserver>& observers,
                             std::vector<JobResult>* results);
};

// Checks the fields every engine relies on (sizes aligned to |alignment|,
// region large enough for one block, depth in range).
Status ValidateJob(const IoJob& job, uint64_t alignment);

// The text used for a transfer that failed with |error| (a positive errno)
// in |what| ("read", "write", "fdatasync"), mapping the special cases the
// user can act on: ENOSPC, EINVAL (no direct I/O), EIO.
Status TransferError(const std::string& what, int error);

// queue_depth blocks of |job|, aligned for direct I/O to |alignment| (at
// least 4 KiB); filled with incompressible data when the job writes.
using JobBuffers = std::unique_ptr<unsigned char, void (*)(void*)>;
Status AllocateJobBuffers(const IoJob& job, uint64_t alignment,
                          JobBuffers* buffers);

// For a job whose durability is kFdatasyncAtEnd: fdatasync(|fd|), with its
// time in result->sync_seconds; does nothing for other jobs.
Status SyncIfDurableAtEnd(int fd, const IoJob& job, JobResult* result);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_IO_ENGINE_H_
