// The steps that change server settings: the checkpoint guard's raise and
// restore of max_wal_size and the plan's [settings]. Each journals the
// original before its ALTER SYSTEM, so that a kill at any instant leaves
// enough to restore. Why: docs/checkpoints.md.

#ifndef PGLAYOUT_MIGRATOR_SETTINGS_STEPS_H_
#define PGLAYOUT_MIGRATOR_SETTINGS_STEPS_H_

#include "common/model.h"
#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/guard_restore.h"
#include "migrator/journal.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// What the guard's steps take as max_wal_size's original
// (StepOptions::guard_original, guard_restore_pending): the unfinished run
// |active|'s own journaled original (its raise not yet restored keeps the
// restore step), else the cluster-wide record's, else what an earlier run
// in this database left raised; 0 (the server's value) when none.
Status GuardOriginalFor(SqlSession* session, Journal* journal,
                        const RunRecord& active, StepOptions* options);

// Step |s| (number |no|) of |ex|'s run: max_wal_size raised to
// s.guard_value.
Status GuardRaise(Executor* ex, const Step& s, int no);

// Step |s|: each guard setting of the run back to its original (at the
// end of the run's wait for room, or deferred), unless the plan's
// [settings] set it or --leave-raised keeps it. First a line with the
// checkpoints since |run| started.
Status GuardRestore(Executor* ex, GuardRestorer* restorer, const Plan& plan,
                    const RunRecord& run, const Step& s, int no);

// Step |s|: the plan's [settings] with ALTER SYSTEM and a reload, with a
// line for each that needs a restart.
Status PlanSettings(Executor* ex, const Plan& plan, const Step& s, int no);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_SETTINGS_STEPS_H_
