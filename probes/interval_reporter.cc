#include "probes/interval_reporter.h"

#include <sys/resource.h>
#include <time.h>

namespace pglayout::probes {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
}

CpuTimes ProcessCpuTimes() {
  rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return CpuTimes{};
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) +
           static_cast<double>(tv.tv_usec) / 1e6;
  };
  return CpuTimes{seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

double ProcessCpuSeconds() {
  CpuTimes t = ProcessCpuTimes();
  return t.user + t.system;
}

IntervalReporter::IntervalReporter(const IoJob& job,
                                   const IntervalObserver& observer,
                                   JobResult* result)
    : job_(job),
      observer_(observer),
      result_(result),
      start_ns_(MonotonicNs()),
      interval_start_ns_(start_ns_),
      interval_ns_(static_cast<uint64_t>(job.interval_seconds * 1e9)),
      cpu_at_interval_start_(ProcessCpuSeconds()) {
  *result_ = JobResult();
}

double IntervalReporter::elapsed_seconds(uint64_t now_ns) const {
  return static_cast<double>(now_ns - start_ns_) / 1e9;
}

void IntervalReporter::Emit(uint64_t now_ns, bool ask_observer) {
  double cpu = ProcessCpuSeconds();
  current_.seconds = static_cast<double>(now_ns - interval_start_ns_) / 1e9;
  current_.cpu_seconds = cpu - cpu_at_interval_start_;
  result_->total.Merge(current_);
  if (ask_observer && !observer_(current_)) {
    stopping_ = true;
    result_->stopped_by_observer = true;
  }
  current_ = IntervalStats();
  interval_start_ns_ = now_ns;
  cpu_at_interval_start_ = cpu;
}

bool IntervalReporter::Tick(uint64_t now_ns) {
  if (stopping_) return false;
  if (now_ns - interval_start_ns_ >= interval_ns_) Emit(now_ns, true);
  if (elapsed_seconds(now_ns) >= job_.max_seconds) stopping_ = true;
  return !stopping_;
}

void IntervalReporter::Finish(uint64_t now_ns) {
  if (result_->stopped_by_observer) return;
  if (current_.ios == 0 && current_.submissions == 0) return;
  Emit(now_ns, true);
}

}  // namespace pglayout::probes
