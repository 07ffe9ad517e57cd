// The RAID0 stripes a plan may build (for the data or for pg_wal): which
// volumes can form one, its device model, and how the plan describes it
// for stripe.sh. docs/device-model.md#striping.

#ifndef PGLAYOUT_PLANNER_STRIPES_H_
#define PGLAYOUT_PLANNER_STRIPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/model.h"
#include "planner/device_model.h"
#include "planner/plan_inputs.h"

namespace pglayout::planner {

struct StripeState {
  std::string name;
  std::vector<int> members;  // volume indices
  DeviceModel model;
};

// |members| (volume indices into |in|) striped as one device named |name|.
StripeState MakeStripe(const PlanInputs& in, const std::string& name,
                       const std::vector<int>& members);

// Volumes that hold no data (building a stripe destroys what is on its
// members), grouped by alike models (a stripe runs at its slowest member's
// pace), in volume order. Volumes in |excluded| (the WAL's) are left out,
// and so is a volume that shares its device with another (a stripe over it
// would add no device).
std::vector<std::vector<int>> AlikeEmptyGroups(
    const PlanInputs& in, const std::vector<int>& excluded);

// The plan's entry for |state|: its members' names, |chunk|, the tool
// (mdadm for local disks, LVM for network volumes) and |reason|.
Stripe DescribeStripe(const PlanInputs& in, const StripeState& state,
                      uint64_t chunk, const std::string& reason);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_STRIPES_H_
