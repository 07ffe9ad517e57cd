// The migration section, from the journal: steps with durations, rows and
// bytes copied, checkpoints during the run, settings raised and restored.

#include <fmt/format.h>

#include <algorithm>

#include "report/chart.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

std::string StepLabel(const JournalStep& s) {
  std::string label = fmt::format("#{} {}", s.ordinal, s.kind);
  if (!s.relation.empty()) label += " " + s.relation;
  return label;
}

// Status words with a symbol, so that failures stand out without colour.
std::string StatusText(const std::string& status) {
  if (status == "done") return "✓ done";
  if (status == "failed") return "✗ failed";
  if (status == "aborted") return "✗ aborted";
  if (status == "running") return "▶ running";
  return OrDash(status);
}

void RenderRunFacts(const MigrationJournal& j, Markup* out) {
  double seconds = 0, rows = 0, bytes = 0;
  for (const JournalStep& s : j.steps) {
    seconds += s.duration;
    rows += static_cast<double>(s.rows);
    bytes += static_cast<double>(s.bytes);
  }
  RenderFacts({{"Run", j.run},
               {"Plan", j.plan},
               {"Status", StatusText(j.status)},
               {"Started", j.started_at},
               {"Finished", j.finished_at},
               {"Time in steps", Seconds(seconds)},
               {"Rows copied", rows > 0 ? Compact(rows) + " rows" : ""},
               {"Data copied", bytes > 0 ? Bytes(bytes) : ""},
               {"Verification", VerificationOf(j)}},
              out);
}

void RenderStepChart(const MigrationJournal& j, Markup* out) {
  BarChartSpec spec;
  spec.id = "migration-steps";
  spec.title = "Migration steps by duration";
  spec.description = fmt::format(
      "How long each of the {} steps took, in order of execution; the data "
      "each copied is on the right.",
      j.steps.size());
  // Axis in seconds, minutes or hours so that ticks fall on round values
  // of one unit; bars keep their exact "12 min 5 s" labels.
  double longest = 0;
  for (const JournalStep& s : j.steps) longest = std::max(longest, s.duration);
  double unit = longest >= 7200 ? 3600 : longest >= 120 ? 60 : 1;
  const char* unit_name = unit == 3600 ? "h" : unit == 60 ? "min" : "s";
  spec.x_label = fmt::format("duration ({})", unit_name);
  spec.value_format = [unit](double v) { return Seconds(v * unit); };
  spec.tick_format = [unit_name](double v) {
    return fmt::format("{:g} {}", v, unit_name);
  };
  spec.series = {{"duration", palette::kBlue, false}};
  spec.note_header = "copied";
  for (const JournalStep& s : j.steps) {
    spec.rows.push_back(
        {StepLabel(s),
         {s.duration / unit},
         s.bytes > 0 ? Bytes(static_cast<double>(s.bytes)) : ""});
  }
  OpenFigure("Steps and their durations", out);
  RenderBarChart(spec, out);
  out->Close();
}

void RenderStepTable(const MigrationJournal& j, Markup* out) {
  std::vector<Row> rows;
  for (const JournalStep& s : j.steps) {
    std::string what = s.description;
    if (s.verify == "off") {
      what += (what.empty() ? "" : "; ") + std::string("unverified");
    }
    if (!s.error.empty()) what += (what.empty() ? "" : ": ") + s.error;
    rows.push_back({fmt::format("{}", s.ordinal), s.kind, OrDash(s.relation),
                    StatusText(s.status),
                    s.duration > 0 ? Seconds(s.duration) : "—",
                    s.rows > 0 ? Compact(static_cast<double>(s.rows)) : "—",
                    s.bytes > 0 ? Bytes(static_cast<double>(s.bytes)) : "—",
                    OrDash(what)});
  }
  RenderTable("Steps",
              {{"#", true},
               {"step", false},
               {"relation", false},
               {"status", false},
               {"duration", true},
               {"rows", true},
               {"copied", true},
               {"details", false}},
              rows, out);
}

void RenderRunCheckpoints(const MigrationJournal& j, Markup* out) {
  if (!j.checkpoints_unknown.empty()) {
    out->Element("h3", "Checkpoints during the run");
    out->Element("p", {{"class", "note"}},
                 "Timed and requested checkpoints during the run: unknown (" +
                     j.checkpoints_unknown +
                     "): the server's counters started over while the run "
                     "went on, so no difference of them counts the run's.");
    return;
  }
  int64_t total = j.checkpoints_timed + j.checkpoints_requested;
  if (total == 0) return;
  out->Element("h3", "Checkpoints during the run");
  if (j.checkpoints_until_read) {
    out->Element("p", {{"class", "note"}},
                 "Counted from the start of the run until this report was "
                 "written: the run has not finished (it is still going, or "
                 "was stopped and not yet resumed).");
  }
  if (j.checkpoints_requested > 0) {
    RenderCallout("warning",
                  fmt::format("{} checkpoint(s) were requested during the "
                              "run: bulk writes outran max_wal_size.",
                              j.checkpoints_requested),
                  out);
  }
  BarChartSpec spec;
  spec.id = "migration-checkpoints";
  spec.title = "Checkpoints during the migration";
  spec.description =
      fmt::format("{} timed and {} requested checkpoints during the run.",
                  j.checkpoints_timed, j.checkpoints_requested);
  spec.x_label = "checkpoints during the run";
  spec.value_format = [](double v) { return fmt::format("{:.0f}", v); };
  spec.series = {{"checkpoints", palette::kBlue, false}};
  spec.rows = {
      {"timed (scheduled)", {static_cast<double>(j.checkpoints_timed)}, ""},
      {"requested (forced)",
       {static_cast<double>(j.checkpoints_requested)},
       ""}};
  OpenFigure("Checkpoints timed against requested during the run", out);
  RenderBarChart(spec, out);
  out->Close();
}

// Whether a setting ended where it should: a temporary one back at its
// original value (or on its way there: the states of migrator/journal.h),
// a plan's one applied.
std::string SettingOutcome(const JournalSetting& s) {
  if (s.temporary) {
    if (s.state == "restored") return "✓ restored to " + OrDash(s.original);
    if (s.state == "deferred") {
      return "restore to " + OrDash(s.original) +
             " deferred until a timed checkpoint makes room (`pglayout "
             "migrate --status` completes it then)";
    }
    if (s.state == "left") {
      return "left raised on purpose (`pglayout migrate --finalize` "
             "restores it)";
    }
    if (s.state == "changed") return "changed by someone else since: left";
    if (s.state == "superseded") return "taken over by a later run or the plan";
    if (s.state == "applied" || s.state == "pending") {
      return "✗ still raised by this run, which has not finished: `pglayout "
             "migrate --apply` with its plan resumes it and restores it to " +
             OrDash(s.original) +
             ", `pglayout migrate --abort` restores it now";
    }
    return "✗ not restored (" + OrDash(s.state) + ")";
  }
  if (s.state == "applied") return "✓ set by the plan";
  return "set by the plan (" + OrDash(s.state) + ")";
}

void RenderRunSettings(const MigrationJournal& j, Markup* out) {
  if (j.settings.empty()) return;
  std::vector<Row> rows;
  for (const JournalSetting& s : j.settings) {
    rows.push_back({s.name, s.temporary ? "for the run" : "plan",
                    OrDash(s.original), OrDash(s.value), SettingOutcome(s)});
  }
  out->Element("h3", "Settings changed");
  RenderTable("Settings raised for the run and put back, and the plan's",
              {{"setting", false},
               {"changed", false},
               {"before", true},
               {"set to", true},
               {"outcome", false}},
              rows, out);
}

}  // namespace

void RenderMigrationSection(const ReportInput& input, Markup* out) {
  OpenSection("migration", "Migration", input.journal_source, out);
  if (input.journal == nullptr) {
    RenderCallout("warning", input.journal_problem, out);
    out->Close();
    return;
  }
  const MigrationJournal& j = *input.journal;
  RenderRunFacts(j, out);
  if (!j.steps.empty()) {
    RenderStepChart(j, out);
    RenderStepTable(j, out);
  }
  RenderRunCheckpoints(j, out);
  RenderRunSettings(j, out);
  out->Close();
}

}  // namespace pglayout::report::internal
