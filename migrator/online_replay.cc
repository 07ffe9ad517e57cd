#include "migrator/online_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "migrator/online_logical.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// One replay transaction: take up to |limit| log rows, resync their keys.
Status ReplayRound(const OnlineContext& c, int64_t limit, int64_t* log_rows) {
  if (c.logical()) PGLAYOUT_RETURN_IF_ERROR(PumpChanges(c));
  ReplaySql sql = MakeReplaySql(c.table, c.names);
  return BulkTransaction(c.ex, "replay", [&]() -> Status {
    PGLAYOUT_RETURN_IF_ERROR(CheckShadow(c, ShadowLock::kShareRowExclusive));
    return ReplayLogRows(c, sql, limit, log_rows);
  });
}

}  // namespace

Status ReplayLogRows(const OnlineContext& c, const ReplaySql& sql,
                     int64_t limit, int64_t* log_rows,
                     std::vector<SqlValue>* keys) {
  SqlResult taken;
  PGLAYOUT_RETURN_IF_ERROR(
      c.ex->session()->Execute(sql.take, {std::to_string(limit)}, &taken));
  *log_rows = 0;
  if (taken.rows.empty()) return Status::Ok();
  SqlRowReader counts(taken, 0, "replay's log rows");
  *log_rows = counts.Int(0);
  PGLAYOUT_RETURN_IF_ERROR(counts.status());
  if (*log_rows == 0) return Status::Ok();
  std::vector<SqlValue> arrays(taken.rows[0].begin() + 2, taken.rows[0].end());
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(sql.remove, arrays, &r));
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(sql.insert, arrays, &r));
  if (keys) *keys = arrays;
  return c.ex->journal()->AddReplayed(c.ex->run_id(), c.key(), *log_rows);
}

Status CatchUp(const OnlineContext& c, OnlinePace* pace) {
  pace->OtherWorkDone();  // index builds or the verification
  const double start = c.Now();
  int64_t limit = std::max<int64_t>(c.ex->options().batch_rows, 1000);
  int64_t replayed = 0;
  for (int rounds = 1;; ++rounds) {
    int64_t n = 0;
    PGLAYOUT_RETURN_IF_ERROR(pace->MarkBatchStart());
    const double round_start = c.Now();
    PGLAYOUT_RETURN_IF_ERROR(ReplayRound(c, limit, &n));
    replayed += n;
    if (n < c.ex->options().switch_threshold) {
      if (rounds == 1) return Status::Ok();  // a short log: nothing to tell
      c.ex->Line(fmt::format(
          "{}: caught up: {} logged changes replayed in {} rounds ({:.1f} s; "
          "throttle {})",
          c.relation(), replayed, rounds, c.Since(start), pace->State()));
      return Status::Ok();
    }
    PGLAYOUT_RETURN_IF_ERROR(pace->ReplayPause(c.Since(round_start)));
    if (c.Since(start) > c.ex->options().catchup_timeout_s) {
      return Status::Aborted(fmt::format(
          "{}: replay did not converge in {:.0f} s (writes arrive faster "
          "than they can be replayed); nothing was swapped. Retry at a "
          "quieter time, or run --abort",
          c.relation(), c.ex->options().catchup_timeout_s));
    }
  }
}

}  // namespace pglayout::migrator
