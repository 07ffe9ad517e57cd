#include "migrator/migrator.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

#include "common/ddl.h"
#include "common/files.h"
#include "common/units.h"
#include "migrator/executor.h"
#include "migrator/free_space.h"
#include "migrator/guard_restore.h"
#include "migrator/journal.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {

namespace {

// The quoted names of the objects an offline move step moves.
std::vector<std::string> ObjectNames(const Step& s) {
  std::vector<std::string> names;
  for (const auto& [kind, name] : s.objects) names.push_back(name);
  return names;
}

std::string PlacementKey(const Placement& p) {
  return (p.strategy == Strategy::kHashPartition ? "partition:" : "move:") +
         p.relation;
}

class Migration {
 public:
  Migration(const Plan& plan, const MigrateOptions& options,
            ProgressSink* progress, MigrateReport* report)
      : plan_(plan), options_(options), progress_(progress), report_(report) {}

  Clock* clock() const { return ClockOf(options_); }

  Status Run() {
    PGLAYOUT_RETURN_IF_ERROR(Connect());
    PGLAYOUT_RETURN_IF_ERROR(ResolveRelations());
    PGLAYOUT_RETURN_IF_ERROR(HardenSession(session_.get()));
    journal_ = std::make_unique<Journal>(session_.get());
    ex_ = std::make_unique<Executor>(session_.get(), journal_.get(), options_,
                                     progress_, report_);
    restorer_ = std::make_unique<GuardRestorer>(ex_.get());
    // --status reads beside a running run; it takes no run lock.
    bool takes_lock = options_.apply || (options_.mode != MigrateMode::kRun &&
                                         options_.mode != MigrateMode::kStatus);
    if (takes_lock) PGLAYOUT_RETURN_IF_ERROR(AcquireRunLock());
    PGLAYOUT_RETURN_IF_ERROR(journal_->FindActiveRun(&run_));
    if (options_.mode == MigrateMode::kStatus) return ShowStatus();
    if (options_.mode == MigrateMode::kAbort) return Abort();
    if (options_.mode == MigrateMode::kFinalize) return Finalize();
    PGLAYOUT_RETURN_IF_ERROR(CheckActiveRun());
    PGLAYOUT_RETURN_IF_ERROR(Gather());
    PGLAYOUT_RETURN_IF_ERROR(RunPreflightChecks());
    report_->steps = BuildSteps(plan_, server_, tables_, StepOptionsFor());
    // A dry run changes nothing, a deferred restore included; it says so.
    if (!options_.apply) return restorer_->Describe(&report_->settings, false);
    return Apply();
  }

 private:
  // ------------------------------------------------------------ set-up --

  Status Connect() {
    return ConnectSession(options_, std::string(kAppName) + "/main", &session_);
  }

  // Before HardenSession: an unqualified name in a hand-written plan means
  // what it means in the user's own search_path.
  Status ResolveRelations() {
    for (const Placement& p : plan_.placements) {
      if (p.strategy == Strategy::kStay) continue;
      uint32_t oid = 0;
      PGLAYOUT_RETURN_IF_ERROR(
          ResolveRelation(session_.get(), p.relation, &oid));
      oids_[p.relation] = oid;
    }
    return Status::Ok();
  }

  Status AcquireRunLock() {
    const double start = clock()->Now();
    while (true) {
      SqlValue got;
      PGLAYOUT_RETURN_IF_ERROR(QueryValue(
          session_.get(), "SELECT pg_catalog.pg_try_advisory_lock($1, $2)",
          {std::to_string(kRunLockClass), std::to_string(kRunLockObject)},
          &got));
      if (got && *got == "t") return Status::Ok();
      // A killed run's backend lets go once it notices its client is gone
      // (client_connection_check_interval); a live run does not.
      if (clock()->Now() - start > options_.lock_wait_s) {
        ServerFacts f;
        (void)GatherServerFacts(session_.get(), Plan(), &f);
        return Status::Aborted(
            "another pglayout migrate is running on this database: " +
            (f.lock_holder.empty() ? std::string("(holder not visible)")
                                   : f.lock_holder));
      }
      clock()->Sleep(0.25);
    }
  }

  bool ChangesSettings() const {
    return std::any_of(report_->steps.begin(), report_->steps.end(),
                       [](const Step& s) {
                         return s.kind == StepKind::kGuardRaise ||
                                s.kind == StepKind::kGuardRestore ||
                                s.kind == StepKind::kPlanSettings;
                       });
  }

  Status CheckActiveRun() {
    if (run_.run_id == 0) return Status::Ok();
    std::string hash = PlanHash(PlanToToml(plan_));
    if (run_.plan_hash != hash) {
      return Status::InvalidInput(fmt::format(
          "run {} of another plan (hash {}) is unfinished in this database; "
          "resume it with its own plan, or roll it back with pglayout migrate "
          "--abort",
          run_.run_id, run_.plan_hash));
    }
    report_->run_id = run_.run_id;
    report_->resumed = true;
    ex_->set_run_id(run_.run_id);
    return journal_->LoadSteps(run_.run_id, &records_);
  }

  bool Started(const std::string& key) const {
    auto it = records_.find(key);
    return it != records_.end() && it->second.state != "pending";
  }

  Status Gather() {
    PGLAYOUT_RETURN_IF_ERROR(
        GatherServerFacts(session_.get(), plan_, &server_));
    for (const Placement& p : plan_.placements) {
      if (p.strategy == Strategy::kStay) continue;
      uint32_t oid = oids_[p.relation];
      auto rec = records_.find(PlacementKey(p));
      if (rec != records_.end() && rec->second.relation_oid != 0) {
        oid = rec->second.relation_oid;  // the original, even after a swap
      }
      TableFacts t;
      if (oid != 0) {
        PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(session_.get(), oid, &t));
      }
      // REINDEX CONCURRENTLY gives the rebuilt index the name, not the oid:
      // a journaled oid that is gone means the index by its name.
      if (!t.exists && oid != oids_[p.relation] && oids_[p.relation] != 0) {
        PGLAYOUT_RETURN_IF_ERROR(
            GatherTableFacts(session_.get(), oids_[p.relation], &t));
      }
      if (p.strategy == Strategy::kHashPartition && t.exists && t.kind == 'r') {
        PGLAYOUT_RETURN_IF_ERROR(ReadTakenNames(
            session_.get(), t.schema, PartitionRelationNames(t, TargetOf(p)),
            &t.taken_names));
      }
      tables_[p.relation] = std::move(t);
      PGLAYOUT_RETURN_IF_ERROR(NoteIfPlacedAsPlanned(p));
    }
    return Status::Ok();
  }

  // A plan run again after it finished finds its relations where it puts
  // them: a table hash-partitioned with every partition in its planned
  // tablespace, a relation already in its target (indexes and TOAST too).
  // Such a placement is done; copying it again would only cost time. Any
  // other partitioned table is refused by the preflight.
  // Only a new run: a resumed one finishes what its journal started (a
  // swapped table is in place, but its clean-up is still to do) and keeps
  // its step numbers.
  Status NoteIfPlacedAsPlanned(const Placement& p) {
    if (report_->resumed) return Status::Ok();
    TableFacts& t = tables_[p.relation];
    bool partitioned = p.strategy == Strategy::kHashPartition;
    if (!t.exists || partitioned != (t.kind == 'p')) return Status::Ok();
    std::vector<std::string> problems;
    PGLAYOUT_RETURN_IF_ERROR(CheckPlacement(p, &problems));
    t.placed_as_planned = problems.empty();
    if (t.placed_as_planned) {
      ex_->Line(fmt::format(
          "{}: already {} as planned: nothing to do", p.relation,
          partitioned ? fmt::format("in {} hash partitions", p.partitions)
                      : "in tablespace " + p.tablespaces[0]));
    }
    return Status::Ok();
  }

  std::vector<std::string> Directories() const {
    std::vector<std::string> dirs = {server_.data_directory};
    for (const TablespaceSpec& ts : plan_.tablespaces) dirs.push_back(ts.path);
    for (const TablespaceFacts& ts : server_.tablespaces) {
      dirs.push_back(ts.location);
    }
    return dirs;
  }

  StepOptions StepOptionsFor() const {
    StepOptions o;
    o.copy_by_blocks = options_.copy_by_blocks;
    o.offline_rate_mbps = options_.offline_rate_mbps;
    o.batch_rows = options_.batch_rows;
    o.checkpoint_guard = options_.checkpoint_guard;
    o.max_wal_size_cap = options_.max_wal_size_cap;
    if (!server_.data_directory.empty()) {
      auto free = LocalFreeBytes({server_.data_directory + "/pg_wal"});
      if (!free.empty()) o.wal_free_bytes = free.begin()->second;
    }
    return o;
  }

  Status RunPreflightChecks() {
    PreflightInput in;
    in.plan = &plan_;
    in.server = &server_;
    in.tables = &tables_;
    in.free_bytes = LocalFreeBytes(Directories());
    in.space_margin = options_.space_margin;
    in.offline_rate_mbps = options_.offline_rate_mbps;
    in.sort_memory = options_.index_work_mem;
    in.standby_dirs_ready = options_.standby_dirs_ready;
    in.wal_free_bytes = StepOptionsFor().wal_free_bytes;
    for (const auto& [key, rec] : records_) {
      if (rec.state == "pending") continue;
      if (key.starts_with("tablespace:")) {
        in.started_tablespaces.insert(key.substr(11));
      }
      size_t colon = key.find(':');
      if (key.starts_with("move:") || key.starts_with("partition:")) {
        in.started_relations.insert(key.substr(colon + 1));
        if (rec.phase == "copy" || rec.phase == "indexes") {
          in.sorts_ahead.insert(key.substr(colon + 1));
        }
      }
    }
    // Our own run lock is not "another run".
    if (options_.apply) server_.lock_holder.clear();
    report_->findings = RunPreflight(in);
    if (!HasRefusal(report_->findings)) return Status::Ok();
    std::string text = "preflight refused the plan; nothing was changed:";
    for (const Finding& f : report_->findings) {
      if (f.severity == Finding::Severity::kRefusal) {
        text += "\n  " + f.ToString();
      }
    }
    return Status::InvalidInput(text);
  }

  // ------------------------------------------------------------- apply --

  Status Apply() {
    if (ChangesSettings()) {
      PGLAYOUT_RETURN_IF_ERROR(restorer_->AcquireSettingsLock());
    }
    PGLAYOUT_RETURN_IF_ERROR(journal_->EnsureSchema());
    // A run that raises max_wal_size takes an earlier run's deferred
    // restore over (RecordOriginal); any other completes it if it can.
    if (!RaisesGuard()) {
      PGLAYOUT_RETURN_IF_ERROR(restorer_->CompleteDeferred(false));
    }
    CheckpointCounts start;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(session_.get(), &start));
    if (run_.run_id == 0) {
      PGLAYOUT_RETURN_IF_ERROR(journal_->StartRun(
          PlanHash(PlanToToml(plan_)), PlanToToml(plan_), options_.tool_version,
          start.timed, start.requested, &run_));
      report_->run_id = run_.run_id;
      ex_->set_run_id(run_.run_id);
      ex_->Line(fmt::format("run {} started", run_.run_id));
    } else {
      ex_->Line(fmt::format("run {} resumed", run_.run_id));
    }
    PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(fmt::format(
        "SET application_name = {}",
        QuoteLiteral(fmt::format("{}/run{}/main", kAppName, run_.run_id)))));
    const auto& steps = report_->steps;
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      auto rec = records_.find(s.key);
      if (rec != records_.end() && rec->second.state == "done") continue;
      StepRecord record = rec == records_.end() ? StepRecord() : rec->second;
      record.key = s.key;
      ex_->Failpoint("before-step:" + s.key);
      Status st = RunStep(s, static_cast<int>(i + 1), record);
      if (!st.ok()) return RecordStepFailure(s, static_cast<int>(i + 1), st);
      ex_->Failpoint("after-step:" + s.key);
    }
    CheckpointCounts end;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(session_.get(), &end));
    ReportCheckpoints(end);
    PGLAYOUT_RETURN_IF_ERROR(journal_->FinishRun(run_.run_id, "done", end));
    ex_->Line(fmt::format("run {} done", run_.run_id));
    return Status::Ok();
  }

  // The journal keeps why the step stopped, for the report and for the
  // person who resumes; the step's own transaction has rolled back. If
  // even that fails (the connection is gone), the step's error still
  // reaches the caller.
  Status RecordStepFailure(const Step& s, int no, const Status& failure) {
    Status recorded =
        journal_->RecordStepError(run_.run_id, s.key, no, failure.message());
    if (!recorded.ok()) {
      ex_->Line(fmt::format("could not record the error of step {}: {}", s.key,
                            recorded.message()));
    }
    return failure;
  }

  void ReportCheckpoints(const CheckpointCounts& end) {
    report_->checkpoints_timed = end.timed - run_.checkpoints_timed_start;
    report_->checkpoints_requested =
        end.requested - run_.checkpoints_requested_start;
    ex_->Line(fmt::format("checkpoints during the run: {} timed, {} requested",
                          report_->checkpoints_timed,
                          report_->checkpoints_requested));
  }

  Status MarkDone(const Step& s, int no) {
    return journal_->SetStep(run_.run_id, s.key, no, "done", "");
  }

  Status RunStep(const Step& s, int no, const StepRecord& record) {
    switch (s.kind) {
      case StepKind::kCreateTablespace:
        return CreateTablespace(s, no);
      case StepKind::kTablespaceOptions:
        return ex_->Transaction(s.key, [&]() -> Status {
          PGLAYOUT_RETURN_IF_ERROR(ex_->ExecAll(s.sql));
          return MarkDone(s, no);
        });
      case StepKind::kGuardRaise:
        return GuardRaise(s, no);
      case StepKind::kMoveOffline:
        return MoveOffline(s, no);
      case StepKind::kMoveIndexOnline:
        return MoveIndexOnline(s, no);
      case StepKind::kOnlineCopy:
        return RunOnlineCopy(ex_.get(), s, no, record,
                             tables_[s.placement->relation].oid);
      case StepKind::kGuardRestore:
        return GuardRestore(s, no, true);
      case StepKind::kPlanSettings:
        return PlanSettings(s, no);
      case StepKind::kVerify:
        return Verify(s, no);
    }
    return Status::Internal("unknown step kind");
  }

  Status CreateTablespace(const Step& s, int no) {
    const TablespaceSpec& ts = *s.tablespace;
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(
        session_->Execute("SELECT pg_catalog.pg_tablespace_location(oid) FROM "
                          "pg_catalog.pg_tablespace WHERE spcname = $1",
                          {ts.name}, &r));
    if (!r.rows.empty()) {
      if (Cell(r.rows[0], 0) != ts.path) {
        return Status::Aborted(
            fmt::format("tablespace {} exists at '{}', the plan says '{}'",
                        ts.name, Cell(r.rows[0], 0), ts.path));
      }
      ex_->Line(fmt::format("tablespace {} exists at {}", ts.name, ts.path));
      return MarkDone(s, no);
    }
    // CREATE TABLESPACE cannot run in a transaction: journal the intent,
    // run it, then mark it done; a resumed run finds it by name above.
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->SetStep(run_.run_id, s.key, no, "running", ""));
    Status st = ex_->Exec(CreateTablespaceSql(ts));
    if (!st.ok()) return st.WithContext("tablespace " + ts.name);
    ex_->Line(fmt::format("created tablespace {} at {}", ts.name, ts.path));
    ex_->Failpoint("after-create-tablespace:" + ts.name);
    return MarkDone(s, no);
  }

  bool RaisesGuard() const {
    return std::any_of(
        report_->steps.begin(), report_->steps.end(), [&](const Step& s) {
          return s.kind == StepKind::kGuardRaise && !Started(s.key);
        });
  }

  Status AutoConfValue(const std::string& name, SqlValue* value) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        "SELECT setting FROM pg_catalog.pg_file_settings WHERE name = $1 AND "
        "sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1",
        {name}, &r));
    *value = r.rows.empty() ? std::nullopt : r.rows[0][0];
    return Status::Ok();
  }

  Status RecordOriginal(const std::string& kind, const std::string& name,
                        const std::string& new_value) {
    SettingRecord rec;
    rec.name = name;
    rec.kind = kind;
    rec.new_value = new_value;
    SqlValue current;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(session_.get(),
                                        "SELECT pg_catalog.current_setting($1)",
                                        {name}, &current));
    rec.original_setting = current.value_or("");
    PGLAYOUT_RETURN_IF_ERROR(AutoConfValue(name, &rec.original_auto_conf));
    // A guard record for the same name holds the value from before the
    // run; the plan's record must not take the guard's raised value.
    std::vector<SettingRecord> existing;
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSettings(run_.run_id, &existing));
    for (const SettingRecord& e : existing) {
      if (e.name == name && e.kind == "guard") {
        rec.original_setting = e.original_setting;
        rec.original_auto_conf = e.original_auto_conf;
      }
    }
    // So does a setting an earlier run left raised or deferred restoring:
    // this run takes it over (its original first, then the earlier record
    // is superseded).
    std::vector<std::pair<int64_t, SettingRecord>> left;
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->ListSettingsIn({"left", "deferred"}, &left));
    for (const auto& [run, e] : left) {
      if (e.name != name) continue;
      rec.original_setting = e.original_setting;
      rec.original_auto_conf = e.original_auto_conf;
    }
    PGLAYOUT_RETURN_IF_ERROR(journal_->RecordOriginal(run_.run_id, rec));
    for (const auto& [run, e] : left) {
      if (e.name != name) continue;
      PGLAYOUT_RETURN_IF_ERROR(
          journal_->SetSettingState(run, e.kind, e.name, "superseded"));
    }
    return Status::Ok();
  }

  Status GuardRaise(const Step& s, int no) {
    // The original goes to the journal (committed) before ALTER SYSTEM, so
    // a kill at any instant after it leaves enough to restore.
    PGLAYOUT_RETURN_IF_ERROR(
        RecordOriginal("guard", "max_wal_size", s.guard_value));
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->SetStep(run_.run_id, s.key, no, "running", ""));
    ex_->Failpoint("guard:journaled");
    PGLAYOUT_RETURN_IF_ERROR(ex_->ExecAll(s.sql));
    PGLAYOUT_RETURN_IF_ERROR(journal_->SetSettingState(
        run_.run_id, "guard", "max_wal_size", "applied"));
    ex_->Line(s.title);
    return MarkDone(s, no);
  }

  bool PlanSets(const std::string& name) const {
    return std::any_of(plan_.settings.begin(), plan_.settings.end(),
                       [&](const SettingChange& c) { return c.name == name; });
  }

  // Whether requested checkpoints came during the bulk work or after the
  // restore shows in the run's lines.
  Status ReportCheckpointsSoFar() {
    CheckpointCounts now;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(session_.get(), &now));
    ex_->Line(fmt::format(
        "checkpoint guard: {} timed, {} requested checkpoints from the start "
        "of the run until the restore",
        now.timed - run_.checkpoints_timed_start,
        now.requested - run_.checkpoints_requested_start));
    return Status::Ok();
  }

  Status GuardRestore(const Step& s, int no, bool wait) {
    std::vector<SettingRecord> settings;
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSettings(run_.run_id, &settings));
    PGLAYOUT_RETURN_IF_ERROR(ReportCheckpointsSoFar());
    for (const SettingRecord& rec : settings) {
      if (rec.kind != "guard" || rec.state == "restored" ||
          rec.state == "superseded" || rec.state == "changed") {
        continue;
      }
      if (PlanSets(rec.name)) {
        PGLAYOUT_RETURN_IF_ERROR(journal_->SetSettingState(
            run_.run_id, rec.kind, rec.name, "superseded"));
        continue;
      }
      if (options_.leave_guard_raised) {
        PGLAYOUT_RETURN_IF_ERROR(
            journal_->SetSettingState(run_.run_id, rec.kind, rec.name, "left"));
        ex_->Line(fmt::format(
            "checkpoint guard: left {} at {} as asked (raised from {}); "
            "`pglayout migrate --finalize` restores it",
            rec.name, rec.new_value, rec.original_setting));
        continue;
      }
      PGLAYOUT_RETURN_IF_ERROR(restorer_->Restore(
          rec, run_.run_id,
          wait ? RestoreWhen::kRunEnd : RestoreWhen::kAtOnce));
    }
    return MarkDone(s, no);
  }

  Status PlanSettings(const Step& s, int no) {
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->SetStep(run_.run_id, s.key, no, "running", ""));
    std::vector<std::string> names;
    for (const SettingChange& c : plan_.settings) {
      PGLAYOUT_RETURN_IF_ERROR(RecordOriginal("plan", c.name, c.value));
      PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(AlterSystemSetSql(c.name, c.value)));
      PGLAYOUT_RETURN_IF_ERROR(
          journal_->SetSettingState(run_.run_id, "plan", c.name, "applied"));
      names.push_back(c.name);
    }
    PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(ReloadConfSql()));
    // pending_restart shows up once the reload has been processed.
    clock()->Sleep(0.3);
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        "SELECT name FROM pg_catalog.pg_settings WHERE name = ANY($1::text[]) "
        "AND (pending_restart OR context = 'postmaster') ORDER BY 1",
        {TextArrayLiteral(names)}, &r));
    ex_->Line(
        fmt::format("applied {} setting(s) with ALTER SYSTEM", names.size()));
    for (const auto& row : r.rows) {
      ex_->Line(fmt::format(
          "setting {} needs a restart to take effect; pglayout does not "
          "restart servers: run `pg_ctl restart -D <datadir>` in a "
          "maintenance window",
          Cell(row, 0)));
    }
    return MarkDone(s, no);
  }

  Status MoveOffline(const Step& s, int no) {
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->SetStep(run_.run_id, s.key, no, "running", "",
                          tables_[s.placement->relation].oid));
    const double start = clock()->Now();
    for (size_t i = 0; i < s.sql.size(); ++i) {
      PGLAYOUT_RETURN_IF_ERROR(ex_->WithLockRetry(
          s.key, ObjectNames(s), [&]() { return ex_->Exec(s.sql[i]); }));
    }
    ex_->Line(fmt::format("{} ({:.1f} s)", s.title, clock()->Now() - start));
    return MarkDone(s, no);
  }

  // A failed REINDEX CONCURRENTLY leaves an invalid "<index>_ccnew" copy.
  Status DropInvalidCopies(const TableFacts& index) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        "SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) FROM "
        "pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = "
        "x.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = "
        "c.relnamespace WHERE NOT x.indisvalid AND n.nspname = $1 AND "
        "c.relname LIKE $2 || '\\_ccnew%'",
        {index.schema, index.name}, &r));
    for (const auto& row : r.rows) {
      PGLAYOUT_RETURN_IF_ERROR(
          ex_->Exec("DROP INDEX CONCURRENTLY IF EXISTS " + Cell(row, 0)));
    }
    return Status::Ok();
  }

  Status MoveIndexOnline(const Step& s, int no) {
    const TableFacts& index = tables_[s.placement->relation];
    PGLAYOUT_RETURN_IF_ERROR(
        journal_->SetStep(run_.run_id, s.key, no, "running", "", index.oid));
    PGLAYOUT_RETURN_IF_ERROR(DropInvalidCopies(index));
    PGLAYOUT_RETURN_IF_ERROR(ex_->ExecAll(s.sql));
    ex_->Line(s.title);
    return MarkDone(s, no);
  }

  // ------------------------------------------------------------ verify --

  // (relation, tablespace) for a relation, its TOAST table and index and
  // its indexes; the database default tablespace is spelled out. Nothing
  // for a relation that does not exist (a partition of another layout).
  Status Placements(const std::string& relation, bool with_indexes,
                    std::vector<std::pair<std::string, std::string>>* out) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        "WITH rel AS (SELECT pg_catalog.to_regclass($1)::oid AS oid), objs AS ("
        " SELECT c.oid, c.reltablespace FROM pg_catalog.pg_class c, rel "
        " WHERE c.oid = rel.oid"
        " UNION ALL SELECT t.oid, t.reltablespace FROM pg_catalog.pg_class c "
        " JOIN pg_catalog.pg_class t ON t.oid = c.reltoastrelid, rel "
        " WHERE c.oid = rel.oid"
        " UNION ALL SELECT ti.oid, ti.reltablespace FROM pg_catalog.pg_class "
        " c JOIN pg_catalog.pg_index x ON x.indrelid = c.reltoastrelid "
        " JOIN pg_catalog.pg_class ti ON ti.oid = x.indexrelid, rel "
        " WHERE c.oid = rel.oid"
        " UNION ALL SELECT i.oid, i.reltablespace FROM pg_catalog.pg_index x "
        " JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid, rel "
        " WHERE x.indrelid = rel.oid AND $2)"
        "SELECT o.oid::regclass::text, ts.spcname FROM objs o "
        "JOIN pg_catalog.pg_tablespace ts ON ts.oid = coalesce(nullif("
        "o.reltablespace, 0), (SELECT dattablespace FROM "
        "pg_catalog.pg_database WHERE datname = "
        "pg_catalog.current_database())) ORDER BY 1",
        {relation, with_indexes ? "true" : "false"}, &r));
    for (const auto& row : r.rows)
      out->emplace_back(Cell(row, 0), Cell(row, 1));
    return Status::Ok();
  }

  // The relation's current quoted name: the journaled name of an online
  // step (its oid names the old copy after the swap), else by oid.
  Status CurrentName(const Placement& p, std::string* schema,
                     std::string* name) {
    auto rec = records_.find(PlacementKey(p));
    if (rec != records_.end() && OnlineStepTable(rec->second, schema, name)) {
      return Status::Ok();
    }
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN "
        "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = "
        "$1::oid",
        {std::to_string(oids_[p.relation])}, &r));
    const TableFacts& before = tables_[p.relation];
    if (r.rows.empty() && before.kind == 'i' && before.exists) {
      // An index rebuilt by REINDEX CONCURRENTLY: same name, new oid.
      *schema = before.schema;
      *name = before.name;
      return Status::Ok();
    }
    if (r.rows.empty()) {
      return Status::NotFound(p.relation + " no longer exists");
    }
    *schema = Cell(r.rows[0], 0);
    *name = Cell(r.rows[0], 1);
    return Status::Ok();
  }

  Status CheckPlacement(const Placement& p,
                        std::vector<std::string>* problems) {
    std::vector<std::pair<std::string, std::string>> objs;
    std::vector<std::string> expected;
    TableFacts stub;
    PGLAYOUT_RETURN_IF_ERROR(CurrentName(p, &stub.schema, &stub.name));
    std::string qualified =
        QuoteIdent(stub.schema) + "." + QuoteIdent(stub.name);
    if (p.strategy == Strategy::kMove) {
      PGLAYOUT_RETURN_IF_ERROR(Placements(qualified, true, &objs));
      expected.assign(objs.size(), p.tablespaces[0]);
    } else {
      OnlineTarget target = TargetOf(p);
      OnlineNames names = MakeOnlineNames(stub, target);
      for (int r = 0; r < p.partitions; ++r) {
        size_t before = objs.size();
        PGLAYOUT_RETURN_IF_ERROR(
            Placements(names.QualifiedPartition(r), true, &objs));
        expected.resize(objs.size(), PartitionTablespace(target, r));
        if (objs.size() == before) {
          problems->push_back("partition " + names.QualifiedPartition(r) +
                              " is missing");
        }
      }
    }
    for (size_t i = 0; i < objs.size(); ++i) {
      if (objs[i].second != expected[i]) {
        problems->push_back(fmt::format("{} is in tablespace {}, planned {}",
                                        objs[i].first, objs[i].second,
                                        expected[i]));
      }
    }
    return Status::Ok();
  }

  Status Verify(const Step& s, int no) {
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSteps(run_.run_id, &records_));
    std::vector<std::string> problems;
    for (const Placement& p : plan_.placements) {
      if (p.strategy == Strategy::kStay) continue;
      PGLAYOUT_RETURN_IF_ERROR(CheckPlacement(p, &problems));
    }
    // Only the plan's own relations (with their partitions and TOAST): an
    // invalid index or a trigger elsewhere is not this run's to judge, and
    // must not keep every run from finishing.
    std::vector<std::string> planned;
    for (const Placement& p : plan_.placements) {
      if (p.strategy != Strategy::kStay) planned.push_back(p.relation);
    }
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
        std::string(kRelationsCte) +
            "SELECT tgrelid::regclass::text || ' has trigger ' || tgname "
            "FROM pg_catalog.pg_trigger WHERE tgname IN " +
            kOwnTriggerNames +
            " AND tgrelid IN (SELECT oid FROM r) UNION ALL SELECT 'invalid "
            "index ' || indexrelid::regclass::text FROM pg_catalog.pg_index "
            "WHERE NOT indisvalid AND indrelid IN (SELECT oid FROM r)",
        {TextArrayLiteral(planned)}, &r));
    for (const auto& row : r.rows) problems.push_back(Cell(row, 0));
    std::vector<SettingRecord> settings;
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSettings(run_.run_id, &settings));
    for (const SettingRecord& rec : settings) {
      if (rec.kind == "guard" && rec.state != "restored" &&
          rec.state != "superseded" && rec.state != "left" &&
          rec.state != "deferred" && rec.state != "changed") {
        problems.push_back("setting " + rec.name + " was not restored");
      }
    }
    if (!problems.empty()) {
      std::string text = "final check failed:";
      for (const std::string& p : problems) text += "\n  " + p;
      return Status::Internal(text);
    }
    ex_->Line(
        "final check: every relation is in its planned tablespace; no "
        "leftover triggers, invalid indexes or unrestored settings");
    return MarkDone(s, no);
  }

  // ------------------------------------------------------ abort/finalize --

  Status Abort() {
    if (run_.run_id == 0) {
      ex_->Line("no unfinished run in this database: nothing to abort");
      return Status::Ok();
    }
    ex_->set_run_id(run_.run_id);
    report_->run_id = run_.run_id;
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSteps(run_.run_id, &records_));
    // From the journal alone: --abort needs no plan.
    for (const auto& [key, rec] : records_) {
      if (rec.state == "done" || rec.state == "aborted") continue;
      if (!key.starts_with("move:") && !key.starts_with("partition:")) continue;
      std::string relation = key.substr(key.find(':') + 1);
      if (rec.phase == "swapped") {
        ex_->Line(relation +
                  ": already swapped, so it stays moved; its old "
                  "copy is kept until --finalize");
        PGLAYOUT_RETURN_IF_ERROR(AbortOnlineCopy(ex_.get(), relation, rec));
        PGLAYOUT_RETURN_IF_ERROR(
            journal_->SetStep(run_.run_id, rec.key, 0, "done", "swapped"));
        continue;
      }
      if (!rec.detail.empty()) {
        PGLAYOUT_RETURN_IF_ERROR(AbortOnlineCopy(ex_.get(), relation, rec));
        ex_->Line(relation +
                  ": shadow copy, log and capture triggers removed; "
                  "the table is unchanged");
      }
    }
    // Earlier runs' deferred restores first: this run's own may be
    // deferred below.
    PGLAYOUT_RETURN_IF_ERROR(restorer_->CompleteDeferred(false));
    std::vector<SettingRecord> settings;
    PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSettings(run_.run_id, &settings));
    for (const SettingRecord& rec : settings) {
      if (rec.state == "restored" || rec.state == "superseded" ||
          rec.state == "changed") {
        continue;
      }
      PGLAYOUT_RETURN_IF_ERROR(restorer_->AcquireSettingsLock());
      PGLAYOUT_RETURN_IF_ERROR(
          restorer_->Restore(rec, run_.run_id, RestoreWhen::kRunEnd));
    }
    CheckpointCounts end;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(session_.get(), &end));
    PGLAYOUT_RETURN_IF_ERROR(journal_->FinishRun(run_.run_id, "aborted", end));
    ex_->Line(
        fmt::format("run {} aborted (created tablespaces and finished "
                    "offline moves are kept)",
                    run_.run_id));
    return Status::Ok();
  }

  Status Finalize() {
    if (run_.run_id != 0) {
      return Status::InvalidInput(fmt::format(
          "run {} is unfinished; resume or --abort it before --finalize",
          run_.run_id));
    }
    std::vector<std::pair<int64_t, std::string>> copies;
    PGLAYOUT_RETURN_IF_ERROR(journal_->ListOldCopies(&copies));
    // One copy that cannot be dropped (an object still depends on it) does
    // not keep the others: each is tried, and the failures are listed.
    std::vector<std::string> kept;
    for (const auto& [run, name] : copies) {
      Status st = ex_->WithLockRetry("finalize", {name}, [&]() {
        return ex_->Exec("DROP TABLE " + name);
      });
      if (!st.ok()) {
        kept.push_back(name + ": " + st.message());
        ex_->Line(fmt::format("kept {} (the copy kept by run {}): {}", name,
                              run, st.message()));
        continue;
      }
      ex_->Line(fmt::format("dropped {} (the copy kept by run {})", name, run));
    }
    if (copies.empty()) ex_->Line("no old copies to drop");
    // What finished runs left raised (--leave-raised) or deferred,
    // restored after --finalize's wait for room.
    PGLAYOUT_RETURN_IF_ERROR(restorer_->CompleteDeferred(true));
    if (kept.empty()) return Status::Ok();
    std::string text = fmt::format(
        "{} of {} old copies could not be dropped (the others were):",
        kept.size(), copies.size());
    for (const std::string& k : kept) text += "\n  " + k;
    return Status::Aborted(text);
  }

  // ------------------------------------------------------------ status --

  // Where the runs stand, for people (report lines) and --json (settings):
  // the unfinished run and its steps, a deferred restore (completed first
  // if a timed checkpoint has made room), settings left raised, old copies
  // awaiting --finalize.
  Status ShowStatus() {
    bool exists = false;
    PGLAYOUT_RETURN_IF_ERROR(journal_->Exists(&exists));
    if (!exists) {
      ex_->Line("no pglayout journal in this database: no run yet");
      return Status::Ok();
    }
    if (run_.run_id != 0) {
      report_->run_id = run_.run_id;
      PGLAYOUT_RETURN_IF_ERROR(journal_->LoadSteps(run_.run_id, &records_));
      ex_->Line(fmt::format(
          "run {} is unfinished (or running now): `pglayout migrate --apply` "
          "with its plan resumes it, `--abort` rolls it back",
          run_.run_id));
      for (const auto& [key, rec] : records_) {
        if (rec.state == "done") continue;
        ex_->Line(fmt::format("  {}: {}{}", key, rec.state,
                              rec.phase.empty() ? "" : ", " + rec.phase));
      }
    } else {
      RunRecord last;
      PGLAYOUT_RETURN_IF_ERROR(journal_->LatestRun(&last));
      report_->run_id = last.run_id;
      ex_->Line(fmt::format("run {} {}; no run is unfinished", last.run_id,
                            last.state));
    }
    PGLAYOUT_RETURN_IF_ERROR(restorer_->CompleteDeferred(false));
    PGLAYOUT_RETURN_IF_ERROR(restorer_->Describe(&report_->settings));
    std::vector<std::pair<int64_t, std::string>> copies;
    PGLAYOUT_RETURN_IF_ERROR(journal_->ListOldCopies(&copies));
    for (const auto& [run, name] : copies) {
      ex_->Line(fmt::format(
          "old copy {} (kept by run {}): `pglayout migrate --finalize` drops "
          "it",
          name, run));
    }
    return Status::Ok();
  }

  const Plan& plan_;
  const MigrateOptions& options_;
  ProgressSink* progress_;
  MigrateReport* report_;
  std::unique_ptr<SqlSession> session_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<Executor> ex_;
  std::unique_ptr<GuardRestorer> restorer_;
  RunRecord run_;
  std::map<std::string, StepRecord> records_;
  std::map<std::string, uint32_t> oids_;
  ServerFacts server_;
  std::map<std::string, TableFacts> tables_;
};

}  // namespace

Status Migrate(const Plan& plan, const MigrateOptions& options,
               ProgressSink* progress, MigrateReport* report) {
  NullProgress silent;
  Migration m(plan, options, progress ? progress : &silent, report);
  return m.Run();
}

}  // namespace pglayout::migrator
