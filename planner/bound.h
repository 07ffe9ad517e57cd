// A lower bound on what any placement can reach, from a min-cost flow
// relaxation (Boost.Graph successive shortest paths).
//
// The relaxation lets every relation be split in any proportion over every
// data volume: exactly what a perfect stripe of every byte over every
// volume would do. Its optimum therefore bounds every real placement from
// below, hash partitions and stripes included.
//
// Network: source -> volume v through K arcs (segments of v's load up to
// kMaxUtilization), each with the marginal cost of the total latency
// x * L_v(x) at the segment's start, made non-decreasing from below so the
// segments fill in order and the PWL cost never exceeds the true one;
// volume -> sink. Flow = the workload's I/O in read-equivalent 8 KiB IOPS,
// writes converted at the most favourable read/write capacity ratio of any
// volume (so no real placement has less load anywhere). The min-cost flow
// is then the least total queueing any placement can have; divided by the
// I/O it is a lower bound on the I/O-weighted mean read latency. The worst
// utilisation bound is total / total capacity (perfect balance).

#ifndef PGLAYOUT_PLANNER_BOUND_H_
#define PGLAYOUT_PLANNER_BOUND_H_

#include <vector>

#include "planner/device_model.h"

namespace pglayout::planner {

struct BoundVolume {
  const DeviceModel* model = nullptr;  // not owned
  double base_utilization = 0;         // load that is not data (e.g. WAL)
};

struct Bound {
  double max_utilization = 0;  // no placement's worst volume is below this
  double mean_latency_us = 0;  // no placement's mean read latency is below
  bool feasible = true;        // false: the I/O exceeds every volume together
};

// |read_iops| and |write_iops| are the workload's totals.
Bound ComputeBound(double read_iops, double write_iops,
                   const std::vector<BoundVolume>& volumes);

// The same weighting for a real placement: the I/O-weighted mean read
// latency when volume i carries |reads[i]|, |writes[i]| at utilisation
// |utilization[i]|. Comparable with Bound::mean_latency_us.
double MeanLatencyUs(const std::vector<BoundVolume>& volumes,
                     const std::vector<double>& reads,
                     const std::vector<double>& writes,
                     const std::vector<double>& utilization);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_BOUND_H_
