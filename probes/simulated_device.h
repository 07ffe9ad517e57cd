// A simulated block device behind the IoEngine seam, for unit tests of the
// probe suites and the analysis: a RAID0 of |members| disks with a stripe
// |chunk|, each disk serving |parallelism| requests at a time, each request
// costing a fixed access time plus its bytes at the member's transfer rate.
// Time is simulated (a discrete-event queue), so a "60 s" job runs in
// milliseconds and every answer is known in closed form:
//   - depth-1 8 KiB read latency = access_us + 8192 / member_mbps (us);
//   - saturated random IOPS = members * parallelism / that latency;
//   - a depth-1 read of size S takes access_us + (largest share of S on one
//     member) / member_mbps, so the stripe-wide read size is where S covers
//     every member with enough bytes to amortise the access time.

#ifndef PGLAYOUT_PROBES_SIMULATED_DEVICE_H_
#define PGLAYOUT_PROBES_SIMULATED_DEVICE_H_

#include <cstdint>
#include <vector>

#include "common/units.h"
#include "probes/io_engine.h"

namespace pglayout::probes {

struct SimulatedDeviceConfig {
  int members = 1;
  uint64_t chunk = 512 * kKiB;
  int parallelism = 1;          // requests one member serves at once
  double read_access_us = 100;  // fixed cost of a read on a member
  double write_access_us = 30;  // fixed cost of a write on a member
  double member_mbps = 1000;    // transfer rate of one member, 10^6 B/s
  double flush_us = 400;        // one fdatasync (cache flush) on the array
  double cpu_us_per_io = 3;     // reported as process CPU per I/O
  // Each service time is multiplied by a factor uniform in
  // [1 - noise, 1 + noise]: 0 gives exactly repeatable intervals.
  double noise = 0;
  // Fault injection: fail the first I/O after this many bytes of writes
  // with |fail_errno| (e.g. ENOSPC, EINVAL). 0 = never.
  uint64_t fail_after_write_bytes = 0;
  int fail_errno = 0;
};

class SimulatedDevice : public IoEngine {
 public:
  explicit SimulatedDevice(const SimulatedDeviceConfig& config)
      : config_(config) {}

  std::string name() const override { return "simulated"; }
  Status Run(const IoJob& job, const IntervalObserver& observer,
             JobResult* result) override;
  // The jobs share the members' servers and one clock, so two volumes
  // simulated on one device slow each other down as on a real shared disk;
  // jobs on different SimulatedDevice objects never interact.
  Status RunTogether(const std::vector<IoJob>& jobs,
                     const std::vector<IntervalObserver>& observers,
                     std::vector<JobResult>* results) override;

  // Total simulated seconds of every job run so far.
  double simulated_seconds() const { return simulated_seconds_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  SimulatedDeviceConfig config_;
  double simulated_seconds_ = 0;
  uint64_t bytes_written_ = 0;
};

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_SIMULATED_DEVICE_H_
