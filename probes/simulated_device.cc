#include "probes/simulated_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "probes/io_pattern.h"

namespace pglayout::probes {
namespace {

// The members' servers: when each becomes free, in simulated microseconds.
class Array {
 public:
  Array(const SimulatedDeviceConfig& config, uint64_t seed)
      : config_(config),
        free_at_(
            static_cast<size_t>(config.members),
            std::vector<double>(static_cast<size_t>(config.parallelism), 0)),
        random_(seed) {}

  // Schedules one request arriving at |at_us|; returns when its last piece
  // is done. Bytes that land on one member are served by it in one go: in
  // RAID0 consecutive chunks of a member are adjacent on that disk.
  double Serve(uint64_t offset, uint64_t length, bool write, double at_us) {
    std::vector<uint64_t> share(free_at_.size(), 0);
    uint64_t pos = offset, end = offset + length;
    while (pos < end) {
      uint64_t chunk_end = (pos / config_.chunk + 1) * config_.chunk;
      uint64_t piece = std::min(end, chunk_end) - pos;
      share[(pos / config_.chunk) % share.size()] += piece;
      pos += piece;
    }
    double access = write ? config_.write_access_us : config_.read_access_us;
    double done = at_us;
    for (size_t m = 0; m < share.size(); ++m) {
      if (share[m] == 0) continue;
      auto server = std::min_element(free_at_[m].begin(), free_at_[m].end());
      double start = std::max(at_us, *server);
      double service =
          (access + static_cast<double>(share[m]) / config_.member_mbps) *
          NoiseFactor();
      *server = start + service;
      done = std::max(done, *server);
    }
    return done;
  }

 private:
  double NoiseFactor() {
    if (config_.noise <= 0) return 1;
    double u = static_cast<double>(random_.Next() >> 11) / 9007199254740992.0;
    return 1 + config_.noise * (2 * u - 1);
  }

  const SimulatedDeviceConfig& config_;
  std::vector<std::vector<double>> free_at_;
  Random random_;
};

using Completion = std::pair<double, int>;  // (time us, slot)

}  // namespace

Status SimulatedDevice::Run(const IoJob& job, const IntervalObserver& observer,
                            JobResult* result) {
  PGLAYOUT_RETURN_IF_ERROR(ValidateJob(job, 512));
  *result = JobResult();
  const bool write = job.kind == IoKind::kWrite;
  const bool flush_each =
      write && (job.durability == Durability::kFdatasyncEach ||
                job.durability == Durability::kDsyncEach);
  const double interval_us = job.interval_seconds * 1e6;
  const double cap_us = job.max_seconds * 1e6;
  Array array(config_, job.seed * 31 + 7);
  OffsetGenerator offsets(job);
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>>
      queue;
  std::vector<double> started(static_cast<size_t>(job.queue_depth), 0);
  IntervalStats current;
  double interval_start = 0;
  uint64_t submitted = 0;
  int inflight = 0;
  bool stopping = false;
  Status fault;

  auto submit = [&](int slot, double at) {
    if (stopping || (job.max_bytes != 0 && submitted >= job.max_bytes)) return;
    if (write && config_.fail_after_write_bytes != 0 &&
        bytes_written_ + job.block_size > config_.fail_after_write_bytes) {
      fault = TransferError("direct write (simulated)", config_.fail_errno);
      stopping = true;
      return;
    }
    uint64_t offset = offsets.Next();
    double done = array.Serve(offset, job.block_size, write, at);
    if (flush_each) done += config_.flush_us;
    if (write) bytes_written_ += job.block_size;
    started[static_cast<size_t>(slot)] = at;
    queue.emplace(done, slot);
    submitted += job.block_size;
    current.inflight_sum += ++inflight;
    ++current.submissions;
  };
  auto emit = [&](double end_us, bool ask) {
    current.seconds = (end_us - interval_start) / 1e6;
    current.cpu_seconds =
        static_cast<double>(current.ios) * config_.cpu_us_per_io / 1e6;
    result->total.Merge(current);
    if (ask && !observer(current)) {
      stopping = true;
      result->stopped_by_observer = true;
    }
    current = IntervalStats();
    interval_start = end_us;
  };

  for (int slot = 0; slot < job.queue_depth; ++slot) submit(slot, 0);
  double now = 0;
  while (!queue.empty()) {
    auto [done, slot] = queue.top();
    queue.pop();
    --inflight;
    while (!result->stopped_by_observer &&
           done >= interval_start + interval_us) {
      emit(interval_start + interval_us, true);
    }
    now = done;
    if (!result->stopped_by_observer) {
      current.latency.Record(static_cast<uint64_t>(
          (done - started[static_cast<size_t>(slot)]) * 1000));
      ++current.ios;
      current.bytes += job.block_size;
    }
    if (now >= cap_us) stopping = true;
    submit(slot, now);
  }
  if (!result->stopped_by_observer &&
      (current.ios > 0 || current.submissions > 0)) {
    emit(now, true);
  }
  if (write && job.durability == Durability::kFdatasyncAtEnd) {
    result->sync_seconds = config_.flush_us / 1e6;
  }
  simulated_seconds_ += now / 1e6 + result->sync_seconds;
  return fault;
}

}  // namespace pglayout::probes
