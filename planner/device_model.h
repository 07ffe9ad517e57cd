// The device model: how busy a volume is under a load (reads, writes and
// sequential reads share the device's time, so their fractions add up), and
// the mean read latency at a utilisation, from the first the volume has of
// its paced curve, its queue-depth curve or its declared figures (M/M/c).
// WAL commit latency is M/M/1 on the volume's write + fdatasync latency.
// The reasoning and the formulas: docs/device-model.md#capacity-and-utilisation
// and docs/device-model.md#latency-under-load.

#ifndef PGLAYOUT_PLANNER_DEVICE_MODEL_H_
#define PGLAYOUT_PLANNER_DEVICE_MODEL_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout::planner {

inline constexpr double kMaxUtilization = 0.99;

// One point of a measured read curve after Little's law.
struct LatencyPoint {
  double iops = 0;        // completed 8 KiB reads per second
  double latency_us = 0;  // mean latency at that load
};

class DeviceModel {
 public:
  // Builds the model of |volume|. InvalidInput when the volume declares
  // neither read IOPS nor read bandwidth nor a read curve (nothing to plan
  // with), or no write figure at all.
  static Status Build(const Volume& volume, DeviceModel* out);

  // A striped volume of |members| (RAID0): capacities add up, the slowest
  // member bounds each one ("performance of the stripe is limited to the
  // worst performing volume in the set", AWS RAID guide), the capacity in
  // bytes is members x the smallest, latency is the worst member's.
  static DeviceModel Stripe(const std::string& name,
                            const std::vector<const DeviceModel*>& members);

  const std::string& name() const { return name_; }
  double read_capacity() const { return read_capacity_; }    // 8 KiB IOPS
  double write_capacity() const { return write_capacity_; }  // 8 KiB IOPS
  double read_mbps() const { return read_mbps_; }
  double write_mbps() const { return write_mbps_; }
  uint64_t capacity_bytes() const { return capacity_bytes_; }
  double unloaded_read_latency_us() const { return read_latency_us_; }
  double sync_write_latency_us() const { return sync_write_latency_us_; }
  // Its p99 when probed (the spread of the measurement), else 0.
  double sync_write_latency_p99_us() const {
    return sync_write_latency_p99_us_;
  }
  // Requests in flight needed to reach the read capacity (Little's law, or
  // the probe's knee when measured).
  double parallelism() const { return parallelism_; }
  bool measured() const { return !curve_.empty() || paced(); }
  // Whether read latency comes from the paced curve.
  bool paced() const { return !paced_.empty(); }
  // "paced curve (5 points, latency against offered load)", "measured
  // curve (...)" or "declared figures (M/M/c, c = 24)".
  std::string Describe() const;

  // Whether reads and writes each have a budget of their own
  // (Volume::iops_budget "separate"); a stripe has them when every member
  // does.
  bool separate_budgets() const { return separate_budgets_; }

  // Fraction of the device's budget used by this load (may exceed 1): the
  // read and write fractions added up on one combined budget, the larger of
  // them on separate budgets (sequential reads count with the reads).
  double Utilization(double read_iops, double write_iops,
                     double sequential_read_bytes_per_second = 0) const;
  // Mean read latency when the device is |utilization| busy.
  double ReadLatencyUs(double utilization) const;
  // Mean commit (write + fdatasync) latency when the WAL stream keeps the
  // device |utilization| busy.
  double SyncWriteLatencyUs(double utilization) const;

 private:
  static std::vector<LatencyPoint> StripePacedCurve(
      const std::vector<const DeviceModel*>& members, double stripe_capacity);
  // Latency on |curve| (increasing IOPS) at |utilization| of the read
  // capacity: interpolated, then M/M/1 from the last point.
  double CurveLatencyUs(const std::vector<LatencyPoint>& curve,
                        double utilization) const;

  std::string name_;
  double read_capacity_ = 0;
  double write_capacity_ = 0;
  double read_mbps_ = 0;
  double write_mbps_ = 0;
  uint64_t capacity_bytes_ = 0;
  double read_latency_us_ = 0;
  double sync_write_latency_us_ = 0;
  double sync_write_latency_p99_us_ = 0;
  double parallelism_ = 1;
  bool separate_budgets_ = false;
  std::vector<LatencyPoint> curve_;  // increasing iops
  std::vector<LatencyPoint> paced_;  // [[paced_read]]: offered iops, mean
};

// The paced points of |volume| the model uses, as (offered IOPS, mean
// latency) in increasing offered rate: those that completed at least
// kPacedKeptUp of their offered rate (a point sees about 100 Poisson
// arrivals, whose count varies by 10%: 0.7 is three standard deviations;
// an overloaded point falls far short), with a positive mean latency.
// Exposed for tests.
inline constexpr double kPacedKeptUp = 0.7;
std::vector<LatencyPoint> PacedCurve(const Volume& volume);

// Mean time in an M/M/c system (wait + service), in units of
// |service_time|, at utilisation |rho| (< 1) with |servers| servers.
// Exposed for tests.
double MmcResponseFactor(double rho, int servers);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_DEVICE_MODEL_H_
