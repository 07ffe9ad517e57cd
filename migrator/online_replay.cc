#include "migrator/online_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/sql_row.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// One replay transaction: take up to |limit| log rows, resync their keys.
Status ReplayRound(const OnlineContext& c, int64_t limit, int64_t* log_rows) {
  ReplaySql sql = MakeReplaySql(c.table, c.names);
  return BulkTransaction(c.ex, "replay", [&]() -> Status {
    return ReplayLogRows(c, sql, limit, log_rows);
  });
}

// The rows the capture log holds now.
Status LogBacklog(const OnlineContext& c, int64_t* rows) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      fmt::format("SELECT count(*) FROM {}", c.names.log), {}, &r));
  SqlRowReader row(r, 0, "capture log backlog");
  *rows = row.Int(0);
  return row.status();
}

// With the adaptive throttle a replay round lasts about this long, as a
// copy batch does, so that the throttle paces the catch-up as it paces the
// copy; the first round, whose speed is not known yet, takes kFirstRoundRows.
constexpr double kPacedRoundSeconds = 1;
constexpr int64_t kFirstRoundRows = 10000;

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
  const int64_t threshold = c.ex->options().switch_threshold;
  // A round shorter than twice the threshold could take fewer than the
  // threshold from a long log and end the catch-up too soon.
  const int64_t fewest = std::max<int64_t>(2 * threshold, 1000);
  const int64_t most = std::max(c.ex->options().batch_rows, fewest);
  int64_t limit =
      c.Adaptive() ? std::clamp(kFirstRoundRows, fewest, most) : most;
  std::optional<int64_t> previous_backlog;
  int64_t replayed = 0;
  for (int rounds = 1;; ++rounds) {
    int64_t n = 0;
    PGLAYOUT_RETURN_IF_ERROR(pace->MarkBatchStart());
    const double round_start = c.Now();
    PGLAYOUT_RETURN_IF_ERROR(ReplayRound(c, limit, &n));
    replayed += n;
    if (n < threshold) {
      if (rounds == 1) return Status::Ok();  // a short log: nothing to tell
      c.ex->Line(fmt::format(
          "{}: caught up: {} logged changes replayed in {} rounds ({:.1f} s; "
          "throttle {})",
          c.relation(), replayed, rounds, c.Since(start), pace->State()));
      return Status::Ok();
    }
    const double round_s = c.Since(round_start);
    int64_t backlog = 0;
    if (c.Adaptive()) {
      PGLAYOUT_RETURN_IF_ERROR(LogBacklog(c, &backlog));
      limit = NextReplayRows(n, round_s, kPacedRoundSeconds, fewest, most);
    }
    PGLAYOUT_RETURN_IF_ERROR(
        pace->ReplayPause(round_s, backlog, previous_backlog));
    previous_backlog = backlog;
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
