// Demand: what the workload asks of the storage at its peak (95th
// percentile), per table group (a table with its indexes and TOAST) and for
// the WAL. Reads, checkpoint writes and backup reads are kept apart; a
// relation's checkpoint writes, with T = checkpoint_timeout and cct =
// checkpoint_completion_target, are
//   checkpoint_write_iops = min(write_iops x T, size / 8 KiB) / (T x cct).
// Why: docs/planning.md#demand.

#ifndef PGLAYOUT_PLANNER_DEMAND_H_
#define PGLAYOUT_PLANNER_DEMAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "common/units.h"

namespace pglayout::planner {

struct TableDemand {
  std::string table;                 // schema-qualified, as in the workload
  const Relation* facts = nullptr;   // the table's own entry; owned by the
                                     // Workload passed to BuildDemand
  std::vector<std::string> indexes;  // its indexes, sorted
  uint64_t heap_bytes = 0;           // the table (with TOAST) alone
  uint64_t bytes = 0;                // with indexes, now
  uint64_t bytes_needed = 0;         // bytes + growth over the horizon
  double read_iops = 0;              // 8 KiB reads/s at the peak
  double write_iops = 0;             // 8 KiB writes/s at the peak, as given
  // The same writes as the volume receives them (see above); what the
  // placement and the forecast count.
  double checkpoint_write_iops = 0;
  double backup_bytes_per_second = 0;  // sequential reads; 0 = no window
  std::string tablespace;              // now; "" = pg_default
  std::string current_volume;          // volume holding it now; "" = unknown
};

struct WalDemand {
  double bytes_per_second = 0;  // peak when known, else average
  // WAL flushes per second the WAL volume serves: the server's own count of
  // WAL syncs when the workload has it, else the commits (each at worst a
  // synchronous flush; read-only ones flush nothing, so this overstates).
  double flushes_per_second = 0;
  bool flushes_counted = false;  // from the server's count, not commits
  bool peak_known = false;
  // False when the workload does not know its WAL rate: bytes_per_second
  // is then 0 and the WAL's load is not forecast, which the plan says.
  bool rate_known = true;
};

struct DemandOptions {
  double horizon_seconds = 0;  // growth is projected this far ahead
  // A declared rate (--growth) in place of each relation's observed growth.
  std::optional<GrowthRate> growth;
  // The checkpoint cycle T and the spread cct (see above); T = 0 takes the
  // write_iops as the volume's writes.
  double checkpoint_timeout_seconds = 0;
  double checkpoint_completion_target = 0.9;
  double backup_window_seconds = 0;  // 0 = no backup during the peak
};

// Groups |workload|'s relations into table demands, sorted by table name,
// and reads the WAL demand. Where a table lives now is resolved from its
// tablespace's location (or the data directory for pg_default) matched to
// a volume by VolumeOfLocation.
// InvalidInput when an index or TOAST relation names no table or a table
// missing from the workload. Partitioned parents hold no data and are
// skipped (their partitions are ordinary tables).
Status BuildDemand(const Workload& workload, const VolumeSet& volumes,
                   const DemandOptions& options,
                   std::vector<TableDemand>* tables, WalDemand* wal);

// Blocks |r| dirties in one checkpoint cycle of |cycle_seconds|: each block
// once, at most the relation's blocks (no cap when its size is unknown).
// The checkpoint writes above and the full-page images of
// recommend.h's checkpoint_timeout are both made of these.
double BlocksDirtiedPerCycle(const Relation& r, double cycle_seconds);

// Everything the instance moves at the peak, whichever volume serves it:
// the tables' reads and checkpoint writes (8 KiB each), the WAL's flushes
// and bytes, and backup reads (bytes only: large sequential requests).
struct InstanceLoad {
  double iops = 0;
  double mbps = 0;  // 10^6 bytes/s
};
InstanceLoad TotalLoad(const std::vector<TableDemand>& tables,
                       const WalDemand& wal);

// Which declared volume holds a directory of the server
// (docs/where-data-lives.md). By device first: the location's st_dev
// against each volume's probed topology.dev (or, from older files, the
// block device names); a subdirectory of a mount matches its volume however
// the paths are spelt. Only a volume or a location without a recorded
// device falls back to the longest path prefix, and |how| says so.
struct VolumeMatch {
  std::string volume;  // "" = on no declared volume (or nothing known)
  std::string how;     // "device 7:3", "path prefix"; "" when no match
};
VolumeMatch VolumeOfLocation(const VolumeSet& volumes,
                             const DataLocation& location);

// The directory of |tablespace| ("" or "pg_default": the data directory)
// from the workload's [[location]] records, or, in files without them, its
// path alone; an empty path when unknown.
DataLocation LocationOf(const Workload& workload,
                        const std::string& tablespace);

// "pg_wal", "data directory" or "tablespace NAME", and where it resolved.
std::string DescribeLocation(const DataLocation& location);

// One line per data directory or tablespace whose device reads were
// measured: what share of the server's reads reached the device, which the
// forecast applies to the relations there.
std::vector<std::string> DeviceReadNotes(const Workload& workload);

// One loud line per directory of the server (data directory, pg_wal,
// tablespaces) that is on no declared volume.
std::vector<std::string> UnmatchedLocations(const Workload& workload,
                                            const VolumeSet& volumes);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_DEMAND_H_
