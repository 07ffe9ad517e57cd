// The migration journal as the report sees it: what `pglayout migrate`
// did, step by step, read back from the database it migrated.
//
// The report depends only on MigrationJournal and JournalSource; how the
// migrator stores its journal is hidden behind a JournalSource, so the
// report does not change when the journal's tables do.

#ifndef PGLAYOUT_REPORT_JOURNAL_H_
#define PGLAYOUT_REPORT_JOURNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pglayout::report {

struct JournalStep {
  int ordinal = 0;          // order of execution, from 1
  std::string kind;         // "create_tablespace", "move", "copy", ...
  std::string relation;     // schema-qualified, "" for host-wide steps
  std::string description;  // one line for people
  std::string status;       // "done", "failed", "running", "pending", ...
  double duration = 0;      // seconds; 0 when not run or unknown
  int64_t rows = 0;         // rows copied; 0 when not a copy
  // Bytes the step copied (the rows' stored size) when the journal counts
  // them, else the size of the relation it placed; 0 if none.
  uint64_t bytes = 0;
  std::string error;  // what stopped the step when status is "failed"
  // An online copy's final comparison of the table and its copy: "full"
  // (compared), "off" (skipped: `migrate --verify off`), "" (none, or not
  // reached yet).
  std::string verify;
};

// A setting the migrator changed: raised for the run only (a guard such
// as max_wal_size during bulk copies, to be put back) or set by the plan
// (to stay).
struct JournalSetting {
  std::string name;
  bool temporary = true;  // raised for the run, must be restored
  std::string original;   // value before the run
  std::string value;      // value the migrator set
  std::string state;      // "pending", "applied", "restored", "superseded"
};

struct MigrationJournal {
  std::string run;          // the run's identifier
  std::string plan;         // the plan file the run executed
  std::string started_at;   // timestamps as the server prints them
  std::string finished_at;  // "" while running or after a crash
  std::string status;       // "done", "failed", "running", ...
  // Checkpoints during the run (pg_stat_checkpointer / pg_stat_bgwriter
  // deltas): requested ones mean WAL outran max_wal_size.
  int64_t checkpoints_timed = 0;
  int64_t checkpoints_requested = 0;
  // True when the counts run from the start of the run until the journal
  // was read: the run has no end yet (still going, or killed and not yet
  // resumed), so later checkpoints are counted too.
  bool checkpoints_until_read = false;
  // Not empty when the counts are unknown: why ("statistics were reset by
  // a server restart"); both counts are 0 then.
  std::string checkpoints_unknown;
  std::vector<JournalStep> steps;
  std::vector<JournalSetting> settings;
};

// "unverified: N online copies not compared with their tables (--verify
// off)" when a step skipped its final comparison, "verified: N ..." when
// the online copies that got there were compared, "" when none did.
std::string VerificationOf(const MigrationJournal& journal);

// Where a journal comes from. Implementations read one run (the latest
// unless they were told which) and return:
// - OK with *journal filled;
// - NotFound when the database holds no journal (migrate never ran there);
// - Unavailable / SqlError when the database cannot be read; the message
//   names the database (never a password).
class JournalSource {
 public:
  virtual ~JournalSource() = default;
  virtual Status Read(MigrationJournal* journal) = 0;
};

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_JOURNAL_H_
