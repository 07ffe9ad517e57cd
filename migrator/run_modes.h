// The modes that act on runs from the journal alone, without a plan:
// --status, --abort and --finalize. |active| is the unfinished run
// (run_id 0 = none). How each proceeds: docs/online-migration.md#runs.

#ifndef PGLAYOUT_MIGRATOR_RUN_MODES_H_
#define PGLAYOUT_MIGRATOR_RUN_MODES_H_

#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/guard_restore.h"
#include "migrator/journal.h"

namespace pglayout::migrator {

// Where the runs stand, for people (report lines) and --json (settings):
// the unfinished run and its steps, a deferred restore (completed first
// if a timed checkpoint has made room), settings left raised, old copies
// and (no run unfinished) capture slots awaiting --finalize.
Status ShowStatus(const RunRecord& active, Executor* ex,
                  GuardRestorer* restorer, MigrateResult* report);

// Rolls |active| back: unswapped online steps undone, a swapped one kept
// (its old copy too), its settings restored; the run journaled aborted.
Status AbortRun(const RunRecord& active, Executor* ex, GuardRestorer* restorer,
                MigrateResult* report);

// With no run unfinished: drops the old copies kept after swaps and the
// capture slots and publications runs left (each one tried, and told;
// Aborted listing those kept, a slot in use among them) and restores what
// runs left raised.
Status FinalizeRuns(const RunRecord& active, Executor* ex,
                    GuardRestorer* restorer);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_RUN_MODES_H_
