#include "migrator/run_modes.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/quote.h"
#include "common/text.h"
#include "migrator/online.h"
#include "migrator/online_logical.h"

namespace pglayout::migrator {
namespace {

std::string LeftBy(int64_t run) {
  return run ? fmt::format("left by run {}", run) : "left by no known run";
}

// The logical capture that finished or aborted runs left behind (a slot
// made just before a kill, before its journal row): each slot and
// publication named as pglayout names them is dropped and told. A slot a
// session uses is kept with its publication, told and added to *kept.
Status DropLeftCaptures(Executor* ex, std::vector<std::string>* kept) {
  std::vector<CaptureObject> slots, publications;
  PGLAYOUT_RETURN_IF_ERROR(ListCaptureSlots(ex->session(), &slots));
  PGLAYOUT_RETURN_IF_ERROR(
      ListCapturePublications(ex->session(), &publications));
  std::set<uint32_t> in_use;
  for (const CaptureObject& slot : slots) {
    int64_t run = 0;
    PGLAYOUT_RETURN_IF_ERROR(ex->journal()->RunOfRelation(slot.oid, &run));
    Status st =
        Status::Aborted(fmt::format("in use by process {}", slot.active_pid));
    if (slot.active_pid == 0) {
      SqlResult r;
      st = ex->session()->Execute(
          "SELECT pg_catalog.pg_drop_replication_slot($1)", {slot.name}, &r);
    }
    if (st.ok()) {
      ex->Line(fmt::format("dropped slot {} ({})", slot.name, LeftBy(run)));
      continue;
    }
    in_use.insert(slot.oid);
    kept->push_back("slot " + slot.name + ": " + st.message());
    ex->Line(fmt::format("kept slot {} ({}): {}", slot.name, LeftBy(run),
                         st.message()));
  }
  for (const CaptureObject& publication : publications) {
    int64_t run = 0;
    PGLAYOUT_RETURN_IF_ERROR(
        ex->journal()->RunOfRelation(publication.oid, &run));
    if (in_use.count(publication.oid)) {
      ex->Line(fmt::format("kept publication {} ({}): its slot is kept",
                           publication.name, LeftBy(run)));
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(
        ex->Exec("DROP PUBLICATION IF EXISTS " + QuoteIdent(publication.name)));
    ex->Line(fmt::format("dropped publication {} ({})", publication.name,
                         LeftBy(run)));
  }
  return Status::Ok();
}

}  // namespace

Status AbortRun(const RunRecord& active, Executor* ex, GuardRestorer* restorer,
                MigrateResult* report) {
  if (active.run_id == 0) {
    ex->Line("no unfinished run in this database: nothing to abort");
    return Status::Ok();
  }
  const int64_t run_id = active.run_id;
  Journal* journal = ex->journal();
  ex->set_run_id(run_id);
  report->run_id = run_id;
  std::map<std::string, StepRecord> records;
  PGLAYOUT_RETURN_IF_ERROR(journal->LoadSteps(run_id, &records));
  // From the journal alone: --abort needs no plan.
  for (const auto& [key, rec] : records) {
    if (rec.state == "done" || rec.state == "aborted") continue;
    if (!key.starts_with("move:") && !key.starts_with("partition:")) continue;
    std::string relation = key.substr(key.find(':') + 1);
    if (rec.phase == "swapped") {
      ex->Line(relation +
               ": already swapped, so it stays moved; its old "
               "copy is kept until --finalize");
      PGLAYOUT_RETURN_IF_ERROR(AbortOnlineCopy(ex, relation, rec));
      PGLAYOUT_RETURN_IF_ERROR(
          journal->SetStep(run_id, rec.key, 0, "done", "swapped"));
      continue;
    }
    if (!rec.detail.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(AbortOnlineCopy(ex, relation, rec));
      ex->Line(relation +
               ": shadow copy, log and capture triggers removed; "
               "the table is unchanged");
    }
  }
  // Earlier runs' deferred restores first: this run's own may be
  // deferred below.
  PGLAYOUT_RETURN_IF_ERROR(restorer->CompleteDeferred(false));
  std::vector<SettingRecord> settings;
  PGLAYOUT_RETURN_IF_ERROR(journal->LoadSettings(run_id, &settings));
  for (const SettingRecord& rec : settings) {
    if (rec.state == "restored" || rec.state == "superseded" ||
        rec.state == "changed") {
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(restorer->AcquireSettingsLock());
    PGLAYOUT_RETURN_IF_ERROR(
        restorer->Restore(rec, run_id, RestoreWhen::kRunEnd));
  }
  // A slot made just before a kill, with no journal row yet, too.
  PGLAYOUT_RETURN_IF_ERROR(DropCaptureSlots(ex));
  CheckpointCounts end;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &end));
  PGLAYOUT_RETURN_IF_ERROR(journal->FinishRun(run_id, "aborted", end));
  ex->Line(
      fmt::format("run {} aborted (created tablespaces and finished "
                  "offline moves are kept)",
                  run_id));
  return Status::Ok();
}

Status FinalizeRuns(const RunRecord& active, Executor* ex,
                    GuardRestorer* restorer) {
  if (active.run_id != 0) {
    return Status::InvalidInput(fmt::format(
        "run {} is unfinished; resume or --abort it before --finalize",
        active.run_id));
  }
  std::vector<std::pair<int64_t, std::string>> copies;
  PGLAYOUT_RETURN_IF_ERROR(ex->journal()->ListOldCopies(&copies));
  // One copy that cannot be dropped (an object still depends on it) does
  // not keep the others: each is tried, and the failures are listed.
  std::vector<std::string> kept;
  for (const auto& [run, name] : copies) {
    Status st = ex->WithLockRetry(
        "finalize", {name}, [&]() { return ex->Exec("DROP TABLE " + name); });
    if (!st.ok()) {
      kept.push_back(name + ": " + st.message());
      ex->Line(fmt::format("kept {} (the copy kept by run {}): {}", name, run,
                           st.message()));
      continue;
    }
    ex->Line(fmt::format("dropped {} (the copy kept by run {})", name, run));
  }
  if (copies.empty()) ex->Line("no old copies to drop");
  std::vector<std::string> kept_captures;
  PGLAYOUT_RETURN_IF_ERROR(DropLeftCaptures(ex, &kept_captures));
  // What finished runs left raised (--leave-raised) or deferred,
  // restored after --finalize's wait for room.
  PGLAYOUT_RETURN_IF_ERROR(restorer->CompleteDeferred(true));
  if (kept.empty() && kept_captures.empty()) return Status::Ok();
  std::string text;
  if (!kept.empty()) {
    text = fmt::format(
        "{} of {} old copies could not be dropped (the others were):",
        kept.size(), copies.size());
    for (const std::string& k : kept) text += "\n  " + DisplayName(k);
  }
  if (!kept_captures.empty()) {
    if (!text.empty()) text += "\n";
    text += fmt::format("{} capture {} kept:", kept_captures.size(),
                        kept_captures.size() == 1 ? "slot was" : "slots were");
    for (const std::string& k : kept_captures) text += "\n  " + k;
  }
  Status failed = Status::Aborted(text);
  if (kept_captures.empty()) return failed;
  return failed.WithHint(
      "a session still uses the slot (a killed run's backend, or a client "
      "reading it); run pglayout migrate --finalize again once it has ended");
}

namespace {

// An unfinished run's verification: its --verify, and how its online
// copies past their catch-up ended it.
std::string RunVerificationLine(
    const RunRecord& run, const std::map<std::string, StepRecord>& steps) {
  const std::string note = VerificationNote(steps);
  const bool off = run.verify == "off";
  return fmt::format(
      "  verification: --verify {}{}{}", run.verify,
      off ? " (online copies are not compared with their tables; the run is "
            "unverified)"
          : "",
      note.empty() ? "" : "; so far " + note);
}

}  // namespace

Status ShowStatus(const RunRecord& active, Executor* ex,
                  GuardRestorer* restorer, MigrateResult* report) {
  Journal* journal = ex->journal();
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(journal->Exists(&exists));
  if (!exists) {
    ex->Line("no pglayout journal in this database: no run yet");
    // max_wal_size is the cluster's: a raise from another database shows.
    return restorer->Describe(&report->settings, false);
  }
  if (active.run_id != 0) {
    report->run_id = active.run_id;
    std::map<std::string, StepRecord> records;
    PGLAYOUT_RETURN_IF_ERROR(journal->LoadSteps(active.run_id, &records));
    ex->Line(fmt::format(
        "run {} is unfinished (or running now): `pglayout migrate --apply` "
        "with its plan resumes it, `--abort` rolls it back",
        active.run_id));
    ex->Line(RunVerificationLine(active, records));
    for (const auto& [key, rec] : records) {
      if (rec.state == "done") continue;
      ex->Line(fmt::format("  {}: {}{}{}", key, rec.state,
                           rec.phase.empty() ? "" : ", " + rec.phase,
                           rec.verify == "off" ? ", unverified" : ""));
    }
  } else {
    RunRecord last;
    PGLAYOUT_RETURN_IF_ERROR(journal->LatestRun(&last));
    report->run_id = last.run_id;
    std::map<std::string, StepRecord> records;
    PGLAYOUT_RETURN_IF_ERROR(journal->LoadSteps(last.run_id, &records));
    const std::string note = VerificationNote(records);
    ex->Line(fmt::format("run {} {}{}; no run is unfinished", last.run_id,
                         last.state, note.empty() ? "" : " (" + note + ")"));
  }
  PGLAYOUT_RETURN_IF_ERROR(restorer->CompleteDeferred(false));
  PGLAYOUT_RETURN_IF_ERROR(restorer->Describe(&report->settings));
  std::vector<std::pair<int64_t, std::string>> copies;
  PGLAYOUT_RETURN_IF_ERROR(ex->journal()->ListOldCopies(&copies));
  for (const auto& [run, name] : copies) {
    ex->Line(fmt::format(
        "old copy {} (kept by run {}): `pglayout migrate --finalize` drops "
        "it",
        name, run));
  }
  // With a run unfinished its slot is in use; otherwise one is left over.
  if (active.run_id != 0) return Status::Ok();
  std::vector<CaptureObject> slots;
  PGLAYOUT_RETURN_IF_ERROR(ListCaptureSlots(ex->session(), &slots));
  for (const CaptureObject& slot : slots) {
    int64_t run = 0;
    PGLAYOUT_RETURN_IF_ERROR(ex->journal()->RunOfRelation(slot.oid, &run));
    ex->Line(fmt::format(
        "capture slot {} ({}): `pglayout migrate --finalize` drops it",
        slot.name, LeftBy(run)));
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
