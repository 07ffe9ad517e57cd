// Capacity planning (`pglayout plan --catalog`): the cheapest set of cloud
// volumes from a catalog (common/volume_catalog.h) that carries a workload
// at the target utilisation (one provider, one WAL volume and up to
// max_volumes - 1 alike data volumes, each set checked by BuildPlan), then
// the normal plan on that set. A workload no set can carry is a verdict,
// not an error. Why: docs/planning.md#capacity-planning.

#ifndef PGLAYOUT_PLANNER_CAPACITY_H_
#define PGLAYOUT_PLANNER_CAPACITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/model.h"
#include "common/status.h"
#include "common/volume_catalog.h"
#include "planner/plan_builder.h"

namespace pglayout::planner {

// Re-pricings of one family before it is given up.
inline constexpr int kMaxRounds = 4;

struct CapacityOptions {
  int max_volumes = 8;           // WAL volume included; >= 1
  double instance_cap_mbps = 0;  // instance-wide storage MB/s; 0 = none
  double instance_cap_iops = 0;  // instance-wide IOPS; 0 = none
  std::string provider;          // only this provider; "" = any
};

// What one volume must deliver.
struct VolumeNeed {
  double iops = 0;     // 8 KiB I/Os per second
  double mbps = 0;     // MB/s (10^6 bytes)
  uint64_t bytes = 0;  // size
};

// One volume as bought. |type| points into the Catalog it was sized from,
// which must outlive it.
struct VolumeConfig {
  const VolumeType* type = nullptr;
  uint64_t size = 0;      // bytes, a multiple of the type's size_step
  double iops = 0;        // delivered (included + provisioned)
  double throughput = 0;  // delivered, in the type's throughput_unit
  double paid_iops = 0;   // provisioned beyond the included
  double paid_throughput = 0;
  double price = 0;  // per month
};

// The cheapest configuration of |type| that meets |need|. False, with
// |why| saying which limit stops it ("needs 90,000 IOPS per volume;
// aws-gp3 gives at most 80,000"), when no size can.
bool CheapestConfig(const VolumeType& type, const VolumeNeed& need,
                    VolumeConfig* out, std::string* why);

// The volumes of a set, in the order the planner sees them.
struct BillLine {
  std::string volume;  // "wal", "data1", ...
  std::string role;    // "wal", "data", "wal+data"
  VolumeConfig config;
};

// A set that was priced but does not carry the workload, or the best set of
// another provider.
struct Alternative {
  std::string provider;
  std::string description;  // "6 x aws-gp3 (2,048 IOPS...) + WAL aws-gp3"
  double price = 0;         // per month; 0 = could not be priced
  std::string failed;       // why it does not carry it; "" = it does
};

struct CapacityPlan {
  bool found = false;
  std::string currency;
  std::string provider;
  std::vector<BillLine> bill;
  double total = 0;      // per month
  VolumeSet volumes;     // the chosen set (paths /mnt/<name>)
  PlanOutcome outcome;   // the planner's plan on it
  int data_volumes = 0;  // of the chosen set, or the most allowed
  VolumeNeed data_need;  // per data volume, at the perfect spread
  VolumeNeed wal_need;
  // Priced below the chosen total and failed, nearest first.
  std::vector<Alternative> cheaper;
  // Per other provider, its cheapest set that carries the workload (or why
  // none does).
  std::vector<Alternative> other_providers;
  // Families no size of the type can serve, e.g. too few volumes.
  std::vector<Alternative> impossible;
  std::vector<std::string> assumed;  // "aws-gp3 price_per_gib", in the bill
  std::string verdict;               // the conclusion in one paragraph
  int plans_built = 0;               // BuildPlan calls the search made
};

// Chooses the set and plans on it. |options.wal_volume| is set by this
// function. Returns InvalidInput for bad options (max_volumes < 1, an
// unknown provider) and for workload errors BuildPlan reports; a workload
// no set can carry is not an error: |plan->found| is false and
// |plan->verdict| says why and what would be needed.
Status PlanCapacity(const Catalog& catalog, const Workload& workload,
                    const PlanOptions& options, const CapacityOptions& capacity,
                    CapacityPlan* plan);

// The bill of materials and why it is the cheapest, for people.
std::string RenderCapacity(const CapacityPlan& plan);
// The same for machines: {"found", "provider", "currency", "bill": [...],
// "total_per_month", "cheaper": [...], "other_providers": [...],
// "assumed": [...], "verdict"}.
Json CapacityJson(const CapacityPlan& plan);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_CAPACITY_H_
