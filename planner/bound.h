// A lower bound on what any placement can reach (the worst utilisation and
// the I/O-weighted mean read latency), from a min-cost flow relaxation that
// lets every relation split over every data volume (Boost.Graph successive
// shortest paths), so it bounds stripes and hash partitions too.
// Why: docs/planning.md#the-lower-bound.

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
