// Whether a volume's measured stripe-wide read size can be believed, and the
// full stripe its geometry implies (docs/device-model.md#stripe-wide-reads).
// Pure functions of a Volume, shared by `probe` (which says so when it
// records the figure) and `plan` (which chooses the backup read size).

#ifndef PGLAYOUT_COMMON_STRIPE_READ_H_
#define PGLAYOUT_COMMON_STRIPE_READ_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/model.h"

namespace pglayout {

// A request size has reached the plateau at this fraction of it.
inline constexpr double kStripeReadFraction = 0.9;

// The bandwidth a depth-|queue_depth| curve levels off at: the median MB/s
// of its three largest sizes (of all of them when it has fewer). Unlike
// the best point, one lucky size cannot raise it, so the line a size must
// reach does not move with the noise. 0 when no point has that depth.
double PlateauMbps(const std::vector<SequentialReadPoint>& curve,
                   int queue_depth = 1);

// The repeated sweeps agree when their largest knee is at most this many
// times their smallest: one doubling of the full sweep's sizes.
inline constexpr uint64_t kStripeReadMaxSpread = 2;

// A full stripe: chunk x the members that hold data (a RAID5 of 4 disks
// has 3). width == 0 when the volume is not known to be striped.
struct StripeGeometry {
  uint64_t chunk = 0;
  uint64_t width = 0;
};

// Volume::stripe_width when set (probe records it from sysfs, a person may
// declare it), else what the topology implies (FullStripeWidth), else
// chunk x members of a declared stripe; the chunk from the volume or its
// topology. The one definition of a volume's full stripe: the plan, the
// report and the trust check all use it.
StripeGeometry FullStripe(const Volume& volume);

// chunk x data members for what sysfs says: md RAID0 (all raid_disks, or
// the members listed when raid_disks is missing), 4 and 5 (one parity), 6
// (two); a striped dm volume (optimal_io_size, which
// dm-stripe sets to chunk x stripes). 0 for anything else: mirrors and
// RAID10 serve reads from either copy, and a linear volume has no stripe.
uint64_t FullStripeWidth(const Topology& topology);

struct StripeReadCheck {
  bool trusted = false;
  bool declared = false;  // written by a person, not measured by probe
  std::string why;        // for people: "3 sweeps agree (4 MiB each) and ..."
};

// The stripe-wide read size of |volume| is trusted when it was measured by
// at least two sweeps whose knees lie within kStripeReadMaxSpread of each
// other and around the knee of their median (a hand-declared size is taken
// as the person's own figure), the
// bandwidth stopped growing before the largest size swept, and, when the
// geometry is known, it is at least the full stripe (a single reader of
// smaller requests leaves members idle, so a smaller knee means the sweep
// did not see the stripe: a cache in front of it, or noise).
StripeReadCheck CheckStripeReadSize(const Volume& volume);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_STRIPE_READ_H_
