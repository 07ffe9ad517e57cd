#include "common/stripe_read.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"

namespace pglayout {
namespace {

std::string Size(uint64_t bytes) {
  return HumanSize(static_cast<double>(bytes));
}

// The MB/s of the largest request size of the depth-1 curve, 0 with fewer
// than four sizes (too few to tell a plateau from a slope).
const SequentialReadPoint* Largest(const Volume& v) {
  const SequentialReadPoint* largest = nullptr;
  int sizes = 0;
  for (const SequentialReadPoint& p : v.seqread) {
    if (p.queue_depth != 1) continue;
    ++sizes;
    if (largest == nullptr || p.request_size > largest->request_size) {
      largest = &p;
    }
  }
  return sizes >= 4 ? largest : nullptr;
}

// "2 MiB (512 KiB x 4)", or "2 MiB" when the chunk is not known.
std::string Describe(const StripeGeometry& g) {
  if (g.chunk == 0 || g.width % g.chunk != 0) return Size(g.width);
  return fmt::format("{} ({} x {})", Size(g.width), Size(g.chunk),
                     g.width / g.chunk);
}

}  // namespace

double PlateauMbps(const std::vector<SequentialReadPoint>& curve,
                   int queue_depth) {
  std::vector<const SequentialReadPoint*> points;
  for (const SequentialReadPoint& p : curve) {
    if (p.queue_depth == queue_depth) points.push_back(&p);
  }
  if (points.empty()) return 0;
  std::sort(points.begin(), points.end(), [](const auto* a, const auto* b) {
    return a->request_size > b->request_size;
  });
  std::vector<double> top;
  for (size_t i = 0; i < points.size() && i < 3; ++i) {
    top.push_back(points[i]->mbps);
  }
  std::sort(top.begin(), top.end());
  const size_t n = top.size();
  return n % 2 == 1 ? top[n / 2] : (top[n / 2 - 1] + top[n / 2]) / 2;
}

uint64_t FullStripeWidth(const Topology& t) {
  if (t.dm_target == "striped") return t.optimal_io_size;
  // raid_disks as the probe records it; a file without it has the members.
  const int disks =
      t.raid_disks > 0 ? t.raid_disks : static_cast<int>(t.members.size());
  if (t.chunk == 0 || disks <= 0) return 0;
  int parity = -1;
  if (t.raid_level == "raid0") parity = 0;
  if (t.raid_level == "raid4" || t.raid_level == "raid5") parity = 1;
  if (t.raid_level == "raid6") parity = 2;
  if (parity < 0 || disks <= parity) return 0;
  return t.chunk * static_cast<uint64_t>(disks - parity);
}

StripeGeometry FullStripe(const Volume& v) {
  StripeGeometry g;
  g.chunk = v.chunk > 0 ? v.chunk : (v.topology ? v.topology->chunk : 0);
  if (v.stripe_width > 0) {
    g.width = v.stripe_width;
  } else if (v.topology && FullStripeWidth(*v.topology) > 0) {
    g.width = FullStripeWidth(*v.topology);
  } else if (v.members > 1 && v.chunk > 0) {
    g.width = v.chunk * static_cast<uint64_t>(v.members);
  }
  if (g.width == 0) g.chunk = 0;
  return g;
}

StripeReadCheck CheckStripeReadSize(const Volume& v) {
  StripeReadCheck c;
  const uint64_t size = v.stripe_read_size;
  if (size == 0) {
    c.why = "not measured";
    return c;
  }
  c.declared = v.probe_engine.empty() && v.stripe_read_repeats == 0;
  std::string agreement;
  if (c.declared) {
    agreement = "declared";
  } else if (v.stripe_read_repeats < 2 || v.stripe_read_size_min == 0) {
    c.why = fmt::format(
        "{} from one sweep: nothing says it would come out the same again "
        "(one disk gave 128 KiB to 16 MiB over nine such runs)",
        Size(size));
    return c;
  } else if (v.stripe_read_size_max >
             kStripeReadMaxSpread * v.stripe_read_size_min) {
    c.why = fmt::format(
        "{} sweeps disagree: their knees range from {} to {}, more than {}x "
        "apart",
        v.stripe_read_repeats, Size(v.stripe_read_size_min),
        Size(v.stripe_read_size_max), kStripeReadMaxSpread);
    return c;
  } else if (size < v.stripe_read_size_min || size > v.stripe_read_size_max) {
    c.why = fmt::format(
        "the knee of the sweeps' median, {}, lies outside the knees of the "
        "single sweeps ({} to {}): the curve is too noisy to place it",
        Size(size), Size(v.stripe_read_size_min), Size(v.stripe_read_size_max));
    return c;
  } else {
    agreement = v.stripe_read_size_min == v.stripe_read_size_max
                    ? fmt::format("{} sweeps agree", v.stripe_read_repeats)
                    : fmt::format("{} sweeps agree within {}x ({} to {})",
                                  v.stripe_read_repeats, kStripeReadMaxSpread,
                                  Size(v.stripe_read_size_min),
                                  Size(v.stripe_read_size_max));
  }
  if (const SequentialReadPoint* largest = Largest(v);
      largest != nullptr &&
      largest->mbps * kStripeReadFraction > PlateauMbps(v.seqread)) {
    c.why = fmt::format(
        "the bandwidth had not settled by {}, the largest size swept ({:.0f} "
        "MB/s, over {:.0f}% more than the plateau of {:.0f}): the knee may "
        "lie beyond it",
        Size(largest->request_size), largest->mbps,
        (1 / kStripeReadFraction - 1) * 100, PlateauMbps(v.seqread));
    return c;
  }
  const StripeGeometry g = FullStripe(v);
  if (g.width > 0 && size < g.width) {
    c.why = fmt::format(
        "{} is below the full stripe of {}: a single reader of that size "
        "leaves members idle, so the sweep did not see the stripe (a cache "
        "in front of it, or noise)",
        Size(size), Describe(g));
    return c;
  }
  c.trusted = true;
  c.why = g.width > 0 ? fmt::format(
                            "{}, and {} is at least the full stripe "
                            "of {}",
                            agreement, Size(size), Describe(g))
                      : agreement + "; the geometry is not known";
  return c;
}

}  // namespace pglayout
