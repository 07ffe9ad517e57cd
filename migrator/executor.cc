#include "migrator/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {

Status ConnectSession(const MigrateOptions& options, const std::string& app,
                      std::unique_ptr<SqlSession>* out) {
  if (options.connect) return options.connect(app, out);
  return OpenPgSession(options.conninfo, app, out);
}

std::string Executor::SessionName(const std::string& role) const {
  return fmt::format("{}/run{}/{}", kAppName, run_id_, role);
}

Status Executor::OpenSideSession(const std::string& role,
                                 std::unique_ptr<SqlSession>* out) const {
  PGLAYOUT_RETURN_IF_ERROR(ConnectSession(options_, SessionName(role), out));
  return HardenSession(out->get());
}

Status Executor::OpenReplicationStream(
    const std::string& role, const std::string& slot,
    const std::vector<std::pair<std::string, std::string>>& plugin_options,
    std::unique_ptr<ReplicationStream>* out) const {
  return StartLogicalStream(options_.conninfo, SessionName(role), slot,
                            plugin_options, out);
}

Status Executor::Exec(const std::string& sql) {
  SqlResult r;
  return session_->Execute(sql, {}, &r);
}

Status Executor::ExecAll(const std::vector<std::string>& sql) {
  for (const std::string& s : sql) {
    if (!s.empty()) PGLAYOUT_RETURN_IF_ERROR(Exec(s));
  }
  return Status::Ok();
}

Status Executor::Transaction(const std::string& name,
                             const std::function<Status()>& body) {
  PGLAYOUT_RETURN_IF_ERROR(Exec("BEGIN"));
  Status st = body();
  if (!st.ok()) {
    failed_sqlstate_ = session_->last_sqlstate();
    (void)Exec("ROLLBACK");
    return st;
  }
  Failpoint(name + ":before-commit");
  st = Exec("COMMIT");
  failed_sqlstate_ = st.ok() ? "" : session_->last_sqlstate();
  return st;
}

// Autovacuum locks a TOAST table or a partition on its own, while the
// statements that move or drop the table lock all of them: "r" holds them
// all.
const char kRelationsCte[] =
    "WITH n AS (SELECT pg_catalog.to_regclass(x) AS oid FROM "
    "pg_catalog.unnest($1::pg_catalog.text[]) x), t AS (SELECT oid FROM n "
    "WHERE oid IS NOT NULL UNION SELECT p.relid FROM n, "
    "pg_catalog.pg_partition_tree(n.oid) p), r AS (SELECT oid FROM t UNION "
    "SELECT c.reltoastrelid FROM pg_catalog.pg_class c JOIN t ON c.oid = "
    "t.oid WHERE c.reltoastrelid <> 0), d AS (SELECT oid FROM "
    "pg_catalog.pg_database WHERE datname = pg_catalog.current_database()) ";

Status Executor::CancelAutovacuumOn(const std::vector<std::string>& relations) {
  // The candidates are materialized first, so that nothing but them is
  // ever signalled, whatever order the planner gives the conditions. A
  // worker may move on to another table between the two; PostgreSQL
  // itself checks under a lock, which SQL cannot, so that rare case costs
  // one vacuum a restart.
  SqlResult r;
  Status st = session_->Execute(
      std::string(kRelationsCte) +
          ", c AS MATERIALIZED (SELECT a.pid, a.query FROM "
          "pg_catalog.pg_stat_activity a WHERE a.backend_type = 'autovacuum "
          "worker' AND a.query NOT LIKE '%to prevent wraparound%' AND EXISTS "
          "(SELECT FROM pg_catalog.pg_locks l WHERE l.pid = a.pid AND "
          "l.database = (SELECT oid FROM d) AND l.relation IN (SELECT oid "
          "FROM r))) SELECT pg_catalog.count(*), "
          "pg_catalog.string_agg(c.query, '; ' "
          "ORDER BY c.pid) FROM c WHERE pg_catalog.pg_cancel_backend(c.pid)",
      {TextArrayLiteral(relations)}, &r);
  if (!st.ok()) {
    // Not a superuser (only one may signal autovacuum since 12.17, 13.13,
    // 14.10, 15.5 and 16.1; on 18 also pg_signal_autovacuum_worker): the
    // attempts go on, and a vacuum lasts until it ends.
    if (!autovacuum_cancel_failed_) {
      autovacuum_cancel_failed_ = true;
      Line("could not cancel autovacuum workers holding " +
           JoinComma(relations) + " (" + st.message() +
           "); waiting for them instead");
    }
    return Status::Ok();
  }
  int64_t cancelled = 0;
  if (!r.rows.empty()) {
    SqlRowReader row(r, 0, "cancelled autovacuum workers");
    cancelled = row.Int(0);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
  }
  if (cancelled > 0) {
    Line(fmt::format(
        "cancelled {} autovacuum worker(s) holding a lock this step needs "
        "({}), as PostgreSQL does for a lock waiter after deadlock_timeout; "
        "autovacuum comes back later",
        cancelled, Cell(r.rows[0], 1)));
  }
  return Status::Ok();
}

namespace {

// "pid 123 (psql, idle in transaction for 42 s, AccessShareLock on t)" for
// each other session or prepared transaction holding a lock on
// |relations|, at most 5, or "none seen any more".
std::string LockHolders(SqlSession* session,
                        const std::vector<std::string>& relations) {
  constexpr int kMost = 5;
  SqlResult r;
  Status st = session->Execute(
      std::string(kRelationsCte) +
          "SELECT coalesce('pid ' || a.pid || ' (' || coalesce(nullif("
          "a.application_name, ''), a.backend_type, '?') || ', ' || "
          "coalesce(a.state, '?') || coalesce(' for ' || pg_catalog.round("
          "extract(epoch FROM pg_catalog.now() - a.state_change)::numeric) "
          "|| ' s', '') || CASE WHEN a.backend_type = 'autovacuum worker' "
          "THEN ', ' || a.query ELSE '' END, 'prepared transaction ' || "
          "pg_catalog.quote_literal(p.gid) || ' (', 'a transaction (') || "
          "', ' || pg_catalog.string_agg(l.mode || ' on ' || "
          "l.relation::pg_catalog.regclass::pg_catalog.text, ', ' ORDER BY "
          "l.mode) || "
          "')' FROM pg_catalog.pg_locks l LEFT JOIN "
          "pg_catalog.pg_stat_activity a ON a.pid = l.pid LEFT JOIN "
          "pg_catalog.pg_prepared_xacts p ON l.pid IS NULL AND "
          "l.virtualtransaction = '-1/' || p.transaction WHERE l.granted AND "
          "l.database = (SELECT oid FROM d) AND l.relation IN (SELECT oid "
          "FROM r) AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid() "
          "GROUP BY l.pid, l.virtualtransaction, a.pid, a.application_name, "
          "a.backend_type, a.state, a.state_change, a.query, p.gid ORDER BY "
          "l.pid, l.virtualtransaction LIMIT " +
          std::to_string(kMost + 1),
      {TextArrayLiteral(relations)}, &r);
  if (!st.ok()) return "could not list them: " + st.message();
  std::vector<std::string> holders;
  for (const SqlRow& row : r.rows) holders.push_back(Cell(row, 0));
  if (holders.empty()) return "none seen any more";
  if (holders.size() > kMost) {
    holders.resize(kMost);
    holders.push_back("and more");
  }
  return JoinComma(holders);
}

}  // namespace

Status Executor::WithLockRetry(const std::string& name,
                               const std::vector<std::string>& relations,
                               const std::function<Status()>& body,
                               const std::function<Status()>& between) {
  const double start = clock()->Now();
  std::mt19937 jitter(static_cast<unsigned>(start * 1e6));
  double backoff = std::max(0.05, options_.lock_timeout_ms / 1000.0);
  for (int attempt = 1;; ++attempt) {
    retry_requested_ = false;
    Status st = Transaction(name, [&]() -> Status {
      PGLAYOUT_RETURN_IF_ERROR(
          Exec(fmt::format("SET LOCAL lock_timeout = '{}ms'; SET LOCAL "
                           "idle_in_transaction_session_timeout = '{}ms'",
                           options_.lock_timeout_ms,
                           std::llround(options_.lock_idle_timeout_s * 1000))));
      return body();
    });
    if (st.ok()) return st;
    if (st.code() == Status::Code::kUnavailable) {
      return Status::Unavailable(fmt::format(
          "{}: the connection was lost during it ({}). The server also "
          "ends a transaction holding locks when pglayout stays silent in it "
          "for --lock-idle-timeout ({:.0f} s), so that production never "
          "waits for a frozen client. Nothing half-done stays behind: run "
          "pglayout migrate again to resume",
          name, st.message(), options_.lock_idle_timeout_s));
    }
    bool retryable = retry_requested_ || failed_sqlstate_ == "55P03" ||
                     failed_sqlstate_ == "40P01";
    double elapsed = clock()->Now() - start;
    if (!retryable) return st;
    if (elapsed > options_.lock_deadline_s) {
      return Status::Aborted(fmt::format(
          "{}: gave up after {} attempts in {:.0f} s: other sessions kept "
          "conflicting locks or too much work was left for the time under "
          "them (each wait was bounded by lock_timeout = {} ms so that "
          "production queries never queued behind us). Holding locks on {} "
          "now: {}. Last error: {}",
          name, attempt, elapsed, options_.lock_timeout_ms,
          JoinComma(relations), LockHolders(session_, relations),
          st.message()));
    }
    PGLAYOUT_RETURN_IF_ERROR(CancelAutovacuumOn(relations));
    if (between) PGLAYOUT_RETURN_IF_ERROR(between());
    double wait =
        backoff * std::uniform_real_distribution<double>(0.5, 1.0)(jitter);
    clock()->Sleep(wait);
    backoff = std::min(backoff * 2, 5.0);
  }
}

Status MarkStepDone(Executor* ex, const Step& s, int no) {
  return ex->journal()->SetStep(ex->run_id(), s.key, no, "done", "");
}

}  // namespace pglayout::migrator
