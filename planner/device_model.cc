#include "planner/device_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"

namespace pglayout::planner {
namespace {

// Unloaded latency assumed when a volume declares none: a typical network
// block volume. Describe() says so, because every latency figure of that
// volume then rests on it.
constexpr double kAssumedLatencyUs = 1000;
// Servers beyond this add nothing measurable to an M/M/c curve and only cost
// time in the Erlang recursion.
constexpr int kMaxServers = 4096;

double PagesPerSecond(double mbps) { return mbps * 1e6 / kPageSize; }

// The smaller of the IOPS and bandwidth limits, ignoring undeclared ones.
double Capacity(double iops, double mbps) {
  double pages = PagesPerSecond(mbps);
  if (iops > 0 && pages > 0) return std::min(iops, pages);
  return std::max(iops, pages);
}

// Little's law on the probe's points; keeps only points that add throughput
// (past the knee, deeper queues only add latency).
std::vector<LatencyPoint> ReadCurve(const Volume& v) {
  std::vector<RandomReadPoint> points = v.randread;
  std::stable_sort(points.begin(), points.end(),
                   [](const RandomReadPoint& a, const RandomReadPoint& b) {
                     return a.queue_depth < b.queue_depth;
                   });
  std::vector<LatencyPoint> curve;
  for (const RandomReadPoint& p : points) {
    if (p.iops <= 0) continue;
    if (!curve.empty() && p.iops <= curve.back().iops) continue;
    curve.push_back({p.iops, p.queue_depth / p.iops * 1e6});
  }
  return curve;
}

// Latency cannot fall as load rises, but short points on a noisy disk
// measure it so (1.75 ms at 30% and 0.77 ms at 50% in one lab run), and the
// placement's bound needs a latency that never decreases with load (its
// marginal costs must not be negative). Pool adjacent violators: each run
// of points that decreases is replaced by its mean, which keeps the
// curve's average level where a running maximum would keep its noise.
void MakeNonDecreasing(std::vector<LatencyPoint>* curve) {
  struct Block {
    double sum = 0;
    int count = 0;
    double mean() const { return sum / count; }
  };
  std::vector<Block> blocks;
  for (const LatencyPoint& p : *curve) {
    blocks.push_back({p.latency_us, 1});
    while (blocks.size() > 1 &&
           blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      Block last = blocks.back();
      blocks.pop_back();
      blocks.back().sum += last.sum;
      blocks.back().count += last.count;
    }
  }
  size_t i = 0;
  for (const Block& b : blocks) {
    for (int k = 0; k < b.count; ++k) (*curve)[i++].latency_us = b.mean();
  }
}

}  // namespace

std::vector<LatencyPoint> PacedCurve(const Volume& v) {
  std::vector<LatencyPoint> curve;
  for (const PacedReadPoint& p : v.paced_read) {
    if (p.offered_iops <= 0 || p.mean_us <= 0) continue;
    if (p.iops < kPacedKeptUp * p.offered_iops) continue;
    curve.push_back({p.offered_iops, p.mean_us});
  }
  std::stable_sort(curve.begin(), curve.end(),
                   [](const LatencyPoint& a, const LatencyPoint& b) {
                     return a.iops < b.iops;
                   });
  // Two points that achieved the same rate cannot be interpolated between.
  curve.erase(std::unique(curve.begin(), curve.end(),
                          [](const LatencyPoint& a, const LatencyPoint& b) {
                            return a.iops == b.iops;
                          }),
              curve.end());
  MakeNonDecreasing(&curve);
  return curve;
}

namespace {

double MaxWriteIops(const Volume& v) {
  double best = 0;
  for (const RandomWritePoint& p : v.randwrite) best = std::max(best, p.iops);
  return best;
}

double FirstSyncWriteLatency(const Volume& v) {
  for (const RandomWritePoint& p : v.randwrite) {
    if (p.queue_depth == 1 && p.p50_us > 0) return p.p50_us;
  }
  return 0;
}

}  // namespace

double MmcResponseFactor(double rho, int servers) {
  rho = std::clamp(rho, 0.0, kMaxUtilization);
  const int c = std::clamp(servers, 1, kMaxServers);
  const double a = rho * c;  // offered load in Erlangs
  double erlang_b = 1;
  for (int k = 1; k <= c; ++k) erlang_b = a * erlang_b / (k + a * erlang_b);
  const double erlang_c = erlang_b / (1 - rho * (1 - erlang_b));
  return 1 + erlang_c / (c * (1 - rho));
}

Status DeviceModel::Build(const Volume& v, DeviceModel* out) {
  DeviceModel m;
  m.name_ = v.name;
  m.curve_ = ReadCurve(v);
  m.paced_ = PacedCurve(v);
  m.read_mbps_ = v.read_mbps;
  m.write_mbps_ = v.write_mbps;
  m.capacity_bytes_ = v.capacity;
  m.separate_budgets_ = v.iops_budget == "separate";
  double read_iops = v.read_iops;
  if (read_iops <= 0 && !m.curve_.empty()) read_iops = m.curve_.back().iops;
  m.read_capacity_ = Capacity(read_iops, v.read_mbps);
  if (m.read_capacity_ <= 0) {
    return Status::InvalidInput(fmt::format(
        "volume '{}' declares no read performance: give read_iops or "
        "read_mbps, or probe it for a [[randread]] curve",
        v.name));
  }
  double write_iops = v.write_iops > 0 ? v.write_iops : MaxWriteIops(v);
  m.write_capacity_ = Capacity(write_iops, v.write_mbps);
  if (m.write_capacity_ <= 0) m.write_capacity_ = m.read_capacity_;
  m.read_latency_us_ = v.read_latency_us;
  if (m.read_latency_us_ <= 0 && !m.curve_.empty()) {
    m.read_latency_us_ = m.curve_.front().latency_us;
  }
  if (m.read_latency_us_ <= 0) m.read_latency_us_ = kAssumedLatencyUs;
  m.sync_write_latency_us_ = v.sync_write_latency_us > 0
                                 ? v.sync_write_latency_us
                                 : FirstSyncWriteLatency(v);
  m.sync_write_latency_p99_us_ = v.sync_write_latency_p99_us;
  if (v.readers_to_saturate > 0) {
    m.parallelism_ = v.readers_to_saturate;
  } else {
    m.parallelism_ =
        std::max(1.0, std::round(m.read_capacity_ * m.read_latency_us_ / 1e6));
  }
  *out = std::move(m);
  return Status::Ok();
}

// A random 8 KiB read on a stripe lands on one member, which is as busy as
// the stripe: the stripe's latency at utilisation u is its worst member's at
// u. So the paced curve of the member slowest below its cap (the highest
// first point), its rates scaled to the stripe's capacity; none unless every
// member has one (the stripe then keeps the M/M/c of declared figures).
std::vector<LatencyPoint> DeviceModel::StripePacedCurve(
    const std::vector<const DeviceModel*>& members, double stripe_capacity) {
  const DeviceModel* worst = nullptr;
  for (const DeviceModel* d : members) {
    if (!d->paced()) return {};
    if (worst == nullptr ||
        d->paced_.front().latency_us > worst->paced_.front().latency_us) {
      worst = d;
    }
  }
  if (worst == nullptr) return {};
  std::vector<LatencyPoint> curve = worst->paced_;
  const double scale = stripe_capacity / worst->read_capacity_;
  for (LatencyPoint& p : curve) p.iops *= scale;
  return curve;
}

DeviceModel DeviceModel::Stripe(
    const std::string& name, const std::vector<const DeviceModel*>& members) {
  DeviceModel m;
  m.name_ = name;
  const double k = static_cast<double>(members.size());
  double read = 1e300, write = 1e300, rmb = 1e300, wmb = 1e300;
  uint64_t smallest = UINT64_MAX;
  m.parallelism_ = 0;
  m.separate_budgets_ = !members.empty();
  for (const DeviceModel* d : members) {
    m.separate_budgets_ = m.separate_budgets_ && d->separate_budgets_;
    read = std::min(read, d->read_capacity_);
    write = std::min(write, d->write_capacity_);
    rmb = std::min(rmb, d->read_mbps_);
    wmb = std::min(wmb, d->write_mbps_);
    smallest = std::min(smallest, d->capacity_bytes_);
    m.read_latency_us_ = std::max(m.read_latency_us_, d->read_latency_us_);
    m.sync_write_latency_us_ =
        std::max(m.sync_write_latency_us_, d->sync_write_latency_us_);
    m.parallelism_ += d->parallelism_;
  }
  m.read_capacity_ = read * k;
  m.write_capacity_ = write * k;
  m.read_mbps_ = rmb * k;
  m.write_mbps_ = wmb * k;
  m.capacity_bytes_ = smallest * members.size();
  m.parallelism_ = std::max(1.0, m.parallelism_);
  m.paced_ = StripePacedCurve(members, m.read_capacity_);
  return m;
}

std::string DeviceModel::Describe() const {
  if (paced()) {
    return fmt::format("paced curve ({} points, latency against load)",
                       paced_.size());
  }
  if (measured()) {
    return fmt::format("measured curve ({} points, Little's law)",
                       curve_.size());
  }
  return fmt::format("declared figures (M/M/c, c = {:.0f})", parallelism_);
}

double DeviceModel::Utilization(double read_iops, double write_iops,
                                double sequential_read_bytes_per_second) const {
  const double sequential =
      read_mbps_ > 0 ? read_mbps_ * 1e6 : read_capacity_ * kPageSize;
  const double reads = read_iops / read_capacity_ +
                       sequential_read_bytes_per_second / sequential;
  const double writes = write_iops / write_capacity_;
  return separate_budgets_ ? std::max(reads, writes) : reads + writes;
}

double DeviceModel::CurveLatencyUs(const std::vector<LatencyPoint>& curve,
                                   double utilization) const {
  const double offered = utilization * read_capacity_;
  if (offered <= curve.front().iops) return curve.front().latency_us;
  for (size_t i = 1; i < curve.size(); ++i) {
    const LatencyPoint& lo = curve[i - 1];
    const LatencyPoint& hi = curve[i];
    if (offered > hi.iops) continue;
    const double t = (offered - lo.iops) / (hi.iops - lo.iops);
    return lo.latency_us + t * (hi.latency_us - lo.latency_us);
  }
  // Beyond what was measured: grow from the last point as M/M/1 would.
  const LatencyPoint& last = curve.back();
  const double u_last = std::min(last.iops / read_capacity_, kMaxUtilization);
  const double u = std::clamp(utilization, u_last, kMaxUtilization);
  return last.latency_us * (1 - u_last) / (1 - u);
}

double DeviceModel::ReadLatencyUs(double utilization) const {
  if (paced()) return CurveLatencyUs(paced_, utilization);
  if (!curve_.empty()) return CurveLatencyUs(curve_, utilization);
  return read_latency_us_ *
         MmcResponseFactor(utilization, static_cast<int>(parallelism_));
}

double DeviceModel::SyncWriteLatencyUs(double utilization) const {
  return sync_write_latency_us_ * MmcResponseFactor(utilization, 1);
}

}  // namespace pglayout::planner
