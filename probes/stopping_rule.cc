#include "probes/stopping_rule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pglayout::probes {

double StudentT95(size_t degrees) {
  // Published two-sided 95% quantiles; beyond the table the normal value is
  // within 2% of the truth, well inside the precision we ask for.
  static constexpr double kTable[] = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  constexpr size_t kSize = sizeof(kTable) / sizeof(kTable[0]);
  if (degrees == 0) return std::numeric_limits<double>::infinity();
  if (degrees <= kSize) return kTable[degrees - 1];
  if (degrees < 60) return 2.021;
  if (degrees < 120) return 2.000;
  return 1.960;
}

StoppingRule::StoppingRule(double relative_half_width, size_t min_samples)
    : target_(relative_half_width),
      min_samples_(std::max<size_t>(2, min_samples)) {}

void StoppingRule::Add(double sample) {
  ++n_;
  double delta = sample - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (sample - mean_);
}

double StoppingRule::stddev() const {
  if (n_ < 2) return 0;
  return std::sqrt(m2_ / static_cast<double>(n_ - 1));
}

double StoppingRule::RelativeHalfWidth() const {
  if (n_ < 2 || mean_ == 0) return std::numeric_limits<double>::infinity();
  double half =
      StudentT95(n_ - 1) * stddev() / std::sqrt(static_cast<double>(n_));
  return half / std::abs(mean_);
}

bool StoppingRule::Converged() const {
  return n_ >= min_samples_ && RelativeHalfWidth() <= target_;
}

}  // namespace pglayout::probes
