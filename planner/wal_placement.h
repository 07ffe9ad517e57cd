// Where the WAL goes: the volume the caller sized for it, else the lowest
// fdatasync latency (where pg_wal is now when moving it would gain little),
// else, when no single volume carries it at the target, a stripe of the
// fewest alike, empty volumes that does. Also the words that explain the
// choice, and where pg_wal is now with the step by hand that moves it.
// docs/planning.md#the-phases, phase 2.

#ifndef PGLAYOUT_PLANNER_WAL_PLACEMENT_H_
#define PGLAYOUT_PLANNER_WAL_PLACEMENT_H_

#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "planner/plan_inputs.h"
#include "planner/stripes.h"

namespace pglayout::planner {

struct WalPlacement {
  int volume = 0;  // the WAL's volume (its stripe's first member)
  double utilization = 0;
  // The WAL's own stripe, when no single volume carries the WAL.
  std::optional<StripeState> stripe;
  std::string stripe_blocker;     // why there is none when one was needed
  int single_volume = 0;          // the best single volume for the WAL
  double single_utilization = 0;  // the WAL on it
  // The kind of the widest WAL stripe tried (one of its members), or -1.
  int widest_like = -1;

  // |v| is the WAL's volume or a member of its stripe.
  bool Holds(int v) const;
  // The volumes Holds() is true of.
  std::vector<int> Volumes() const;
  // |v| is on the WAL's hardware: its volume's device or its stripe.
  bool OnDevice(const PlanInputs& in, int v) const;
  // The name the plan's [wal] volume carries: the stripe's or the volume's.
  std::string Name(const PlanInputs& in) const;
};

// InvalidInput when options.wal_volume is not a volume of the set.
Status PlaceWal(const PlanInputs& in, WalPlacement* wal);

// Why the WAL goes where it does, in one paragraph (the plan's wal_reason).
std::string WalReason(const PlanInputs& in, const WalPlacement& wal);
// " on its hardware (device vda, which wal2 shares: the plan puts no data
// there)" when other volumes share the WAL's device, else "".
std::string WalDeviceMates(const PlanInputs& in, const WalPlacement& wal);
// The WAL stripe's members, "a, b, c".
std::string WalMemberNames(const PlanInputs& in, const WalPlacement& wal);

// Where the server's directories are now, and pg_wal's move when the plan
// puts it elsewhere (docs/where-data-lives.md#moving-the-wal).
struct WhereItIsNow {
  std::vector<std::string> warnings;   // locations on no declared volume
  std::vector<std::string> where_now;  // one line per directory
  std::string wal_now;                 // pg_wal's volume now, "" = unknown
  std::string wal_now_note;
  std::optional<WalMove> wal_move;
};
// |forecast| is the plan's (the move says how busy pg_wal's volume is
// until then).
WhereItIsNow DescribeWhereItIsNow(const PlanInputs& in, const WalPlacement& wal,
                                  const std::vector<ForecastEntry>& forecast);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_WAL_PLACEMENT_H_
