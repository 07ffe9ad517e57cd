// The placement optimiser: which volume each table group (or each hash
// partition of one) goes to.
//
// Objective, in order: (1) the worst predicted utilisation of any volume,
// (2) the bytes to copy (relations stay where they are unless moving them
// lowers the worst utilisation), (3) the mean read latency. Constraints:
// the bytes on a volume (with growth) stay within its usable capacity, and
// the partitions of one table go to distinct volumes (on distinct
// devices).
//
// Bins in one pool (volumes on one device) are judged together: a bin's
// utilisation is its device's, the sum over the pool.
//
// Method: two starts, the better one kept. (a) Longest-processing-time
// first on unrelated machines (each item goes, hottest first, to the
// volume where it finishes lowest), then a restore pass that moves items
// back to their current volume whenever that does not raise the worst
// utilisation. (b) Everything stays where it is and only new items (hash
// partitions, tables not yet placed) go by LPT. Both end with a local
// search that moves items off the busiest volume while that lowers the
// worst utilisation. When both meet the target (or tie), the one that
// copies fewer bytes wins; otherwise the lower worst utilisation.
// LPT is within a small factor of optimal for this problem; the min-cost
// flow bound (planner/bound.h) says how close each plan actually is.
// Deterministic: ties go to the lower volume index, then the lower item
// index.

#ifndef PGLAYOUT_PLANNER_PLACEMENT_H_
#define PGLAYOUT_PLANNER_PLACEMENT_H_

#include <cstdint>
#include <vector>

#include "planner/device_model.h"

namespace pglayout::planner {

// One thing to place.
struct PlaceItem {
  int table = -1;  // index of its TableDemand
  int part = 0;    // hash partition number, 0 when whole
  int parts = 1;   // number of hash partitions; 1 = the whole table
  double read_iops = 0;
  double write_iops = 0;  // as the volume receives them (checkpoint writes)
  double backup_bytes_per_second = 0;  // sequential backup reads
  uint64_t bytes = 0;                  // needed, growth included
  int current = -1;  // bin holding it now; -1 = none (new or unknown)
};

// A volume that can take data (the WAL's volume is not a bin when there is
// another volume).
struct PlaceBin {
  const DeviceModel* model = nullptr;  // not owned
  uint64_t usable_bytes = 0;           // capacity less the growth headroom
  uint64_t hard_bytes = 0;             // the capacity itself
  double base_utilization = 0;  // load that is not placed here (e.g. WAL)
  // Bins with the same pool (>= 0) are volumes on one device: they share
  // its time, so each is as busy as the sum of their loads (planner/pools.h).
  // -1 = alone on its device.
  int pool = -1;
};

struct PlaceResult {
  std::vector<int> bin_of;  // per item
  // Per bin: its device's utilisation (a bin sharing a device with others
  // carries the sum of their loads), and its own share of it.
  std::vector<double> utilization;
  std::vector<double> own_utilization;
  std::vector<uint64_t> bytes;  // per bin
  bool within_headroom = true;  // false: some bin uses its headroom
  double max_utilization = 0;
  int unplaced_item = -1;  // on failure: the item that found no room
};

// Places |items| on |bins|; |target| is the utilisation below which fewer
// copied bytes matter more than a lower peak. Returns InvalidInput when an item
// fits on no bin even ignoring the headroom (|result->unplaced_item| says
// which; the caller names it), never placing more bytes on a bin than its
// capacity.
Status PlaceItems(const std::vector<PlaceItem>& items,
                  const std::vector<PlaceBin>& bins, double target,
                  PlaceResult* result);

// Utilisation |item| adds to |bin|.
double Load(const PlaceItem& item, const PlaceBin& bin);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_PLACEMENT_H_
