// Demand: what the workload asks of the storage, per table and for the WAL.
//
// A table is placed together with its indexes and TOAST (they move with it
// and their I/O lands where it lands), so the unit of demand is the table
// group. Rates are the workload's peaks (95th percentile of intervals), not
// averages: a layout must carry the busy hour. Summing per-table peaks is
// conservative, since peaks need not coincide.

#ifndef PGLAYOUT_PLANNER_DEMAND_H_
#define PGLAYOUT_PLANNER_DEMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"

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
  double write_iops = 0;             // 8 KiB writes/s at the peak
  std::string tablespace;            // now; "" = pg_default
  std::string current_volume;        // volume holding it now; "" = unknown
};

struct WalDemand {
  double bytes_per_second = 0;    // peak when known, else average
  double commits_per_second = 0;  // each one a synchronous flush
  bool peak_known = false;
};

struct DemandOptions {
  double horizon_seconds = 0;  // growth is projected this far ahead
};

// Groups |workload|'s relations into table demands, sorted by table name,
// and reads the WAL demand. Where a table lives now is resolved from its
// tablespace's location (or the data_directory setting for pg_default)
// against the volumes' paths, longest prefix first.
// InvalidInput when an index or TOAST relation names no table or a table
// missing from the workload. Partitioned parents hold no data and are
// skipped (their partitions are ordinary tables).
Status BuildDemand(const Workload& workload, const VolumeSet& volumes,
                   const DemandOptions& options,
                   std::vector<TableDemand>* tables, WalDemand* wal);

// The volume whose path contains |directory| (longest match), or "".
std::string VolumeOfDirectory(const VolumeSet& volumes,
                              const std::string& directory);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_DEMAND_H_
