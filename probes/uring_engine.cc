// The io_uring adapter: the only file that includes <liburing.h>. liburing
// returns -errno and never sets errno; every such value is turned into a
// Status here.

#include "probes/uring_engine.h"

#include <fmt/format.h>
#include <liburing.h>
#include <linux/fs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probes/interval_reporter.h"
#include "probes/io_pattern.h"

namespace pglayout::probes {
namespace {

// user_data of the fdatasync half of a write+fdatasync pair. Never all ones:
// liburing reserves that for its internal timeouts.
constexpr uint64_t kSyncTag = uint64_t{1} << 62;
// How long one wait for completions may block before the loop looks at the
// clock again (so time caps hold even when the device stalls).
constexpr long long kWaitNs = 50'000'000;
// A job whose I/Os are still in flight this long after its time cap has a
// stuck device under it; give up instead of hanging the probe.
constexpr double kDrainGraceSeconds = 30;

Status UringError(const char* what, int negative_errno) {
  int error = -negative_errno;
  Status st = Status::Unavailable(
      fmt::format("io_uring {}: {}", what, std::strerror(error)));
  if (error == ENOSYS) {
    return st.WithHint(
        "The kernel has no io_uring, or a seccomp profile blocks it.");
  }
  if (error == EPERM) {
    return st.WithHint(
        "kernel.io_uring_disabled or a seccomp profile forbids it.");
  }
  if (error == ENOMEM) {
    return st.WithHint("RLIMIT_MEMLOCK is too low for the ring (ulimit -l).");
  }
  return st;
}

// Sets up a ring, asking for the single-issuer / deferred task-run mode
// (fewer interrupts and context switches, Linux 6.1+) and falling back to
// the plain mode on older kernels that refuse the flags with EINVAL.
int InitRing(unsigned entries, io_uring* ring) {
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  int rc = io_uring_queue_init_params(entries, ring, &params);
  if (rc != -EINVAL) return rc;
  params = io_uring_params{};
  return io_uring_queue_init_params(entries, ring, &params);
}

enum class SlotState { kFree, kBusy, kRetry };

struct Slot {
  SlotState state = SlotState::kFree;
  uint64_t offset = 0;
  uint64_t t0 = 0;
  int pending = 0;  // CQEs still expected (2 for write + fdatasync)
  int error = 0;    // first failure seen, positive errno
  bool again = false;
  bool needs_stamp = false;
};

// One job on one ring; lives for the duration of UringEngine::Run.
class UringJob {
 public:
  UringJob(int fd, const IoJob& job, unsigned char* buffers,
           IntervalReporter* reporter, JobResult* result)
      : fd_(fd),
        job_(job),
        buffers_(buffers),
        reporter_(reporter),
        result_(result),
        offsets_(job),
        slots_(static_cast<size_t>(job.queue_depth)),
        paced_(job.rate_iops > 0),
        schedule_(paced_ ? job.rate_iops : 1, job.seed),
        start_ns_(MonotonicNs()),
        next_due_ns_(paced_ ? DueNs(schedule_.Next()) : 0) {}

  ~UringJob() {
    if (ring_ready_) io_uring_queue_exit(&ring_);
  }

  Status SetUp() {
    unsigned entries = static_cast<unsigned>(std::max(2, 2 * job_.queue_depth));
    int rc = InitRing(entries, &ring_);
    if (rc < 0) return UringError("setup", rc);
    ring_ready_ = true;
    fixed_file_ = io_uring_register_files(&ring_, &fd_, 1) == 0;
    std::vector<iovec> iovs(slots_.size());
    for (size_t i = 0; i < slots_.size(); ++i) {
      iovs[i] = iovec{Buffer(i), static_cast<size_t>(job_.block_size)};
    }
    // Registration pins the buffers (no per-I/O page mapping); when the
    // memlock limit refuses it, plain reads and writes still work.
    fixed_buffers_ =
        io_uring_register_buffers(&ring_, iovs.data(),
                                  static_cast<unsigned>(iovs.size())) == 0;
    return Status::Ok();
  }

  Status Loop() {
    uint64_t now = MonotonicNs();
    while (true) {
      PrepareFreeSlots();
      const bool more_due = paced_ && MaySubmitNew();
      if (inflight_ == 0 && !more_due) break;
      // The last prepared I/O goes in with the wait: one system call per
      // I/O at depth 1.
      if (unsubmitted_ >= 0) Stamp(unsubmitted_);
      unsubmitted_ = -1;
      __kernel_timespec wait{0, WaitNs(more_due)};
      io_uring_cqe* cqe = nullptr;
      int rc =
          io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &wait, nullptr);
      if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EAGAIN &&
          rc != -EBUSY) {
        return UringError("submit", rc);
      }
      now = MonotonicNs();
      PGLAYOUT_RETURN_IF_ERROR(Reap(now));
      reporter_->Tick(now);
      if (reporter_->elapsed_seconds(now) >
          job_.max_seconds + kDrainGraceSeconds) {
        return Status::IoError(fmt::format(
            "{} I/Os still pending {:.0f} s after the time cap; the device "
            "is not responding",
            inflight_, kDrainGraceSeconds));
      }
    }
    reporter_->Finish(now);
    return Status::Ok();
  }

  bool fixed_buffers() const { return fixed_buffers_; }

 private:
  unsigned char* Buffer(size_t slot) const {
    return buffers_ + slot * job_.block_size;
  }

  uint64_t DueNs(double seconds_from_start) const {
    return start_ns_ + static_cast<uint64_t>(seconds_from_start * 1e9);
  }

  // How long the next wait for completions may block: until the next paced
  // I/O is due when a slot is free for it, else kWaitNs.
  long long WaitNs(bool more_due) const {
    if (!more_due || inflight_ >= job_.queue_depth) return kWaitNs;
    const uint64_t now = MonotonicNs();
    if (next_due_ns_ <= now) return 0;
    return std::min<long long>(kWaitNs,
                               static_cast<long long>(next_due_ns_ - now));
  }

  bool MaySubmitNew() const {
    if (reporter_->stopping()) return false;
    return job_.max_bytes == 0 || submitted_bytes_ < job_.max_bytes;
  }

  // Sets the submission time of slot |i| unless it is a retry, whose
  // latency counts from its first submission.
  void Stamp(int i) {
    if (slots_[i].t0 == 0) slots_[i].t0 = MonotonicNs();
  }

  // Prepares every free slot. Each I/O is submitted as soon as the next one
  // is prepared, as fio does, rather than all of them in one batch: a batch
  // reaches the device as a burst and completes as one, which inflates the
  // median latency at depth (measured: +20% at depth 32 on virtio).
  //
  // A paced job prepares a new I/O only once it is due.
  void PrepareFreeSlots() {
    const uint64_t now = paced_ ? MonotonicNs() : 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      bool retry = s.state == SlotState::kRetry;
      if (!retry && (s.state != SlotState::kFree || !MaySubmitNew())) continue;
      if (!retry && paced_ && next_due_ns_ > now) continue;
      if (unsubmitted_ >= 0) {
        Stamp(unsubmitted_);
        io_uring_submit(&ring_);
      }
      if (!retry) {
        s.offset = offsets_.Next();
        s.t0 = 0;
        if (paced_) next_due_ns_ = DueNs(schedule_.Next());
        submitted_bytes_ += job_.block_size;
        if (job_.kind == IoKind::kWrite) {
          StampBlocks(Buffer(i), job_.block_size, ++serial_);
        }
      }
      Prepare(i);
      unsubmitted_ = static_cast<int>(i);
      if (!retry) {
        ++inflight_;
        reporter_->Submitted(inflight_);
      }
    }
  }

  void Prepare(size_t i) {
    Slot& s = slots_[i];
    s.state = SlotState::kBusy;
    s.error = 0;
    s.again = false;
    int fd = fixed_file_ ? 0 : fd_;
    unsigned len = static_cast<unsigned>(job_.block_size);
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (job_.kind == IoKind::kRead) {
      if (fixed_buffers_) {
        io_uring_prep_read_fixed(sqe, fd, Buffer(i), len, s.offset,
                                 static_cast<int>(i));
      } else {
        io_uring_prep_read(sqe, fd, Buffer(i), len, s.offset);
      }
    } else if (fixed_buffers_) {
      io_uring_prep_write_fixed(sqe, fd, Buffer(i), len, s.offset,
                                static_cast<int>(i));
    } else {
      io_uring_prep_write(sqe, fd, Buffer(i), len, s.offset);
    }
    if (job_.durability == Durability::kDsyncEach) sqe->rw_flags = RWF_DSYNC;
    io_uring_sqe_set_flags(sqe, fixed_file_ ? IOSQE_FIXED_FILE : 0);
    io_uring_sqe_set_data64(sqe, i);
    s.pending = 1;
  }

  bool SyncsEachWrite() const {
    return job_.kind == IoKind::kWrite &&
           job_.durability == Durability::kFdatasyncEach;
  }

  // PostgreSQL writes WAL with pwrite() and then, once it returns, calls
  // fdatasync() (wal_sync_method = fdatasync): the sync goes in only after
  // the write has completed, so the pair's latency, two round trips to the
  // device included, is what a committing backend waits for. (A linked
  // write + fsync in one submission saves a round trip PostgreSQL pays.)
  void PrepareSync(size_t i) {
    io_uring_sqe* sync = io_uring_get_sqe(&ring_);
    io_uring_prep_fsync(sync, fixed_file_ ? 0 : fd_, IORING_FSYNC_DATASYNC);
    io_uring_sqe_set_flags(sync, fixed_file_ ? IOSQE_FIXED_FILE : 0);
    io_uring_sqe_set_data64(sync, i | kSyncTag);
    slots_[i].pending = 1;
  }

  Status Reap(uint64_t now) {
    unsigned head;
    unsigned seen = 0;
    io_uring_cqe* cqe;
    Status status;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      if (status.ok()) status = OnCompletion(cqe->user_data, cqe->res, now);
    }
    io_uring_cq_advance(&ring_, seen);
    return status;
  }

  Status OnCompletion(uint64_t tag, int res, uint64_t now) {
    bool is_sync = (tag & kSyncTag) != 0;
    Slot& s = slots_[tag & ~kSyncTag];
    if (!is_sync && res == -EAGAIN) {
      // A request the block layer could not take right now (large direct
      // I/Os split into many bios can hit this): resubmit, same offset.
      s.again = true;
    } else if (res < 0 && res != -ECANCELED && s.error == 0) {
      s.error = -res;
    } else if (!is_sync && res >= 0 &&
               static_cast<uint64_t>(res) != job_.block_size && s.error == 0) {
      return Status::IoError(
          fmt::format("short {} at offset {}: {} of {} bytes",
                      job_.kind == IoKind::kRead ? "read" : "write", s.offset,
                      res, job_.block_size));
    }
    if (--s.pending > 0) return Status::Ok();
    if (s.again) {
      ++result_->retries;
      s.state = SlotState::kRetry;
      return Status::Ok();
    }
    if (s.error != 0) {
      const char* what =
          job_.kind == IoKind::kRead ? "direct read" : "direct write";
      return TransferError(fmt::format("{} at offset {}", what, s.offset),
                           s.error);
    }
    if (!is_sync && SyncsEachWrite()) {
      PrepareSync(tag);  // submitted with the next wait
      return Status::Ok();
    }
    reporter_->Complete(now - s.t0, job_.block_size);
    s.state = SlotState::kFree;
    --inflight_;
    return Status::Ok();
  }

  int fd_;
  const IoJob& job_;
  unsigned char* buffers_;
  IntervalReporter* reporter_;
  JobResult* result_;
  OffsetGenerator offsets_;
  std::vector<Slot> slots_;
  io_uring ring_{};
  bool ring_ready_ = false;
  bool fixed_file_ = false;
  bool fixed_buffers_ = false;
  const bool paced_;
  PacedSchedule schedule_;
  const uint64_t start_ns_;
  uint64_t next_due_ns_;  // of the next paced I/O
  int inflight_ = 0;
  int unsubmitted_ = -1;  // slot prepared but not yet handed to the kernel
  uint64_t submitted_bytes_ = 0;
  uint64_t serial_ = 0;
};

class UringEngine : public IoEngine {
 public:
  UringEngine(int fd, uint64_t alignment) : fd_(fd), alignment_(alignment) {}

  std::string name() const override { return "io_uring"; }

  Status Run(const IoJob& job, const IntervalObserver& observer,
             JobResult* result) override {
    PGLAYOUT_RETURN_IF_ERROR(ValidateJob(job, alignment_));
    JobBuffers buffers(nullptr, &std::free);
    PGLAYOUT_RETURN_IF_ERROR(AllocateJobBuffers(job, alignment_, &buffers));
    IntervalReporter reporter(job, observer, result);
    UringJob run(fd_, job, buffers.get(), &reporter, result);
    PGLAYOUT_RETURN_IF_ERROR(run.SetUp());
    PGLAYOUT_RETURN_IF_ERROR(run.Loop());
    return SyncIfDurableAtEnd(fd_, job, result);
  }

 private:
  int fd_;
  uint64_t alignment_;
};

}  // namespace

Status MakeUringEngine(int fd, uint64_t alignment,
                       std::unique_ptr<IoEngine>* engine) {
  // Probe once with a tiny ring so the caller learns now, not mid-probe,
  // that it must fall back.
  io_uring ring;
  int rc = io_uring_queue_init(4, &ring, 0);
  if (rc < 0) return UringError("setup", rc);
  io_uring_queue_exit(&ring);
  *engine = std::make_unique<UringEngine>(fd, alignment);
  return Status::Ok();
}

}  // namespace pglayout::probes
