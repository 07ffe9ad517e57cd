// Internal to report/: the page's sections and the building blocks they
// share (tables, figures, key-figure lists). The public API is report.h.

#ifndef PGLAYOUT_REPORT_SECTIONS_H_
#define PGLAYOUT_REPORT_SECTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "report/markup.h"
#include "report/report.h"

namespace pglayout::report::internal {

void RenderVolumesSection(const ReportInput& input, Markup* out);
void RenderWorkloadSection(const ReportInput& input, Markup* out);
void RenderPlanSection(const ReportInput& input, Markup* out);
// The Citus distribution; needs input.plan_details->citus.
void RenderCitusSection(const ReportInput& input, Markup* out);
void RenderMigrationSection(const ReportInput& input, Markup* out);
// The plan's forecast against the load observed after the migration; needs
// input.plan and input.measured_after.
void RenderForecastCheckSection(const ReportInput& input, Markup* out);
// "At a glance": the few figures a reader looks for first.
void RenderGlance(const ReportInput& input, Markup* out);

struct Column {
  std::string header;
  bool numeric = false;  // right-aligned, tabular figures
};
using Row = std::vector<std::string>;

// A <table> in a horizontally scrollable wrapper (phones), with a caption.
void RenderTable(const std::string& caption, const std::vector<Column>& columns,
                 const std::vector<Row>& rows, Markup* out);

// Key figures as a <dl>: (term, value) pairs; pairs with an empty value
// are left out, so callers can pass optional figures unconditionally.
void RenderFacts(const std::vector<std::pair<std::string, std::string>>& facts,
                 Markup* out);

// Opens <figure> with a caption; the caller adds the chart, optionally
// calls RenderFigureData, then closes the figure with out->Close().
void OpenFigure(const std::string& caption, Markup* out);
// The numbers behind a chart, in a collapsed <details> table.
void RenderFigureData(const std::vector<Column>& columns,
                      const std::vector<Row>& rows, Markup* out);

// A highlighted paragraph: kind is "warning" or "info"; the text starts
// with a symbol so the kind does not rely on colour.
void RenderCallout(const std::string& kind, const std::string& text,
                   Markup* out);

// <section id=...><h2>title</h2><p class="source">from ...</p>
void OpenSection(const std::string& id, const std::string& title,
                 const std::string& source, Markup* out);

// "—" for empty values in tables.
std::string OrDash(const std::string& text);

}  // namespace pglayout::report::internal

#endif  // PGLAYOUT_REPORT_SECTIONS_H_
