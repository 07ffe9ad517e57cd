#include "probes/analysis.h"

#include <algorithm>
#include <map>

#include "common/median.h"
#include "common/stripe_read.h"
#include "common/units.h"

namespace pglayout::probes {
namespace {

template <typename Point>
bool ShouldContinue(const std::vector<Point>& curve) {
  if (curve.empty()) return true;
  const Point& last = curve.back();
  if (last.p99_us > kExplodedLatencyUs) return false;
  if (curve.size() < 2) return true;
  const Point& before = curve[curve.size() - 2];
  if (before.iops <= 0) return true;
  return last.iops >= before.iops * (1 + kMinUsefulGain);
}

}  // namespace

bool SweepShouldContinue(const std::vector<RandomReadPoint>& curve) {
  return ShouldContinue(curve);
}

bool SweepShouldContinue(const std::vector<RandomWritePoint>& curve) {
  return ShouldContinue(curve);
}

int FindKnee(const std::vector<RandomReadPoint>& curve) {
  if (curve.empty()) return -1;
  double peak = 0;
  for (const RandomReadPoint& p : curve) peak = std::max(peak, p.iops);
  int best = -1;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].iops < kReachedFraction * peak) continue;
    if (best < 0 || curve[i].queue_depth < curve[best].queue_depth) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

uint64_t StripeWideReadSize(const std::vector<SequentialReadPoint>& curve,
                            int queue_depth) {
  const double plateau = PlateauMbps(curve, queue_depth);
  if (plateau <= 0) return 0;
  uint64_t best = 0;
  for (const SequentialReadPoint& p : curve) {
    if (p.queue_depth != queue_depth || p.mbps < kStripeReadFraction * plateau)
      continue;
    if (best == 0 || p.request_size < best) best = p.request_size;
  }
  return best;
}

StripeReadEstimate EstimateStripeReadSize(
    const std::vector<std::vector<SequentialReadPoint>>& sweeps) {
  StripeReadEstimate e;
  std::map<uint64_t, std::vector<double>> by_size;
  for (const std::vector<SequentialReadPoint>& sweep : sweeps) {
    const uint64_t knee = StripeWideReadSize(sweep);
    if (knee == 0) continue;
    ++e.repeats;
    e.min_size = e.min_size == 0 ? knee : std::min(e.min_size, knee);
    e.max_size = std::max(e.max_size, knee);
    for (const SequentialReadPoint& p : sweep) {
      if (p.queue_depth == 1) by_size[p.request_size].push_back(p.mbps);
    }
  }
  for (const auto& [size, mbps] : by_size) {
    e.median.push_back(SequentialReadPoint{size, 1, Median(mbps)});
  }
  e.size = StripeWideReadSize(e.median);
  return e;
}

void DeriveHeadlines(Volume* v) {
  if (int knee = FindKnee(v->randread); knee >= 0) {
    v->read_iops = v->randread[knee].iops;
    v->readers_to_saturate = v->randread[knee].queue_depth;
  }
  for (const RandomReadPoint& p : v->randread) {
    if (p.queue_depth != 1) continue;
    v->read_latency_us = p.p50_us;
    v->read_latency_p99_us = p.p99_us;
  }
  for (const SequentialReadPoint& p : v->seqread) {
    v->read_mbps = std::max(v->read_mbps, p.mbps);
  }
  if (uint64_t size = StripeWideReadSize(v->seqread); size != 0) {
    v->stripe_read_size = size;
  }
  for (const SyncWritePoint& p : v->syncwrite) {
    if (p.method != "fdatasync" || p.request_size != kPageSize) continue;
    v->sync_write_latency_us = p.p50_us;
    v->sync_write_latency_p99_us = p.p99_us;
  }
  for (const RandomWritePoint& p : v->randwrite) {
    v->write_iops = std::max(v->write_iops, p.iops);
  }
}

}  // namespace pglayout::probes
