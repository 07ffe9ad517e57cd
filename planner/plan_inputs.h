// The plan's starting point: the options checked, a device model per
// volume, the volumes that share a device, the demand of each table group
// and of the WAL, and where the data and pg_wal live now. Every later phase
// reads it (by const reference); none changes it.
// docs/planning.md#the-phases, phase 1.

#ifndef PGLAYOUT_PLANNER_PLAN_INPUTS_H_
#define PGLAYOUT_PLANNER_PLAN_INPUTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "common/units.h"
#include "planner/demand.h"
#include "planner/device_model.h"
#include "planner/pools.h"

namespace pglayout::planner {

struct PlanOptions {
  double target_utilization = 0.7;         // 0 < target <= 1
  std::string prefer = "auto";             // "partition", "stripe" or "auto"
  double headroom = 0.2;                   // fraction of each volume kept free
  double horizon_seconds = 180 * 86400.0;  // growth projected this far
  // A declared growth rate (--growth), used in place of each relation's
  // observed growth, and even when the observation was too short to
  // project it; nullopt = the observed growth.
  std::optional<GrowthRate> growth;
  // A base backup reads the whole database within this window during the
  // peak (--backup-window); 0 = no backup counted.
  double backup_window_seconds = 0;
  double recovery_budget_seconds = 900;
  // Hash keys given by the user: table -> columns. Default: primary key.
  std::map<std::string, std::vector<std::string>> keys;
  // The WAL's volume when the caller sized one for it (capacity planning,
  // planner/capacity.h); "" = the lowest fdatasync latency.
  std::string wal_volume;
};

// Growth seen over a shorter observation says nothing about months ahead
// (docs/planning.md#demand).
inline constexpr double kMinGrowthObservation = 3600;

// The demand options the plan uses for |workload|: the horizon (0 when the
// growth is observed over less than an hour: it says nothing about months),
// the declared growth, the workload's checkpoint_timeout with the
// recommended completion target, and the backup window. Capacity planning
// (capacity.h) sizes with the same.
DemandOptions DemandOptionsFor(const PlanOptions& options,
                               const Workload& workload);

struct PlanInputs {
  PlanInputs(const VolumeSet& volume_set, const Workload& observed,
             const PlanOptions& plan_options)
      : volumes(volume_set), workload(observed), options(plan_options) {}

  const VolumeSet& volumes;
  const Workload& workload;
  const PlanOptions& options;
  std::vector<DeviceModel> models;  // per volume
  DevicePools pools;                // volumes that share a device
  std::vector<TableDemand> tables;
  WalDemand wal;
  DemandOptions demand_options;
  int version = 0;          // server_version_num, 0 when not known
  bool live = false;        // a running server (vs a new build)
  int default_volume = -1;  // the data directory's volume, or -1
  const DataLocation* wal_location = nullptr;  // pg_wal now; null = unknown
  VolumeMatch wal_match;                       // its volume, and how found
  int wal_now = -1;                            // its volume index, or -1
  std::vector<uint64_t> current_bytes;         // per volume, the data now

  // The index of the volume named |name|, or -1.
  int VolumeIndex(const std::string& name) const;
  // No volume on |v|'s device holds data now (nor the data directory).
  bool DeviceEmpty(int v) const;
  // One device under every volume: the WAL shares it with the data.
  bool WalShares() const { return pools.Devices() == 1; }
};

// Fills |in| (constructed over the caller's volumes, workload and options,
// which must outlive it). InvalidInput for bad options, no volumes, a
// relation larger than every volume, or a --key naming a missing table or a
// column outside its primary key.
Status ReadInputs(PlanInputs* in);

// The whole of |d| (reads, checkpoint writes, backup reads) on |m|.
double TableUtilization(const DeviceModel& m, const TableDemand& d);
// The WAL's flushes and bytes on |m|: the busier of the two.
double WalUtilization(const DeviceModel& m, const WalDemand& wal);

// A materialized view of |w| that depends on |r|, or "": it would keep
// reading the old copy after an online swap, which migrate refuses.
std::string DependentMatview(const Relation& r, const Workload& w);
std::string MatviewReason(const std::string& view);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLAN_INPUTS_H_
