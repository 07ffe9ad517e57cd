#include "probes/io_engine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "probes/interval_reporter.h"
#include "probes/io_pattern.h"

namespace pglayout::probes {

void IntervalStats::Merge(const IntervalStats& other) {
  seconds += other.seconds;
  ios += other.ios;
  bytes += other.bytes;
  cpu_seconds += other.cpu_seconds;
  inflight_sum += other.inflight_sum;
  submissions += other.submissions;
  latency.Merge(other.latency);
}

Status IoEngine::RunTogether(const std::vector<IoJob>& jobs,
                             const std::vector<IntervalObserver>& observers,
                             std::vector<JobResult>* results) {
  if (observers.size() != jobs.size()) {
    return Status::Internal("RunTogether needs one observer per job");
  }
  results->assign(jobs.size(), JobResult());
  std::vector<Status> statuses(jobs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i) {
    threads.emplace_back(
        [&, i] { statuses[i] = Run(jobs[i], observers[i], &(*results)[i]); });
  }
  for (std::thread& t : threads) t.join();
  for (const Status& st : statuses) PGLAYOUT_RETURN_IF_ERROR(st);
  return Status::Ok();
}

Status ValidateJob(const IoJob& job, uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  if (job.block_size == 0 || job.block_size % alignment != 0) {
    return Status::InvalidInput(fmt::format(
        "block size {} is not a multiple of the direct I/O alignment {}",
        job.block_size, alignment));
  }
  if (job.region_offset % alignment != 0) {
    return Status::InvalidInput(fmt::format(
        "region offset {} is not aligned to {}", job.region_offset, alignment));
  }
  if (job.region_size < job.block_size) {
    return Status::InvalidInput(
        fmt::format("region of {} bytes cannot hold one {}-byte I/O",
                    job.region_size, job.block_size));
  }
  if (job.queue_depth < 1 || job.queue_depth > 1024) {
    return Status::InvalidInput(
        fmt::format("queue depth {} is outside 1..1024", job.queue_depth));
  }
  if (job.max_seconds <= 0 || job.interval_seconds <= 0) {
    return Status::InvalidInput("job durations must be positive");
  }
  if (!(job.rate_iops >= 0) || job.rate_iops > 1e8) {
    return Status::InvalidInput(fmt::format(
        "paced rate {} I/O per second is outside 0..10^8", job.rate_iops));
  }
  return Status::Ok();
}

Status AllocateJobBuffers(const IoJob& job, uint64_t alignment,
                          JobBuffers* buffers) {
  size_t bytes = static_cast<size_t>(job.block_size) * job.queue_depth;
  void* raw = nullptr;
  if (posix_memalign(&raw, std::max<size_t>(4096, alignment), bytes) != 0) {
    return Status::IoError(
        fmt::format("could not allocate {} bytes of I/O buffers", bytes));
  }
  *buffers = JobBuffers(static_cast<unsigned char*>(raw), &std::free);
  if (job.kind == IoKind::kWrite) FillRandom(raw, bytes, job.seed);
  return Status::Ok();
}

Status SyncIfDurableAtEnd(int fd, const IoJob& job, JobResult* result) {
  if (job.durability != Durability::kFdatasyncAtEnd) return Status::Ok();
  uint64_t t0 = MonotonicNs();
  if (fdatasync(fd) != 0) return TransferError("fdatasync", errno);
  result->sync_seconds = static_cast<double>(MonotonicNs() - t0) / 1e9;
  return Status::Ok();
}

Status TransferError(const std::string& what, int error) {
  switch (error) {
    case ENOSPC:
      return Status::IoError(fmt::format(
          "{}: no space left on the volume (ENOSPC); the probe file was "
          "removed. Free some space or pass a smaller --size",
          what));
    case EINVAL:
      return Status::Unavailable(fmt::format(
          "{}: the filesystem refused an aligned direct I/O (EINVAL). "
          "pglayout probe must bypass the page cache to measure the device; "
          "filesystems without O_DIRECT (tmpfs before Linux 6.6, ext4 with "
          "data=journal, some FUSE and network filesystems) cannot be probed",
          what));
    default:
      return Status::FromErrno(what, error);
  }
}

}  // namespace pglayout::probes
