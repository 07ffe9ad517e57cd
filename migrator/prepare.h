// Preparing a run of a plan, before anything changes: the unfinished run it
// resumes from the journal, the facts its steps are built from, and the
// preflight's verdict on them. Reads only.
// How a run proceeds: docs/online-migration.md#runs.

#ifndef PGLAYOUT_MIGRATOR_PREPARE_H_
#define PGLAYOUT_MIGRATOR_PREPARE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "migrator/executor.h"
#include "migrator/facts.h"
#include "migrator/journal.h"
#include "migrator/preflight.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// What a run of the plan works from, each keyed by Placement::relation.
struct RunFacts {
  // The oids the plan's relations resolved to in the user's search_path.
  std::map<std::string, uint32_t> oids;
  ServerFacts server;
  std::map<std::string, TableFacts> tables;

  uint32_t Oid(const std::string& relation) const;             // 0 = unknown
  const TableFacts& Table(const std::string& relation) const;  // or empty
};

// With |active| an unfinished run (run_id 0 = none), checks it is of this
// plan, marks |report| resumed and |ex| as that run, and returns its
// journaled steps by key. A run of another plan is InvalidInput.
Status ResumeRun(const Plan& plan, const RunRecord& active, Executor* ex,
                 MigrateResult* report,
                 std::map<std::string, StepRecord>* records);

// Reads the server's and each placement's facts into |facts| (given its
// oids). A journaled step's relation is read by its original oid, even
// after a swap. A new run (not |resumed|) marks a placement already
// carried out (TableFacts::placed_as_planned) and says so in a line.
Status GatherRunFacts(Executor* ex, const Plan& plan,
                      const std::map<std::string, StepRecord>& records,
                      bool resumed, RunFacts* facts);

// How the steps are built from the options (and the free space of the
// volume holding pg_wal, read here).
StepOptions StepOptionsFor(const MigrateOptions& options,
                           const ServerFacts& server);

// Runs the preflight on |facts| (steps started in |records| skip their
// checks) into |findings|; a refusal is InvalidInput listing each.
Status JudgePlan(const Plan& plan, const RunFacts& facts,
                 const std::map<std::string, StepRecord>& records,
                 const MigrateOptions& options, uint64_t wal_free_bytes,
                 std::vector<Finding>* findings);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_PREPARE_H_
