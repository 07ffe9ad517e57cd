// Shared by the real engines: cuts a running job into intervals, measures
// the process CPU of each, hands each to the job's observer and keeps the
// merged total. Single-threaded: the engine's coordinating thread owns it.

#ifndef PGLAYOUT_PROBES_INTERVAL_REPORTER_H_
#define PGLAYOUT_PROBES_INTERVAL_REPORTER_H_

#include <cstdint>

#include "probes/io_engine.h"

namespace pglayout::probes {

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNs();
struct CpuTimes {
  double user = 0;    // seconds
  double system = 0;  // seconds
};
// CPU of the whole process so far (getrusage RUSAGE_SELF: every thread,
// io_uring's io-wq workers included; kernel flusher threads are not ours).
CpuTimes ProcessCpuTimes();
// User + system CPU seconds of the whole process (every thread, including
// io_uring's io-wq workers, which fio's per-thread figure leaves out).
double ProcessCpuSeconds();

class IntervalReporter {
 public:
  IntervalReporter(const IoJob& job, const IntervalObserver& observer,
                   JobResult* result);

  // The interval being filled; engines add I/Os to it directly.
  IntervalStats& current() { return current_; }
  void Complete(uint64_t latency_ns, uint64_t bytes) {
    current_.latency.Record(latency_ns);
    ++current_.ios;
    current_.bytes += bytes;
  }
  void Submitted(int inflight_after) {
    current_.inflight_sum += inflight_after;
    ++current_.submissions;
  }
  // Emits the interval if it is over at |now_ns|. Returns false once the job
  // must stop submitting: the observer declined or max_seconds passed.
  bool Tick(uint64_t now_ns);
  // Ends the job: emits the last partial interval unless the observer
  // stopped the job (I/Os drained after its decision are not its business).
  void Finish(uint64_t now_ns);
  double elapsed_seconds(uint64_t now_ns) const;
  bool stopping() const { return stopping_; }
  void Stop() { stopping_ = true; }

 private:
  void Emit(uint64_t now_ns, bool ask_observer);

  const IoJob& job_;
  const IntervalObserver& observer_;
  JobResult* result_;
  uint64_t start_ns_;
  uint64_t interval_start_ns_;
  uint64_t interval_ns_;
  double cpu_at_interval_start_;
  IntervalStats current_;
  bool stopping_ = false;
};

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_INTERVAL_REPORTER_H_
