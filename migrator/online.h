// Internal to the migrator: the online step runners the apply phase and the
// run modes call. An online move or hash conversion copies the table into a
// shadow beside a change capture, then swaps it in (online.cc drives the
// phases; online_*.h hold them).
// Why and how: docs/online-migration.md#how-an-online-copy-runs.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_H_
#define PGLAYOUT_MIGRATOR_ONLINE_H_

#include <cstdint>
#include <string>

#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/journal.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// Runs (or resumes) one online move / hash-partition conversion; |step_no|
// orders the journal rows. On return OK the table is swapped and the
// journal step is done.
Status RunOnlineCopy(Executor* ex, const Step& step, int step_no,
                     const StepRecord& record, uint32_t oid);

// Removes what an unfinished online step made (before its swap): capture
// triggers, the shadow and its partitions, the log. Safe on any state.
Status AbortOnlineCopy(Executor* ex, const std::string& relation,
                       const StepRecord& record);

// The schema and name an online step's table had when its copy started
// (kept in the journal: after the swap the original oid names the old copy).
// False when the step has not recorded them.
bool OnlineStepTable(const StepRecord& record, std::string* schema,
                     std::string* table);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_H_
