// Capacity planning (`pglayout plan --catalog`): the cheapest set of cloud
// volumes from a catalog (common/volume_catalog.h) that carries a workload at
// the target utilisation, then the normal plan on that set.
//
// The set. One provider (an instance lives in one cloud); one volume for
// the WAL alone (the planner's rule whenever there is more than one
// volume), sized for its commit rate and byte rate at the target and for
// the max_wal_size the planner will recommend; n alike data volumes (same
// type, size, IOPS and throughput: what a stripe needs, and what AWS's
// RAID guide asks for), 1 <= n <= max_volumes - 1. With max_volumes = 1
// the one volume carries the WAL too.
//
// Sizing one volume (CheapestConfig). A volume's performance is what its
// size includes plus what is provisioned, within its ceilings (per volume,
// per GiB, throughput per IOPS). Its price is linear in size, provisioned
// IOPS (tiered) and provisioned throughput, so over size it is piecewise
// linear: the cheapest size is one of the breakpoints (the size needed for
// the bytes, the size at which included IOPS or throughput reach the need,
// the size whose per-GiB ceiling allows the IOPS), and each is tried.
// Throughput needs count 8 KiB pages: a volume must deliver its IOPS in
// 8 KiB pages within its MB/s (device_model.h).
//
// The search (best first). Per data volume a perfect spread needs
// (reads + writes at the peak) / (n x target) IOPS and
// bytes with growth / (n x (1 - headroom)) bytes (at least the largest
// table): no placement of n alike volumes can do with less, so the price of
// that set is a lower bound for its family (type, n). Families are tried
// cheapest bound first; each is checked by the planner itself (BuildPlan):
// every volume within the target and the headroom. A family that fails is
// re-priced with more performance (by the worst utilisation over the
// target) or more bytes, up to kMaxRounds times, and goes back in line. The
// first set that passes is therefore the cheapest of all the families
// considered (within the rounding of those bumps); the failures priced below
// it are reported as "why not cheaper".
//
// Per-instance caps: the whole demand (data IOPS + commits, and their
// bytes) must be within the instance's caps at the target, as the plan
// judges the instance (planner/pools.h), whatever the volumes; when it is
// not, no set is chosen and the verdict says so (a larger instance, or
// distributing the hot tables over several hosts with Citus).

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
