#include "planner/wal_placement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "planner/demand.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// fdatasync latencies within 5% are equal for choosing the WAL's volume.
constexpr double kLatencyTie = 1.05;
// The volume that holds pg_wal now keeps it unless another is more than
// 25% faster to fdatasync, and faster than its own p99 (WalStays: moving
// pg_wal needs a restart).
constexpr double kWalStayTie = 1.25;

// The WAL stays where it is, if it carries the WAL within the target
// there, when moving it to |best| would gain little: |best| is on the
// same device (a restart for nothing), or its volume holds no data and
// its fdatasync latency is within kWalStayTie of the best, or within the
// best's own spread (its probed p99: a difference the probe cannot tell
// from noise). Moving pg_wal takes a restart; noise is not worth one
// (docs/where-data-lives.md#the-wal-starts-where-it-is).
bool WalStays(const PlanInputs& in, double lowest, int best) {
  if (in.wal_now < 0 || in.wal_now == best) return false;
  if (AboveTarget(WalUtilization(in.models[in.wal_now], in.wal),
                  in.options.target_utilization)) {
    return false;
  }
  if (in.pools.Same(in.wal_now, best)) return true;
  const double latency = in.models[in.wal_now].sync_write_latency_us();
  const double tie = std::max(lowest * kWalStayTie,
                              in.models[best].sync_write_latency_p99_us());
  return in.DeviceEmpty(in.wal_now) && latency > 0 && latency <= tie;
}

// The volume the caller sized for the WAL, if any; otherwise the lowest
// fdatasync latency, near-ties going to a volume without data, then to
// the larger write capacity, then to the first declared.
Status ChooseWalVolume(const PlanInputs& in, WalPlacement* wal) {
  if (!in.options.wal_volume.empty()) {
    wal->volume = in.VolumeIndex(in.options.wal_volume);
    if (wal->volume < 0) {
      return Status::InvalidInput(
          fmt::format("the WAL volume '{}' is not a volume of the set",
                      in.options.wal_volume));
    }
    wal->utilization = WalUtilization(in.models[wal->volume], in.wal);
    return Status::Ok();
  }
  const int n = static_cast<int>(in.models.size());
  auto latency = [&](int i) {
    double l = in.models[i].sync_write_latency_us();
    return l > 0 ? l : 1e300;
  };
  int best = 0;
  for (int i = 1; i < n; ++i) {
    if (latency(i) < latency(best)) best = i;
  }
  const double lowest = latency(best);
  auto rank = [&](int i) {
    return std::make_tuple(!in.DeviceEmpty(i), -in.models[i].write_capacity(),
                           i);
  };
  for (int i = 0; i < n; ++i) {
    if (latency(i) > lowest * kLatencyTie) continue;
    if (rank(i) < rank(best)) best = i;
  }
  if (WalStays(in, lowest, best)) best = in.wal_now;
  wal->volume = best;
  wal->utilization = WalUtilization(in.models[best], in.wal);
  return Status::Ok();
}

// The WAL cannot be hash-partitioned: when its stream keeps even the best
// volume above the target, the remedy is a stripe (the WAL's own volume
// may itself be a striped LV: docs/source-scenarios.md#oracle-to-the-cloud,
// docs/device-model.md#wal-and-commit-latency). The fewest alike, empty
// volumes that carry it within the target, lowest fdatasync latency
// first, leaving at least one volume for the data. A stripe adds write
// IOPS and bandwidth; one flush still waits for its slowest member, so it
// does not lower the latency of a lone commit.
void PlanWalStripe(const PlanInputs& in, WalPlacement* wal) {
  wal->single_volume = wal->volume;
  wal->single_utilization = wal->utilization;
  if (in.WalShares() || !in.options.wal_volume.empty() ||
      !AboveTarget(wal->utilization, in.options.target_utilization)) {
    return;
  }
  std::vector<std::vector<int>> groups = AlikeEmptyGroups(in, {});
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const std::vector<int>& a, const std::vector<int>& b) {
                     return in.models[a[0]].sync_write_latency_us() <
                            in.models[b[0]].sync_write_latency_us();
                   });
  // One device stays for the data.
  const size_t most = static_cast<size_t>(in.pools.Devices() - 1);
  double widest_util = 0;
  size_t widest = 0;
  for (const std::vector<int>& g : groups) {
    for (size_t k = 2; k <= std::min(g.size(), most); ++k) {
      std::vector<int> members(g.begin(), g.begin() + k);
      StripeState stripe = MakeStripe(in, "wal_stripe", members);
      const double u = WalUtilization(stripe.model, in.wal);
      if (k > widest) {
        widest = k;
        widest_util = u;
        wal->widest_like = members[0];
      }
      if (AboveTarget(u, in.options.target_utilization)) continue;
      wal->volume = members[0];
      wal->utilization = u;
      wal->stripe = std::move(stripe);
      return;
    }
  }
  wal->stripe_blocker =
      widest == 0
          ? "a stripe needs at least two empty, alike volumes besides one "
            "for the data"
          : fmt::format(
                "even a stripe of {} empty, alike volumes like {} would be "
                "{} busy",
                widest, in.volumes.volumes[wal->widest_like].name,
                Percent(widest_util));
}

// What the WAL costs its volume, or that it is not known.
std::string WalLoadText(const PlanInputs& in, const WalPlacement& wal) {
  if (!in.wal.rate_known) {
    return "WAL rate unknown (not in the workload), so its load on this "
           "volume is not forecast: observe the live server to measure it";
  }
  return fmt::format(
      "WAL keeps it {} busy ({})", Percent(wal.utilization),
      in.wal.flushes_counted
          ? fmt::format("{:.0f} WAL flushes/s as the server counted them",
                        in.wal.flushes_per_second)
          : fmt::format("{:.0f} commits/s, each counted as a WAL flush: the "
                        "workload has no count of the server's flushes",
                        in.wal.flushes_per_second));
}

// Where pg_wal goes: <volume path>/pg_wal, or on the WAL's stripe, mounted
// where stripe.sh mounts it.
std::string WalTargetDirectory(const PlanInputs& in, const WalPlacement& wal) {
  if (wal.stripe) return "/mnt/" + wal.stripe->name + "/pg_wal";
  const Volume& v = in.volumes.volumes[wal.volume];
  return (v.path.empty() ? "/mnt/" + v.name : v.path) + "/pg_wal";
}

// One line per directory of the server and the volume holding it.
std::vector<std::string> WhereNow(const PlanInputs& in) {
  std::vector<DataLocation> all = in.workload.locations;
  if (all.empty()) all.push_back(LocationOf(in.workload, ""));
  std::vector<std::string> out;
  for (const DataLocation& l : all) {
    if (l.path.empty()) continue;
    const VolumeMatch m = VolumeOfLocation(in.volumes, l);
    out.push_back(fmt::format(
        "{}: {}", DescribeLocation(l),
        m.volume.empty() ? "on no declared volume"
                         : fmt::format("on {} (by {})", m.volume, m.how)));
  }
  return out;
}

}  // namespace

bool WalPlacement::Holds(int v) const {
  return v == volume || (stripe && std::count(stripe->members.begin(),
                                              stripe->members.end(), v));
}

std::vector<int> WalPlacement::Volumes() const {
  std::vector<int> volumes = {volume};
  if (stripe) {
    volumes.insert(volumes.end(), stripe->members.begin(),
                   stripe->members.end());
  }
  return volumes;
}

bool WalPlacement::OnDevice(const PlanInputs& in, int v) const {
  return Holds(v) || in.pools.Same(v, volume);
}

std::string WalPlacement::Name(const PlanInputs& in) const {
  return stripe ? stripe->name : in.volumes.volumes[volume].name;
}

Status PlaceWal(const PlanInputs& in, WalPlacement* wal) {
  PGLAYOUT_RETURN_IF_ERROR(ChooseWalVolume(in, wal));
  PlanWalStripe(in, wal);
  return Status::Ok();
}

std::string WalReason(const PlanInputs& in, const WalPlacement& wal) {
  const DeviceModel& m = in.models[wal.volume];
  std::string latency =
      m.sync_write_latency_us() > 0
          ? fmt::format("{:.0f} us per 8 KiB write + fdatasync",
                        m.sync_write_latency_us())
          : "no fdatasync latency declared; chosen by write IOPS";
  if (in.WalShares() && in.models.size() > 1) {
    return fmt::format(
        "every volume is on one device ({}): the WAL on {} shares that "
        "hardware with the data ({}); commits wait behind data I/O, so a "
        "low-latency volume on other hardware would help",
        in.pools.names[0], m.name(), latency);
  }
  if (in.WalShares()) {
    return fmt::format(
        "only one volume: the WAL shares {} with the data ({}); commits wait "
        "behind data I/O, so a separate low-latency volume would help",
        m.name(), latency);
  }
  if (wal.stripe) {
    return fmt::format(
        "no single volume carries the WAL (the best alone would be {} busy) "
        "and the WAL cannot be hash-partitioned: a RAID0 stripe of {} ({}); "
        "alone, so commits never queue behind data I/O; WAL keeps it {} busy",
        Percent(wal.single_utilization), WalMemberNames(in, wal), latency,
        Percent(wal.utilization));
  }
  return fmt::format(
      "{} ({}); alone{}, so commits never queue behind data reads and "
      "checkpoint writes; {}",
      !in.options.wal_volume.empty() ? "sized for the WAL by capacity planning"
      : in.wal_now == wal.volume
          ? "pg_wal is already here and no volume is faster to fdatasync "
            "beyond the probe's noise (25%, or the faster volume's own p99)"
          : "lowest commit latency",
      latency, WalDeviceMates(in, wal), WalLoadText(in, wal));
}

std::string WalDeviceMates(const PlanInputs& in, const WalPlacement& wal) {
  const int pool = in.pools.pool_of[wal.volume];
  if (wal.stripe || pool < 0) return "";
  std::vector<std::string> mates;
  for (int v : in.pools.members[pool]) {
    if (v != wal.volume) mates.push_back(in.volumes.volumes[v].name);
  }
  return fmt::format(
      " on its hardware ({}, which {} share{}: the plan puts no data there)",
      in.pools.names[pool], fmt::join(mates, ", "),
      mates.size() == 1 ? "s" : "");
}

std::string WalMemberNames(const PlanInputs& in, const WalPlacement& wal) {
  std::vector<std::string> names;
  for (int v : wal.stripe->members) names.push_back(in.volumes.volumes[v].name);
  return fmt::format("{}", fmt::join(names, ", "));
}

WhereItIsNow DescribeWhereItIsNow(const PlanInputs& in, const WalPlacement& wal,
                                  const std::vector<ForecastEntry>& forecast) {
  WhereItIsNow now;
  now.warnings = UnmatchedLocations(in.workload, in.volumes);
  now.where_now = WhereNow(in);
  if (in.wal_location == nullptr) {
    now.wal_now_note =
        "unknown: the workload does not record where pg_wal is (observe the "
        "server on its own host to record it)";
    return now;
  }
  const VolumeMatch& match = in.wal_match;
  now.wal_now = match.volume;
  now.wal_now_note = DescribeLocation(*in.wal_location) +
                     (match.volume.empty() ? ", on no declared volume"
                                           : ", on " + match.volume);
  if (!wal.stripe && in.wal_now == wal.volume) return now;
  WalMove m;
  m.from_volume = match.volume;
  m.from_path = in.wal_location->on ? in.wal_location->on->resolved
                                    : in.wal_location->path;
  m.to_path = WalTargetDirectory(in, wal);
  m.data_directory = LocationOf(in.workload, "").path;
  for (const ForecastEntry& f : forecast) {
    if (in.wal_now < 0 || f.volume != m.from_volume) continue;
    m.from_utilization_until_moved =
        std::round((f.utilization_after +
                    WalUtilization(in.models[in.wal_now], in.wal)) *
                   1000) /
        1000;
  }
  now.wal_move = std::move(m);
  return now;
}

}  // namespace pglayout::planner
