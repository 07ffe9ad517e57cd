#include "migrator/online_swap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/units.h"
#include "migrator/online_detail.h"
#include "migrator/online_logical.h"
#include "migrator/online_replay.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// What SwapSql needs of the shadow: its identity columns' sequences and
// its extended statistics.
Status ShadowSwapInputs(const OnlineContext& c, SwapInputs* inputs) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      "SELECT a.attname, pg_catalog.pg_get_serial_sequence($1, a.attname) "
      "FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
      "$1::pg_catalog.regclass "
      "AND a.attidentity <> '' AND a.attnum > 0 AND NOT a.attisdropped",
      {c.names.QualifiedShadow()}, &r));
  for (const auto& row : r.rows) {
    inputs->shadow_identity_sequences[Cell(row, 0)] = Cell(row, 1);
  }
  SqlResult stats;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      "SELECT pg_catalog.format('%I.%I', n.nspname, x.stxname) FROM "
      "pg_catalog.pg_statistic_ext x JOIN pg_catalog.pg_namespace n ON "
      "n.oid = x.stxnamespace WHERE x.stxrelid = $1::pg_catalog.regclass ORDER "
      "BY "
      "x.oid",
      {c.names.QualifiedShadow()}, &stats));
  for (const auto& row : stats.rows) {
    inputs->shadow_statistics.push_back(Cell(row, 0));
  }
  return Status::Ok();
}

// Under the swap's lock: the table's definition still has the structure
// hash |detail| recorded, and the capture trigger still fires always.
Status CheckUnchanged(const OnlineContext& c, const std::string& detail) {
  std::string expected = ParseDetail(detail).hash;
  std::string hash;
  PGLAYOUT_RETURN_IF_ERROR(ReadStructureHash(
      c.ex->session(), c.oid, &hash, !expected.starts_with(kStructureHashTag)));
  if (!expected.empty() && hash != expected) {
    return Status::Aborted(fmt::format(
        "{}: its definition (columns, defaults, indexes, constraints, "
        "owner or storage parameters) changed since the copy started "
        "(concurrent DDL); the copy would be stale, so it is not swapped. "
        "Run pglayout migrate --abort and start again",
        c.relation()));
  }
  // Logical capture: the slot is checked as it is read (PumpChangesUnderLock).
  if (c.logical()) return Status::Ok();
  SqlValue enabled;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(c.ex->session(),
                 "SELECT coalesce((SELECT tgenabled::pg_catalog.text FROM "
                 "pg_catalog.pg_trigger "
                 "WHERE tgrelid = $1::pg_catalog.oid AND tgname = "
                 "'pglayout_capture'), 'missing')",
                 {std::to_string(c.oid)}, &enabled));
  if (enabled.value_or("") != "A") {
    return Status::Aborted(fmt::format(
        "{}: the capture trigger was disabled or dropped ({}); changes may "
        "have been missed, so the copy is not swapped. Run pglayout "
        "migrate --abort and start again",
        c.relation(), enabled.value_or("")));
  }
  return Status::Ok();
}

// Under the swap's lock, after its statements: the new table has the
// table's own triggers and no other, so that nothing foreign is carried
// over while the final check says there is nothing left.
Status CheckTriggersCarried(const OnlineContext& c, const TableFacts& old) {
  std::vector<std::string> foreign, missing;
  PGLAYOUT_RETURN_IF_ERROR(
      CompareTriggers(c.ex->session(), c.names.QualifiedTable(),
                      old.dependents.triggers, &foreign, &missing));
  for (const std::string& m : missing) foreign.push_back("missing: " + m);
  if (foreign.empty()) return Status::Ok();
  return Status::Aborted(fmt::format(
      "{}: after the swap's statements the new table's triggers are not the "
      "table's own ({}); the swap was rolled back and nothing changed. Run "
      "pglayout migrate --abort and report this",
      c.relation(), JoinComma(foreign)));
}

// The most log rows the swap replays under its ACCESS EXCLUSIVE lock
// (about 0.5 s of replay); with more pending it gives the lock back, and
// catches up before the next attempt.
int64_t MaxBacklogUnderLock(const OnlineContext& c) {
  return 5 * std::max<int64_t>(c.ex->options().switch_threshold, 100);
}

// A prepared transaction holding a lock on the table never ends by
// itself: the swap would wait for it until the lock deadline
// (docs/online-migration.md#prepared-transactions).
Status RefusePreparedLocks(const OnlineContext& c) {
  std::vector<std::string> gids;
  PGLAYOUT_RETURN_IF_ERROR(ReadPreparedLocks(c.ex->session(), c.oid, &gids));
  if (gids.empty()) return Status::Ok();
  return Status::Aborted(fmt::format(
      "{}: prepared transaction {} holds a lock on it, so the swap could "
      "never get its lock; COMMIT PREPARED or ROLLBACK PREPARED it, then "
      "run pglayout migrate again to resume",
      c.relation(), JoinComma(gids)));
}

// Sessions of this database whose transaction holds a snapshot (or an xid)
// and started before $1; our own sessions and VACUUM do not count.
constexpr char kOlderTransactionsSql[] =
    "SELECT pg_catalog.format('pid %s (%s, transaction open since %s)', "
    "a.pid, coalesce(nullif(a.application_name, ''), a.usename), "
    "a.xact_start) FROM pg_catalog.pg_stat_activity a WHERE a.datname = "
    "pg_catalog.current_database() AND a.pid <> pg_catalog.pg_backend_pid() "
    "AND a.backend_type = 'client backend' AND a.application_name NOT LIKE "
    "'pglayout-migrate%' AND a.xact_start < $1::pg_catalog.timestamptz AND "
    "(a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL) AND "
    "coalesce(a.query, '') !~* '^\\s*(vacuum|analyze)' ORDER BY a.xact_start";

// A rename swap is not MVCC-safe: a snapshot taken before it would see
// the new table without the rows copied after the snapshot
// (docs/online-migration.md#older-snapshots). Waits, bounded by
// old_xact_wait_s, until every transaction of this database that holds a
// snapshot and started before the swap phase has ended, as pg_repack
// does; VACUUM and our own sessions are skipped.
Status WaitForOlderTransactions(const OnlineContext& c) {
  SqlValue since;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      c.ex->session(), "SELECT pg_catalog.clock_timestamp()::pg_catalog.text",
      {}, &since));
  const double start = c.Now();
  while (true) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(
        c.ex->session()->Execute(kOlderTransactionsSql, {since}, &r));
    if (r.rows.empty()) return Status::Ok();
    std::vector<std::string> who;
    for (const auto& row : r.rows) who.push_back(Cell(row, 0));
    if (c.Since(start) > c.ex->options().old_xact_wait_s) {
      return Status::Aborted(fmt::format(
          "{}: transactions older than the copy are still open after {:.0f} "
          "s: {}. After the swap their snapshots would see an incomplete "
          "table, so it is not swapped yet; end them and run pglayout "
          "migrate again to resume (or --abort)",
          c.relation(), c.ex->options().old_xact_wait_s, JoinComma(who)));
    }
    c.ex->Failpoint("swap-wait:" + c.key());
    ProgressUpdate u;
    u.task = "swap " + c.relation();
    u.step = "waiting for transactions older than the copy";
    u.elapsed_s = c.Since(start);
    u.detail = JoinComma(who);
    c.ex->progress()->Update(u);
    c.Sleep(0.2);
  }
}

// The swap phase of one run; its counts go to its report line.
class SwapPhase {
 public:
  SwapPhase(const OnlineContext& c, const std::string& detail, OnlinePace* pace,
            OnlineVerifier* verifier)
      : c_(c), detail_(detail), pace_(pace), verifier_(verifier) {}

  Status Run();

 private:
  Status SwapOnce();

  const OnlineContext& c_;
  const std::string& detail_;
  OnlinePace* pace_;
  OnlineVerifier* verifier_;
  int64_t replayed_under_lock_ = 0;  // log rows the swap replayed
  int64_t verified_under_lock_ = 0;  // rows of their keys it verified
};

Status SwapPhase::Run() {
  PGLAYOUT_RETURN_IF_ERROR(RefusePreparedLocks(c_));
  PGLAYOUT_RETURN_IF_ERROR(WaitForOlderTransactions(c_));
  // The foreground kept writing while we waited: replay that outside the
  // lock.
  PGLAYOUT_RETURN_IF_ERROR(CatchUp(c_, pace_));
  PGLAYOUT_RETURN_IF_ERROR(verifier_->EnsureHashForm());
  c_.ex->Failpoint("before-swap:" + c_.key());
  const double start = c_.Now();
  // Unlike the other steps, the swap cancels autovacuum before its first
  // attempt too: each attempt that times out costs a catch-up, and a
  // busy table (or one of its foreign keys' tables) is likely to have a
  // worker by the end of a long copy. The shadow has none: its
  // autovacuum is off until the swap.
  const std::vector<std::string> locked = SwapLockedTables(c_.table, c_.names);
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->CancelAutovacuumOn(locked));
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->WithLockRetry(
      "swap", locked, [&]() { return SwapOnce(); },
      [&]() { return CatchUp(c_, pace_); }));
  c_.ex->Line(fmt::format(
      "{}: swapped ({:.2f} s including lock waits; {} replayed and {} "
      "verified under the lock); the old table is kept as {}",
      c_.relation(), c_.Since(start),
      CountOf(replayed_under_lock_, "change", "changes"),
      CountOf(verified_under_lock_, "row", "rows"), c_.names.QualifiedOld()));
  c_.ex->Failpoint("after-swap:" + c_.key());
  return Status::Ok();
}

Status SwapPhase::SwapOnce() {
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->Exec(SwapLockSql(c_.table, c_.names)));
  PGLAYOUT_RETURN_IF_ERROR(CheckUnchanged(c_, detail_));
  PGLAYOUT_RETURN_IF_ERROR(CheckShadow(c_, ShadowLock::kHeld));
  if (c_.logical()) PGLAYOUT_RETURN_IF_ERROR(PumpChangesUnderLock(c_));
  SqlResult counted;
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->session()->Execute(
      fmt::format("SELECT pg_catalog.count(*) FROM (SELECT FROM {} LIMIT $1) l",
                  c_.names.log),
      {std::to_string(MaxBacklogUnderLock(c_) + 1)}, &counted));
  SqlRowReader row(counted, 0, "changes pending under the swap's lock");
  const int64_t pending = row.Int(0);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  if (pending > MaxBacklogUnderLock(c_)) {
    return c_.ex->RetryLater(
        fmt::format("{}: more than {} changes to replay under the swap's lock; "
                    "replaying them first",
                    c_.relation(), MaxBacklogUnderLock(c_)));
  }
  ReplaySql replay = MakeReplaySql(c_.table, c_.names);
  int64_t n = 0;
  replayed_under_lock_ = verified_under_lock_ = 0;
  do {
    std::vector<SqlValue> keys;
    PGLAYOUT_RETURN_IF_ERROR(ReplayLogRows(c_, replay, 100000, &n, &keys));
    replayed_under_lock_ += n;
    if (n > 0) {
      PGLAYOUT_RETURN_IF_ERROR(
          verifier_->VerifyKeys(keys, &verified_under_lock_));
    }
  } while (n > 0);
  TableFacts fresh;
  PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(c_.ex->session(), c_.oid, &fresh));
  SwapInputs inputs;
  PGLAYOUT_RETURN_IF_ERROR(ShadowSwapInputs(c_, &inputs));
  PGLAYOUT_RETURN_IF_ERROR(
      c_.ex->ExecAll(SwapSql(fresh, c_.step.target, c_.names, inputs)));
  PGLAYOUT_RETURN_IF_ERROR(CheckTriggersCarried(c_, fresh));
  return c_.ex->journal()->SetStep(c_.ex->run_id(), c_.key(), c_.step_no,
                                   "running", "swapped");
}

}  // namespace

Status CompareTriggers(SqlSession* session, const std::string& table,
                       const std::vector<TriggerFacts>& own,
                       std::vector<std::string>* foreign,
                       std::vector<std::string>* missing) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      std::string("SELECT tgname, pg_catalog.pg_get_triggerdef(oid), "
                  "tgenabled FROM pg_catalog.pg_trigger WHERE tgrelid = "
                  "$1::pg_catalog.regclass AND NOT tgisinternal") +
          (session->server_version() >= 130000 ? " AND tgparentid = 0" : "") +
          " ORDER BY 1",
      {table}, &r));
  std::map<std::string, std::string> left;  // key -> name
  for (const TriggerFacts& t : own) {
    left[t.name + "\n" + t.definition + "\n" + t.enabled] = t.name;
  }
  for (const auto& row : r.rows) {
    std::string key = Cell(row, 0) + "\n" + Cell(row, 1) + "\n" + Cell(row, 2);
    if (left.erase(key) == 0) foreign->push_back(Cell(row, 1));
  }
  for (const auto& [key, name] : left) missing->push_back(name);
  return Status::Ok();
}

Status SwapShadow(const OnlineContext& c, const std::string& detail,
                  OnlinePace* pace, OnlineVerifier* verifier) {
  return SwapPhase(c, detail, pace, verifier).Run();
}

}  // namespace pglayout::migrator
