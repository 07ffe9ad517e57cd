#include "probes/thread_pool_engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "probes/interval_reporter.h"
#include "probes/io_pattern.h"

namespace pglayout::probes {
namespace {

// What the workers share. Offsets come from one generator under a mutex so
// a sequential job stays sequential across threads.
struct Shared {
  const IoJob* job = nullptr;
  int fd = -1;
  std::mutex offsets_mu;
  OffsetGenerator* offsets = nullptr;
  uint64_t submitted_bytes = 0;       // guarded by offsets_mu
  PacedSchedule* schedule = nullptr;  // paced jobs only; under offsets_mu
  uint64_t start_ns = 0;
  std::atomic<bool> stop{false};
  std::atomic<int> inflight{0};
  std::mutex error_mu;
  int error = 0;  // first errno, guarded by error_mu
  uint64_t error_offset = 0;
};

// Per-thread figures, collected by the coordinator each interval.
struct WorkerStats {
  std::mutex mu;
  IntervalStats stats;
};

// The next I/O's offset and, for a paced job, its due time (else 0).
bool NextOffset(Shared* shared, uint64_t* offset, uint64_t* due_ns) {
  std::lock_guard<std::mutex> lock(shared->offsets_mu);
  const IoJob& job = *shared->job;
  if (job.max_bytes != 0 && shared->submitted_bytes >= job.max_bytes)
    return false;
  shared->submitted_bytes += job.block_size;
  *offset = shared->offsets->Next();
  *due_ns = 0;
  if (shared->schedule != nullptr) {
    *due_ns = shared->start_ns +
              static_cast<uint64_t>(shared->schedule->Next() * 1e9);
  }
  return true;
}

// Sleeps until |due_ns|, in naps short enough to notice a stop. False when
// the job stopped meanwhile.
bool WaitUntil(Shared* shared, uint64_t due_ns) {
  constexpr uint64_t kNapNs = 20'000'000;
  for (uint64_t now = MonotonicNs(); now < due_ns; now = MonotonicNs()) {
    if (shared->stop) return false;
    std::this_thread::sleep_for(
        std::chrono::nanoseconds(std::min(kNapNs, due_ns - now)));
  }
  return !shared->stop;
}

void RecordError(Shared* shared, int error, uint64_t offset) {
  std::lock_guard<std::mutex> lock(shared->error_mu);
  if (shared->error == 0) {
    shared->error = error;
    shared->error_offset = offset;
  }
  shared->stop = true;
}

// One transfer (plus its flush); returns 0 or a positive errno.
int Transfer(const IoJob& job, int fd, unsigned char* buf, uint64_t offset) {
  ssize_t n;
  do {
    if (job.kind == IoKind::kRead) {
      n = pread(fd, buf, job.block_size, static_cast<off_t>(offset));
    } else if (job.durability == Durability::kDsyncEach) {
      iovec iov{buf, job.block_size};
      n = pwritev2(fd, &iov, 1, static_cast<off_t>(offset), RWF_DSYNC);
    } else {
      n = pwrite(fd, buf, job.block_size, static_cast<off_t>(offset));
    }
  } while (n < 0 && (errno == EINTR || errno == EAGAIN));
  if (n < 0) return errno;
  if (static_cast<uint64_t>(n) != job.block_size) return EIO;
  if (job.kind == IoKind::kWrite &&
      job.durability == Durability::kFdatasyncEach && fdatasync(fd) != 0) {
    return errno;
  }
  return 0;
}

void Worker(Shared* shared, WorkerStats* mine, unsigned char* buf,
            uint64_t id) {
  const IoJob& job = *shared->job;
  uint64_t serial = id << 40;
  uint64_t offset, due_ns;
  while (!shared->stop && NextOffset(shared, &offset, &due_ns)) {
    if (due_ns != 0 && !WaitUntil(shared, due_ns)) return;
    if (job.kind == IoKind::kWrite) StampBlocks(buf, job.block_size, ++serial);
    int inflight = ++shared->inflight;
    uint64_t t0 = MonotonicNs();
    int error = Transfer(job, shared->fd, buf, offset);
    uint64_t t1 = MonotonicNs();
    --shared->inflight;
    if (error != 0) {
      RecordError(shared, error, offset);
      return;
    }
    std::lock_guard<std::mutex> lock(mine->mu);
    mine->stats.latency.Record(t1 - t0);
    ++mine->stats.ios;
    mine->stats.bytes += job.block_size;
    mine->stats.inflight_sum += inflight;
    ++mine->stats.submissions;
  }
}

void Collect(std::vector<std::unique_ptr<WorkerStats>>& workers,
             IntervalReporter* reporter) {
  for (auto& w : workers) {
    std::lock_guard<std::mutex> lock(w->mu);
    reporter->current().Merge(w->stats);
    w->stats = IntervalStats();
  }
}

class ThreadPoolEngine : public IoEngine {
 public:
  ThreadPoolEngine(int fd, uint64_t alignment)
      : fd_(fd), alignment_(alignment) {}

  std::string name() const override { return "pread-threads"; }

  Status Run(const IoJob& job, const IntervalObserver& observer,
             JobResult* result) override {
    PGLAYOUT_RETURN_IF_ERROR(ValidateJob(job, alignment_));
    JobBuffers buffers(nullptr, &std::free);
    PGLAYOUT_RETURN_IF_ERROR(AllocateJobBuffers(job, alignment_, &buffers));

    OffsetGenerator offsets(job);
    Shared shared;
    shared.job = &job;
    shared.fd = fd_;
    shared.offsets = &offsets;
    PacedSchedule schedule(job.rate_iops > 0 ? job.rate_iops : 1, job.seed);
    if (job.rate_iops > 0) shared.schedule = &schedule;
    shared.start_ns = MonotonicNs();
    IntervalReporter reporter(job, observer, result);
    std::vector<std::unique_ptr<WorkerStats>> stats;
    std::vector<std::thread> threads;
    for (int i = 0; i < job.queue_depth; ++i) {
      stats.push_back(std::make_unique<WorkerStats>());
      threads.emplace_back(Worker, &shared, stats.back().get(),
                           buffers.get() + i * job.block_size,
                           static_cast<uint64_t>(i + 1));
    }
    // The coordinator wakes a few times per interval to cut intervals and
    // notice the end of a max_bytes job.
    auto nap = std::chrono::microseconds(std::max<int64_t>(
        1000, static_cast<int64_t>(job.interval_seconds * 1e6 / 4)));
    while (!shared.stop) {
      std::this_thread::sleep_for(nap);
      uint64_t now = MonotonicNs();
      Collect(stats, &reporter);
      if (!reporter.Tick(now)) shared.stop = true;
      bool exhausted;
      {
        std::lock_guard<std::mutex> lock(shared.offsets_mu);
        exhausted =
            job.max_bytes != 0 && shared.submitted_bytes >= job.max_bytes;
      }
      if (exhausted && shared.inflight == 0) break;
    }
    shared.stop = true;
    for (std::thread& t : threads) t.join();
    if (!result->stopped_by_observer) Collect(stats, &reporter);
    reporter.Finish(MonotonicNs());
    if (shared.error != 0) {
      return TransferError(
          fmt::format(
              "{} at offset {}",
              job.kind == IoKind::kRead ? "direct read" : "direct write",
              shared.error_offset),
          shared.error);
    }
    return SyncIfDurableAtEnd(fd_, job, result);
  }

 private:
  int fd_;
  uint64_t alignment_;
};

}  // namespace

std::unique_ptr<IoEngine> MakeThreadPoolEngine(int fd, uint64_t alignment) {
  return std::make_unique<ThreadPoolEngine>(fd, alignment);
}

}  // namespace pglayout::probes
