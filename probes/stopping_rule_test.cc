#include "probes/stopping_rule.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pglayout::probes {
namespace {

TEST(StudentT95, KnownQuantiles) {
  EXPECT_DOUBLE_EQ(StudentT95(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT95(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT95(30), 2.042);
  EXPECT_DOUBLE_EQ(StudentT95(1000), 1.960);
  EXPECT_TRUE(std::isinf(StudentT95(0)));
}

TEST(StoppingRule, ConstantSamplesConvergeAtTheMinimumCount) {
  StoppingRule rule(0.02, 5);
  for (int i = 0; i < 4; ++i) {
    rule.Add(1000);
    EXPECT_FALSE(rule.Converged()) << "after " << i + 1 << " samples";
  }
  rule.Add(1000);
  EXPECT_TRUE(rule.Converged());
  EXPECT_EQ(rule.RelativeHalfWidth(), 0);
}

TEST(StoppingRule, HalfWidthMatchesTheFormula) {
  StoppingRule rule(0.02, 2);
  for (double x : {98.0, 102.0, 99.0, 101.0, 100.0}) rule.Add(x);
  // mean 100, sample sd sqrt(10/4) = 1.5811; t(4) = 2.776;
  // half = 2.776 * 1.5811 / sqrt(5) = 1.9629 -> 1.96%.
  EXPECT_DOUBLE_EQ(rule.mean(), 100);
  EXPECT_NEAR(rule.stddev(), 1.58114, 1e-5);
  EXPECT_NEAR(rule.RelativeHalfWidth(), 0.019629, 1e-5);
  EXPECT_TRUE(rule.Converged());
  StoppingRule strict(0.019, 2);
  for (double x : {98.0, 102.0, 99.0, 101.0, 100.0}) strict.Add(x);
  EXPECT_FALSE(strict.Converged());
}

TEST(StoppingRule, NoisySamplesNeedMoreOfThem) {
  StoppingRule rule(0.02, 5);
  // Alternating +/-10%: sd ~ 10% of the mean, so about (1.96*0.1/0.02)^2 =
  // 96 samples are needed; 50 are not enough, 120 are.
  for (int i = 0; i < 50; ++i) rule.Add(i % 2 ? 110 : 90);
  EXPECT_FALSE(rule.Converged());
  for (int i = 50; i < 120; ++i) rule.Add(i % 2 ? 110 : 90);
  EXPECT_TRUE(rule.Converged());
}

TEST(StoppingRule, OneSampleIsNeverEnough) {
  StoppingRule rule(0.5, 1);  // min_samples is raised to 2
  rule.Add(5);
  EXPECT_FALSE(rule.Converged());
  EXPECT_TRUE(std::isinf(rule.RelativeHalfWidth()));
}

}  // namespace
}  // namespace pglayout::probes
