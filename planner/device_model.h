// The device model: how busy a volume is under a given load, and how long
// an I/O waits at that load.
//
// Capacity. A volume's capacity for 8 KiB random reads is the smaller of
// its read IOPS and its sequential read bandwidth expressed in 8 KiB pages
// (a cloud volume capped at 200 MB/s cannot deliver more than 24,414 such
// pages per second whatever IOPS it is sold with); writes likewise. Reads
// and writes share the device's time, so utilisation is additive:
//   u = read_iops / read_capacity + write_iops / write_capacity
//       + sequential read bytes/s / sequential read bandwidth
// (the last for backup reads; the bandwidth is read_mbps, or the random
// read capacity in 8 KiB pages when no read_mbps is declared).
//
// Read latency as a function of utilisation, in this order of preference:
//  0. Paced curve (probe's [[paced_read]]): latency measured against
//     offered load, open loop, below the saturated IOPS. The mean latency
//     at an offered load is interpolated linearly in IOPS between the
//     points (their offered rates: exact, where the rate a short step
//     achieves varies with its random arrivals); below the first point it
//     is the first point's; beyond the last, M/M/1 anchored on it:
//     L_last x (1 - u_last) / (1 - u). Points that completed less than 70%
//     of their offered rate were overloaded and are left out. This is the
//     only curve that shows a rate-capped volume's latency below its cap:
//     its depth-1 step already runs at the cap and measures 1 / IOPS
//     (docs/device-model.md#latency-below-the-cap).
//  1. Measured curve (probe's [[randread]]): each point gives depth d and
//     IOPS x; Little's law gives the mean latency d / x. Latency at an
//     offered load is interpolated linearly in IOPS between points; below
//     the first point it is the first point's; beyond the last measured
//     point the device is saturating and latency grows by the M/M/1 factor
//     (1 - u_last) / (1 - u) from the last point.
//  2. Declared figures (read_iops, read_latency_us): an M/M/c queue. A
//     volume that delivers read_iops at unloaded latency L0 needs
//     c = read_iops x L0 requests in flight (Little's law), so it behaves as
//     c parallel servers of service time L0: latency stays near L0 until
//     close to saturation and then rises steeply. That is the "knee" cloud
//     volumes show (1 ms at low load, 6-20 ms when saturated:
//     docs/source-scenarios.md#oracle-to-the-cloud); M/M/1 (c = 1) would
//     predict 3.3 x L0 already at 70%, which no provisioned-IOPS volume
//     shows (docs/device-model.md#latency-under-load).
// Synchronous WAL writes are serialised by PostgreSQL (one flush at a time),
// so the WAL's commit latency is M/M/1 on sync_write_latency_us.
// Utilisation is capped at kMaxUtilization for latency purposes: beyond
// that the queue grows without bound and the report says "overloaded".

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
  // Requests in flight needed to reach the read capacity (Little's law, or
  // the probe's knee when measured).
  double parallelism() const { return parallelism_; }
  bool measured() const { return !curve_.empty() || paced(); }
  // Whether read latency comes from the paced curve.
  bool paced() const { return !paced_.empty(); }
  // "paced curve (5 points, latency against offered load)", "measured
  // curve (...)" or "declared figures (M/M/c, c = 24)".
  std::string Describe() const;

  // Fraction of the device's time used by this load (may exceed 1).
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
  double parallelism_ = 1;
  std::vector<LatencyPoint> curve_;  // increasing iops
  std::vector<LatencyPoint> paced_;  // [[paced_read]]: offered iops, mean
};

// The paced points of |volume| the model uses, as (offered IOPS, mean
// latency) in increasing offered rate: those that completed at least
// kPacedKeptUp of their offered rate (a step sees about 100 Poisson
// arrivals, whose count varies by 10%: 0.7 is three standard deviations;
// an overloaded step falls far short), with a positive mean latency.
// Exposed for tests.
inline constexpr double kPacedKeptUp = 0.7;
std::vector<LatencyPoint> PacedCurve(const Volume& volume);

// Mean time in an M/M/c system (wait + service), in units of
// |service_time|, at utilisation |rho| (< 1) with |servers| servers.
// Exposed for tests.
double MmcResponseFactor(double rho, int servers);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_DEVICE_MODEL_H_
