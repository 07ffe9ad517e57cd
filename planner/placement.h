// The placement optimiser: which volume each table group (or each hash
// partition of one) goes to. It minimises the worst utilisation, then the
// bytes to copy, then the mean read latency, within each volume's usable
// bytes and with a table's partitions on distinct devices (several to a
// device only when it has more partitions than there are devices); volumes
// of one pool are judged by their device's utilisation. Deterministic.
// The method and why: docs/planning.md#placement.

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

// No move that buys nothing (docs/planning.md#moves-worth-making): while
// the busiest volume is kNearTarget or more under the target, an item stays
// where it is unless moving it lowers the busiest volume by kWorthMove.
inline constexpr double kNearTarget = 0.10;
inline constexpr double kWorthMove = 0.10;

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
