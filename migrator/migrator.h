// `pglayout migrate`: executes a plan on a live server.
//
//   MigrateOptions options;
//   options.conninfo = "host=... dbname=app";
//   options.apply = true;             // false: a dry run that changes nothing
//   MigrateResult report;
//   Status s = Migrate(plan, options, &progress, &report);
//
// A dry run returns the ordered steps with their exact SQL. An apply journals
// and executes them; killed at any instant, the same plan resumes. kAbort,
// kFinalize and kStatus act on unfinished and finished runs. A preflight
// refusal is InvalidInput listing every problem, with nothing changed.
// How a run proceeds: docs/online-migration.md#runs.

#ifndef PGLAYOUT_MIGRATOR_MIGRATOR_H_
#define PGLAYOUT_MIGRATOR_MIGRATOR_H_

#include "common/model.h"
#include "common/progress.h"
#include "common/status.h"
#include "migrator/migrate_options.h"
#include "migrator/migrate_result.h"

namespace pglayout::migrator {

Status Migrate(const Plan& plan, const MigrateOptions& options,
               ProgressSink* progress, MigrateResult* report);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_MIGRATOR_H_
