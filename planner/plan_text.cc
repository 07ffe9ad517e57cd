#include "planner/plan_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "common/units.h"
#include "planner/stripe_script.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

std::string Pct(double fraction) { return Percent(fraction); }

bool IsStripe(const Plan& plan, const std::string& name) {
  for (const Stripe& s : plan.stripes) {
    if (s.name == name) return true;
  }
  return false;
}

// One remedy's plan, for the side-by-side lines.
std::string RemedyLine(const RemedyForecast& f, double target) {
  if (!f.possible) return "not possible: " + f.blocker;
  return fmt::format(
      "worst volume {}{}, mean read latency {:.0f} us: {}",
      Pct(f.worst_utilization),
      f.meets_target ? "" : fmt::format(" (above the {} target)", Pct(target)),
      f.mean_read_latency_us, f.summary);
}

Json PoolsJson(const std::vector<PoolForecast>& pools) {
  Json j = Json::array();
  for (const PoolForecast& p : pools) {
    j.push_back({{"kind", p.kind},
                 {"name", p.name},
                 {"volumes", p.volumes},
                 {"utilization", std::round(p.utilization * 1000) / 1000},
                 {"detail", p.detail}});
  }
  return j;
}

Json RemedyJson(const RemedyForecast& f) {
  return {{"possible", f.possible},
          {"blocker", f.blocker},
          {"summary", f.summary},
          {"members", f.members},
          {"worst_utilization", std::round(f.worst_utilization * 1000) / 1000},
          {"mean_read_latency_us", std::round(f.mean_read_latency_us)},
          {"meets_target", f.meets_target}};
}

void Header(const PlanOutcome& o, std::string* out) {
  const Plan& p = o.plan;
  *out += fmt::format(
      "pglayout plan: {} table(s) on {} volume(s), {}; target {}, prefer "
      "{}\n",
      o.tables, o.volumes.size(), o.live ? "live server" : "new build",
      Pct(p.target_utilization), p.prefer);
}

void VolumesSection(const PlanOutcome& o, std::string* out) {
  *out += "\nVolumes (device model)\n";
  *out += fmt::format("  {:<14} {:<13} {:>10} {:>10} {:>10} {:>10}  {}\n",
                      "volume", "role", "read IOPS", "write IOPS", "capacity",
                      "data after", "latency model");
  for (const VolumeView& v : o.volumes) {
    *out +=
        fmt::format("  {:<14} {:<13} {:>10.0f} {:>10.0f} {:>10} {:>10}  {}\n",
                    v.name, v.role, v.read_capacity, v.write_capacity,
                    HumanSize(static_cast<double>(v.capacity)),
                    HumanSize(static_cast<double>(v.bytes_after)), v.model);
  }
}

void HotSection(const PlanOutcome& o, std::string* out) {
  if (o.hot.empty()) return;
  *out += "\nToo hot for one volume\n";
  for (const HotRelation& h : o.hot) {
    *out += fmt::format("  {}: {} (alone on the best volume: {})\n", h.table,
                        h.chosen, Pct(h.best_single_utilization));
    *out += fmt::format("    why: {}\n", h.why);
    if (h.partition.feasible()) {
      *out += fmt::format("    hash partitioning: possible on ({})\n",
                          fmt::join(h.partition.key, ", "));
    } else {
      *out += fmt::format("    hash partitioning: blocked: {}\n",
                          fmt::join(h.partition.blockers, "; "));
    }
    for (const std::string& c : h.partition.cautions) {
      *out += fmt::format("      caution: {}\n", c);
    }
    *out += fmt::format("    stripe: {}\n",
                        !h.stripe.empty()          ? "built (" + h.stripe + ")"
                        : h.stripe_blocker.empty() ? "possible, not needed"
                                                   : h.stripe_blocker);
  }
  if (!o.remedies) return;
  const RemedyComparison& c = *o.remedies;
  const double target = o.plan.target_utilization;
  *out += fmt::format(
      "  Both remedies, each as a complete plan (p99 latency is not "
      "modelled):\n    hash partitions: {}\n    stripe:          {}\n"
      "    chosen: {}; {}\n",
      RemedyLine(c.partition, target), RemedyLine(c.stripe, target),
      c.choice.chosen, c.choice.reason);
}

void PlacementSection(const PlanOutcome& o, std::string* out) {
  *out += "\nPlacements\n";
  if (o.plan.placements.empty()) *out += "  (none)\n";
  for (const Placement& p : o.plan.placements) {
    *out += fmt::format(
        "  {:<32} {:<15} {}\n", p.relation, StrategyName(p.strategy),
        p.tablespaces.empty()
            ? "(where it is)"
            : fmt::format("{}", fmt::join(p.tablespaces, ", ")));
    if (!p.reason.empty()) *out += fmt::format("    {}\n", p.reason);
  }
  *out += fmt::format(
      "  {} move(s), {} hash partitioning(s); tables not "
      "listed stay where they are\n",
      o.moves, o.partitioned);
}

// What makes up each volume's load after the plan: the data writes twice,
// as the workload gives them and as the checkpointer issues them (the
// latter is what the utilisation counts).
void LoadSection(const PlanOutcome& o, std::string* out) {
  *out +=
      "  load after, per second at the peak: 8 KiB reads, data writes (given "
      "-> as checkpoints write them), WAL flushes and MB/s, backup MB/s\n";
  for (const ForecastEntry& f : o.plan.forecast) {
    *out += fmt::format(
        "  {:<14} {:>9.0f} rd {:>9.0f} -> {:>9.0f} wr {:>7.0f} WAL {:>6.1f} "
        "MB/s {:>7.1f} backup MB/s\n",
        f.volume, f.read_iops, f.write_iops, f.checkpoint_write_iops,
        f.wal_write_iops, f.wal_write_mbps, f.backup_read_mbps);
  }
}

void ForecastSection(const PlanOutcome& o, std::string* out) {
  const double target = o.plan.target_utilization;
  *out +=
      "\nForecast (utilisation and mean read latency at the peak; "
      "'before' counts the WAL only when it can be nowhere else)\n";
  *out += fmt::format("  {:<14} {:>8} {:>8} {:>12} {:>12}\n", "volume",
                      "before", "after", "lat before", "lat after");
  for (const ForecastEntry& f : o.plan.forecast) {
    // A stripe the plan builds has no "before".
    const bool built = IsStripe(o.plan, f.volume);
    *out += fmt::format(
        "  {:<14} {:>8} {:>8} {:>12} {:>9.0f} us{}\n", f.volume,
        built ? "-" : Pct(f.utilization_before), Pct(f.utilization_after),
        built ? "-" : fmt::format("{:.0f} us", f.read_latency_us_before),
        f.read_latency_us_after,
        AboveTarget(f.utilization_after, target) ? "  ABOVE TARGET" : "");
  }
  LoadSection(o, out);
  const Bound& b = o.bound;
  *out += fmt::format(
      "  bound: worst volume {} (plan) vs {} (perfect spread); mean read "
      "latency {:.0f} us vs {:.0f} us{}\n",
      Pct(o.max_utilization), Pct(b.max_utilization), o.mean_latency_us,
      b.mean_latency_us,
      b.mean_latency_us > 0
          ? fmt::format(" (within {:.0f}%)",
                        (o.mean_latency_us / b.mean_latency_us - 1) * 100)
          : "");
  for (const PoolForecast& p : o.pools) {
    *out += fmt::format("  shared: {} {}{}: {}\n", p.name, Pct(p.utilization),
                        AboveTarget(p.utilization, o.plan.target_utilization)
                            ? " ABOVE TARGET"
                            : "",
                        p.detail);
  }
}

void SettingsSection(const PlanOutcome& o, std::string* out) {
  *out += "\nSettings\n";
  if (o.plan.settings.empty()) *out += "  (no change)\n";
  for (const SettingChange& s : o.plan.settings) {
    *out += fmt::format("  {} = {}{}\n    {}\n", s.name, s.value,
                        s.previous.empty() ? "" : " (was " + s.previous + ")",
                        s.reason);
  }
  for (const TablespaceSpec& ts : o.plan.tablespaces) {
    std::vector<std::string> options;
    for (const auto& [k, v] : ts.options) options.push_back(k + "=" + v);
    *out += fmt::format("  tablespace {} on {}: {}\n", ts.name, ts.volume,
                        fmt::join(options, ", "));
  }
}

void WhereNowSection(const PlanOutcome& o, std::string* out) {
  if (o.where_now.empty()) return;
  *out += "\nWhere the data lives now\n";
  for (const std::string& line : o.where_now) *out += "  " + line + "\n";
}

// The WAL's volume, where pg_wal is now, and the move by hand when it
// must move (docs/where-data-lives.md#moving-the-wal).
void WalSection(const Plan& plan, std::string* out) {
  *out += fmt::format("\nWAL on {}\n  {}\n", plan.wal_volume, plan.wal_reason);
  if (!plan.wal_now_note.empty()) {
    *out += fmt::format("  now: {}\n", plan.wal_now_note);
  }
  if (!plan.wal_move) return;
  const WalMove& m = *plan.wal_move;
  *out += fmt::format(
      "  STEP BY HAND, NEEDS A RESTART (migrate does not move pg_wal; "
      "stripe.sh has it):\n");
  for (const std::string& line : WalMoveCommands(m)) {
    *out += "    " + line + "\n";
  }
  if (!m.from_volume.empty()) {
    *out += fmt::format(
        "  forecast: after it, as below; until it is done {} also carries "
        "the WAL: {:.0f}% busy\n",
        m.from_volume, m.from_utilization_until_moved * 100);
  }
}

void BackupSection(const PlanOutcome& o, std::string* out) {
  *out += "\nBackup readers\n";
  std::vector<std::string> walg, pgbr;
  for (const auto& [k, v] : o.backup.walg) walg.push_back(k + "=" + v);
  for (const auto& [k, v] : o.backup.pgbackrest) pgbr.push_back(k + "=" + v);
  *out += fmt::format("  wal-g: {}\n  pgBackRest: {}\n", fmt::join(walg, " "),
                      fmt::join(pgbr, " "));
  for (const std::string& r : o.backup.reasons) {
    *out += fmt::format("    {}\n", r);
  }
}

}  // namespace

std::string RenderPlanText(const PlanOutcome& o) {
  std::string out;
  for (const std::string& w : o.plan.warnings) out += w + "\n";
  Header(o, &out);
  VolumesSection(o, &out);
  WhereNowSection(o, &out);
  WalSection(o.plan, &out);
  HotSection(o, &out);
  PlacementSection(o, &out);
  ForecastSection(o, &out);
  SettingsSection(o, &out);
  BackupSection(o, &out);
  out += "\nVerdicts\n";
  for (const std::string& v : o.plan.verdicts) out += "  - " + v + "\n";
  return out;
}

Json PlanJson(const PlanOutcome& o) {
  Json j = ToJson(o.plan);
  Json hot = Json::array();
  for (const HotRelation& h : o.hot) {
    // The partition counts tried and the plan's worst volume at each
    // (docs/planning.md#partition-counts), for the report's curve.
    Json counts = Json::array();
    for (const CountForecast& c : h.counts) {
      counts.push_back({{"partitions", c.partitions},
                        {"worst_utilization", c.worst_utilization}});
    }
    hot.push_back({{"table", h.table},
                   {"counts", counts},
                   {"bound", h.bound},
                   {"room_to_grow", h.room_to_grow},
                   {"best_single_utilization", h.best_single_utilization},
                   {"chosen", h.chosen},
                   {"partitions", h.partitions},
                   {"key", h.partition.key},
                   {"partition_blockers", h.partition.blockers},
                   {"partition_cautions", h.partition.cautions},
                   {"stripe", h.stripe},
                   {"stripe_blocker", h.stripe_blocker},
                   {"why", h.why}});
  }
  // Which read-latency model each volume's forecast used
  // (docs/device-model.md#latency-under-load).
  Json latency_models = Json::object();
  for (const VolumeView& v : o.volumes) latency_models[v.name] = v.model;
  j["analysis"] = {
      {"live", o.live},
      {"tables", o.tables},
      {"moves", o.moves},
      {"hash_partitioned", o.partitioned},
      {"max_utilization", o.max_utilization},
      {"mean_read_latency_us", o.mean_latency_us},
      {"bound_max_utilization", o.bound.max_utilization},
      {"bound_mean_read_latency_us", o.bound.mean_latency_us},
      {"hot", hot},
      {"remedies",
       o.remedies ? Json{{"hash_partition", RemedyJson(o.remedies->partition)},
                         {"stripe", RemedyJson(o.remedies->stripe)},
                         {"chosen", o.remedies->choice.chosen},
                         {"reason", o.remedies->choice.reason}}
                  : Json()},
      {"pools", PoolsJson(o.pools)},
      {"latency_models", latency_models},
      {"backup_reasons", o.backup.reasons},
      {"backup_read_size",
       {{"bytes", o.backup.read_size.bytes},
        {"source", o.backup.read_size.source},
        {"volume", o.backup.read_size.volume},
        {"measured", o.backup.read_size.measured},
        {"full_stripe", o.backup.read_size.full_stripe},
        {"why", o.backup.read_size.why}}}};
  return j;
}

}  // namespace pglayout::planner
