// The plan section: the verdict, utilisation and latency per volume before
// and after, where each relation goes, stripes, settings and backup.

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/growth.h"
#include "report/chart.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

bool Overloaded(const Plan& plan) {
  return std::any_of(
      plan.forecast.begin(), plan.forecast.end(),
      [](const ForecastEntry& f) { return f.utilization_after > 1; });
}

void RenderVerdicts(const Plan& plan, Markup* out) {
  // The plan cannot carry the demand when a volume stays past 100% after
  // it: then every verdict is a warning, not a remark.
  const char* kind = Overloaded(plan) ? "warning" : "info";
  for (const std::string& verdict : plan.verdicts) {
    RenderCallout(kind, verdict, out);
  }
}

// What the plan could not attribute (a directory on no declared volume):
// before anything else, as the plan's text puts them.
void RenderWarnings(const Plan& plan, Markup* out) {
  for (const std::string& warning : plan.warnings) {
    RenderCallout("warning", warning, out);
  }
}

// "on base (resolved from /data/pg_wal)", or why it is not known.
std::string PgWalNow(const Plan& plan) {
  if (plan.wal_now.empty()) return plan.wal_now_note;
  if (plan.wal_now_note.empty()) return "on " + plan.wal_now;
  return "on " + plan.wal_now + " (" + plan.wal_now_note + ")";
}

// Where pg_wal is now, and the move a person runs when it must move.
void RenderWal(const Plan& plan, Markup* out) {
  if (!plan.wal_move) return;
  const WalMove& m = *plan.wal_move;
  out->Element("h3", "Moving the WAL: a step by hand, with a restart");
  out->Element("p", {{"class", "note"}},
               "pglayout migrate never moves pg_wal; stripe.sh and plan.sql "
               "carry these commands commented out. The server is down from "
               "the stop to the start.");
  RenderFacts(
      {{"From", m.from_volume.empty() ? m.from_path + " (on no declared volume)"
                                      : m.from_path + " on " + m.from_volume},
       {"To", m.to_path + " on " + plan.wal_volume},
       {"Data directory", m.data_directory},
       {"Until it is done",
        m.from_volume.empty()
            ? ""
            : fmt::format("{} also carries the WAL: {} busy", m.from_volume,
                          Percent(m.from_utilization_until_moved))}},
      out);
  std::string commands;
  for (const std::string& line : WalMoveCommands(m)) commands += line + "\n";
  out->Open("pre", {{"class", "commands"}});
  out->Element("code", commands);
  out->Close();
}

std::string RemedyName(const std::string& remedy) {
  if (remedy == "hash_partition") return "hash partitions";
  if (remedy == "stripe") return "a stripe";
  return "neither";
}

void RenderRemedy(const std::string& name, const RemedyView& r, bool chosen,
                  double target, Markup* out) {
  out->Open("article", {{"class", chosen ? "chosen" : "lost"}});
  out->Element("h4", fmt::format("The plan with {} — {}", name,
                                 chosen ? "chosen" : "not chosen"));
  if (!r.possible) {
    out->Element("p", "Cannot be built here: " + OrDash(r.blocker));
    out->Close();
    return;
  }
  RenderFacts(
      {{"What it does", r.summary},
       {"Busiest data volume",
        fmt::format("{} ({} the {} target)", Percent(r.worst_utilization),
                    r.meets_target ? "within" : "ABOVE", Percent(target))},
       {"Mean read latency", Latency(r.mean_read_latency_us)},
       {"Stripe members", Join(r.members, ", ")}},
      out);
  out->Close();
}

// The two remedies for a table too hot for one volume, forecast as
// complete plans, side by side, with why the loser lost.
void RenderRemedies(const RemedyComparisonView& v, const Plan& plan,
                    Markup* out) {
  out->Element("h3", "Two remedies, forecast as complete plans");
  out->Open("div", {{"class", "remedies"}});
  RenderRemedy("hash partitions", v.partition, v.chosen == "hash_partition",
               plan.target_utilization, out);
  RenderRemedy("a stripe", v.stripe, v.chosen == "stripe",
               plan.target_utilization, out);
  out->Close();
  RenderCallout("info",
                fmt::format("Chosen: {}. Why: {}", RemedyName(v.chosen),
                            OrDash(v.reason)),
                out);
}

void RenderUtilization(const Plan& plan, Markup* out) {
  BarChartSpec spec;
  spec.id = "plan-utilization";
  spec.title = "Utilisation per volume before and after the plan";
  spec.x_label = "utilisation of the volume's IOPS";
  spec.value_format = [](double v) { return Percent(v); };
  spec.series = {{"before", palette::kOrange, true},
                 {"after", palette::kBlue, false}};
  spec.minimum_extent = 1;
  spec.zero_label = "unused";
  spec.target = plan.target_utilization;
  spec.target_label = "target " + Percent(plan.target_utilization);
  int over = 0;
  for (const ForecastEntry& f : plan.forecast) {
    spec.rows.push_back(
        {f.volume, {f.utilization_before, f.utilization_after}, ""});
    if (f.utilization_after > plan.target_utilization) ++over;
  }
  spec.description = fmt::format(
      "Forecast utilisation of {} volumes before (hatched) and after (solid) "
      "the plan, against the target of {} (dashed line); {} volume(s) stay "
      "above the target, marked with a triangle.",
      plan.forecast.size(), Percent(plan.target_utilization), over);
  OpenFigure("Utilisation before and after", out);
  RenderBarChart(spec, out);
  out->Close();
}

void RenderLatency(const Plan& plan, Markup* out) {
  BarChartSpec spec;
  spec.id = "plan-latency";
  spec.title = "Predicted read latency per volume before and after the plan";
  spec.description =
      "Predicted 8 KiB read latency on each volume before (hatched) and after "
      "(solid) the plan.";
  spec.x_label = "predicted read latency";
  spec.value_format = [](double v) { return Latency(v); };
  spec.zero_label = "unused";
  spec.series = {{"before", palette::kOrange, true},
                 {"after", palette::kBlue, false}};
  std::vector<Row> rows;
  for (const ForecastEntry& f : plan.forecast) {
    spec.rows.push_back(
        {f.volume, {f.read_latency_us_before, f.read_latency_us_after}, ""});
    auto latency = [](double us) { return us > 0 ? Latency(us) : "—"; };
    rows.push_back(
        {f.volume, Percent(f.utilization_before), Percent(f.utilization_after),
         latency(f.read_latency_us_before), latency(f.read_latency_us_after)});
  }
  OpenFigure("Predicted read latency before and after", out);
  RenderBarChart(spec, out);
  RenderFigureData({{"volume", false},
                    {"utilisation before", true},
                    {"utilisation after", true},
                    {"latency before", true},
                    {"latency after", true}},
                   rows, out);
  out->Close();
}

// Tablespaces in the order the placements use them first, then unused.
std::vector<std::string> MapColumns(const Plan& plan) {
  std::vector<std::string> columns;
  auto add = [&](const std::string& name) {
    if (std::find(columns.begin(), columns.end(), name) == columns.end()) {
      columns.push_back(name);
    }
  };
  for (const TablespaceSpec& t : plan.tablespaces) add(t.name);
  for (const Placement& p : plan.placements) {
    for (const std::string& t : p.tablespaces) add(t);
  }
  return columns;
}

// The hash partitions of |p| that land in |tablespace| ("p0", "p5"):
// partition i goes to tablespaces[i mod k], as the migrator creates them.
std::vector<std::string> PartitionsIn(const Placement& p,
                                      const std::string& tablespace) {
  std::vector<std::string> parts;
  int count =
      std::max<int>(p.partitions, static_cast<int>(p.tablespaces.size()));
  for (int i = 0; i < count && !p.tablespaces.empty(); ++i) {
    if (p.tablespaces[i % p.tablespaces.size()] == tablespace) {
      parts.push_back(fmt::format("p{}", i));
    }
  }
  return parts;
}

// "2 partitions (p0, p5)".
std::string PartitionCount(const std::vector<std::string>& parts) {
  return fmt::format("{} partition{} ({})", parts.size(),
                     parts.size() == 1 ? "" : "s", Join(parts, ", "));
}

std::string CellText(const Placement& p, const std::string& tablespace) {
  if (p.strategy == Strategy::kHashPartition) {
    std::vector<std::string> parts = PartitionsIn(p, tablespace);
    return parts.empty() ? "" : "■ " + PartitionCount(parts);
  }
  bool here = std::find(p.tablespaces.begin(), p.tablespaces.end(),
                        tablespace) != p.tablespaces.end();
  return here ? "■ moved here" : "";
}

// How many of |p|'s hash partitions each volume holds, in the order the
// placement first uses them (a tablespace on no declared volume by its own
// name).
// The volume of each partition of |p|, partition j at j (a tablespace the
// plan does not tie to a volume stands for itself).
std::vector<std::string> VolumeOfEachPartition(const Plan& plan,
                                               const Placement& p) {
  std::vector<std::string> volume_of;
  const int count =
      std::max<int>(p.partitions, static_cast<int>(p.tablespaces.size()));
  for (int i = 0; i < count && !p.tablespaces.empty(); ++i) {
    const std::string& ts = p.tablespaces[i % p.tablespaces.size()];
    const TablespaceSpec* spec = plan.FindTablespace(ts);
    volume_of.push_back(spec != nullptr && !spec->volume.empty() ? spec->volume
                                                                 : ts);
  }
  return volume_of;
}

std::vector<std::pair<std::string, int>> PartitionsOnEachVolume(
    const Plan& plan, const Placement& p) {
  std::vector<std::pair<std::string, int>> per_volume;
  for (const std::string& volume : VolumeOfEachPartition(plan, p)) {
    auto it = std::find_if(per_volume.begin(), per_volume.end(),
                           [&](const auto& e) { return e.first == volume; });
    if (it == per_volume.end()) {
      per_volume.push_back({volume, 1});
    } else {
      ++it->second;
    }
  }
  return per_volume;
}

// "sdd 2, sde 2, sdh 1".
std::string PartitionsPerVolume(const Plan& plan, const Placement& p) {
  std::vector<std::string> parts;
  for (const auto& [volume, n] : PartitionsOnEachVolume(plan, p)) {
    parts.push_back(fmt::format("{} {}", volume, n));
  }
  return Join(parts, ", ");
}

void RenderMapHeader(const Plan& plan, const std::vector<std::string>& columns,
                     Markup* out) {
  out->Open("thead");
  out->Open("tr");
  out->Element("th", {{"scope", "col"}}, "relation");
  out->Element("th", {{"scope", "col"}}, "strategy");
  for (const std::string& name : columns) {
    out->Open("th", {{"scope", "col"}});
    out->Text(name);
    const TablespaceSpec* spec = plan.FindTablespace(name);
    if (spec && !spec->volume.empty()) {
      out->Empty("br");
      out->Element("small", "on " + spec->volume);
    }
    out->Close();
  }
  out->Close();
  out->Close();
}

void RenderMapRow(const Placement& p, const std::vector<std::string>& columns,
                  Markup* out) {
  out->Open("tr");
  out->Element("th", {{"scope", "row"}}, p.relation);
  out->Element("td", StrategyName(p.strategy));
  if (p.strategy == Strategy::kStay) {
    out->Element(
        "td",
        {{"class", "cell"},
         {"colspan", fmt::format("{}", std::max<size_t>(1, columns.size()))}},
        "stays in its current tablespace");
  } else {
    for (const std::string& name : columns) {
      std::string text = CellText(p, name);
      out->Element("td", {{"class", text.empty() ? "cell" : "cell on"}}, text);
    }
  }
  out->Close();
}

void RenderPlacementMap(const Plan& plan, Markup* out) {
  std::vector<std::string> columns = MapColumns(plan);
  out->Element("h3", "Placement map");
  out->Element("p", {{"class", "note"}},
               "Rows are relations, columns the tablespaces (and the volume "
               "each lives on); ■ marks where a relation goes, or how many of "
               "its hash partitions (p0, p1, …) and which.");
  out->Open("div", {{"class", "table-wrap"}});
  out->Open("table", {{"class", "matrix"}});
  out->Element("caption", "Where each relation goes");
  RenderMapHeader(plan, columns, out);
  out->Open("tbody");
  for (const Placement& p : plan.placements) RenderMapRow(p, columns, out);
  out->Close();
  out->Close();
  out->Close();
  std::vector<Row> rows;
  for (const Placement& p : plan.placements) {
    std::string how = StrategyName(p.strategy);
    if (p.strategy == Strategy::kHashPartition) {
      how = fmt::format("hash partition ×{} by ({})", p.partitions,
                        Join(p.key, ", "));
    }
    std::string online = p.online ? "online" : "with locks";
    if (p.strategy == Strategy::kStay) online = "—";
    rows.push_back({p.relation, how, OrDash(Join(p.tablespaces, ", ")), online,
                    OrDash(p.reason)});
  }
  RenderTable("Placements and why",
              {{"relation", false},
               {"how", false},
               {"tablespaces", false},
               {"move", false},
               {"reason", false}},
              rows, out);
  std::vector<Row> per_volume;
  for (const Placement& p : plan.placements) {
    if (p.strategy != Strategy::kHashPartition) continue;
    per_volume.push_back({p.relation, fmt::format("{}", p.partitions),
                          PartitionsPerVolume(plan, p)});
  }
  if (!per_volume.empty()) {
    RenderTable(
        "Hash partitions per volume",
        {{"relation", false}, {"partitions", true}, {"on each volume", false}},
        per_volume, out);
  }
}

// The plan's worst volume at each partition count it tried for |h|,
// against the target and a perfect spread, the chosen count marked
// (docs/planning.md#partition-counts).
void RenderCountCurve(const HotTableView& h, size_t index, double target,
                      Markup* out) {
  std::vector<HotTableView::Count> counts = h.counts;
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.partitions < b.partitions;
  });
  LineChartSpec spec;
  spec.id = fmt::format("count-curve-{}", index);
  spec.title = h.table + ": the busiest volume at each partition count";
  spec.x_label = "hash partitions";
  spec.y_label = "busiest data volume";
  spec.x_format = [](double x) { return fmt::format("{:.0f}", x); };
  spec.y_format = [](double y) { return Percent(y); };
  LineSeries worst{
      "busiest volume", palette::kBlue, Marker::kCircle, false, {}};
  std::vector<Row> rows;
  for (const HotTableView::Count& c : counts) {
    const bool chosen = c.partitions == h.partitions;
    worst.points.push_back(
        {static_cast<double>(c.partitions), c.worst_utilization, ""});
    rows.push_back({fmt::format("{}", c.partitions),
                    Percent(c.worst_utilization),
                    c.worst_utilization <= target ? "within" : "above",
                    chosen ? "chosen" : ""});
  }
  const double first = counts.front().partitions;
  const double last = counts.back().partitions;
  spec.series.push_back(std::move(worst));
  spec.series.push_back({"target",
                         palette::kVermillion,
                         Marker::kTriangle,
                         true,
                         {{first, target, ""}, {last, target, ""}}});
  if (h.bound > 0) {
    spec.series.push_back({"perfect spread",
                           palette::kGreen,
                           Marker::kSquare,
                           true,
                           {{first, h.bound, ""}, {last, h.bound, ""}}});
  }
  if (h.partitions > 0) {
    spec.rules.push_back({static_cast<double>(h.partitions),
                          fmt::format("chosen: {}", h.partitions), false});
  }
  spec.description = fmt::format(
      "The plan's busiest data volume with {} in each partition count it "
      "tried ({} counts, {} to {}), against the {} target and a perfect "
      "spread's {}; {} partitions chosen.",
      h.table, counts.size(), counts.front().partitions,
      counts.back().partitions, Percent(target), Percent(h.bound),
      h.partitions);
  OpenFigure("Partition counts tried for " + h.table, out);
  RenderLineChart(spec, out);
  RenderFigureData({{"partitions", true},
                    {"busiest volume", true},
                    {"target", false},
                    {"", false}},
                   rows, out);
  out->Close();
}

// With growth projected the plan doubles the count (RemedyPlan): say what
// that buys, with the volumes the placement spans today.
std::string GrowthLine(const HotTableView& h, const Plan& plan) {
  size_t volumes = 0;
  std::string moves;
  for (const Placement& p : plan.placements) {
    if (p.relation != h.table) continue;
    volumes = PartitionsOnEachVolume(plan, p).size();
    moves = DoublingMovesText(MovesForDoubling(VolumeOfEachPartition(plan, p)));
  }
  return fmt::format(
      "Room to grow: {} is planned in {} partitions over {} volumes, twice "
      "the count the spread needs, because its data grows over the horizon. "
      "{}, whole and online, with no conversion again.",
      h.table, h.partitions, volumes,
      moves.empty() ? "Later, more volumes can take some of them"
                    : "When it doubles, " + moves);
}

// For each table the plan partitioned: the counts it tried, and the
// growth line where it left room to grow.
void RenderPartitionCounts(const Plan& plan, const PlanDetails& details,
                           Markup* out) {
  bool heading = false;
  for (size_t i = 0; i < details.hot.size(); ++i) {
    const HotTableView& h = details.hot[i];
    if (h.chosen != "hash_partition" || h.counts.empty()) continue;
    if (!heading) out->Element("h3", "Partition counts");
    heading = true;
    RenderCountCurve(h, i, plan.target_utilization, out);
    if (h.room_to_grow) RenderCallout("info", GrowthLine(h, plan), out);
  }
}

std::string OptionsText(const std::map<std::string, std::string>& options) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : options) parts.push_back(k + " = " + v);
  return Join(parts, ", ");
}

void RenderTablespacesAndStripes(const Plan& plan, Markup* out) {
  if (!plan.tablespaces.empty()) {
    std::vector<Row> rows;
    for (const TablespaceSpec& t : plan.tablespaces) {
      rows.push_back(
          {t.name, t.path, OrDash(t.volume), OrDash(OptionsText(t.options))});
    }
    RenderTable("Tablespaces to create",
                {{"tablespace", false},
                 {"directory", false},
                 {"volume", false},
                 {"options", false}},
                rows, out);
  }
  if (!plan.stripes.empty()) {
    std::vector<Row> rows;
    for (const Stripe& s : plan.stripes) {
      uint64_t width = s.chunk * s.members.size();
      rows.push_back({s.name, s.tool, Join(s.members, ", "),
                      s.chunk ? Bytes(static_cast<double>(s.chunk)) : "—",
                      width ? Bytes(static_cast<double>(width)) : "—",
                      OrDash(s.reason)});
    }
    out->Element("h3", "Stripes proposed");
    RenderTable("Stripes (stripe.sh creates them; pglayout never does)",
                {{"stripe", false},
                 {"tool", false},
                 {"members", false},
                 {"chunk", true},
                 {"full stripe", true},
                 {"reason", false}},
                rows, out);
  }
}

void RenderSettings(const Plan& plan, const Workload* workload, Markup* out) {
  if (plan.settings.empty()) return;
  std::vector<Row> rows;
  for (const SettingChange& s : plan.settings) {
    std::string now = s.previous;
    if (now.empty() && workload) now = workload->Setting(s.name).value_or("");
    rows.push_back({s.name, OrDash(now), s.value, OrDash(s.reason)});
  }
  out->Element("h3", "Settings");
  RenderTable(
      "Server settings: now and planned",
      {{"setting", false}, {"now", true}, {"planned", true}, {"why", false}},
      rows, out);
}

void RenderBackup(const Plan& plan, Markup* out) {
  if (plan.backup_walg.empty() && plan.backup_pgbackrest.empty()) return;
  out->Element("h3", "Backup readers");
  auto table = [&](const char* tool,
                   const std::map<std::string, std::string>& values) {
    if (values.empty()) return;
    std::vector<Row> rows;
    for (const auto& [k, v] : values) rows.push_back({k, v});
    RenderTable(tool, {{"setting", false}, {"value", true}}, rows, out);
  };
  table("wal-g", plan.backup_walg);
  table("pgBackRest", plan.backup_pgbackrest);
}

}  // namespace

void RenderPlanSection(const ReportInput& input, Markup* out) {
  const Plan& plan = *input.plan;
  OpenSection("plan", "Plan", input.plan_source, out);
  RenderWarnings(plan, out);
  RenderVerdicts(plan, out);
  RenderFacts({{"Target utilisation", Percent(plan.target_utilization)},
               {"Preference", plan.prefer},
               {"WAL volume", plan.wal_volume},
               {"Why there", plan.wal_reason},
               {"pg_wal now", PgWalNow(plan)}},
              out);
  RenderWal(plan, out);
  const PlanDetails* details = input.plan_details;
  if (details && details->remedies) {
    RenderRemedies(*details->remedies, plan, out);
  }
  if (!plan.forecast.empty()) {
    out->Open("div", {{"class", "figures"}});
    RenderUtilization(plan, out);
    RenderLatency(plan, out);
    out->Close();
  }
  if (!plan.placements.empty()) RenderPlacementMap(plan, out);
  if (details) RenderPartitionCounts(plan, *details, out);
  RenderTablespacesAndStripes(plan, out);
  RenderSettings(plan, input.workload, out);
  RenderBackup(plan, out);
  out->Close();
}

}  // namespace pglayout::report::internal
