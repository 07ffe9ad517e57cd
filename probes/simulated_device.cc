#include "probes/simulated_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>
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

// One job being simulated: its own offsets, slots and intervals.
struct SimJob {
  SimJob(const IoJob& j, const IntervalObserver& o, JobResult* r)
      : job(j),
        observer(o),
        result(r),
        offsets(j),
        schedule(j.rate_iops > 0 ? j.rate_iops : 1, j.seed),
        started(static_cast<size_t>(j.queue_depth), 0),
        paced(j.rate_iops > 0),
        write(j.kind == IoKind::kWrite),
        flush_each(write && (j.durability == Durability::kFdatasyncEach ||
                             j.durability == Durability::kDsyncEach)),
        interval_us(j.interval_seconds * 1e6),
        cap_us(j.max_seconds * 1e6) {}

  // Closes the interval at |end_us|; asks the observer when |ask|.
  void Emit(double end_us, bool ask, double cpu_us_per_io) {
    current.seconds = (end_us - interval_start) / 1e6;
    current.cpu_seconds =
        static_cast<double>(current.ios) * cpu_us_per_io / 1e6;
    result->total.Merge(current);
    if (ask && !observer(current)) {
      stopping = true;
      result->stopped_by_observer = true;
    }
    current = IntervalStats();
    interval_start = end_us;
  }

  const IoJob& job;
  const IntervalObserver& observer;
  JobResult* result;
  OffsetGenerator offsets;
  PacedSchedule schedule;
  std::vector<double> started;  // per slot; a paced job's per I/O
  const bool paced;
  const bool write;
  const bool flush_each;
  const double interval_us;
  const double cap_us;
  IntervalStats current;
  double interval_start = 0;
  double now = 0;  // time of its last completion
  uint64_t submitted = 0;
  int inflight = 0;
  bool stopping = false;
};

// (time us, job, slot): completions of every job in one queue, and the
// arrivals of paced jobs' I/Os (slot kArrival).
using Completion = std::tuple<double, size_t, int>;
constexpr int kArrival = -1;

}  // namespace

Status SimulatedDevice::Run(const IoJob& job, const IntervalObserver& observer,
                            JobResult* result) {
  std::vector<JobResult> results;
  Status st = RunTogether({job}, {observer}, &results);
  *result = results.empty() ? JobResult() : results[0];
  return st;
}

Status SimulatedDevice::RunTogether(
    const std::vector<IoJob>& jobs,
    const std::vector<IntervalObserver>& observers,
    std::vector<JobResult>* results) {
  if (jobs.empty() || observers.size() != jobs.size()) {
    return Status::InvalidInput("RunTogether needs jobs, one observer each");
  }
  for (const IoJob& job : jobs) {
    PGLAYOUT_RETURN_IF_ERROR(ValidateJob(job, 512));
  }
  results->assign(jobs.size(), JobResult());
  Array array(config_, jobs[0].seed * 31 + 7);
  std::vector<SimJob> sims;
  sims.reserve(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    sims.emplace_back(jobs[j], observers[j], &(*results)[j]);
  }
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>>
      queue;
  Status fault;

  auto submit = [&](size_t j, int slot, double at) {
    SimJob& s = sims[j];
    if (s.stopping || (s.job.max_bytes != 0 && s.submitted >= s.job.max_bytes))
      return;
    if (s.write && config_.fail_after_write_bytes != 0 &&
        bytes_written_ + s.job.block_size > config_.fail_after_write_bytes) {
      fault = TransferError("direct write (simulated)", config_.fail_errno);
      for (SimJob& other : sims) other.stopping = true;
      return;
    }
    uint64_t offset = s.offsets.Next();
    double done = array.Serve(offset, s.job.block_size, s.write, at);
    if (s.flush_each) done += config_.flush_us;
    if (s.write) bytes_written_ += s.job.block_size;
    s.started[static_cast<size_t>(slot)] = at;
    queue.emplace(done, j, slot);
    s.submitted += s.job.block_size;
    s.current.inflight_sum += ++s.inflight;
    ++s.current.submissions;
  };

  // A paced job's I/O goes in when it is due, whatever is in flight (the
  // simulated device has no slot limit for it), and schedules the next.
  auto arrive = [&](size_t j, double at) {
    SimJob& s = sims[j];
    if (s.stopping || at >= s.cap_us) {
      s.stopping = true;
      return;
    }
    s.started.push_back(0);
    submit(j, static_cast<int>(s.started.size() - 1), at);
    queue.emplace(s.schedule.Next() * 1e6, j, kArrival);
  };

  for (size_t j = 0; j < sims.size(); ++j) {
    if (sims[j].paced) {
      sims[j].started.clear();
      queue.emplace(sims[j].schedule.Next() * 1e6, j, kArrival);
      continue;
    }
    for (int slot = 0; slot < sims[j].job.queue_depth; ++slot) {
      submit(j, slot, 0);
    }
  }
  while (!queue.empty()) {
    auto [done, j, slot] = queue.top();
    queue.pop();
    SimJob& s = sims[j];
    if (slot == kArrival) {
      arrive(j, done);
      continue;
    }
    --s.inflight;
    while (!s.result->stopped_by_observer &&
           done >= s.interval_start + s.interval_us) {
      s.Emit(s.interval_start + s.interval_us, true, config_.cpu_us_per_io);
    }
    s.now = done;
    if (!s.result->stopped_by_observer) {
      s.current.latency.Record(static_cast<uint64_t>(
          (done - s.started[static_cast<size_t>(slot)]) * 1000));
      ++s.current.ios;
      s.current.bytes += s.job.block_size;
    }
    if (s.now >= s.cap_us) s.stopping = true;
    if (!s.paced) submit(j, slot, s.now);
  }
  double longest = 0;
  for (SimJob& s : sims) {
    if (!s.result->stopped_by_observer &&
        (s.current.ios > 0 || s.current.submissions > 0)) {
      s.Emit(s.now, true, config_.cpu_us_per_io);
    }
    if (s.write && s.job.durability == Durability::kFdatasyncAtEnd) {
      s.result->sync_seconds = config_.flush_us / 1e6;
    }
    longest = std::max(longest, s.now / 1e6 + s.result->sync_seconds);
  }
  simulated_seconds_ += longest;
  return fault;
}

}  // namespace pglayout::probes
