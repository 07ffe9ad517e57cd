// When to stop measuring a point: after a minimum number of interval samples,
// as soon as the 95% confidence interval of the mean is narrower than a
// relative target (for example +/-2% of the mean IOPS), in the spirit of
// fio's steady-state option but on the confidence of the mean rather than
// on a slope. The caller still enforces a time cap; Converged() only says
// the estimate is good enough.

#ifndef PGLAYOUT_PROBES_STOPPING_RULE_H_
#define PGLAYOUT_PROBES_STOPPING_RULE_H_

#include <cstddef>

namespace pglayout::probes {

// Two-sided 95% Student-t quantile for |degrees| degrees of freedom (>= 1);
// 1.96 from 120 degrees on.
double StudentT95(size_t degrees);

class StoppingRule {
 public:
  // |relative_half_width|: e.g. 0.02 for +/-2%. |min_samples| >= 2.
  StoppingRule(double relative_half_width, size_t min_samples);

  void Add(double sample);
  size_t samples() const { return n_; }
  double mean() const { return mean_; }
  double stddev() const;  // sample standard deviation; 0 with < 2 samples
  // Half-width of the 95% CI of the mean divided by the mean; infinity with
  // fewer than 2 samples or a zero mean.
  double RelativeHalfWidth() const;
  bool Converged() const;

 private:
  double target_;
  size_t min_samples_;
  size_t n_ = 0;
  double mean_ = 0;  // Welford's running mean and sum of squared deviations
  double m2_ = 0;
};

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_STOPPING_RULE_H_
