// `pglayout report`: one self-contained HTML page showing the volumes, the
// workload, the plan and the migration at a glance, for a DBA to decide
// from and to attach to a change request.
//
// The page has no external assets and no script: inline CSS and inline SVG
// only, and a Content-Security-Policy that forbids loading anything, so it
// renders the same offline, in a mail client or printed. It is well-formed
// XML as well as HTML (see report/markup.h); every text from the inputs is
// escaped.
//
// Each section appears when its input is given; any subset is allowed
// (none gives a page that says so).

#ifndef PGLAYOUT_REPORT_REPORT_H_
#define PGLAYOUT_REPORT_REPORT_H_

#include <string>

#include "common/model.h"
#include "report/journal.h"

namespace pglayout::report {

struct ReportInput {
  // Each pointer may be null; the object must outlive RenderPage().
  const VolumeSet* volumes = nullptr;
  const Workload* workload = nullptr;
  const Plan* plan = nullptr;
  const MigrationJournal* journal = nullptr;
  // The load of the workload observed after the migration, on the volumes
  // where its data now is (planner::LoadWhereItIs): with |plan|, the page
  // holds the plan's forecast to it ("Forecast against the layout").
  const std::vector<ForecastEntry>* measured_after = nullptr;
  // Where each input came from, shown in the page ("volumes.toml",
  // "db.example:5432/app as dba").
  std::string volumes_source;
  std::string workload_source;
  std::string plan_source;
  std::string journal_source;
  std::string after_source;  // the workload file observed after
  // Shown instead of the migration section's content when a journal was
  // asked for but could not be read (e.g. "no journal in this database").
  std::string journal_problem;
  // Shown in the header. The caller passes the time so that the same
  // inputs give the same bytes (tests compare pages).
  std::string generated_at;
  std::string version;  // pglayout's version
};

// The whole page, UTF-8.
std::string RenderPage(const ReportInput& input);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_REPORT_H_
