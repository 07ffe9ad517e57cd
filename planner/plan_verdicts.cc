#include "planner/plan_verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "planner/demand.h"
#include "planner/placement.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

void AddWalMoveVerdict(const Plan& plan, const PlanInputs& in,
                       std::vector<std::string>* v) {
  if (in.wal_location == nullptr) {
    v->push_back("WAL: where pg_wal is now is " + plan.wal_now_note);
    return;
  }
  if (!plan.wal_move) return;
  const WalMove& m = *plan.wal_move;
  v->push_back(fmt::format(
      "WAL: pg_wal is on {} now; moving it to {} is a step by hand that "
      "NEEDS A RESTART (stop the server, move pg_wal, symlink, start; "
      "migrate does not do it){}",
      m.from_volume.empty() ? "no declared volume" : m.from_volume,
      plan.wal_volume,
      m.from_volume.empty()
          ? ""
          : fmt::format("; until then {} also carries the WAL: {} busy",
                        m.from_volume,
                        Percent(m.from_utilization_until_moved))));
}

void AddWalVerdicts(const PlanInputs& in, const WalPlacement& wal,
                    const Plan& plan, std::vector<std::string>* v) {
  const double target = in.options.target_utilization;
  const std::string& best = in.volumes.volumes[wal.single_volume].name;
  if (in.WalShares() && in.models.size() > 1) {
    v->push_back(fmt::format(
        "WAL: every volume is on one device ({}), so the WAL on {} shares "
        "that hardware with the data",
        in.pools.names[0], best));
  } else if (in.WalShares()) {
    v->push_back(fmt::format(
        "WAL: only one volume ({}), so the WAL shares it with the data", best));
  } else if (wal.stripe) {
    v->push_back(fmt::format(
        "WAL: no single volume carries it ({} {} busy alone, above the {} "
        "target) and it cannot be hash-partitioned: a stripe of {} volumes "
        "({}) carries it at {}; see stripe.sh",
        best, Percent(wal.single_utilization), Percent(target),
        wal.stripe->members.size(), WalMemberNames(in, wal),
        Percent(wal.utilization)));
  } else {
    v->push_back(
        fmt::format("WAL: alone on {}{}, {}", best, WalDeviceMates(in, wal),
                    !in.options.wal_volume.empty() ? "the volume sized for it"
                    : in.wal_now == wal.volume
                        ? "where pg_wal already is (moving it needs a restart)"
                        : "the lowest fdatasync latency"));
  }
  AddWalMoveVerdict(plan, in, v);
  if (!AboveTarget(wal.utilization, target)) return;
  // What it would take: volumes of the kind the widest stripe tried was
  // made of (or like the best single volume), striped, at the target. A
  // stripe of alike members carries k times one member, so this is more
  // than the widest stripe tried.
  const int like = wal.widest_like >= 0 ? wal.widest_like : wal.single_volume;
  const double one = WalUtilization(in.models[like], in.wal);
  int needed = 2;
  while (AboveTarget(one / needed, target)) ++needed;
  v->push_back(fmt::format(
      "WAL: its stream keeps {} {} busy, above the {} target: no single "
      "volume carries it{}; it would need a stripe of about {} volumes like "
      "{} for pg_wal (mdadm RAID0 or an LVM striped volume)",
      best, Percent(wal.utilization), Percent(target),
      wal.stripe_blocker.empty() ? "" : ", and here " + wal.stripe_blocker,
      needed, in.volumes.volumes[like].name));
}

// One verdict per device under several volumes, and one for what probe
// --concurrent measured: each planned as one pool.
void AddPoolVerdicts(const PlanInputs& in, const AssembledPlan& a,
                     std::vector<std::string>* v) {
  for (const PoolForecast& p : a.pools) {
    if (p.kind == "measured") {
      v->push_back(fmt::format(
          "shared hardware: {}; planned as one pool (a bottleneck sysfs does "
          "not show): {}",
          p.detail, Percent(p.utilization)));
    }
    if (!p.in_forecast) continue;
    std::vector<std::string> shares;
    for (const std::string& name : p.volumes) {
      const int volume = in.VolumeIndex(name);
      shares.push_back(
          fmt::format("{} {}", name, Percent(a.own_after[volume])));
    }
    v->push_back(fmt::format(
        "shared hardware: {} are on one device ({}), planned as one pool: "
        "each is as busy as the device, {} ({} of it)",
        fmt::join(p.volumes, ", "), p.name, Percent(p.utilization),
        fmt::join(shares, " + ")));
  }
}

// The instance's storage caps, a pool of every volume judged against the
// target like one (planner/pools.h); the fit verdict names it too.
void AddHostCapVerdicts(const PlanInputs& in, const AssembledPlan& a,
                        std::vector<std::string>* v) {
  const PoolForecast* instance = nullptr;
  for (const PoolForecast& p : a.pools) {
    if (p.kind == "instance") instance = &p;
  }
  if (instance == nullptr) return;
  const double target = in.options.target_utilization;
  if (!AboveTarget(instance->utilization, target)) {
    v->push_back(fmt::format(
        "host: within the instance's storage caps at the peak: {}; the "
        "instance at {}, at or below the {} target",
        instance->detail, Percent(instance->utilization), Percent(target)));
    return;
  }
  const auto [iops, mbps] = TotalLoad(in.tables, in.wal);
  v->push_back(fmt::format(
      "host: the instance's storage caps limit it: {}; the instance {} busy, "
      "above the {} target, whatever the volumes: it would need an instance "
      "allowing at least {:.0f} MB/s and {:.0f} IOPS (the peak at the "
      "target), or the hot tables distributed over several hosts with Citus",
      instance->detail, Percent(instance->utilization), Percent(target),
      std::ceil(mbps / target), std::ceil(iops / target)));
}

// Growth declared, or observed too briefly to project.
void AddGrowthVerdicts(const PlanInputs& in, std::vector<std::string>* v) {
  const PlanOptions& opt = in.options;
  const Workload& w = in.workload;
  const bool grows = std::any_of(
      w.relations.begin(), w.relations.end(),
      [](const Relation& r) { return r.growth_bytes_per_second > 0; });
  if (opt.growth) {
    v->push_back(fmt::format(
        "growth: declared {:.4g}% per {}, compounding: x{:.3f} over the {} "
        "horizon, in place of the observed growth",
        opt.growth->fraction * 100, FormatDuration(opt.growth->period_seconds),
        opt.growth->FactorOver(opt.horizon_seconds),
        FormatDuration(opt.horizon_seconds)));
  } else if (grows && in.demand_options.horizon_seconds < opt.horizon_seconds) {
    v->push_back(fmt::format(
        "growth: not projected: the workload was observed for only {}, too "
        "short to extrapolate over {} (observe for at least {}, declare a "
        "rate with --growth, or write growth_bytes_per_second by hand)",
        FormatDuration(std::round(w.duration)),
        FormatDuration(opt.horizon_seconds),
        FormatDuration(kMinGrowthObservation)));
  }
}

void AddFitVerdicts(const PlanInputs& in, const WalPlacement& wal,
                    const Layout& layout, const AssembledPlan& a,
                    std::vector<std::string>* v) {
  const double target = in.options.target_utilization;
  bool data_over = false, wal_over = false;
  for (const ForecastEntry* f : AboveTargetEntries(a.plan)) {
    const bool on_wal = !in.WalShares() && f->volume == wal.Name(in);
    (on_wal ? wal_over : data_over) = true;
  }
  std::string need;
  if (data_over) {
    // What it would take: volumes like the best one, at the target.
    const PlaceBin* best = &layout.bins[0];
    for (const PlaceBin& b : layout.bins) {
      if (b.model->read_capacity() > best->model->read_capacity()) best = &b;
    }
    double load = 0;
    for (size_t b = 0; b < layout.bins.size(); ++b) {
      load +=
          layout.result.utilization[b] * layout.bins[b].model->read_capacity();
    }
    const int needed = static_cast<int>(
        std::ceil(load / (target * best->model->read_capacity())));
    need += fmt::format(
        "; the data's load would need about {} volumes like {} (the most "
        "capable here; there are {} data volumes), or splitting what stays "
        "too hot{}",
        needed, best->model->name(), layout.bins.size(),
        a.figures.max_utilization > 1 &&
                AboveTarget(a.figures.bound.max_utilization, target)
            ? "; beyond what one host can take, distribute the hot tables "
              "over several hosts with Citus (hash-distributed tables)"
            : "");
  }
  if (wal_over) need += "; the WAL's volume: see the WAL verdict";
  for (const PoolForecast* p : AboveTargetPools(a.plan, a.pools)) {
    need += p->kind == "instance"
                ? "; the instance: see the host verdict"
                : "; the volumes measured together: see the shared hardware "
                  "verdict";
  }
  v->push_back(FitVerdict(a.plan, a.pools, need));
  if (std::string headroom = HeadroomVerdict(a.plan); !headroom.empty()) {
    v->push_back(std::move(headroom));
  }
  AddHostCapVerdicts(in, a, v);
  AddGrowthVerdicts(in, v);
  for (std::string& note : DeviceReadNotes(in.workload)) {
    v->push_back(std::move(note));
  }
}

// Why the plan moves nothing, when every volume is calm and nothing moves
// (docs/planning.md#moves-worth-making); "" otherwise.
std::string NoMoveVerdict(const PlanInputs& in, const AssembledPlan& a) {
  const double target = in.options.target_utilization;
  for (const Placement& p : a.plan.placements) {
    if (p.strategy != Strategy::kStay) return "";
  }
  if (a.figures.max_utilization > target - kNearTarget) return "";
  return fmt::format(
      "moves: none: the busiest data volume is at {}, {} points or more "
      "under the {} target, and no move would lower it by {} points; a move "
      "costs a copy of the table, a lock at the swap and the WAL it writes, "
      "and buys nothing here",
      Percent(a.figures.max_utilization),
      static_cast<int>(std::lround(kNearTarget * 100)), Percent(target),
      static_cast<int>(std::lround(kWorthMove * 100)));
}

}  // namespace

std::vector<std::string> PlanVerdicts(const PlanInputs& in,
                                      const WalPlacement& wal,
                                      const Layout& layout,
                                      const RemedyPlan& remedies,
                                      const AssembledPlan& assembled) {
  const double target = in.options.target_utilization;
  std::vector<std::string> v;
  AddWalVerdicts(in, wal, assembled.plan, &v);
  AddPoolVerdicts(in, assembled, &v);
  for (const HotRelation& h : remedies.hot) {
    v.push_back(fmt::format("{}: {}", h.table, h.why));
  }
  if (remedies.comparison) {
    const RemedyComparison& c = *remedies.comparison;
    v.push_back(fmt::format(
        "remedies: {} chosen: {}; side by side: {}; {}",
        c.choice.chosen == "stripe"           ? "the plan with a stripe"
        : c.choice.chosen == "hash_partition" ? "the plan with hash partitions"
                                              : "no remedy",
        c.choice.reason, RemedyFigures(c.partition, target),
        RemedyFigures(c.stripe, target)));
  }
  AddFitVerdicts(in, wal, layout, assembled, &v);
  if (std::string calm = NoMoveVerdict(in, assembled); !calm.empty()) {
    v.push_back(std::move(calm));
  }
  const LayoutFigures& f = assembled.figures;
  v.push_back(fmt::format(
      "bound: the worst data volume is at {} (a perfect spread of every "
      "byte over every data volume would reach {}); mean read latency {:.0f} "
      "us vs {:.0f} us at best",
      Percent(f.max_utilization), Percent(f.bound.max_utilization),
      f.mean_latency_us, f.bound.mean_latency_us));
  if (!layout.result.within_headroom) {
    v.push_back(fmt::format(
        "capacity: some volume uses the {} growth headroom; add capacity",
        Percent(in.options.headroom)));
  }
  return v;
}

}  // namespace pglayout::planner
