// The Citus distribution (plan.json "citus", docs/citus.md): why, the
// worker and shard counts, the co-location groups as a diagram, every
// table's role with its reason, and each node's load today and after.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/chart.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

// The diagram's geometry, in SVG user units.
constexpr double kWidth = 820;
constexpr double kMargin = 20;
constexpr double kBoxWidth = 170;
constexpr double kBoxHeight = 44;
constexpr double kBoxGap = 40;
constexpr int kPerRow = 4;
constexpr double kArcRoom = 36;  // above each row, for the arcs of its keys
constexpr double kBandTitle = 24;
constexpr double kBandGap = 18;

std::string N(double v) { return SvgNumber(v); }

struct Box {
  std::string table;
  bool reference = false;
  bool anchor = false;
  std::string detail;  // second line: "by customer_id · 200 GiB"
  double x = 0, y = 0;
};

// One band of the diagram: a co-location group with the reference tables
// its members reference, or the reference tables no group references.
struct Band {
  std::string title;
  std::vector<Box> boxes;
  std::vector<std::pair<std::string, std::string>> keys;  // from -> to
  std::vector<std::pair<std::string, std::string>> to_reference;
  double top = 0, height = 0;
};

Box MakeBox(const CitusView& citus, const std::string& table, bool anchor) {
  Box b;
  b.table = table;
  b.anchor = anchor;
  const CitusTableView* t = citus.Find(table);
  if (t == nullptr) return b;
  b.reference = t->role == "reference";
  std::string size = Bytes(static_cast<double>(t->bytes));
  b.detail =
      b.reference ? "reference · " + size : "by " + t->column + " · " + size;
  if (anchor) b.detail = "anchor · " + b.detail;
  return b;
}

std::vector<Band> Bands(const CitusView& citus) {
  std::vector<Band> bands;
  std::set<std::string> shown_references;
  for (size_t i = 0; i < citus.groups.size(); ++i) {
    const CitusGroupView& g = citus.groups[i];
    Band& band = bands.emplace_back();
    band.title =
        fmt::format("Group {} · by {} · {} table{} · {} at the horizon", i + 1,
                    g.columns, g.tables.size(), g.tables.size() == 1 ? "" : "s",
                    Bytes(static_cast<double>(g.bytes_needed)));
    std::set<std::string> referenced;
    for (const std::string& table : g.tables) {
      band.boxes.push_back(MakeBox(citus, table, table == g.anchor));
      const CitusTableView* t = citus.Find(table);
      if (t == nullptr) continue;
      for (const std::string& to : t->references) {
        const CitusTableView* r = citus.Find(to);
        if (r == nullptr || r->role != "reference") continue;
        band.to_reference.emplace_back(table, to);
        if (referenced.insert(to).second) {
          band.boxes.push_back(MakeBox(citus, to, false));
          shown_references.insert(to);
        }
      }
    }
    for (const CitusGroupView::Edge& e : g.edges) {
      band.keys.emplace_back(e.from, e.to);
    }
  }
  Band rest;
  rest.title = "Reference tables no group references";
  for (const CitusTableView& t : citus.tables) {
    if (t.role == "reference" && !shown_references.count(t.name)) {
      rest.boxes.push_back(MakeBox(citus, t.name, false));
    }
  }
  if (!rest.boxes.empty()) bands.push_back(std::move(rest));
  return bands;
}

// Places the boxes of each band, kPerRow to a row, and returns the
// diagram's height.
double Layout(std::vector<Band>* bands) {
  double y = kMargin;
  for (Band& band : *bands) {
    band.top = y;
    y += kBandTitle;
    for (size_t i = 0; i < band.boxes.size(); ++i) {
      const size_t column = i % kPerRow;
      if (column == 0) y += kArcRoom;
      band.boxes[i].x = kMargin + column * (kBoxWidth + kBoxGap);
      band.boxes[i].y = y;
      if (column == kPerRow - 1 || i + 1 == band.boxes.size()) {
        y += kBoxHeight;
      }
    }
    y += kBandGap;
    band.height = y - band.top;
  }
  return y;
}

const Box* FindBox(const Band& band, const std::string& table) {
  for (const Box& b : band.boxes) {
    if (b.table == table) return &b;
  }
  return nullptr;
}

// A foreign key from |a| (the referencing table) to |b|: an arc above the
// row when both are in one row, else a line between the rows; a loop for
// a self-reference.
std::string EdgePath(const Box& a, const Box& b) {
  const double ax = a.x + kBoxWidth / 2, bx = b.x + kBoxWidth / 2;
  if (&a == &b) {
    const double x = a.x + kBoxWidth - 24, y = a.y;
    return fmt::format("M{},{} C{},{} {},{} {},{}", N(x), N(y), N(x - 6),
                       N(y - 30), N(x + 30), N(y - 30), N(x + 14), N(y));
  }
  if (a.y == b.y) {
    const double lift = 14 + std::min(20.0, std::abs(ax - bx) / 20);
    const double from = ax + (bx > ax ? 12 : -12);
    const double to = bx + (bx > ax ? -12 : 12);
    return fmt::format("M{},{} Q{},{} {},{}", N(from), N(a.y),
                       N((from + to) / 2), N(a.y - 2 * lift), N(to), N(b.y));
  }
  const bool down = b.y > a.y;
  return fmt::format("M{},{} L{},{}", N(ax), N(down ? a.y + kBoxHeight : a.y),
                     N(bx), N(down ? b.y : b.y + kBoxHeight));
}

void RenderBox(const Box& b, Markup* out) {
  out->Open("g", {{"class", b.reference ? "table reference" : "table"}});
  out->Element("title", {}, b.table);
  std::vector<Attr> rect = {
      {"x", N(b.x)},
      {"y", N(b.y)},
      {"width", N(kBoxWidth)},
      {"height", N(kBoxHeight)},
      {"rx", "4"},
      {"fill", b.reference ? "#fff6e0" : "#eef5fa"},
      {"stroke", b.reference ? palette::kOrange : palette::kBlue},
      {"stroke-width", b.anchor ? "3" : "1.5"}};
  if (b.reference) rect.emplace_back("stroke-dasharray", "6 3");
  out->Empty("rect", rect);
  out->Element("text",
               {{"x", N(b.x + 8)}, {"y", N(b.y + 18)}, {"class", "box-name"}},
               Shorten(b.table, 24));
  out->Element("text",
               {{"x", N(b.x + 8)}, {"y", N(b.y + 35)}, {"class", "box-detail"}},
               Shorten(b.detail, 28));
  out->Close();
}

// One kind of edge: the foreign keys that co-locate a group (solid, blue)
// or those to a reference table (dashed, grey).
struct EdgeStyle {
  const char* css_class;
  const char* stroke;
  const char* width;
  const char* dash;  // "" = solid
  const char* what;  // in the tooltip
};

void RenderEdgeKind(
    const Band& band,
    const std::vector<std::pair<std::string, std::string>>& edges,
    const EdgeStyle& style, Markup* out) {
  for (const auto& [from, to] : edges) {
    const Box* a = FindBox(band, from);
    const Box* b = FindBox(band, to);
    if (a == nullptr || b == nullptr) continue;
    std::vector<Attr> attrs = {{"class", style.css_class},
                               {"d", EdgePath(*a, *b)},
                               {"fill", "none"},
                               {"stroke", style.stroke},
                               {"stroke-width", style.width},
                               {"marker-end", "url(#citus-groups-arrow)"}};
    if (*style.dash) attrs.emplace_back("stroke-dasharray", style.dash);
    out->Open("path", attrs);
    out->Element("title", {}, from + " → " + to + " (" + style.what + ")");
    out->Close();
  }
}

void RenderEdges(const Band& band, Markup* out) {
  RenderEdgeKind(
      band, band.to_reference,
      {"fk-reference", palette::kGrey, "1.5", "4 3", "reference table"}, out);
  RenderEdgeKind(band, band.keys, {"fk", palette::kBlue, "2", "", "co-located"},
                 out);
}

void RenderGroupsDiagram(const CitusView& citus, Markup* out) {
  std::vector<Band> bands = Bands(citus);
  if (bands.empty()) return;
  const double height = Layout(&bands);
  OpenFigure("Co-location groups", out);
  out->Element("p", {{"class", "note"}},
               "Each band is a co-location group: rows with the same "
               "distribution value live on the same worker, so the joins and "
               "foreign keys between its tables stay on one worker. Solid "
               "boxes are distributed tables (the thick one is the group's "
               "anchor, created first); dashed boxes are reference tables, "
               "copied whole to every worker. Arrows are foreign keys, from "
               "the referencing table to the referenced one.");
  out->Open("svg",
            {{"xmlns", "http://www.w3.org/2000/svg"},
             {"class", "chart diagram"},
             {"id", "citus-groups"},
             {"viewBox", fmt::format("0 0 {} {}", N(kWidth), N(height))},
             {"role", "img"},
             {"aria-labelledby", "citus-groups-title citus-groups-desc"}});
  out->Element("title", {{"id", "citus-groups-title"}}, "Co-location groups");
  out->Element(
      "desc", {{"id", "citus-groups-desc"}},
      fmt::format("{} co-location group(s); the table below lists every "
                  "table with its role.",
                  citus.groups.size()));
  out->Open("defs");
  out->Open("marker", {{"id", "citus-groups-arrow"},
                       {"viewBox", "0 0 8 8"},
                       {"refX", "8"},
                       {"refY", "4"},
                       {"markerWidth", "7"},
                       {"markerHeight", "7"},
                       {"orient", "auto"}});
  out->Empty("path", {{"d", "M0,0 L8,4 L0,8 z"}, {"fill", "#444"}});
  out->Close();
  out->Close();
  for (const Band& band : bands) {
    out->Open("g", {{"class", "group"}});
    out->Empty("rect", {{"x", N(kMargin / 2)},
                        {"y", N(band.top)},
                        {"width", N(kWidth - kMargin)},
                        {"height", N(band.height - kBandGap / 2)},
                        {"fill", "#f8f9fa"},
                        {"stroke", "#d0d0d0"}});
    out->Element(
        "text",
        {{"x", N(kMargin)}, {"y", N(band.top + 17)}, {"class", "group-title"}},
        band.title);
    RenderEdges(band, out);
    for (const Box& b : band.boxes) RenderBox(b, out);
    out->Close();
  }
  out->Close();
  out->Close();
}

void RenderTables(const CitusView& citus, Markup* out) {
  std::vector<Row> rows;
  for (const CitusTableView& t : citus.tables) {
    std::string how = t.role;
    if (!t.column.empty()) how += " by " + t.column;
    std::string group = t.group > 0 ? fmt::format("{}", t.group) : "";
    if (t.colocate_with == "none") group += " (anchor)";
    std::string why = t.why;
    for (const std::string& c : t.cautions) why += "; caution: " + c;
    rows.push_back({t.name, how, OrDash(group),
                    Bytes(static_cast<double>(t.bytes)), OrDash(why)});
  }
  RenderTable("Every table's role, and why",
              {{"table", false},
               {"role", false},
               {"group", false},
               {"size", true},
               {"why", false}},
              rows, out);
}

std::string Before(const CitusNodeView& n, bool worker) {
  if (worker) return "new host";
  return n.max_utilization_before > 0 ? Percent(n.max_utilization_before)
                                      : "not known";
}

void RenderNodes(const CitusView& citus, double target, Markup* out) {
  std::vector<const CitusNodeView*> nodes;
  for (const CitusNodeView& w : citus.workers_forecast) nodes.push_back(&w);
  nodes.push_back(&citus.coordinator);
  BarChartSpec spec;
  spec.id = "citus-nodes";
  spec.title = "Busiest volume of each node, today and after";
  spec.x_label = "utilisation of the node's busiest volume";
  spec.value_format = [](double v) { return Percent(v); };
  spec.series = {{"today", palette::kOrange, true},
                 {"after", palette::kBlue, false}};
  spec.minimum_extent = 1;
  spec.zero_label = "none today";
  spec.target = target;
  spec.target_label = "target " + Percent(target);
  spec.note_header = "today";
  std::vector<Row> rows;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const CitusNodeView& n = *nodes[i];
    const bool worker = i + 1 < nodes.size();
    spec.rows.push_back({n.name,
                         {n.max_utilization_before, n.max_utilization},
                         worker ? "new host" : "today's one host"});
    rows.push_back(
        {n.name, Bytes(static_cast<double>(n.bytes)),
         PerSecond(n.read_iops, "reads"), PerSecond(n.write_iops, "writes"),
         Before(n, worker), Percent(n.max_utilization),
         n.fits ? "meets the target" : "OVER the target", OrDash(n.note)});
  }
  spec.description = fmt::format(
      "Utilisation of the busiest volume of {} workers and the coordinator "
      "today (hatched; the workers are new hosts, the coordinator is the one "
      "host of today carrying the whole workload) and after the "
      "distribution (solid), against the {} target.",
      citus.workers_forecast.size(), Percent(target));
  OpenFigure("Load per node, today and after", out);
  RenderBarChart(spec, out);
  out->Close();
  RenderTable("Forecast per node (at the peak)",
              {{"node", false},
               {"data", true},
               {"reads", true},
               {"writes", true},
               {"busiest volume today", true},
               {"after", true},
               {"verdict", false},
               {"note", false}},
              rows, out);
}

}  // namespace

void RenderCitusSection(const ReportInput& input, Markup* out) {
  const CitusView& citus = *input.plan_details->citus;
  OpenSection("citus", "Citus distribution", input.plan_source, out);
  for (const std::string& v : citus.verdicts) {
    RenderCallout(v.find("NOT") != std::string::npos ? "warning" : "info", v,
                  out);
  }
  RenderFacts(
      {{"Why several hosts", citus.reason},
       {"Workers", fmt::format("{} ({})", citus.workers, citus.workers_reason)},
       {"Shards per distributed table",
        fmt::format("{} ({})", citus.shard_count, citus.shard_count_reason)},
       {"Worker volumes", citus.worker_volumes}},
      out);
  RenderGroupsDiagram(citus, out);
  RenderTables(citus, out);
  for (const std::string& line : citus.not_following) {
    RenderCallout("warning", "Cannot follow its group: " + line, out);
  }
  for (const CitusView::DroppedKey& k : citus.dropped_keys) {
    RenderCallout(
        "warning",
        fmt::format("Foreign key {} of {}: {}", k.constraint, k.table, k.why),
        out);
  }
  const double target = input.plan ? input.plan->target_utilization : 0.7;
  RenderNodes(citus, target, out);
  out->Element("p", {{"class", "note"}},
               "citus.sql carries the distribution out; pglayout migrate does "
               "not. Shards added workers receive later are moved by Citus's "
               "rebalancer (SELECT citus_rebalance_start()).");
  out->Close();
}

}  // namespace pglayout::report::internal
