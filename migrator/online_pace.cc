#include "migrator/online_pace.h"

#include <fmt/format.h>

#include <algorithm>

#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// The first transaction id not yet completed: exact at any instant, unlike
// the commit counts of the statistics views.
constexpr char kCompletedXidsSql[] =
    "pg_catalog.txid_snapshot_xmax(pg_catalog.txid_current_snapshot())";

}  // namespace

// Not from the run's start: installing the capture trigger waits for the
// table's lock and stalls its writers for a moment, which measured as much
// as a sixth off a 5 s baseline on pgbench and made the copy look cheaper
// than it was.
Status OnlinePace::SampleBaseline() {
  if (!c_.Adaptive()) return Status::Ok();
  ThrottleSample first, second;
  PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(c_.ex, &first));
  c_.Sleep(c_.ex->options().throttle_limits.window_s);
  PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(c_.ex, &second));
  throttle_.SetBaseline(first, second);
  baseline_sampled_ = true;
  c_.ex->Line(fmt::format(
      "{}: adaptive throttle baseline: {:.0f} {}/s in the database",
      c_.relation(), throttle_.baseline_tps(), throttle_.measure()));
  return Status::Ok();
}

// One query: the pause only needs the completed transactions, the rest is
// read after the batch.
Status OnlinePace::MarkBatchStart() {
  if (!c_.Adaptive()) return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->session()->Execute(
      std::string("SELECT ") + kCompletedXidsSql, {}, &r));
  SqlRowReader row(r, 0, "completed transactions");
  const int64_t xids = row.Int(0);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  throttle_.BatchStarting(c_.Now(), xids);
  return Status::Ok();
}

Status OnlinePace::AdaptivePause(double work_s, double* pause) {
  *pause = 0;
  if (!c_.Adaptive()) return Status::Ok();
  ThrottleSample now;
  PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(c_.ex, &now));
  *pause = throttle_.Next(now, work_s);
  return Status::Ok();
}

Status OnlinePace::CopyPause(double start, int64_t bytes, double batch_s) {
  double pause = 0;
  PGLAYOUT_RETURN_IF_ERROR(AdaptivePause(batch_s, &pause));
  double rate = c_.ex->options().max_rate_mbps;
  if (rate > 0) {
    double due = static_cast<double>(bytes) / (rate * 1e6);
    pause = std::max(pause, due - c_.Since(start));
  }
  c_.Sleep(pause);
  return Status::Ok();
}

// At half duty replay still outruns any foreground the copy kept up with,
// and it must catch up to converge.
Status OnlinePace::ReplayPause(double round_s) {
  double pause = 0;
  PGLAYOUT_RETURN_IF_ERROR(AdaptivePause(round_s, &pause));
  c_.Sleep(std::min(pause, round_s));
  return Status::Ok();
}

std::string OnlinePace::State() const {
  std::string state = !c_.Adaptive()      ? "off"
                      : baseline_sampled_ ? "adaptive " + throttle_.State()
                                          : "adaptive (one batch: no pause)";
  if (c_.ex->options().max_rate_mbps > 0) {
    state += fmt::format(", cap {:.0f} MB/s", c_.ex->options().max_rate_mbps);
  }
  return state;
}

Status SampleThrottleSignals(Executor* ex, ThrottleSample* sample) {
  CheckpointCounts checkpoints;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &checkpoints));
  // The run's own capture stream is a walsender too: its lag is the
  // capture's business (CheckSlot), not a standby falling behind.
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT (SELECT xact_commit FROM pg_catalog.pg_stat_database WHERE "
      "datname = pg_catalog.current_database()), " +
          std::string(kCompletedXidsSql) +
          ", coalesce((SELECT pg_catalog.max("
          "extract(epoch FROM replay_lag)) FROM "
          "pg_catalog.pg_stat_replication WHERE application_name IS DISTINCT "
          "FROM $1), 0), coalesce((SELECT "
          "pg_catalog.max(pg_catalog.pg_wal_lsn_diff("
          "pg_catalog.pg_current_wal_lsn(), replay_lsn)) FROM "
          "pg_catalog.pg_stat_replication WHERE application_name IS DISTINCT "
          "FROM $1), 0)",
      {ex->SessionName(kCaptureStreamRole)}, &r));
  sample->at_s = ex->clock()->Now();
  SqlRowReader row(r, 0, "throttle signals");
  sample->xact_commit = row.Int(0);
  sample->requested_checkpoints = checkpoints.requested;
  sample->completed_xids = row.Int(1);
  sample->replica_lag_s = row.Double(2);
  sample->replica_lag_bytes = row.Double(3);
  return row.status();
}

}  // namespace pglayout::migrator
