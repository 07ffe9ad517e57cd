#include "migrator/prepare.h"

#include <fmt/format.h>

#include "common/files.h"
#include "migrator/free_space.h"
#include "migrator/placement_check.h"
#include "migrator/server_facts.h"

namespace pglayout::migrator {

uint32_t RunFacts::Oid(const std::string& relation) const {
  auto it = oids.find(relation);
  return it == oids.end() ? 0 : it->second;
}

const TableFacts& RunFacts::Table(const std::string& relation) const {
  static const TableFacts kNone;
  auto it = tables.find(relation);
  return it == tables.end() ? kNone : it->second;
}

Status ResumeRun(const Plan& plan, const RunRecord& active, Executor* ex,
                 MigrateResult* report,
                 std::map<std::string, StepRecord>* records) {
  if (active.run_id == 0) return Status::Ok();
  std::string hash = PlanHash(PlanToToml(plan));
  if (active.plan_hash != hash) {
    return Status::InvalidInput(fmt::format(
        "run {} of another plan (hash {}) is unfinished in this database; "
        "resume it with its own plan, or roll it back with pglayout migrate "
        "--abort",
        active.run_id, active.plan_hash));
  }
  report->run_id = active.run_id;
  report->resumed = true;
  ex->set_run_id(active.run_id);
  return ex->journal()->LoadSteps(active.run_id, records);
}

namespace {

// A plan run again after it finished finds its relations where it puts
// them: a table hash-partitioned with every partition in its planned
// tablespace, a relation already in its target (indexes and TOAST too).
// Such a placement is done; copying it again would only cost time. Any
// other partitioned table is refused by the preflight.
// Only a new run: a resumed one finishes what its journal started (a
// swapped table is in place, but its clean-up is still to do) and keeps
// its step numbers.
Status NoteIfPlacedAsPlanned(Executor* ex, const Placement& p,
                             const std::map<std::string, StepRecord>& records,
                             uint32_t oid, TableFacts* t) {
  bool partitioned = p.strategy == Strategy::kHashPartition;
  if (!t->exists || partitioned != (t->kind == 'p')) return Status::Ok();
  std::vector<std::string> problems;
  PGLAYOUT_RETURN_IF_ERROR(
      CheckPlacement(ex->session(), p, records, oid, *t, &problems));
  t->placed_as_planned = problems.empty();
  if (t->placed_as_planned) {
    ex->Line(fmt::format(
        "{}: already {} as planned: nothing to do", p.relation,
        partitioned ? fmt::format("in {} hash partitions", p.partitions)
                    : "in tablespace " + p.tablespaces[0]));
  }
  return Status::Ok();
}

}  // namespace

Status GatherRunFacts(Executor* ex, const Plan& plan,
                      const std::map<std::string, StepRecord>& records,
                      bool resumed, RunFacts* facts) {
  SqlSession* session = ex->session();
  PGLAYOUT_RETURN_IF_ERROR(GatherServerFacts(session, plan, &facts->server));
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kStay) continue;
    const uint32_t resolved = facts->Oid(p.relation);
    uint32_t oid = resolved;
    auto rec = records.find(PlacementStepKey(p));
    if (rec != records.end() && rec->second.relation_oid != 0) {
      oid = rec->second.relation_oid;  // the original, even after a swap
    }
    TableFacts t;
    if (oid != 0) {
      PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(session, oid, &t));
    }
    // REINDEX CONCURRENTLY gives the rebuilt index the name, not the oid:
    // a journaled oid that is gone means the index by its name.
    if (!t.exists && oid != resolved && resolved != 0) {
      PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(session, resolved, &t));
    }
    if (p.strategy == Strategy::kHashPartition && t.exists && t.kind == 'r') {
      PGLAYOUT_RETURN_IF_ERROR(ReadTakenNames(
          session, t.schema, PartitionRelationNames(t, TargetOf(p)),
          &t.taken_names));
    }
    if (!resumed) {
      PGLAYOUT_RETURN_IF_ERROR(
          NoteIfPlacedAsPlanned(ex, p, records, resolved, &t));
    }
    facts->tables[p.relation] = std::move(t);
  }
  return Status::Ok();
}

StepOptions StepOptionsFor(const MigrateOptions& options,
                           const ServerFacts& server) {
  StepOptions o;
  o.copy_by_blocks = options.copy_by_blocks;
  o.verify = options.verify != VerifyMode::kOff;
  o.offline_rate_mbps = options.offline_rate_mbps;
  o.batch_rows = options.batch_rows;
  o.checkpoint_guard = options.checkpoint_guard;
  o.max_wal_size_cap = options.max_wal_size_cap;
  o.wal_free_bytes = WalFreeBytes(server.data_directory);
  return o;
}

namespace {

// The directories whose free space the preflight weighs: the data
// directory, the plan's tablespaces and the server's.
std::vector<std::string> Directories(const Plan& plan,
                                     const ServerFacts& server) {
  std::vector<std::string> dirs = {server.data_directory};
  for (const TablespaceSpec& ts : plan.tablespaces) dirs.push_back(ts.path);
  for (const TablespaceFacts& ts : server.tablespaces) {
    dirs.push_back(ts.location);
  }
  return dirs;
}

}  // namespace

Status JudgePlan(const Plan& plan, const RunFacts& facts,
                 const std::map<std::string, StepRecord>& records,
                 const MigrateOptions& options, uint64_t wal_free_bytes,
                 std::vector<Finding>* findings) {
  PreflightInput in;
  in.plan = &plan;
  in.server = &facts.server;
  in.tables = &facts.tables;
  in.free_bytes = LocalFreeBytes(Directories(plan, facts.server));
  in.space_margin = options.space_margin;
  in.offline_rate_mbps = options.offline_rate_mbps;
  in.sort_memory = options.index_work_mem;
  in.standby_dirs_ready = options.standby_dirs_ready;
  in.wal_free_bytes = wal_free_bytes;
  for (const auto& [key, rec] : records) {
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
  *findings = RunPreflight(in);
  if (!HasRefusal(*findings)) return Status::Ok();
  std::string text = "preflight refused the plan; nothing was changed:";
  for (const Finding& f : *findings) {
    if (f.severity == Finding::Severity::kRefusal) {
      text += "\n  " + f.ToString();
    }
  }
  return Status::InvalidInput(text);
}

}  // namespace pglayout::migrator
