#include "migrator/migrator.h"

#include <map>
#include <memory>
#include <string>

#include "migrator/apply.h"
#include "migrator/executor.h"
#include "migrator/guard_restore.h"
#include "migrator/journal.h"
#include "migrator/prepare.h"
#include "migrator/run_modes.h"
#include "migrator/server_facts.h"
#include "migrator/settings_steps.h"
#include "pg/journal_schema.h"

namespace pglayout::migrator {
namespace {

// Before HardenSession: an unqualified name in a hand-written plan means
// what it means in the user's own search_path.
Status ResolveRelations(SqlSession* session, const Plan& plan,
                        std::map<std::string, uint32_t>* oids) {
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kStay) continue;
    uint32_t oid = 0;
    PGLAYOUT_RETURN_IF_ERROR(ResolveRelation(session, p.relation, &oid));
    (*oids)[p.relation] = oid;
  }
  return Status::Ok();
}

// The run lock: one migrate per database.
Status AcquireRunLock(SqlSession* session, const MigrateOptions& options) {
  Clock* clock = ClockOf(options);
  const double start = clock->Now();
  while (true) {
    SqlValue got;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        session, "SELECT pg_catalog.pg_try_advisory_lock($1, $2)",
        {std::to_string(kRunLockClass), std::to_string(kRunLockObject)}, &got));
    if (got && *got == "t") return Status::Ok();
    // A killed run's backend lets go once it notices its client is gone
    // (client_connection_check_interval); a live run does not.
    if (clock->Now() - start > options.lock_wait_s) {
      ServerFacts f;
      (void)GatherServerFacts(session, Plan(), &f);
      return Status::Aborted(
          "another pglayout migrate is running on this database: " +
          (f.lock_holder.empty() ? std::string("(holder not visible)")
                                 : f.lock_holder));
    }
    clock->Sleep(0.25);
  }
}

// A run of |plan|: the unfinished run |active| resumed (or a new one), its
// facts read and judged by the preflight, its steps built, then printed
// (a dry run) or applied.
Status RunPlan(const Plan& plan, RunFacts facts, const RunRecord& active,
               Executor* ex, GuardRestorer* restorer, MigrateResult* report) {
  const MigrateOptions& options = ex->options();
  std::map<std::string, StepRecord> records;
  PGLAYOUT_RETURN_IF_ERROR(ResumeRun(plan, active, ex, report, &records));
  PGLAYOUT_RETURN_IF_ERROR(
      GatherRunFacts(ex, plan, records, report->resumed, &facts));
  // Our own run lock is not "another run".
  if (options.apply) facts.server.lock_holder.clear();
  StepOptions step_options = StepOptionsFor(options, facts.server);
  // A resumed run keeps the --verify it was started with unless given one.
  if (!options.verify && active.run_id != 0) {
    step_options.verify = active.verify != "off";
  }
  report->verify = VerifyModeName(step_options.verify ? VerifyMode::kFull
                                                      : VerifyMode::kOff);
  PGLAYOUT_RETURN_IF_ERROR(
      GuardOriginalFor(ex->session(), ex->journal(), active, &step_options));
  PGLAYOUT_RETURN_IF_ERROR(JudgePlan(plan, facts, records, options,
                                     step_options.wal_free_bytes,
                                     &report->findings));
  report->steps = BuildSteps(plan, facts.server, facts.tables, step_options);
  // A dry run changes nothing, a deferred restore included; it says so.
  if (!options.apply) return restorer->Describe(&report->settings, false);
  ApplyInput in;
  in.plan = &plan;
  in.steps = &report->steps;
  in.facts = &facts;
  in.records = &records;
  in.run = active;
  return ApplyRun(in, ex, restorer, report);
}

}  // namespace

Status Migrate(const Plan& plan, const MigrateOptions& options,
               ProgressSink* progress, MigrateResult* report) {
  NullProgress silent;
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(
      ConnectSession(options, std::string(kAppName) + "/main", &session));
  RunFacts facts;
  PGLAYOUT_RETURN_IF_ERROR(ResolveRelations(session.get(), plan, &facts.oids));
  PGLAYOUT_RETURN_IF_ERROR(HardenSession(session.get()));
  // Before any statement reads or writes schema pglayout.
  PGLAYOUT_RETURN_IF_ERROR(CheckJournalSchema(session.get()));
  Journal journal(session.get());
  Executor ex(session.get(), &journal, options, progress ? progress : &silent,
              report);
  GuardRestorer restorer(&ex);
  // --status reads beside a running run; it takes no run lock.
  bool takes_lock = options.apply || (options.mode != MigrateMode::kRun &&
                                      options.mode != MigrateMode::kStatus);
  if (takes_lock) {
    PGLAYOUT_RETURN_IF_ERROR(AcquireRunLock(session.get(), options));
  }
  RunRecord active;
  PGLAYOUT_RETURN_IF_ERROR(journal.FindActiveRun(&active));
  switch (options.mode) {
    case MigrateMode::kStatus:
      return ShowStatus(active, &ex, &restorer, report);
    case MigrateMode::kAbort:
      return AbortRun(active, &ex, &restorer, report);
    case MigrateMode::kFinalize:
      return FinalizeRuns(active, &ex, &restorer);
    case MigrateMode::kRun:
      break;
  }
  return RunPlan(plan, std::move(facts), active, &ex, &restorer, report);
}

}  // namespace pglayout::migrator
