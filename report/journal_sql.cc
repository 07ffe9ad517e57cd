#include "report/journal_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "pg/journal_schema.h"
#include "pg/sql_row.h"

namespace pglayout::report {

std::string StepDescription(const std::string& phase,
                            const std::string& detail) {
  static const std::map<std::string, std::string> kPhases = {
      {"copy", "copying rows into the shadow table"},
      {"indexes", "building the shadow table's indexes"},
      {"catchup", "replaying the changes captured during the copy"},
      {"swapped", "swapped; the old table is kept until --finalize"},
      {"done", ""}};
  auto known = kPhases.find(phase);
  std::string what = known != kPhases.end() ? known->second
                     : phase.empty()        ? ""
                                            : "at " + phase;
  std::vector<std::string> lines;
  std::istringstream in(detail);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() >= 4) {
    std::string how = lines[3] == "copy=blocks" ? "copy by heap block ranges"
                                                : "copy in key order";
    what = what.empty() ? how : what + " (" + how + ")";
  }
  return what;
}

std::string VerificationOf(const MigrationJournal& journal) {
  int compared = 0, skipped = 0;
  for (const JournalStep& s : journal.steps) {
    compared += s.verify == "full";
    skipped += s.verify == "off";
  }
  const int n = skipped > 0 ? skipped : compared;
  if (n == 0) return "";
  return fmt::format("{}: {} online cop{} {}compared with {} table{}",
                     skipped > 0 ? "unverified" : "verified", n,
                     n == 1 ? "y" : "ies", skipped > 0 ? "not " : "",
                     n == 1 ? "its" : "their",
                     skipped > 0 ? " (--verify off)" : "");
}

namespace {

class SqlJournalSource : public JournalSource {
 public:
  explicit SqlJournalSource(SqlSession* session) : session_(session) {}

  Status Read(MigrationJournal* journal) override {
    // Before any statement reads schema pglayout.
    PGLAYOUT_RETURN_IF_ERROR(CheckJournalSchema(session_));
    PGLAYOUT_RETURN_IF_ERROR(CheckTables());
    MigrationJournal j;
    int64_t run_id = 0;
    RunCheckpoints counts;
    PGLAYOUT_RETURN_IF_ERROR(ReadRun(&j, &run_id, &counts));
    PGLAYOUT_RETURN_IF_ERROR(ReadSteps(run_id, &j));
    PGLAYOUT_RETURN_IF_ERROR(ReadSettings(run_id, &j));
    PGLAYOUT_RETURN_IF_ERROR(CountCheckpoints(counts, &j));
    *journal = std::move(j);
    return Status::Ok();
  }

 private:
  // The run's checkpoint counters; -1 where the journal has none (a run
  // still going or killed has no end; very old journals have no start).
  struct RunCheckpoints {
    CheckpointCounts start{-1, -1};
    CheckpointCounts end{-1, -1};
    std::string started_at, finished_at;  // timestamptz text
  };

  Status Query(const std::string& sql, const std::vector<SqlValue>& params,
               SqlResult* result) {
    Status st = session_->Execute(sql, params, result);
    if (st.ok()) return st;
    return st.WithContext(session_->Describe() + ": reading the journal");
  }

  Status CheckTables() {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(
        Query("SELECT pg_catalog.to_regnamespace('pglayout') IS NOT NULL, "
              "pg_catalog.to_regclass('pglayout.run') IS NOT NULL AND "
              "pg_catalog.to_regclass('pglayout.step') IS NOT NULL AND "
              "pg_catalog.to_regclass('pglayout.setting') IS NOT NULL",
              {}, &r));
    SqlRowReader row(r, 0, "the journal's tables");
    const bool schema = row.Bool(0), tables = row.Bool(1);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
    if (!schema) {
      return Status::NotFound(session_->Describe() +
                              ": no migration journal (schema pglayout does "
                              "not exist; pglayout migrate --apply has not "
                              "run against this database)");
    }
    if (!tables) {
      return Status::NotFound(session_->Describe() +
                              ": schema pglayout holds no journal tables "
                              "(run, step, setting)");
    }
    return Status::Ok();
  }

  // Columns added by later versions of the journal are read through
  // to_jsonb(row), so that journals of every version can be read.
  Status ReadRun(MigrationJournal* j, int64_t* run_id, RunCheckpoints* counts) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Query(
        fmt::format(
            "SELECT run_id, plan_hash, state, {}, {}, "
            "coalesce(checkpoints_timed_start, -1), "
            "coalesce(checkpoints_requested_start, -1), "
            "coalesce((pg_catalog.to_jsonb(r) ->> "
            "'checkpoints_timed_end')::bigint, -1), "
            "coalesce((pg_catalog.to_jsonb(r) ->> "
            "'checkpoints_requested_end')::bigint, "
            "-1), started_at::pg_catalog.text, coalesce(finished_at::"
            "pg_catalog.text, '') FROM pglayout.run r ORDER BY run_id DESC "
            "LIMIT 1",
            Timestamp("started_at"), Timestamp("finished_at")),
        {}, &r));
    if (r.rows.empty()) {
      return Status::NotFound(session_->Describe() +
                              ": the migration journal holds no run");
    }
    SqlRowReader row(r, 0, "pglayout.run");
    *run_id = row.Int(0);
    j->run = fmt::format("#{}", *run_id);
    j->plan = "plan hash " + row.Text(1);
    j->status = row.Text(2);
    j->started_at = row.Text(3);
    j->finished_at = row.Text(4);
    counts->start = {row.Int(5), row.Int(6)};
    counts->end = {row.Int(7), row.Int(8)};
    counts->started_at = row.Text(9);
    counts->finished_at = row.Text(10);
    return row.status();
  }

  Status ReadSteps(int64_t run_id, MigrationJournal* j) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Query(
        "SELECT step_no, step_key, state, phase, detail, rows_copied, "
        "CASE WHEN relation_oid IS NULL THEN '' "
        "ELSE relation_oid::pg_catalog.regclass::pg_catalog.text END, "
        "coalesce(extract(epoch FROM finished_at - started_at), 0), "
        "coalesce(pg_catalog.pg_total_relation_size(relation_oid), 0), "
        "coalesce((pg_catalog.to_jsonb(s) ->> 'bytes_copied')::bigint, 0), "
        "coalesce(pg_catalog.to_jsonb(s) ->> 'error', ''), "
        "coalesce(pg_catalog.to_jsonb(s) ->> 'verify', '') "
        "FROM pglayout.step s WHERE run_id = $1 "
        "ORDER BY step_no, step_key",
        {std::to_string(run_id)}, &r));
    return ReadRows(r, "pglayout.step", [&](SqlRowReader& row) {
      JournalStep s;
      s.ordinal = static_cast<int>(row.Int(0));
      std::string key = row.Text(1);
      size_t colon = key.find(':');
      s.kind = key.substr(0, colon);
      // The step key names the relation as the plan does; the journaled
      // oid names the old copy once an online step has swapped.
      s.relation =
          colon != std::string::npos ? key.substr(colon + 1) : row.Text(6);
      s.status = row.Text(2);
      s.error = row.Text(10);
      s.verify = row.Text(11);
      if (!s.error.empty() && s.status != "done") s.status = "failed";
      s.description = StepDescription(row.Text(3), row.Text(4));
      s.rows = row.Int(5);
      s.duration = std::max(0.0, row.Double(7));
      // Bytes the copy wrote when the journal counts them, else the size
      // of the relation the step placed.
      int64_t copied = row.Int(9);
      s.bytes = static_cast<uint64_t>(
          std::max<int64_t>(0, copied > 0 ? copied : row.Int(8)));
      j->steps.push_back(std::move(s));
    });
  }

  Status ReadSettings(int64_t run_id, MigrationJournal* j) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Query(
        "SELECT name, kind, coalesce(original_setting, ''), new_value, state "
        "FROM pglayout.setting WHERE run_id = $1 ORDER BY changed_at, kind, "
        "name",
        {std::to_string(run_id)}, &r));
    return ReadRows(r, "pglayout.setting", [&](SqlRowReader& row) {
      j->settings.push_back({row.Text(0), row.Text(1) == "guard", row.Text(2),
                             row.Text(3), row.Text(4)});
    });
  }

  // Checkpoints between the run's start and its end; for a run without
  // an end (still going, or killed), until now, and the page says so.
  Status CountCheckpoints(const RunCheckpoints& counts, MigrationJournal* j) {
    if (counts.start.timed < 0 || counts.start.requested < 0) {
      return Status::Ok();
    }
    CheckpointCounts end = counts.end;
    if (end.timed < 0 || end.requested < 0) {
      Status st = ReadCheckpointCounts(session_, &end);
      if (!st.ok()) {
        return st.WithContext(session_->Describe() +
                              ": reading the checkpoint statistics");
      }
      j->checkpoints_until_read = true;
    }
    // A statistics reset during the run (a crash, pg_stat_reset_shared)
    // makes the counts unknown: the difference would be negative, or too
    // small.
    std::string reset;
    Status st = CheckpointStatsResetSince(session_, counts.started_at, &reset,
                                          counts.finished_at);
    if (!st.ok()) {
      return st.WithContext(session_->Describe() +
                            ": reading the checkpoint statistics");
    }
    CheckpointDelta d = CheckpointsBetween(counts.start, end, reset);
    j->checkpoints_timed = d.timed;
    j->checkpoints_requested = d.requested;
    if (!d.known) j->checkpoints_unknown = d.why;
    return Status::Ok();
  }

  // A timestamp column for people, in UTC whatever the session's zone.
  static std::string Timestamp(const char* column) {
    return fmt::format(
        "CASE WHEN {0} IS NULL THEN '' ELSE "
        "pg_catalog.to_char({0} AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD HH24:MI:SS') || ' UTC' END",
        column);
  }

  SqlSession* session_;
};

}  // namespace

std::unique_ptr<JournalSource> MakeSqlJournalSource(SqlSession* session) {
  return std::make_unique<SqlJournalSource>(session);
}

}  // namespace pglayout::report
