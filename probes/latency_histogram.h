// A log-linear latency histogram: exact below 64 ns, then 64 linear
// sub-buckets per power of two, so any recorded value is reported within
// 1/128 (0.78%) of itself. Values are nanoseconds; values of 2^37 ns (~137 s)
// and above are clamped into the last bucket (the probe never waits that long
// for one I/O).
//
// Fixed size (2048 counters, 16 KiB), so intervals can be recorded
// separately and merged for the percentiles of a whole point: percentiles of
// merged histograms are exact to the bucket, unlike averages of per-interval
// percentiles.

#ifndef PGLAYOUT_PROBES_LATENCY_HISTOGRAM_H_
#define PGLAYOUT_PROBES_LATENCY_HISTOGRAM_H_

#include <array>
#include <cstdint>

namespace pglayout::probes {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 6;
  static constexpr int kSubBuckets = 1 << kSubBucketBits;  // 64
  static constexpr int kGroups = 31;  // powers of two above the exact range
  static constexpr int kBuckets = kSubBuckets * (kGroups + 1);  // 2048

  void Record(uint64_t nanos) { RecordN(nanos, 1); }
  void RecordN(uint64_t nanos, uint64_t count);
  void Merge(const LatencyHistogram& other);
  void Clear();

  uint64_t count() const { return count_; }
  uint64_t min_ns() const { return count_ == 0 ? 0 : min_; }
  uint64_t max_ns() const { return max_; }
  double mean_ns() const;
  // The value at quantile |q| in [0, 1] (0.5 = median), in nanoseconds: the
  // midpoint of the bucket holding the ceil(q * count)-th smallest value,
  // clamped to [min, max]. 0 when empty.
  double Percentile(double q) const;

  // Bucket arithmetic, public for tests.
  static int BucketOf(uint64_t nanos);
  static uint64_t BucketLow(int bucket);    // smallest value in |bucket|
  static uint64_t BucketWidth(int bucket);  // values in |bucket|

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  long double sum_ = 0;  // long: 10^9 samples of 10^9 ns stay exact enough
};

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_LATENCY_HISTOGRAM_H_
