// The journal: what a run has done, kept in the target database (schema
// pglayout: tables run, step, batch and setting) so that a run killed at any
// instant can be resumed or aborted. The functions here only run statements;
// callers wrap BEGIN/COMMIT around them, so that a step's work and its
// journal update commit together. Why: docs/online-migration.md#the-journal.

#ifndef PGLAYOUT_MIGRATOR_JOURNAL_H_
#define PGLAYOUT_MIGRATOR_JOURNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/sql.h"

namespace pglayout::migrator {

struct RunRecord {
  int64_t run_id = 0;
  std::string plan_hash;
  std::string state;  // running, done, aborted
  int64_t checkpoints_timed_start = 0;
  int64_t checkpoints_requested_start = 0;
  // timestamptz text: a checkpoint statistics reset after it makes the
  // run's counts unknown (CheckpointsBetween).
  std::string started_at;
  // The online copies' final comparison the run was started with (or last
  // given on a resume): "full" or "off". Runs of older versions: "full".
  std::string verify = "full";
};

struct StepRecord {
  std::string key;
  std::string state = "pending";  // pending, running, done, aborted
  std::string phase;              // online steps: capture, copy, ...
  uint32_t relation_oid = 0;
  std::vector<std::string> cursor;  // last copied key (text), empty = start
  int64_t rows_copied = 0;
  int64_t rows_replayed = 0;
  int64_t batches = 0;
  int64_t bytes_copied = 0;  // sum of pg_column_size of the copied rows
  std::string detail;        // free text for people
  // An online copy's final comparison once past its catch-up: "full"
  // (compared and equal) or "off" (skipped, --verify off); "" before.
  std::string verify;
};

struct SettingRecord {
  std::string name;
  std::string kind;                               // "guard" or "plan"
  std::string original_setting;                   // pg_settings value with unit
  std::optional<std::string> original_auto_conf;  // nullopt = not in auto.conf
  std::string new_value;
  // pending, applied, restored, superseded, left: raised on purpose at the
  // end of a finished run (--leave-raised), for --finalize to restore;
  // deferred: still raised at the end of a run because lowering it then
  // would have requested a checkpoint, for the next invocation to restore
  // once a timed checkpoint has made room (guard_restore.h); changed:
  // someone else changed it since pglayout did, so it was left as it is.
  std::string state;
  std::string changed_at;  // when the state last changed (timestamptz text)
};

class Journal {
 public:
  explicit Journal(SqlSession* session) : session_(session) {}

  // Whether schema pglayout with the journal tables exists.
  Status Exists(bool* exists);
  // Creates the schema (for the running role, nothing granted to others)
  // and tables if missing (idempotent); refuses, before any statement on
  // it, a schema CheckJournalSchema (pg/journal_schema.h) cannot trust.
  Status EnsureSchema();

  // The running run, if any (run_id = 0 when none).
  Status FindActiveRun(RunRecord* run);
  Status StartRun(const std::string& plan_hash, const std::string& plan_text,
                  const std::string& tool_version, int64_t timed,
                  int64_t requested, RunRecord* run);
  // Records the run's verification ("full" or "off"): at its start, and
  // when a resume is given another --verify.
  Status SetRunVerify(int64_t run_id, const std::string& verify);
  // Ends the run with |state| and the checkpoint counters at its end, so
  // that the checkpoints during the run can be told later.
  Status FinishRun(int64_t run_id, const std::string& state,
                   const CheckpointCounts& end);

  Status LoadSteps(int64_t run_id, std::map<std::string, StepRecord>* steps);
  // Inserts the step row if missing, then sets state/phase (and oid when
  // non-zero).
  Status SetStep(int64_t run_id, const std::string& key, int step_no,
                 const std::string& state, const std::string& phase,
                 uint32_t relation_oid = 0);
  // Keeps the message of the error that stopped step |key| (creating its
  // row if the step failed before it started); SetStep(..., "done", ...)
  // clears it. Runs outside any transaction of the failed step.
  Status RecordStepError(int64_t run_id, const std::string& key, int step_no,
                         const std::string& message);
  // Records one copied batch (|bytes|: the sum of pg_column_size of its
  // rows) and advances the step's cursor and totals.
  Status RecordBatch(int64_t run_id, const std::string& key, int64_t batch_no,
                     const std::vector<std::string>& lower,
                     const std::vector<std::string>& upper, int64_t rows,
                     int64_t bytes);
  Status AddReplayed(int64_t run_id, const std::string& key, int64_t rows);
  // A step's verification: rows and checksums of the source and the
  // shadow (online_sql.h VerifySumSql); a resumed run overwrites what an
  // earlier attempt recorded.
  Status RecordVerification(int64_t run_id, const std::string& key,
                            int64_t src_rows, int64_t src_sum, int64_t new_rows,
                            int64_t new_sum);
  // Whether online step |key|'s final comparison ran ("full") or was
  // skipped ("off"); kept in its step row (StepRecord::verify).
  Status SetStepVerify(int64_t run_id, const std::string& key,
                       const std::string& verify);

  // Settings. RecordOriginal keeps the first original of (run, kind, name):
  // a resumed run must not mistake its own raised value for the original.
  // It takes the new value each time: a resumed run may raise to another
  // value than the killed attempt did, and the restore only writes over
  // the value the journal says pglayout wrote (guard_restore.h).
  Status RecordOriginal(int64_t run_id, const SettingRecord& setting);
  Status SetSettingState(int64_t run_id, const std::string& kind,
                         const std::string& name, const std::string& state);
  Status LoadSettings(int64_t run_id, std::vector<SettingRecord>* settings);
  // Settings of any run in one of |states| ("left", "deferred", ...), with
  // their runs, oldest run first; none when there is no journal.
  Status ListSettingsIn(
      const std::vector<std::string>& states,
      std::vector<std::pair<int64_t, SettingRecord>>* settings);
  // The newest run (run_id 0 when none, or no journal).
  Status LatestRun(RunRecord* run);
  // The newest run with a step on relation |oid|, else the newest run
  // (0 when none, or no journal): which run left what was made for |oid|.
  Status RunOfRelation(uint32_t oid, int64_t* run_id);

  // Old copies kept after swaps, not yet dropped: "pglayout"."old_123".
  Status ListOldCopies(std::vector<std::pair<int64_t, std::string>>* copies);

 private:
  SqlSession* session_;
};

// How the online steps of |records| ended their catch-up, for people:
// "unverified: 1 online copy not compared with its table (--verify off)"
// when any skipped the final comparison, "verified: 2 online copies
// compared with their tables" when all that got there ran it, "" when none
// did yet.
std::string VerificationNote(const std::map<std::string, StepRecord>& records);

// A stable 64-bit FNV-1a hash of the plan's canonical text, in hex.
std::string PlanHash(const std::string& canonical_plan_text);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_JOURNAL_H_
