#include "probes/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pglayout::probes {

int LatencyHistogram::BucketOf(uint64_t nanos) {
  if (nanos < kSubBuckets) return static_cast<int>(nanos);
  // The group is how far the top bit sits above the exact range; the
  // sub-bucket is the next kSubBucketBits bits below the top bit.
  int top_bit = 63 - std::countl_zero(nanos);
  int group = top_bit - kSubBucketBits + 1;  // >= 1
  if (group > kGroups) return kBuckets - 1;
  int sub = static_cast<int>((nanos >> (group - 1)) - kSubBuckets);
  return group * kSubBuckets + sub;
}

uint64_t LatencyHistogram::BucketLow(int bucket) {
  if (bucket < kSubBuckets) return static_cast<uint64_t>(bucket);
  int group = bucket / kSubBuckets;
  uint64_t sub = static_cast<uint64_t>(bucket % kSubBuckets);
  return (kSubBuckets + sub) << (group - 1);
}

uint64_t LatencyHistogram::BucketWidth(int bucket) {
  if (bucket < kSubBuckets) return 1;
  return uint64_t{1} << (bucket / kSubBuckets - 1);
}

void LatencyHistogram::RecordN(uint64_t nanos, uint64_t count) {
  if (count == 0) return;
  counts_[BucketOf(nanos)] += count;
  count_ += count;
  min_ = std::min(min_, nanos);
  max_ = std::max(max_, nanos);
  sum_ += static_cast<long double>(nanos) * count;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

void LatencyHistogram::Clear() { *this = LatencyHistogram(); }

double LatencyHistogram::mean_ns() const {
  return count_ == 0 ? 0 : static_cast<double>(sum_ / count_);
}

double LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank of the wanted sample, 1-based; q = 0 asks for the smallest.
  uint64_t rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen < rank) continue;
    double mid = static_cast<double>(BucketLow(i)) +
                 (static_cast<double>(BucketWidth(i)) - 1) / 2;
    return std::clamp(mid, static_cast<double>(min_),
                      static_cast<double>(max_));
  }
  return static_cast<double>(max_);
}

}  // namespace pglayout::probes
