#include "report/curves.h"

#include <algorithm>

namespace pglayout::report {
namespace {

// Below this share of peak IOPS the curve is still climbing.
constexpr double kKneeShareOfPeak = 0.9;

double PeakIops(const Volume& v) {
  double peak = 0;
  for (const RandomReadPoint& p : v.randread) peak = std::max(peak, p.iops);
  return peak;
}

}  // namespace

std::optional<size_t> KneeIndex(const Volume& v) {
  if (v.randread.empty()) return std::nullopt;
  if (v.readers_to_saturate > 0) {
    std::optional<size_t> best;
    for (size_t i = 0; i < v.randread.size(); ++i) {
      int depth = v.randread[i].queue_depth;
      if (depth < v.readers_to_saturate) continue;
      if (!best || depth < v.randread[*best].queue_depth) best = i;
    }
    if (best) return best;
  }
  double threshold = kKneeShareOfPeak * PeakIops(v);
  for (size_t i = 0; i < v.randread.size(); ++i) {
    if (v.randread[i].iops >= threshold) return i;
  }
  return v.randread.size() - 1;
}

double SaturationIops(const Volume& v) {
  return v.read_iops > 0 ? v.read_iops : PeakIops(v);
}

std::optional<double> MedianLatencyAt(const Volume& v, double iops) {
  if (v.randread.empty()) return std::nullopt;
  std::vector<RandomReadPoint> points = v.randread;
  std::sort(points.begin(), points.end(),
            [](const RandomReadPoint& a, const RandomReadPoint& b) {
              return a.iops < b.iops;
            });
  if (iops <= points.front().iops) return points.front().p50_us;
  for (size_t i = 1; i < points.size(); ++i) {
    const RandomReadPoint& lo = points[i - 1];
    const RandomReadPoint& hi = points[i];
    if (iops > hi.iops) continue;
    if (hi.iops == lo.iops) return hi.p50_us;
    double t = (iops - lo.iops) / (hi.iops - lo.iops);
    return lo.p50_us + t * (hi.p50_us - lo.p50_us);
  }
  return points.back().p50_us;
}

}  // namespace pglayout::report
