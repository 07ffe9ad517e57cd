// Internal to the migrator: the session a run works through, with its
// transactions, bounded lock waits, failpoints and report lines. The online
// step runners the apply phase calls are in online.h.

#ifndef PGLAYOUT_MIGRATOR_EXECUTOR_H_
#define PGLAYOUT_MIGRATOR_EXECUTOR_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/progress.h"
#include "common/text.h"
#include "migrator/journal.h"
#include "migrator/migrate_options.h"
#include "migrator/migrate_result.h"
#include "migrator/throttle.h"
#include "pg/replication_stream.h"
#include "pg/sql.h"

namespace pglayout::migrator {

// Every session of a run is tagged "pglayout-migrate/..." (application_name).
inline constexpr char kAppName[] = "pglayout-migrate";
// The role (Executor::SessionName) of a logical capture's stream.
inline constexpr char kCaptureStreamRole[] = "capture";

// A session as |options| say (their factory, or libpq), tagged |app|.
Status ConnectSession(const MigrateOptions& options, const std::string& app,
                      std::unique_ptr<SqlSession>* out);

// A WITH clause for a query given $1::text[] of quoted relation names (one
// that does not resolve is skipped): "r" holds them, every level of their
// partitions and their TOAST tables; "d" this database.
extern const char kRelationsCte[];

class Executor {
 public:
  Executor(SqlSession* session, Journal* journal, const MigrateOptions& options,
           ProgressSink* progress, MigrateResult* report)
      : session_(session),
        journal_(journal),
        options_(options),
        progress_(progress),
        report_(report) {}

  SqlSession* session() { return session_; }
  Journal* journal() { return journal_; }
  const MigrateOptions& options() const { return options_; }
  Clock* clock() const { return ClockOf(options_); }
  ProgressSink* progress() { return progress_; }
  int64_t run_id() const { return run_id_; }
  void set_run_id(int64_t id) { run_id_ = id; }
  // The run's final comparison of online copies: options().verify, else
  // the journal's for a resumed run (ApplyRun sets it).
  VerifyMode verify() const { return verify_; }
  void set_verify(VerifyMode mode) { verify_ = mode; }

  // "pglayout-migrate/run<N>/<role>": the application_name of this run's
  // side sessions and replication stream (a resumed run finds its
  // leftovers by that name).
  std::string SessionName(const std::string& role) const;

  // Opens another session to the same database, hardened like the run's
  // own and tagged SessionName(role): for work beside the main session.
  Status OpenSideSession(const std::string& role,
                         std::unique_ptr<SqlSession>* out) const;

  // Opens a logical replication stream of slot |slot| with plugin options
  // |plugin_options| to the same database, tagged like a side session.
  Status OpenReplicationStream(
      const std::string& role, const std::string& slot,
      const std::vector<std::pair<std::string, std::string>>& plugin_options,
      std::unique_ptr<ReplicationStream>* out) const;

  // Runs |sql| in autocommit (or inside the caller's transaction).
  Status Exec(const std::string& sql);
  Status ExecAll(const std::vector<std::string>& sql);

  // BEGIN; body; COMMIT. On any failure ROLLBACK and return it. The
  // failpoint "<name>:before-commit" runs just before COMMIT.
  Status Transaction(const std::string& name,
                     const std::function<Status()>& body);

  // Transaction() with SET LOCAL lock_timeout first; a lock timeout
  // (55P03) or deadlock (40P01) rolls back and retries after an
  // exponential backoff with jitter, in a fresh transaction each time (a
  // savepoint loop would grow the subtransaction cache: pg_repack #457),
  // until lock_deadline_s; then the error names the sessions holding locks
  // on |relations| (quoted names of what the body locks; their partitions
  // and TOAST tables count too). Between attempts, never before the first
  // (PostgreSQL too cancels an autovacuum only for a waiter), the
  // autovacuum workers on them are cancelled (CancelAutovacuumOn), then
  // |between| runs (the online swap drains the log there).
  //
  // A body that finds more left to do under its locks than it should hold
  // them for returns RetryLater(why): that too rolls back and retries.
  Status WithLockRetry(const std::string& name,
                       const std::vector<std::string>& relations,
                       const std::function<Status()>& body,
                       const std::function<Status()>& between = nullptr);

  // Cancels the autovacuum workers in this database that hold a lock on
  // one of |relations| (quoted names; one that does not exist is skipped),
  // on a partition (any level) or on a TOAST table of one, never one that
  // prevents xid wraparound, and says so in the report. PostgreSQL cancels
  // such a worker itself once a lock request has waited deadlock_timeout
  // for it (1 s), but each of our attempts gives up at lock_timeout before
  // that, so a vacuum of a big table would hold a step up for its whole
  // length (minutes to hours). Best effort: a role that may not signal
  // autovacuum gets one line in the report, and no error.
  Status CancelAutovacuumOn(const std::vector<std::string>& relations);

  Status RetryLater(const std::string& why) {
    retry_requested_ = true;
    return Status::Aborted(why);
  }

  void Failpoint(const std::string& name) const {
    if (options_.failpoint) options_.failpoint(name);
  }
  // One line of the report: names in |text| with newlines or control
  // characters are escaped (DisplayName), so that a line never splits.
  void Line(const std::string& text) {
    report_->lines.push_back(DisplayName(text));
    if (options_.on_line) options_.on_line(report_->lines.back());
  }

 private:
  SqlSession* session_;
  Journal* journal_;
  const MigrateOptions& options_;
  ProgressSink* progress_;
  MigrateResult* report_;
  int64_t run_id_ = 0;
  VerifyMode verify_ = VerifyMode::kFull;
  std::string failed_sqlstate_;            // of the last failed Transaction()
  bool autovacuum_cancel_failed_ = false;  // and said so in the report
  bool retry_requested_ = false;           // by the body of WithLockRetry
};

// Journals step |s| (number |no|) of |ex|'s run done.
Status MarkStepDone(Executor* ex, const Step& s, int no);

// One reading of the signals the adaptive throttle watches (throttle.h), at
// ex->clock(). Call it outside a transaction: inside one the statistics
// views keep answering from the transaction's first reading
// (stats_fetch_consistency).
Status SampleThrottleSignals(Executor* ex, ThrottleSample* sample);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_EXECUTOR_H_
