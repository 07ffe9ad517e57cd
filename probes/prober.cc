#include "probes/prober.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "probes/analysis.h"
#include "probes/stopping_rule.h"

namespace pglayout::probes {
namespace {

constexpr uint64_t kFillBlock = 1 * kMiB;
constexpr int kFillDepth = 4;
constexpr uint64_t kWalRegion = 16 * kMiB;  // one WAL segment
constexpr uint64_t kGroupCommit = 128 * kKiB;
constexpr int kDeepSequentialDepth = 8;
// The paced read points (PacedReads): offered loads as fractions of the
// saturated random-read IOPS, the I/Os a point may have in flight (enough
// that a burst of arrivals waits at the device, not for a slot), and the
// fewest reads a point should see for a mean worth keeping.
constexpr double kPacedLoads[] = {0.1, 0.3, 0.5, 0.7, 0.9};
constexpr int kPacedDepth = 64;
constexpr double kPacedMinReads = 100;
// A point that completes less than this share of its offered rate was
// overloaded (the device, or the probe's own CPU): said in a note. Well
// below 1: a point's count of about 100 Poisson arrivals varies by 10%, and
// 0.7 is three standard deviations (the planner leaves the same out).
constexpr double kPacedKeptUp = 0.7;

// Where each suite must end, as a fraction of the budget. Time a suite does
// not use rolls over to the next.
constexpr double kFillEnd = 0.25;
constexpr double kRandReadEnd = 0.55;
constexpr double kSeqReadEnd = 0.80;
constexpr double kSyncWriteEnd = 0.90;
constexpr double kRandWriteEnd = 1.0;

struct Mode {
  PointLimits limits;
  double interval_seconds;
  std::vector<int> read_depths;
  std::vector<uint64_t> seq_sizes;   // at depth 1
  int seq_repeats = 3;               // sweeps of seq_sizes
  std::vector<uint64_t> deep_sizes;  // at kDeepSequentialDepth
  bool dsync_and_group_commit;
  std::vector<int> write_depths;
  PointLimits paced;  // each paced read point: a fixed time
};

Mode ModeFor(const ProbeOptions& options) {
  Mode m;
  if (options.quick) {
    m.limits.warmup_seconds = 0.1;
    m.limits.min_seconds = 0.4;
    m.limits.max_seconds = 1.0;
    m.interval_seconds = 0.05;
    m.read_depths = {1, 4, 16, 64, 256};
    m.seq_sizes = {128 * kKiB, 1 * kMiB, 4 * kMiB, 16 * kMiB};
    m.seq_repeats = 2;  // the fewest that show a spread
    m.deep_sizes = {1 * kMiB};
    m.dsync_and_group_commit = false;
    m.write_depths = {1, 16};
    m.paced.warmup_seconds = 0.1;
    m.paced.min_seconds = 0.4;
  } else {
    m.interval_seconds = 0.1;
    m.read_depths = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    for (uint64_t s = 128 * kKiB; s <= 16 * kMiB; s *= 2)
      m.seq_sizes.push_back(s);
    m.deep_sizes = {128 * kKiB, 1 * kMiB, 4 * kMiB};
    m.dsync_and_group_commit = true;
    m.write_depths = {1, 4, 16, 64};
    m.paced.warmup_seconds = 0.3;
    m.paced.min_seconds = 2;
  }
  m.limits.relative_ci = options.relative_ci > 0
                             ? options.relative_ci
                             : ModeRelativeCi(m.limits.max_seconds);
  return m;
}

double NsToUs(double ns) { return ns / 1000; }

class Runner {
 public:
  Runner(IoEngine* engine, const ProbeOptions& options, ProgressSink* progress,
         ProbeResult* result)
      : engine_(engine),
        options_(options),
        progress_(progress),
        result_(result),
        mode_(ModeFor(options)),
        budget_(
            options.budget_seconds > 0
                ? options.budget_seconds
                : (options.quick ? kQuickBudgetSeconds : kFullBudgetSeconds)) {}

  Status Run() {
    *result_ = ProbeResult();
    result_->engine = engine_->name();
    PGLAYOUT_RETURN_IF_ERROR(Fill());
    PGLAYOUT_RETURN_IF_ERROR(RandomReads());
    PGLAYOUT_RETURN_IF_ERROR(PacedReads());
    PGLAYOUT_RETURN_IF_ERROR(SequentialReads());
    PGLAYOUT_RETURN_IF_ERROR(SyncWrites());
    PGLAYOUT_RETURN_IF_ERROR(RandomWrites());
    result_->seconds = used_ + paced_seconds_;
    if (capped_points_ > 0) {
      result_->notes.push_back(fmt::format(
          "{} of {} points reached their time cap before +/-{:.1f}% "
          "confidence; their figures are less certain",
          capped_points_, points_, mode_.limits.relative_ci * 100));
    }
    ForeignNotes();
    if (progress_ != nullptr) {
      progress_->Finish(options_.task,
                        fmt::format("{} points in {:.1f} s ({})", points_,
                                    used_, result_->engine));
    }
    return Status::Ok();
  }

 private:
  IoJob BaseJob(IoKind kind, Access access, uint64_t block, int depth) {
    IoJob job;
    job.kind = kind;
    job.access = access;
    job.block_size = block;
    job.queue_depth = depth;
    job.region_offset = 0;
    job.region_size = result_->filled_bytes / block * block;
    job.interval_seconds = mode_.interval_seconds;
    job.seed = ++seed_;
    return job;
  }

  void Progress(const std::string& point, const IntervalStats& s) {
    if (progress_ == nullptr) return;
    ProgressUpdate u;
    u.task = options_.task;
    u.step = point;
    u.elapsed_s = used_ + point_seconds_;
    u.fraction = std::min(1.0, u.elapsed_s / budget_);
    u.eta_s = std::max(0.0, budget_ - u.elapsed_s);
    double rate = s.seconds > 0 ? s.ios / s.seconds : 0;
    u.detail = fmt::format("{:.0f} IO/s, {:.0f} MB/s", rate,
                           s.seconds > 0 ? s.bytes / s.seconds / 1e6 : 0);
    progress_->Update(u);
  }

  // The time left until |suite_end| (a fraction of the budget).
  double LeftInSuite(double suite_end) const {
    return std::max(0.0, suite_end * budget_ - used_);
  }

  // What became of one point.
  enum class Outcome {
    kMeasured,
    kSkipped,  // the suite had no time left for even a short point
    kStalled,  // it ran, but not one I/O completed: not a figure
  };

  // Runs one point within its share of the suite.
  Status RunPoint(const std::string& label, const IoJob& job, double suite_end,
                  size_t points_left, PointResult* result, Outcome* outcome) {
    PointLimits limits = mode_.limits;
    // An even share of what is left, but never less than half the minimum:
    // when time is short the early points (depth 1 first) run and the last
    // ones are skipped, rather than every point being too short to mean
    // anything.
    double left = LeftInSuite(suite_end) - limits.warmup_seconds;
    double share = LeftInSuite(suite_end) /
                       static_cast<double>(std::max<size_t>(1, points_left)) -
                   limits.warmup_seconds;
    double floor = limits.min_seconds / 2;
    if (left < floor) {
      *outcome = Outcome::kSkipped;
      ++skipped_points_;
      return Status::Ok();
    }
    double room = std::min(left, std::max(share, floor));
    limits.max_seconds = std::min(limits.max_seconds, room);
    limits.min_seconds = std::min(limits.min_seconds, limits.max_seconds);
    point_seconds_ = 0;
    auto on_interval = [&](const IntervalStats& s) {
      point_seconds_ += s.seconds;
      Progress(label, s);
    };
    ForeignIo foreign;
    Status st = MeasureChecked(job, limits, on_interval, result, &foreign);
    used_ += result->engine_seconds;
    // Someone else's I/O on the device: once more, if the suite has the
    // time, keeping the cleaner run.
    if (st.ok() && foreign.found &&
        LeftInSuite(suite_end) >= result->engine_seconds) {
      PointResult again;
      ForeignIo foreign_again;
      st = MeasureChecked(job, limits, on_interval, &again, &foreign_again);
      used_ += again.engine_seconds;
      if (st.ok() && foreign_again.share < foreign.share) {
        *result = again;
        foreign = foreign_again;
      }
      if (st.ok() && !foreign.found) ++cleared_points_;
    }
    if (st.ok() && foreign.found) {
      foreign_points_.push_back(
          fmt::format("{}: {}", label, DescribeForeignIo(foreign)));
    }
    point_seconds_ = 0;
    ++points_;
    if (!st.ok()) return st.WithContext(label);
    if (result->stats.ios == 0) {
      // A device that completes nothing for a whole point was stalled by
      // something else (another tenant, a throttle's debt): zero is not
      // its capacity, and a zero would also end the depth sweep.
      *outcome = Outcome::kStalled;
      result_->notes.push_back(fmt::format(
          "{}: no I/O completed in {:.1f} s (the device stalled); the point is "
          "left out",
          label, result->engine_seconds));
      return Status::Ok();
    }
    *outcome = Outcome::kMeasured;
    if (!result->converged) ++capped_points_;
    return Status::Ok();
  }

  // MeasurePoint with the device's counters read around it; |foreign| stays
  // empty when there are none (or they cannot be read: said once).
  Status MeasureChecked(
      const IoJob& job, const PointLimits& limits,
      const std::function<void(const IntervalStats&)>& on_interval,
      PointResult* result, ForeignIo* foreign) {
    *foreign = ForeignIo();
    DiskCounters before, after;
    const bool counted = ReadCounters(&before);
    PGLAYOUT_RETURN_IF_ERROR(
        MeasurePoint(engine_, job, limits, on_interval, result));
    if (!counted || !ReadCounters(&after)) return Status::Ok();
    OwnIo own;
    (job.kind == IoKind::kRead ? own.read_bytes : own.write_bytes) =
        result->issued_bytes;
    *foreign = JudgeForeignIo(before, after, own);
    return Status::Ok();
  }

  bool ReadCounters(DiskCounters* out) {
    if (options_.counters == nullptr || counters_failed_) return false;
    Status st = options_.counters->Read(out);
    if (st.ok()) return true;
    counters_failed_ = true;
    result_->notes.push_back(fmt::format(
        "the device's counters could not be read ({}): I/O by others on {} "
        "is not checked",
        st.message(), options_.counters->device()));
    return false;
  }

  void ForeignNotes() {
    if (options_.counters == nullptr) return;
    const std::string device = options_.counters->device();
    if (cleared_points_ > 0) {
      result_->notes.push_back(fmt::format(
          "{} point(s) saw I/O on {} that was not the probe's own and were "
          "measured again without it",
          cleared_points_, device));
    }
    if (foreign_points_.empty()) return;
    result_->notes.push_back(fmt::format(
        "{} of {} points saw I/O on {} that was not the probe's own, even when "
        "repeated: {}. Another job uses the device, so these figures are low; "
        "probe again when it is idle",
        foreign_points_.size(), points_, device,
        fmt::join(foreign_points_, "; ")));
  }

  Status Fill() {
    uint64_t size = options_.file_size / kFillBlock * kFillBlock;
    auto observer = [&](const IntervalStats& s) {
      point_seconds_ += s.seconds;
      Progress("fill (sequential write)", s);
      return true;
    };
    double seconds = 0;
    Status st = FillProbeFile(
        engine_, size, std::max(1.0, LeftInSuite(kFillEnd)), observer,
        &result_->filled_bytes, &result_->write_mbps, &seconds);
    point_seconds_ = 0;
    used_ += seconds;
    PGLAYOUT_RETURN_IF_ERROR(st);
    if (result_->filled_bytes < size) {
      result_->notes.push_back(fmt::format(
          "the fill wrote {} MiB of {} MiB within its time share; reads use "
          "the written part only",
          result_->filled_bytes / kMiB, size / kMiB));
    }
    if (result_->filled_bytes < kMinProbeFileSize) {
      return Status::IoError(fmt::format(
          "the volume wrote only {} MiB in {:.1f} s; too slow to probe within "
          "the time budget",
          result_->filled_bytes / kMiB, seconds));
    }
    return Status::Ok();
  }

  Status RandomReads() {
    const std::vector<int>& depths = mode_.read_depths;
    for (size_t i = 0; i < depths.size(); ++i) {
      IoJob job = BaseJob(IoKind::kRead, Access::kRandom, kPageSize, depths[i]);
      PointResult r;
      Outcome outcome = Outcome::kSkipped;
      PGLAYOUT_RETURN_IF_ERROR(
          RunPoint(fmt::format("randread 8KiB qd={}", depths[i]), job,
                   kRandReadEnd, depths.size() - i, &r, &outcome));
      if (outcome == Outcome::kSkipped) break;
      if (outcome == Outcome::kStalled) continue;
      const LatencyHistogram& h = r.stats.latency;
      result_->randread.push_back(RandomReadPoint{
          depths[i], r.iops(), r.mbps(), NsToUs(h.Percentile(0.5)),
          NsToUs(h.Percentile(0.9)), NsToUs(h.Percentile(0.99)),
          NsToUs(h.Percentile(0.999)), NsToUs(static_cast<double>(h.max_ns())),
          r.cpu_us_per_io()});
      if (!SweepShouldContinue(result_->randread)) break;
    }
    return Status::Ok();
  }

  // Latency against offered load: open-loop 8 KiB random reads at fixed
  // rates below the saturated IOPS the depth sweep found (kPacedLoads), each
  // for a fixed time (Mode::paced) outside the budget's suites, so the rest
  // of the probe keeps its time. A closed-loop point cannot show this on a
  // rate-capped volume: at depth 1 it already runs at the cap and measures
  // 1 / IOPS (docs/device-model.md#latency-below-the-cap).
  Status PacedReads() {
    double saturated = 0;
    for (const RandomReadPoint& p : result_->randread) {
      saturated = std::max(saturated, p.iops);
    }
    if (saturated <= 0) return Status::Ok();
    std::vector<std::string> overloaded;
    for (double load : kPacedLoads) {
      IoJob job =
          BaseJob(IoKind::kRead, Access::kRandom, kPageSize, kPacedDepth);
      job.rate_iops = load * saturated;
      PointLimits limits = PacedLimits();
      limits.min_seconds =
          std::clamp(kPacedMinReads / job.rate_iops, limits.min_seconds,
                     3 * limits.min_seconds);
      limits.max_seconds = limits.min_seconds;
      limits.min_samples = 1;
      const std::string label =
          fmt::format("randread 8KiB paced {:.0f}/s", job.rate_iops);
      point_seconds_ = 0;
      auto on_interval = [&](const IntervalStats& s) {
        point_seconds_ += s.seconds;
        Progress(label, s);
      };
      PointResult r;
      ForeignIo foreign;
      Status st = MeasureChecked(job, limits, on_interval, &r, &foreign);
      paced_seconds_ += r.engine_seconds;
      point_seconds_ = 0;
      ++points_;
      if (!st.ok()) return st.WithContext(label);
      if (foreign.found) {
        foreign_points_.push_back(
            fmt::format("{}: {}", label, DescribeForeignIo(foreign)));
      }
      const LatencyHistogram& h = r.stats.latency;
      if (h.count() == 0) continue;
      result_->paced_read.push_back(PacedReadPoint{
          job.rate_iops, r.iops(), NsToUs(h.mean_ns()),
          NsToUs(h.Percentile(0.5)), NsToUs(h.Percentile(0.99))});
      if (r.iops() < kPacedKeptUp * job.rate_iops) {
        overloaded.push_back(
            fmt::format("{:.0f} of {:.0f}/s", r.iops(), job.rate_iops));
      }
    }
    if (!overloaded.empty()) {
      result_->notes.push_back(fmt::format(
          "paced reads completed less than {:.0f}% of the offered rate ({}): "
          "the volume or the probe's CPU could not keep up; the planner "
          "leaves those points out",
          kPacedKeptUp * 100, fmt::join(overloaded, ", ")));
    }
    return Status::Ok();
  }

  // A paced point's time: the mode's, shrunk with a budget below the mode's
  // default (--budget), so a short probe stays short.
  PointLimits PacedLimits() const {
    const double mode_budget =
        options_.quick ? kQuickBudgetSeconds : kFullBudgetSeconds;
    const double f = std::min(1.0, budget_ / mode_budget);
    PointLimits limits = mode_.paced;
    limits.warmup_seconds *= f;
    limits.min_seconds *= f;
    return limits;
  }

  Status SequentialReads() {
    PGLAYOUT_RETURN_IF_ERROR(StripeReadSweeps());
    return DeepSequentialReads();
  }

  // The depth-1 sizes, swept mode_.seq_repeats times in turn (so a
  // disturbance of a few seconds spoils one sweep, not every size), and
  // the stripe-wide read size from their median (EstimateStripeReadSize).
  // A sweep cut short by the budget is left out: its knee would be that of
  // a shorter curve.
  Status StripeReadSweeps() {
    std::vector<uint64_t> sizes = mode_.seq_sizes;
    std::erase_if(sizes,
                  [&](uint64_t s) { return s > result_->filled_bytes / 2; });
    const size_t total = sizes.size() * static_cast<size_t>(mode_.seq_repeats) +
                         mode_.deep_sizes.size();
    std::vector<std::vector<SequentialReadPoint>> sweeps;
    size_t done = 0;
    bool out_of_time = false;
    for (int pass = 0; pass < mode_.seq_repeats && !out_of_time; ++pass) {
      std::vector<SequentialReadPoint> sweep;
      for (uint64_t size : sizes) {
        IoJob job = BaseJob(IoKind::kRead, Access::kSequential, size, 1);
        PointResult r;
        Outcome outcome = Outcome::kSkipped;
        PGLAYOUT_RETURN_IF_ERROR(
            RunPoint(fmt::format("seqread {}KiB qd=1 (sweep {}/{})",
                                 size / kKiB, pass + 1, mode_.seq_repeats),
                     job, kSeqReadEnd, total - done++, &r, &outcome));
        if (outcome == Outcome::kSkipped) {
          out_of_time = true;
          break;
        }
        if (outcome == Outcome::kStalled) continue;
        sweep.push_back(SequentialReadPoint{size, 1, r.mbps()});
      }
      // The first sweep counts even when cut short: it is all there is.
      if (sweeps.empty() || (!out_of_time && sweep.size() == sizes.size())) {
        sweeps.push_back(std::move(sweep));
      }
    }
    StripeReadEstimate e = EstimateStripeReadSize(sweeps);
    result_->seqread = e.median;
    result_->stripe_read_size_min = e.min_size;
    result_->stripe_read_size_max = e.max_size;
    result_->stripe_read_repeats = e.repeats;
    return Status::Ok();
  }

  Status DeepSequentialReads() {
    std::vector<uint64_t> sizes = mode_.deep_sizes;
    std::erase_if(sizes, [&](uint64_t s) {
      return s * kDeepSequentialDepth > result_->filled_bytes / 2;
    });
    for (size_t i = 0; i < sizes.size(); ++i) {
      IoJob job = BaseJob(IoKind::kRead, Access::kSequential, sizes[i],
                          kDeepSequentialDepth);
      PointResult r;
      Outcome outcome = Outcome::kSkipped;
      PGLAYOUT_RETURN_IF_ERROR(
          RunPoint(fmt::format("seqread {}KiB qd={}", sizes[i] / kKiB,
                               kDeepSequentialDepth),
                   job, kSeqReadEnd, sizes.size() - i, &r, &outcome));
      if (outcome == Outcome::kSkipped) break;
      if (outcome == Outcome::kStalled) continue;
      result_->seqread.push_back(
          SequentialReadPoint{sizes[i], kDeepSequentialDepth, r.mbps()});
    }
    return Status::Ok();
  }

  Status SyncWrites() {
    struct Spec {
      const char* method;
      Durability durability;
      uint64_t size;
    };
    std::vector<Spec> specs = {
        {"fdatasync", Durability::kFdatasyncEach, kPageSize}};
    if (mode_.dsync_and_group_commit) {
      specs.push_back({"open_datasync", Durability::kDsyncEach, kPageSize});
      specs.push_back({"fdatasync", Durability::kFdatasyncEach, kGroupCommit});
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      IoJob job =
          BaseJob(IoKind::kWrite, Access::kSequential, specs[i].size, 1);
      job.region_size = std::min(job.region_size, kWalRegion);
      job.durability = specs[i].durability;
      PointResult r;
      Outcome outcome = Outcome::kSkipped;
      PGLAYOUT_RETURN_IF_ERROR(RunPoint(
          fmt::format("wal {} {}KiB", specs[i].method, specs[i].size / kKiB),
          job, kSyncWriteEnd, specs.size() - i, &r, &outcome));
      if (outcome == Outcome::kSkipped) break;
      if (outcome == Outcome::kStalled) continue;
      const LatencyHistogram& h = r.stats.latency;
      result_->syncwrite.push_back(SyncWritePoint{
          specs[i].method, specs[i].size, r.iops(), NsToUs(h.Percentile(0.5)),
          NsToUs(h.Percentile(0.99))});
    }
    return Status::Ok();
  }

  Status RandomWrites() {
    const std::vector<int>& depths = mode_.write_depths;
    for (size_t i = 0; i < depths.size(); ++i) {
      IoJob job =
          BaseJob(IoKind::kWrite, Access::kRandom, kPageSize, depths[i]);
      job.durability = Durability::kFdatasyncAtEnd;
      PointResult r;
      Outcome outcome = Outcome::kSkipped;
      PGLAYOUT_RETURN_IF_ERROR(
          RunPoint(fmt::format("randwrite 8KiB qd={}", depths[i]), job,
                   kRandWriteEnd, depths.size() - i, &r, &outcome));
      if (outcome == Outcome::kSkipped) break;
      if (outcome == Outcome::kStalled) continue;
      const LatencyHistogram& h = r.stats.latency;
      result_->randwrite.push_back(
          RandomWritePoint{depths[i], r.iops(), NsToUs(h.Percentile(0.5)),
                           NsToUs(h.Percentile(0.99))});
      if (!SweepShouldContinue(result_->randwrite)) break;
    }
    if (skipped_points_ > 0) {
      result_->notes.push_back(fmt::format(
          "{} points skipped: the time budget of {:.0f} s was spent",
          skipped_points_, budget_));
    }
    return Status::Ok();
  }

  IoEngine* engine_;
  const ProbeOptions& options_;
  ProgressSink* progress_;
  ProbeResult* result_;
  Mode mode_;
  double budget_;
  double used_ = 0;
  double point_seconds_ = 0;
  double paced_seconds_ = 0;  // the paced points, outside the budget
  uint64_t seed_ = 0;
  int points_ = 0;
  int capped_points_ = 0;
  int skipped_points_ = 0;
  int cleared_points_ = 0;  // repeated for foreign I/O, then clean
  std::vector<std::string> foreign_points_;  // foreign I/O even when repeated
  bool counters_failed_ = false;
};

}  // namespace

double ModeRelativeCi(double max_point_seconds) {
  return kFullRelativeCi * std::sqrt(kFullPointSeconds / max_point_seconds);
}

double PointResult::iops() const {
  double t = stats.seconds + sync_seconds;
  return t > 0 ? static_cast<double>(stats.ios) / t : 0;
}

double PointResult::mbps() const {
  double t = stats.seconds + sync_seconds;
  return t > 0 ? static_cast<double>(stats.bytes) / t / 1e6 : 0;
}

double PointResult::cpu_us_per_io() const {
  return stats.ios > 0
             ? stats.cpu_seconds * 1e6 / static_cast<double>(stats.ios)
             : 0;
}

Status MeasurePoint(
    IoEngine* engine, IoJob job, const PointLimits& limits,
    const std::function<void(const IntervalStats&)>& on_interval,
    PointResult* result) {
  *result = PointResult();
  // A little slack over warm-up + cap so the observer, not the engine's hard
  // cap, ends a normal point.
  job.max_seconds =
      limits.warmup_seconds + limits.max_seconds + 2 * job.interval_seconds;
  StoppingRule rule(limits.relative_ci, limits.min_samples);
  double elapsed = 0;
  auto observer = [&](const IntervalStats& s) {
    if (on_interval) on_interval(s);
    elapsed += s.seconds;
    if (elapsed <= limits.warmup_seconds) return true;
    result->stats.Merge(s);
    // A short last interval would be a noisy sample; count its I/Os only.
    if (s.seconds >= job.interval_seconds / 2) rule.Add(s.ios / s.seconds);
    if (result->stats.seconds >= limits.min_seconds && rule.Converged()) {
      result->converged = true;
      return false;
    }
    return result->stats.seconds < limits.max_seconds;
  };
  JobResult job_result;
  Status st = engine->Run(job, observer, &job_result);
  result->sync_seconds = job_result.sync_seconds;
  result->engine_seconds = job_result.total.seconds + job_result.sync_seconds;
  result->retries = job_result.retries;
  result->issued_bytes = job_result.total.bytes;
  result->relative_ci = rule.RelativeHalfWidth();
  return st;
}

IoJob SequentialWriteJob(uint64_t size, double max_seconds) {
  IoJob job;
  job.kind = IoKind::kWrite;
  job.access = Access::kSequential;
  job.block_size = kFillBlock;
  job.queue_depth = kFillDepth;
  job.region_size = size / kFillBlock * kFillBlock;
  job.max_bytes = job.region_size;
  job.durability = Durability::kFdatasyncAtEnd;
  job.interval_seconds = 0.1;
  job.max_seconds = max_seconds;
  job.seed = 0xf111;
  return job;
}

Status FillProbeFile(IoEngine* engine, uint64_t size, double max_seconds,
                     const IntervalObserver& on_interval, uint64_t* filled,
                     double* mbps, double* seconds) {
  IoJob job = SequentialWriteJob(size, max_seconds);
  JobResult r;
  auto observer = [&](const IntervalStats& s) {
    return on_interval ? on_interval(s) : true;
  };
  Status st = engine->Run(job, observer, &r);
  *seconds = r.total.seconds + r.sync_seconds;
  if (!st.ok()) return st.WithContext("filling the probe file");
  // Every submitted block was written: the engine drains what is in flight
  // before it returns, and a fill is sequential from offset 0.
  *filled = r.total.bytes / kFillBlock * kFillBlock;
  *mbps =
      *seconds > 0 ? static_cast<double>(r.total.bytes) / *seconds / 1e6 : 0;
  return Status::Ok();
}

Status RunProbe(IoEngine* engine, const ProbeOptions& options,
                ProgressSink* progress, ProbeResult* result) {
  if (options.file_size < kMinProbeFileSize) {
    return Status::InvalidInput(
        fmt::format("probe file size {} MiB is below the minimum of {} MiB",
                    options.file_size / kMiB, kMinProbeFileSize / kMiB));
  }
  Runner runner(engine, options, progress, result);
  return runner.Run();
}

void ApplyProbeResult(const ProbeResult& result, Volume* volume) {
  volume->randread = result.randread;
  volume->paced_read = result.paced_read;
  volume->seqread = result.seqread;
  volume->stripe_read_size_min = result.stripe_read_size_min;
  volume->stripe_read_size_max = result.stripe_read_size_max;
  volume->stripe_read_repeats = result.stripe_read_repeats;
  volume->syncwrite = result.syncwrite;
  volume->randwrite = result.randwrite;
  volume->write_mbps = result.write_mbps;
  volume->probe_engine = result.engine;
  DeriveHeadlines(volume);
}

}  // namespace pglayout::probes
