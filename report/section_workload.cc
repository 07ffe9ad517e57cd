// The workload section: the hottest relations ranked, WAL rate and the
// checkpoints the server took (timed against requested).

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/units.h"
#include "report/chart.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

// Enough bars to show where the I/O goes without a chart taller than a
// screen; the table below the chart lists more.
constexpr size_t kRankedBars = 12;
constexpr size_t kRankedRows = 30;
// Requested checkpoints above this share of all checkpoints mean WAL
// outruns max_wal_size: on a healthy server the share is near 0
// (docs/checkpoints.md#timed-and-requested).
constexpr double kRequestedShareWarning = 0.1;

double Demand(const Relation& r) { return r.read_iops + r.write_iops; }

std::vector<const Relation*> Ranked(const Workload& w) {
  std::vector<const Relation*> ranked;
  for (const Relation& r : w.relations) ranked.push_back(&r);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Relation* a, const Relation* b) {
                     return Demand(*a) > Demand(*b);
                   });
  return ranked;
}

std::string Observed(const Workload& w) {
  std::string text;
  if (w.duration > 0) text = "observed for " + Seconds(w.duration);
  if (!w.source.empty()) {
    text += (text.empty() ? "source: " : ", source: ") + w.source;
  }
  return text;
}

// The workload's server_version_num as people write it; "" or anything
// else as it is.
std::string ServerVersionName(const std::string& num) {
  char* end = nullptr;
  const long v = std::strtol(num.c_str(), &end, 10);
  if (num.empty() || *end != '\0' || v <= 0) return num;
  return FormatServerVersion(static_cast<int>(v));
}

void RenderWorkloadFacts(const Workload& w, Markup* out) {
  double total = 0;
  for (const Relation& r : w.relations) total += static_cast<double>(r.size);
  std::string wal;
  if (w.wal_bytes_per_second) {
    wal = BytesPerSecond(*w.wal_bytes_per_second) + " average";
  } else {
    wal = "rate unknown";
  }
  if (w.wal_bytes_per_second_peak > 0) {
    wal += (wal.empty() ? "" : " · ") +
           BytesPerSecond(w.wal_bytes_per_second_peak) + " peak";
  }
  RenderFacts(
      {{"Observation", Observed(w)},
       {"Relations",
        fmt::format("{} ({} in all)", w.relations.size(), Bytes(total))},
       {"WAL written", wal},
       {"Commits", w.commits_per_second > 0
                       ? PerSecond(w.commits_per_second, "commits")
                       : ""},
       {"Server version",
        ServerVersionName(w.Setting("server_version_num").value_or(""))},
       {"max_wal_size", w.Setting("max_wal_size").value_or("")},
       {"shared_buffers", w.Setting("shared_buffers").value_or("")}},
      out);
}

void RenderHotRelations(const Workload& w, Markup* out) {
  std::vector<const Relation*> ranked = Ranked(w);
  BarChartSpec spec;
  spec.id = "workload-hot";
  spec.title = "Hottest relations by I/O";
  spec.x_label =
      "8 KiB blocks per second at peak (read from outside "
      "shared_buffers / written)";
  spec.value_format = [](double v) { return Compact(v); };
  spec.series = {{"reads/s", palette::kBlue, false},
                 {"writes/s", palette::kVermillion, true}};
  spec.note_header = "size";
  for (size_t i = 0; i < ranked.size() && i < kRankedBars; ++i) {
    const Relation& r = *ranked[i];
    spec.rows.push_back({r.name,
                         {r.read_iops, r.write_iops},
                         Bytes(static_cast<double>(r.size))});
  }
  spec.description = fmt::format(
      "The {} relations with the most block reads and writes per second, "
      "ranked; reads are solid bars, writes hatched bars, sizes on the "
      "right.",
      spec.rows.size());
  std::vector<Row> rows;
  for (size_t i = 0; i < ranked.size() && i < kRankedRows; ++i) {
    const Relation& r = *ranked[i];
    rows.push_back({fmt::format("{}", i + 1), r.name, RelationKindName(r.kind),
                    Bytes(static_cast<double>(r.size)), Iops(r.read_iops),
                    Iops(r.write_iops), OrDash(r.tablespace)});
  }
  OpenFigure("Hottest relations (ranked by reads + writes)", out);
  RenderBarChart(spec, out);
  out->Close();
  RenderTable(
      ranked.size() > kRankedRows
          ? fmt::format("Top {} of {} relations", kRankedRows, ranked.size())
          : "Relations",
      {{"#", true},
       {"relation", false},
       {"kind", false},
       {"size", true},
       {"reads at peak", true},
       {"writes at peak", true},
       {"tablespace", false}},
      rows, out);
}

void RenderCheckpoints(const Workload& w, Markup* out) {
  const Checkpoints& c = w.checkpoints;
  int64_t total = c.timed + c.requested;
  if (total == 0) return;
  double share = static_cast<double>(c.requested) / static_cast<double>(total);
  BarChartSpec spec;
  spec.id = "workload-checkpoints";
  spec.title = "Checkpoints: timed against requested";
  spec.description = fmt::format(
      "{} timed (scheduled) and {} requested (forced by WAL volume) "
      "checkpoints; {} were requested.",
      c.timed, c.requested, Percent(share));
  spec.x_label = "checkpoints during the observation";
  spec.value_format = [](double v) { return fmt::format("{:.0f}", v); };
  spec.series = {{"checkpoints", palette::kBlue, false}};
  spec.rows = {{"timed (scheduled)", {static_cast<double>(c.timed)}, ""},
               {"requested (forced)", {static_cast<double>(c.requested)}, ""}};
  out->Element("h3", "Checkpoints");
  if (share > kRequestedShareWarning) {
    RenderCallout(
        "warning",
        fmt::format("{} of checkpoints were requested, not timed: WAL reached "
                    "max_wal_size ({}) before checkpoint_timeout, so dirty "
                    "pages were flushed as fast as the storage allows.",
                    Percent(share),
                    w.Setting("max_wal_size").value_or("unknown")),
        out);
  }
  OpenFigure("Checkpoints timed against requested", out);
  RenderBarChart(spec, out);
  out->Close();
  RenderFacts(
      {{"Write time",
        c.write_time_ms > 0 ? Seconds(c.write_time_ms / 1e3) : ""},
       {"Sync time", c.sync_time_ms > 0 ? Seconds(c.sync_time_ms / 1e3) : ""},
       {"Buffers written",
        c.buffers_written > 0
            ? fmt::format("{} ({})",
                          Compact(static_cast<double>(c.buffers_written)),
                          Bytes(static_cast<double>(c.buffers_written) * 8192))
            : ""}},
      out);
}

}  // namespace

void RenderWorkloadSection(const ReportInput& input, Markup* out) {
  const Workload& w = *input.workload;
  OpenSection("workload", "Workload", input.workload_source, out);
  RenderWorkloadFacts(w, out);
  if (!w.relations.empty()) RenderHotRelations(w, out);
  RenderCheckpoints(w, out);
  out->Close();
}

}  // namespace pglayout::report::internal
