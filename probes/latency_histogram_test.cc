#include "probes/latency_histogram.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pglayout::probes {
namespace {

TEST(LatencyHistogram, ExactBelowSixtyFourNanoseconds) {
  for (uint64_t v = 0; v < 64; ++v) {
    EXPECT_EQ(LatencyHistogram::BucketOf(v), static_cast<int>(v));
    EXPECT_EQ(LatencyHistogram::BucketWidth(LatencyHistogram::BucketOf(v)), 1u);
  }
}

TEST(LatencyHistogram, EveryValueFallsInsideItsBucketWithinOnePart128) {
  for (uint64_t v = 1; v < (uint64_t{1} << 37); v = v * 3 / 2 + 1) {
    int b = LatencyHistogram::BucketOf(v);
    uint64_t low = LatencyHistogram::BucketLow(b);
    uint64_t width = LatencyHistogram::BucketWidth(b);
    ASSERT_LE(low, v);
    ASSERT_LT(v, low + width);
    // The midpoint represents the bucket: at most half a width away.
    double mid =
        static_cast<double>(low) + (static_cast<double>(width) - 1) / 2;
    ASSERT_LE(std::abs(mid - static_cast<double>(v)) / static_cast<double>(v),
              1.0 / 128);
  }
}

TEST(LatencyHistogram, BucketsAreContiguous) {
  for (int b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    ASSERT_EQ(LatencyHistogram::BucketLow(b) + LatencyHistogram::BucketWidth(b),
              LatencyHistogram::BucketLow(b + 1))
        << "bucket " << b;
  }
}

TEST(LatencyHistogram, HugeValuesAreClampedNotLost) {
  LatencyHistogram h;
  h.Record(uint64_t{1} << 50);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.max_ns(), uint64_t{1} << 50);
  EXPECT_EQ(LatencyHistogram::BucketOf(uint64_t{1} << 50),
            LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, PercentilesOfAUniformDistribution) {
  LatencyHistogram h;
  // 1..100000 us in 1 us steps: p50 = 50 ms, p99 = 99 ms, p99.9 = 99.9 ms.
  for (uint64_t us = 1; us <= 100000; ++us) h.Record(us * 1000);
  EXPECT_NEAR(h.Percentile(0.5), 50e6, 50e6 / 128);
  EXPECT_NEAR(h.Percentile(0.99), 99e6, 99e6 / 128);
  EXPECT_NEAR(h.Percentile(0.999), 99.9e6, 99.9e6 / 128);
  EXPECT_EQ(h.Percentile(1.0), 100e6);  // clamped to the maximum seen
  EXPECT_NEAR(h.Percentile(0.0), 1000, 1000.0 / 128);  // the minimum's bucket
  EXPECT_NEAR(h.mean_ns(), 50000.5e3, 1);
}

TEST(LatencyHistogram, TailIsNotAveragedAway) {
  LatencyHistogram h;
  h.RecordN(100'000, 990);    // 990 reads of 100 us
  h.RecordN(20'000'000, 10);  // 10 of 20 ms
  EXPECT_NEAR(h.Percentile(0.99), 100'000, 100'000 / 128);
  EXPECT_NEAR(h.Percentile(0.995), 20'000'000, 20'000'000 / 128);
  EXPECT_EQ(h.max_ns(), 20'000'000u);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverything) {
  LatencyHistogram a, b, all;
  for (uint64_t v = 1000; v < 200000; v += 777) {
    (v % 2 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min_ns(), all.min_ns());
  EXPECT_EQ(a.max_ns(), all.max_ns());
  for (double q : {0.1, 0.5, 0.9, 0.99})
    EXPECT_EQ(a.Percentile(q), all.Percentile(q));
}

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(0.5), 0);
  EXPECT_EQ(h.min_ns(), 0u);
  EXPECT_EQ(h.mean_ns(), 0);
}

}  // namespace
}  // namespace pglayout::probes
