#include "probes/concurrent.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <thread>

#include "common/units.h"

namespace pglayout::probes {
namespace {

// What one job measured after its warm-up.
struct Window {
  double elapsed = 0;
  IntervalStats measured;
};

// Random reads and sequential reads of one target: jobs 2i and 2i+1.
std::vector<IoJob> MixJobs(const ConcurrentTarget& t,
                           const ConcurrentOptions& options, uint64_t seed) {
  IoJob random;
  random.kind = IoKind::kRead;
  random.access = Access::kRandom;
  random.block_size = kPageSize;
  random.queue_depth = std::max(1, t.knee_depth);
  random.region_offset = t.region_offset;
  random.region_size = t.region_size / kPageSize * kPageSize;
  random.interval_seconds = options.interval_seconds;
  random.max_seconds =
      options.warmup_seconds + options.seconds + 2 * options.interval_seconds;
  random.seed = seed;
  IoJob sequential = random;
  sequential.access = Access::kSequential;
  sequential.block_size = kConcurrentSeqBlock;
  sequential.queue_depth = kConcurrentSeqDepth;
  sequential.region_size =
      t.region_size / kConcurrentSeqBlock * kConcurrentSeqBlock;
  sequential.seed = seed + 1;
  return {random, sequential};
}

// Observers that drop the warm-up and stop each job after |seconds|.
std::vector<IntervalObserver> WindowObservers(const ConcurrentOptions& options,
                                              std::vector<Window>* windows) {
  std::vector<IntervalObserver> observers;
  for (Window& w : *windows) {
    observers.push_back([&w, options](const IntervalStats& s) {
      w.elapsed += s.seconds;
      if (w.elapsed <= options.warmup_seconds) return true;
      w.measured.Merge(s);
      return w.measured.seconds < options.seconds;
    });
  }
  return observers;
}

struct MixResult {
  double iops = 0;  // random 8 KiB reads per second
  double mbps = 0;  // sequential read MB/s
};

double Rate(double amount, const IntervalStats& s) {
  return s.seconds > 0 ? amount / s.seconds : 0;
}

// Runs the mix on |chosen| targets at once. Jobs of targets sharing an
// engine go to that engine together; each engine runs in its own thread.
Status RunMix(const std::vector<ConcurrentTarget>& targets,
              const std::vector<size_t>& chosen,
              const ConcurrentOptions& options, std::vector<MixResult>* out) {
  std::map<IoEngine*, std::vector<size_t>> by_engine;  // -> target indices
  for (size_t i : chosen) by_engine[targets[i].engine].push_back(i);
  std::vector<Window> windows(2 * targets.size());
  std::vector<Status> statuses(by_engine.size());
  std::vector<std::thread> threads;
  size_t group = 0;
  for (auto& [engine, members] : by_engine) {
    threads.emplace_back([&, engine = engine, members = members, group] {
      std::vector<IoJob> jobs;
      std::vector<Window*> mine;
      for (size_t i : members) {
        std::vector<IoJob> mix = MixJobs(targets[i], options, 2 * i + 1);
        for (size_t k = 0; k < mix.size(); ++k) {
          jobs.push_back(mix[k]);
          mine.push_back(&windows[2 * i + k]);
        }
      }
      std::vector<Window> local(jobs.size());
      std::vector<JobResult> results;
      statuses[group] =
          engine->RunTogether(jobs, WindowObservers(options, &local), &results);
      for (size_t k = 0; k < local.size(); ++k) *mine[k] = local[k];
    });
    ++group;
  }
  for (std::thread& t : threads) t.join();
  for (const Status& st : statuses) PGLAYOUT_RETURN_IF_ERROR(st);
  out->assign(targets.size(), MixResult());
  for (size_t i : chosen) {
    const IntervalStats& random = windows[2 * i].measured;
    const IntervalStats& sequential = windows[2 * i + 1].measured;
    (*out)[i].iops = Rate(static_cast<double>(random.ios), random);
    (*out)[i].mbps =
        Rate(static_cast<double>(sequential.bytes) / 1e6, sequential);
  }
  return Status::Ok();
}

Status CheckTargets(const std::vector<ConcurrentTarget>& targets) {
  if (targets.size() < 2) {
    return Status::InvalidInput(
        "--concurrent needs at least two targets to compare");
  }
  for (const ConcurrentTarget& t : targets) {
    if (t.engine == nullptr || t.region_size < 2 * kConcurrentSeqBlock) {
      return Status::InvalidInput(fmt::format(
          "{}: no engine or under 2 MiB of readable probe file", t.name));
    }
  }
  return Status::Ok();
}

void Report(ProgressSink* progress, const std::string& step, size_t done,
            size_t steps) {
  if (progress == nullptr) return;
  ProgressUpdate u;
  u.task = "probe --concurrent";
  u.step = step;
  u.fraction = static_cast<double>(done) / static_cast<double>(steps);
  progress->Update(u);
}

// Names the devices two targets have in common, or "" when none.
std::string Shared(const ConcurrentTarget& a, const ConcurrentTarget& b) {
  std::vector<std::string> common;
  for (const std::string& d : a.disks) {
    if (std::find(b.disks.begin(), b.disks.end(), d) != b.disks.end())
      common.push_back(d);
  }
  if (common.empty()) return "";
  return fmt::format("{} and {} share device{} {}", a.name, b.name,
                     common.size() > 1 ? "s" : "", fmt::join(common, ", "));
}

}  // namespace

Status RunConcurrent(const std::vector<ConcurrentTarget>& targets,
                     const ConcurrentOptions& options, ProgressSink* progress,
                     Concurrent* result) {
  PGLAYOUT_RETURN_IF_ERROR(CheckTargets(targets));
  Concurrent c;
  c.seconds = options.seconds;
  std::vector<size_t> all;
  for (size_t i = 0; i < targets.size(); ++i) {
    Report(progress, targets[i].name + " alone", i, targets.size() + 1);
    std::vector<MixResult> alone;
    PGLAYOUT_RETURN_IF_ERROR(RunMix(targets, {i}, options, &alone));
    c.volumes.push_back(
        ConcurrentVolume{targets[i].name, alone[i].iops, alone[i].mbps, 0, 0});
    c.sum_alone_read_iops += alone[i].iops;
    c.sum_alone_read_mbps += alone[i].mbps;
    all.push_back(i);
  }
  Report(progress, "all together", targets.size(), targets.size() + 1);
  std::vector<MixResult> together;
  PGLAYOUT_RETURN_IF_ERROR(RunMix(targets, all, options, &together));
  for (size_t i = 0; i < targets.size(); ++i) {
    c.volumes[i].together_read_iops = together[i].iops;
    c.volumes[i].together_read_mbps = together[i].mbps;
    c.read_iops += together[i].iops;
    c.read_mbps += together[i].mbps;
  }
  c.iops_ratio =
      c.sum_alone_read_iops > 0 ? c.read_iops / c.sum_alone_read_iops : 0;
  c.mbps_ratio =
      c.sum_alone_read_mbps > 0 ? c.read_mbps / c.sum_alone_read_mbps : 0;
  c.verdict = ConcurrentVerdict(c, targets);
  if (progress != nullptr) {
    progress->Finish("probe --concurrent", c.verdict);
  }
  *result = std::move(c);
  return Status::Ok();
}

std::string ConcurrentVerdict(const Concurrent& result,
                              const std::vector<ConcurrentTarget>& targets) {
  std::vector<std::string> sharing;
  for (size_t i = 0; i < targets.size(); ++i) {
    for (size_t j = i + 1; j < targets.size(); ++j) {
      std::string s = Shared(targets[i], targets[j]);
      if (!s.empty()) sharing.push_back(s);
    }
  }
  std::string figures = fmt::format(
      "together they reached {:.0f}% of the random-read IOPS and {:.0f}% of "
      "the sequential MB/s they reach alone",
      result.iops_ratio * 100, result.mbps_ratio * 100);
  bool independent =
      std::min(result.iops_ratio, result.mbps_ratio) >= kIndependentRatio;
  std::string meaning;
  if (!sharing.empty() && !independent) {
    meaning = "they compete for the same hardware: plan them as one volume";
  } else if (!sharing.empty()) {
    meaning =
        "the shared hardware had room for both at these loads, but a busy "
        "one will still slow the others";
  } else if (!independent) {
    meaning =
        "they share a bottleneck sysfs does not show (an instance or "
        "network bandwidth cap, a controller, one host disk behind both): "
        "plan with the aggregate, not the sum";
  } else {
    meaning = "they behave as independent volumes";
  }
  std::string prefix = sharing.empty() ? ""
                                       : fmt::format("{} (topology); ",
                                                     fmt::join(sharing, "; "));
  return prefix + figures + ": " + meaning;
}

}  // namespace pglayout::probes
