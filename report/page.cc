// The page around the sections: head, style, header, summary, navigation,
// footer; and the building blocks every section uses.

#include <fmt/format.h>

#include "report/report.h"
#include "report/sections.h"

namespace pglayout::report {
namespace {

// Nothing may be fetched: a report mailed around must not phone home, and a
// stray external reference shows up as a console error in the browser test.
constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; style-src 'unsafe-inline'";

// One stylesheet, written here by hand. Colours from the Okabe-Ito palette
// (chart.h); text contrast at least 4.5:1. Narrow screens get one column;
// print drops navigation and keeps figures whole.
constexpr char kStyle[] = R"css(
:root { color-scheme: light; --ink: #1a1a1a; --muted: #555; --rule: #d0d0d0;
  --blue: #0072B2; --vermillion: #D55E00; --band: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
  sans-serif; }
main, header.page, footer.page, nav.toc { max-width: 1180px; margin: 0 auto;
  padding: 0 16px; }
header.page { padding-top: 20px; border-bottom: 3px solid var(--blue); }
header.page h1 { margin: 0; font-size: 1.6rem; }
header.page p { margin: 4px 0 12px; color: var(--muted); }
nav.toc { padding-top: 8px; padding-bottom: 8px; }
nav.toc ul { list-style: none; margin: 0; padding: 0; display: flex;
  flex-wrap: wrap; gap: 6px 18px; }
nav.toc a { color: var(--blue); }
h2 { font-size: 1.3rem; margin: 28px 0 4px; padding-bottom: 4px;
  border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.1rem; margin: 22px 0 6px; }
h3 .tag { font-size: .8rem; font-weight: normal; color: var(--muted);
  border: 1px solid var(--rule); border-radius: 3px; padding: 0 5px;
  margin-left: 6px; vertical-align: middle; }
p.source { margin: 0 0 10px; color: var(--muted); font-size: .9rem; }
p.note { color: var(--muted); font-size: .9rem; }
.glance { display: grid; gap: 10px; margin: 14px 0;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 200px), 1fr)); }
.glance div { background: var(--band); border-left: 4px solid var(--blue);
  padding: 8px 12px; }
.glance div.alert { border-left-color: var(--vermillion); }
.glance b { display: block; font-size: 1.25rem; }
.glance span { color: var(--muted); font-size: .85rem; }
dl.facts { display: grid; gap: 2px 16px; margin: 8px 0 12px;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 250px), 1fr)); }
dl.facts div { padding: 3px 0; border-bottom: 1px dotted var(--rule); }
dl.facts dt { color: var(--muted); font-size: .85rem; }
dl.facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.figures { display: grid; gap: 12px 20px;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 440px), 1fr)); }
figure { margin: 6px 0 10px; break-inside: avoid; max-width: 760px; }
figcaption { font-weight: 600; margin-bottom: 2px; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart text { font-family: inherit; font-size: 13px; fill: var(--ink); }
svg.chart .tick { font-size: 12px; fill: #444; }
svg.chart .axis-title { font-size: 13px; fill: #333; }
svg.chart .point-label { font-size: 11px; fill: #444; }
svg.chart .rule-label, svg.chart .highlight-label, svg.chart .bar-value,
svg.chart .point-label { paint-order: stroke; stroke: #fff; stroke-width: 3px;
  stroke-linejoin: round; }
svg.chart .rule-label, svg.chart .highlight-label { font-weight: 600; }
svg.chart .bar-value { font-size: 12px; }
svg.chart .bar-value.over { font-weight: 700; }
svg.chart .bar-note, svg.chart .bar-note-header { font-size: 12px;
  fill: #444; }
svg.diagram .box-name, svg.diagram .group-title { font-weight: 600; }
svg.diagram .box-detail { font-size: 11px; fill: #444; }
.remedies { display: grid; gap: 10px 16px; margin: 8px 0 12px;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 320px), 1fr)); }
.remedies article { border: 1px solid var(--rule); border-top: 4px solid
  var(--rule); padding: 6px 12px; }
.remedies article.chosen { border-top-color: var(--blue); }
.remedies h4 { margin: 4px 0; font-size: 1rem; }
details { margin: 4px 0; }
summary { cursor: pointer; color: var(--blue); font-size: .9rem; }
.table-wrap { overflow-x: auto; margin: 6px 0 14px; }
table { border-collapse: collapse; font-size: .9rem; min-width: 50%; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--rule);
  text-align: left; vertical-align: top; }
th { background: var(--band); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td code, dd code { font-size: .85rem; }
pre.commands { background: var(--band); padding: 8px 12px; margin: 6px 0 12px;
  overflow-x: auto; font-size: .85rem; }
.callout { padding: 8px 12px; margin: 8px 0; border-left: 4px solid; }
.callout.warning { border-color: var(--vermillion); background: #fdf1ea; }
.callout.info { border-color: var(--blue); background: #eef5fa; }
.matrix td.cell { text-align: center; white-space: nowrap; }
.matrix td.cell.on { background: #e3eff7; font-weight: 600; }
footer.page { margin-top: 32px; padding-top: 10px; padding-bottom: 24px;
  border-top: 1px solid var(--rule); color: var(--muted); font-size: .85rem; }
@media (max-width: 600px) {
  body { font-size: 14px; }
  th, td { padding: 3px 6px; }
  /* Charts keep a legible size and scroll sideways rather than shrink
     their labels below ~10px. */
  figure { overflow-x: auto; }
  svg.chart { min-width: 440px; }
}
@media print {
  nav.toc { display: none; }
  body { font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  section, article { break-inside: auto; }
  h2, h3 { break-after: avoid; }
  .table-wrap { overflow: visible; }
}
)css";

using internal::OpenSection;

bool HasCitus(const ReportInput& in) {
  return in.plan && in.plan_details && in.plan_details->citus;
}

void RenderHead(Markup* out) {
  out->Open("head");
  out->Empty("meta", {{"charset", "utf-8"}});
  out->Empty("meta", {{"http-equiv", "Content-Security-Policy"},
                      {"content", kContentSecurityPolicy}});
  out->Empty("meta", {{"name", "viewport"},
                      {"content", "width=device-width, initial-scale=1"}});
  out->Element("title", "pglayout report");
  out->Open("style");
  out->Trusted(kStyle);
  out->Close();
  out->Close();
}

std::string InputsLine(const ReportInput& in) {
  std::vector<std::string> parts;
  if (in.volumes) parts.push_back("volumes: " + in.volumes_source);
  if (in.workload) parts.push_back("workload: " + in.workload_source);
  if (in.plan) parts.push_back("plan: " + in.plan_source);
  if (in.journal || !in.journal_problem.empty()) {
    parts.push_back("journal: " + in.journal_source);
  }
  if (parts.empty()) return "No inputs were given.";
  std::string line;
  for (const std::string& p : parts) line += (line.empty() ? "" : " · ") + p;
  return line;
}

void RenderHeader(const ReportInput& in, Markup* out) {
  out->Open("header", {{"class", "page"}});
  out->Element("h1", "PostgreSQL data placement report");
  out->Element("p", InputsLine(in));
  std::string generated = "Generated by pglayout";
  if (!in.version.empty()) generated += " " + in.version;
  if (!in.generated_at.empty()) generated += " on " + in.generated_at;
  out->Element("p", generated);
  out->Close();
}

void RenderNavigation(const ReportInput& in, Markup* out) {
  std::vector<std::pair<std::string, std::string>> links;
  if (in.volumes) links.emplace_back("volumes", "Volumes");
  if (in.workload) links.emplace_back("workload", "Workload");
  if (in.plan) links.emplace_back("plan", "Plan");
  if (HasCitus(in)) links.emplace_back("citus", "Citus distribution");
  if (in.plan && in.measured_after) {
    links.emplace_back("forecast-check", "Forecast against the layout");
  }
  if (in.journal || !in.journal_problem.empty()) {
    links.emplace_back("migration", "Migration");
  }
  if (links.size() < 2) return;
  out->Open("nav", {{"class", "toc"}, {"aria-label", "Sections"}});
  out->Open("ul");
  for (const auto& [id, title] : links) {
    out->Open("li");
    out->Element("a", {{"href", "#" + id}}, title);
    out->Close();
  }
  out->Close();
  out->Close();
}

void RenderFooter(Markup* out) {
  out->Open("footer", {{"class", "page"}});
  out->Element(
      "p",
      "Units: IOPS are 8 KiB I/Os per second; MB/s and GB/s are 10^6 and "
      "10^9 bytes per second; sizes are powers of 1024 (KiB, MiB, GiB); "
      "latencies are per I/O. Rates of relations are at the observed peak "
      "(95th percentile of intervals) unless marked average.");
  out->Close();
}

}  // namespace

namespace internal {

std::string OrDash(const std::string& text) {
  return text.empty() ? "—" : text;
}

void RenderTable(const std::string& caption, const std::vector<Column>& columns,
                 const std::vector<Row>& rows, Markup* out) {
  out->Open("div", {{"class", "table-wrap"}});
  out->Open("table");
  if (!caption.empty()) out->Element("caption", caption);
  out->Open("thead");
  out->Open("tr");
  for (const Column& c : columns) {
    std::vector<Attr> attrs = {{"scope", "col"}};
    if (c.numeric) attrs.emplace_back("class", "num");
    out->Open("th", attrs);
    out->Text(c.header);
    out->Close();
  }
  out->Close();
  out->Close();
  out->Open("tbody");
  for (const Row& row : rows) {
    out->Open("tr");
    for (size_t i = 0; i < row.size(); ++i) {
      bool numeric = i < columns.size() && columns[i].numeric;
      out->Open("td", numeric ? std::vector<Attr>{{"class", "num"}}
                              : std::vector<Attr>{});
      out->Text(row[i]);
      out->Close();
    }
    out->Close();
  }
  out->Close();
  out->Close();
  out->Close();
}

void RenderFacts(const std::vector<std::pair<std::string, std::string>>& facts,
                 Markup* out) {
  out->Open("dl", {{"class", "facts"}});
  for (const auto& [term, value] : facts) {
    if (value.empty()) continue;
    out->Open("div");
    out->Element("dt", term);
    out->Element("dd", value);
    out->Close();
  }
  out->Close();
}

void OpenFigure(const std::string& caption, Markup* out) {
  out->Open("figure");
  out->Element("figcaption", caption);
}

void RenderFigureData(const std::vector<Column>& columns,
                      const std::vector<Row>& rows, Markup* out) {
  out->Open("details");
  out->Element("summary", "Numbers behind the chart");
  RenderTable("", columns, rows, out);
  out->Close();
}

void RenderCallout(const std::string& kind, const std::string& text,
                   Markup* out) {
  const char* symbol = kind == "warning" ? "⚠ " : "ℹ ";
  out->Element("p", {{"class", "callout " + kind}, {"role", "note"}},
               symbol + text);
}

void OpenSection(const std::string& id, const std::string& title,
                 const std::string& source, Markup* out) {
  out->Open("section", {{"id", id}, {"aria-labelledby", id + "-h"}});
  out->Element("h2", {{"id", id + "-h"}}, title);
  if (!source.empty()) {
    out->Element("p", {{"class", "source"}}, "From " + source);
  }
}

}  // namespace internal

std::string RenderPage(const ReportInput& input) {
  Markup page;
  page.Trusted("<!DOCTYPE html>\n");
  page.Open("html", {{"xmlns", "http://www.w3.org/1999/xhtml"},
                     {"lang", "en"},
                     {"xml:lang", "en"}});
  RenderHead(&page);
  page.Open("body");
  RenderHeader(input, &page);
  RenderNavigation(input, &page);
  page.Open("main");
  internal::RenderGlance(input, &page);
  if (!input.volumes && !input.workload && !input.plan && !input.journal &&
      input.journal_problem.empty()) {
    page.Element("p", {{"class", "note"}},
                 "Nothing to show: give --volumes, --workload, --plan or "
                 "--journal.");
  }
  if (input.volumes) internal::RenderVolumesSection(input, &page);
  if (input.workload) internal::RenderWorkloadSection(input, &page);
  if (input.plan) internal::RenderPlanSection(input, &page);
  if (HasCitus(input)) internal::RenderCitusSection(input, &page);
  if (input.plan && input.measured_after) {
    internal::RenderForecastCheckSection(input, &page);
  }
  if (input.journal || !input.journal_problem.empty()) {
    internal::RenderMigrationSection(input, &page);
  }
  page.Close();
  RenderFooter(&page);
  return page.Finish() + "\n";
}

}  // namespace pglayout::report
