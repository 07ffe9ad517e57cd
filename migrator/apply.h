// Applying a run: its journal row started (or resumed), each step not yet
// done executed in order and journaled, the run finished with its
// checkpoint counts. A failed step's error is journaled; the run resumes
// from there when started again.
// How a run proceeds: docs/online-migration.md#runs.

#ifndef PGLAYOUT_MIGRATOR_APPLY_H_
#define PGLAYOUT_MIGRATOR_APPLY_H_

#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/guard_restore.h"
#include "migrator/journal.h"
#include "migrator/prepare.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// What an apply works from, all read before it (prepare.h).
struct ApplyInput {
  const Plan* plan = nullptr;
  const std::vector<Step>* steps = nullptr;
  const RunFacts* facts = nullptr;
  // The journaled steps of the run resumed, by key (empty for a new run).
  const std::map<std::string, StepRecord>* records = nullptr;
  RunRecord run;  // the run resumed; run_id 0 = start one
};

// Applies |in| through |ex|: the run's id, lines and checkpoint counts go
// to |report|.
Status ApplyRun(const ApplyInput& in, Executor* ex, GuardRestorer* restorer,
                MigrateResult* report);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_APPLY_H_
