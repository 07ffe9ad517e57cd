// One layout of the table groups on the data volumes: the bins (every
// volume but the WAL's hardware, a data stripe as one), the items (each
// table whole, or its hash partitions), and where the placement optimiser
// (planner/placement.h) put them. The remedy search lays out many
// candidates; the plan is built from the last.
// docs/planning.md#placement.

#ifndef PGLAYOUT_PLANNER_LAYOUT_H_
#define PGLAYOUT_PLANNER_LAYOUT_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "planner/placement.h"
#include "planner/plan_inputs.h"
#include "planner/stripes.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {

struct Layout {
  std::vector<PlaceBin> bins;
  std::vector<int> bin_volume;  // per bin: its volume; -1 = the data stripe
  std::vector<PlaceItem> items;
  PlaceResult result;

  // The bin of volume |volume|, or -1.
  int BinOfVolume(int volume) const;
  // The data stripe's bin, or -1.
  int BinOfStripe() const;
  // Distinct devices under the data volumes (a stripe is one).
  int DataDevices() const;
  // Per bin: the read and the (checkpoint) write IOPS placed on it.
  void ReadsAndWrites(std::vector<double>* reads,
                      std::vector<double>* writes) const;
  // The mean read latency of every read placed.
  double MeanReadLatencyUs() const;
};

// Lays out the tables of |in|, table t in parts[t] hash partitions (1 =
// whole), on the data volumes left by |wal|, |stripe|'s members replaced by
// the stripe. The bins point into |in| and |stripe|: keep both in place
// while |layout| is read. InvalidInput when the data does not fit, naming
// the table that found no room.
Status LayOut(const PlanInputs& in, const WalPlacement& wal,
              const std::vector<int>& parts,
              const std::optional<StripeState>& stripe, Layout* layout);

// The name of |bin|: its volume's, or the stripe's.
std::string BinName(const PlanInputs& in, const Layout& layout,
                    const std::optional<StripeState>& stripe, int bin);

// Utilisation of table |t| alone on the best bin of |layout|.
double BestSingle(const PlanInputs& in, const Layout& layout, int t);
// The same on the best single volume (a stripe the plan builds is not one).
double BestSingleVolume(const PlanInputs& in, const Layout& layout, int t);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_LAYOUT_H_
