// Where the plan's relations are now, against the plan: before a new run
// (a placement already carried out is skipped) and as a run's last step
// (every relation where planned, nothing of the run's own left behind).

#ifndef PGLAYOUT_MIGRATOR_PLACEMENT_CHECK_H_
#define PGLAYOUT_MIGRATOR_PLACEMENT_CHECK_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/facts.h"
#include "migrator/journal.h"
#include "migrator/prepare.h"
#include "migrator/steps.h"
#include "pg/sql.h"

namespace pglayout::migrator {

// Appends to |problems| each object of placement |p| (the relation with its
// TOAST table and indexes, or each hash partition) that is not in its
// planned tablespace, and each missing partition. The relation is found by
// the name its online step journaled in |records|, else by |oid| (its
// resolved oid); |before| is its facts from before the run.
Status CheckPlacement(SqlSession* session, const Placement& p,
                      const std::map<std::string, StepRecord>& records,
                      uint32_t oid, const TableFacts& before,
                      std::vector<std::string>* problems);

// The run's last step (|s|, number |no|): every placement in place, no
// capture trigger or invalid index left on the plan's relations, no guard
// setting left unrestored; else Internal listing each problem.
Status VerifyRun(Executor* ex, const Plan& plan, const RunFacts& facts,
                 const Step& s, int no);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_PLACEMENT_CHECK_H_
