#include "migrator/journal.h"

#include <fmt/format.h>

#include "common/units.h"
#include "migrator/sql_util.h"
#include "pg/journal_schema.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// The schema itself is created by CreateSchema; the statements below only
// run once CheckJournalSchema has found it pglayout's own.
constexpr const char* kSchemaSql[] = {
    "CREATE TABLE IF NOT EXISTS pglayout.run ("
    " run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    " plan_hash text NOT NULL, plan_text text NOT NULL,"
    " state text NOT NULL DEFAULT 'running'"
    "  CHECK (state IN ('running', 'done', 'aborted')),"
    " started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),"
    " finished_at timestamptz, tool_version text,"
    " checkpoints_timed_start bigint, checkpoints_requested_start bigint)",
    "CREATE UNIQUE INDEX IF NOT EXISTS run_one_active ON pglayout.run "
    "((true)) WHERE state = 'running'",
    "CREATE TABLE IF NOT EXISTS pglayout.step ("
    " run_id bigint NOT NULL REFERENCES pglayout.run,"
    " step_key text NOT NULL, step_no int NOT NULL,"
    " state text NOT NULL DEFAULT 'pending', phase text NOT NULL DEFAULT '',"
    " relation_oid oid, cursor text[],"
    " rows_copied bigint NOT NULL DEFAULT 0,"
    " rows_replayed bigint NOT NULL DEFAULT 0,"
    " batches bigint NOT NULL DEFAULT 0, detail text NOT NULL DEFAULT '',"
    " started_at timestamptz NOT NULL DEFAULT pg_catalog.now(),"
    " finished_at timestamptz, PRIMARY KEY (run_id, step_key))",
    "CREATE TABLE IF NOT EXISTS pglayout.batch ("
    " run_id bigint NOT NULL, step_key text NOT NULL, batch_no bigint NOT "
    "NULL, lower_key text[], upper_key text[], rows bigint NOT NULL,"
    " src_rows bigint, src_sum bigint, new_rows bigint, new_sum bigint,"
    " verified_at timestamptz, PRIMARY KEY (run_id, step_key, batch_no))",
    "CREATE TABLE IF NOT EXISTS pglayout.setting ("
    " run_id bigint NOT NULL, kind text NOT NULL, name text NOT NULL,"
    " original_setting text, original_auto_conf text,"
    " new_value text NOT NULL, state text NOT NULL DEFAULT 'pending',"
    " changed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),"
    " PRIMARY KEY (run_id, kind, name))",
    // Columns added after the first release: a journal made by an older
    // version (possibly with a run to resume) is upgraded in place.
    "ALTER TABLE pglayout.step ADD COLUMN IF NOT EXISTS bytes_copied bigint "
    "NOT NULL DEFAULT 0",
    "ALTER TABLE pglayout.batch ADD COLUMN IF NOT EXISTS bytes bigint",
    "ALTER TABLE pglayout.run"
    " ADD COLUMN IF NOT EXISTS checkpoints_timed_end bigint,"
    " ADD COLUMN IF NOT EXISTS checkpoints_requested_end bigint",
    "ALTER TABLE pglayout.step ADD COLUMN IF NOT EXISTS error text",
    // The last verification of each online step (batch.src_rows .. new_sum
    // held the key range checks of older versions).
    "CREATE TABLE IF NOT EXISTS pglayout.verification ("
    " run_id bigint NOT NULL, step_key text NOT NULL,"
    " src_rows bigint NOT NULL, src_sum bigint NOT NULL,"
    " new_rows bigint NOT NULL, new_sum bigint NOT NULL,"
    " verified_at timestamptz NOT NULL DEFAULT pg_catalog.now(),"
    " PRIMARY KEY (run_id, step_key))",
    // --verify: the run's choice, and each online step's final comparison
    // ('full' compared, 'off' skipped; NULL: not past its catch-up).
    "ALTER TABLE pglayout.run ADD COLUMN IF NOT EXISTS verify text",
    "ALTER TABLE pglayout.step ADD COLUMN IF NOT EXISTS verify text",
};

// The elements of an array literal, NULL ones as "".
std::vector<std::string> ArrayElements(const std::string& literal) {
  std::vector<std::string> out;
  for (const SqlValue& v : ParseArrayLiteral(literal)) {
    out.push_back(v.value_or(""));
  }
  return out;
}

SqlValue ArrayParam(const std::vector<std::string>& values) {
  if (values.empty()) return std::nullopt;
  return TextArrayLiteral(values);
}

}  // namespace

Status Journal::Exists(bool* exists) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session_, "SELECT pg_catalog.to_regclass('pglayout.setting') IS NOT NULL",
      {}, &v));
  *exists = v && *v == "t";
  return Status::Ok();
}

namespace {

// Schema pglayout for the running role, with nothing granted to anyone
// else. No IF NOT EXISTS: a schema another role created meanwhile makes
// the statement fail rather than be used.
Status CreateSchema(SqlSession* session) {
  SqlValue exists;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(session, "SELECT pg_catalog.to_regnamespace($1) IS NOT NULL",
                 {std::string(kJournalSchema)}, &exists));
  if (exists && *exists == "t") return Status::Ok();
  PGLAYOUT_RETURN_IF_ERROR(
      ExecuteSql(session, "CREATE SCHEMA pglayout AUTHORIZATION CURRENT_USER"));
  return ExecuteSql(session, "REVOKE ALL ON SCHEMA pglayout FROM PUBLIC");
}

// The journal's tables, their sequence and the capture functions keep
// nothing for PUBLIC either, those of a journal an older version made
// included (its runs' capture functions kept the default EXECUTE).
Status RevokeFromPublic(SqlSession* session) {
  PGLAYOUT_RETURN_IF_ERROR(RevokeOwnFunctionsFromPublic(session, nullptr));
  std::string tables;
  for (const std::string& name : JournalTableNames()) {
    tables += (tables.empty() ? "" : ", ") + std::string("pglayout.") + name;
  }
  PGLAYOUT_RETURN_IF_ERROR(
      ExecuteSql(session, "REVOKE ALL ON TABLE " + tables + " FROM PUBLIC"));
  return ExecuteSql(session,
                    "REVOKE ALL ON SEQUENCE pglayout.run_run_id_seq FROM "
                    "PUBLIC");
}

}  // namespace

Status Journal::EnsureSchema() {
  PGLAYOUT_RETURN_IF_ERROR(CheckJournalSchema(session_));
  PGLAYOUT_RETURN_IF_ERROR(CreateSchema(session_));
  for (const char* sql : kSchemaSql) {
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(session_, sql));
  }
  PGLAYOUT_RETURN_IF_ERROR(RevokeFromPublic(session_));
  // What was made is what was checked: nobody else could add to it since.
  return CheckJournalSchema(session_);
}

namespace {

// The run that |tail| (WHERE / ORDER BY ... LIMIT 1) selects, if any.
// verify through to_jsonb: --status reads journals that no run of this
// version has upgraded yet.
Status ReadRun(SqlSession* session, const std::string& tail, RunRecord* run) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT run_id, plan_hash, state, coalesce(checkpoints_timed_start, 0), "
      "coalesce(checkpoints_requested_start, 0), started_at::pg_catalog.text, "
      "coalesce(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'verify', "
      "'full') FROM pglayout.run r " +
          tail,
      {}, &r));
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "pglayout.run");
  run->run_id = row.Int(0);
  run->plan_hash = row.Text(1);
  run->state = row.Text(2);
  run->checkpoints_timed_start = row.Int(3);
  run->checkpoints_requested_start = row.Int(4);
  run->started_at = row.Text(5);
  run->verify = row.Text(6);
  return row.status();
}

}  // namespace

Status Journal::FindActiveRun(RunRecord* run) {
  *run = RunRecord();
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(Exists(&exists));
  if (!exists) return Status::Ok();
  return ReadRun(session_, "WHERE state = 'running'", run);
}

Status Journal::LatestRun(RunRecord* run) {
  *run = RunRecord();
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(Exists(&exists));
  if (!exists) return Status::Ok();
  return ReadRun(session_, "ORDER BY run_id DESC LIMIT 1", run);
}

Status Journal::RunOfRelation(uint32_t oid, int64_t* run_id) {
  *run_id = 0;
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(Exists(&exists));
  if (!exists) return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      "SELECT COALESCE((SELECT pg_catalog.max(s.run_id) FROM "
      "pglayout.step s WHERE s.relation_oid OPERATOR(pg_catalog.=) "
      "$1::pg_catalog.oid), (SELECT pg_catalog.max(r.run_id) FROM "
      "pglayout.run r), 0)",
      {std::to_string(oid)}, &r));
  SqlRowReader row(r, 0, "pglayout.step (the run of a relation)");
  *run_id = row.Int(0);
  return row.status();
}

Status Journal::StartRun(const std::string& plan_hash,
                         const std::string& plan_text,
                         const std::string& tool_version, int64_t timed,
                         int64_t requested, RunRecord* run) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      "INSERT INTO pglayout.run (plan_hash, plan_text, tool_version, "
      "checkpoints_timed_start, checkpoints_requested_start) "
      "VALUES ($1, $2, $3, $4, $5) RETURNING run_id, "
      "started_at::pg_catalog.text",
      {plan_hash, plan_text, tool_version, std::to_string(timed),
       std::to_string(requested)},
      &r));
  if (r.rows.empty()) return Status::NotFound("no run_id from pglayout.run");
  SqlRowReader row(r, 0, "pglayout.run (the new run)");
  run->run_id = row.Int(0);
  run->started_at = row.Text(1);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  run->plan_hash = plan_hash;
  run->state = "running";
  run->checkpoints_timed_start = timed;
  run->checkpoints_requested_start = requested;
  return Status::Ok();
}

Status Journal::SetRunVerify(int64_t run_id, const std::string& verify) {
  SqlResult r;
  return session_->Execute(
      "UPDATE pglayout.run SET verify = $2 WHERE run_id = $1",
      {std::to_string(run_id), verify}, &r);
}

Status Journal::FinishRun(int64_t run_id, const std::string& state,
                          const CheckpointCounts& end) {
  SqlResult r;
  return session_->Execute(
      "UPDATE pglayout.run SET state = $2, finished_at = pg_catalog.now(), "
      "checkpoints_timed_end = $3, checkpoints_requested_end = $4 "
      "WHERE run_id = $1",
      {std::to_string(run_id), state, std::to_string(end.timed),
       std::to_string(end.requested)},
      &r);
}

Status Journal::LoadSteps(int64_t run_id,
                          std::map<std::string, StepRecord>* steps) {
  steps->clear();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      "SELECT step_key, state, phase, coalesce(relation_oid, 0), "
      "cursor::pg_catalog.text, rows_copied, rows_replayed, batches, detail, "
      "bytes_copied, coalesce(pg_catalog.to_jsonb(s) OPERATOR(pg_catalog.->>) "
      "'verify', '') FROM pglayout.step s WHERE run_id = $1",
      {std::to_string(run_id)}, &r));
  return ReadRows(r, "pglayout.step", [&](SqlRowReader& row) {
    StepRecord s;
    s.key = row.Text(0);
    s.state = row.Text(1);
    s.phase = row.Text(2);
    s.relation_oid = static_cast<uint32_t>(row.Int(3));
    s.cursor = ArrayElements(row.Text(4));
    s.rows_copied = row.Int(5);
    s.rows_replayed = row.Int(6);
    s.batches = row.Int(7);
    s.detail = row.Text(8);
    s.bytes_copied = row.Int(9);
    s.verify = row.Text(10);
    (*steps)[s.key] = std::move(s);
  });
}

Status Journal::SetStep(int64_t run_id, const std::string& key, int step_no,
                        const std::string& state, const std::string& phase,
                        uint32_t relation_oid) {
  SqlResult r;
  return session_->Execute(
      "INSERT INTO pglayout.step AS s (run_id, step_key, step_no, state, "
      "phase, relation_oid) VALUES ($1, $2, $3, $4, $5, "
      "nullif($6, '0')::pg_catalog.oid) ON CONFLICT (run_id, step_key) DO "
      "UPDATE SET "
      "state = EXCLUDED.state, phase = EXCLUDED.phase, relation_oid = "
      "coalesce(EXCLUDED.relation_oid, s.relation_oid), finished_at = CASE "
      "WHEN EXCLUDED.state IN ('done', 'aborted') THEN pg_catalog.now() END, "
      "error = CASE WHEN EXCLUDED.state = 'done' THEN NULL ELSE s.error END",
      {std::to_string(run_id), key, std::to_string(step_no), state, phase,
       std::to_string(relation_oid)},
      &r);
}

Status Journal::RecordStepError(int64_t run_id, const std::string& key,
                                int step_no, const std::string& message) {
  SqlResult r;
  return session_->Execute(
      "INSERT INTO pglayout.step AS s (run_id, step_key, step_no, error) "
      "VALUES ($1, $2, $3, $4) ON CONFLICT (run_id, step_key) DO UPDATE SET "
      "error = EXCLUDED.error",
      {std::to_string(run_id), key, std::to_string(step_no), message}, &r);
}

Status Journal::RecordBatch(int64_t run_id, const std::string& key,
                            int64_t batch_no,
                            const std::vector<std::string>& lower,
                            const std::vector<std::string>& upper, int64_t rows,
                            int64_t bytes) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      "INSERT INTO pglayout.batch (run_id, step_key, batch_no, lower_key, "
      "upper_key, rows, bytes) VALUES ($1, $2, $3, $4::pg_catalog.text[], "
      "$5::pg_catalog.text[], "
      "$6, $7)",
      {std::to_string(run_id), key, std::to_string(batch_no), ArrayParam(lower),
       ArrayParam(upper), std::to_string(rows), std::to_string(bytes)},
      &r));
  return session_->Execute(
      "UPDATE pglayout.step SET cursor = coalesce($3::pg_catalog.text[], "
      "cursor), "
      "rows_copied = rows_copied + $4, bytes_copied = bytes_copied + $5, "
      "batches = batches + 1 WHERE run_id = $1 AND step_key = $2",
      {std::to_string(run_id), key, ArrayParam(upper), std::to_string(rows),
       std::to_string(bytes)},
      &r);
}

Status Journal::AddReplayed(int64_t run_id, const std::string& key,
                            int64_t rows) {
  SqlResult r;
  return session_->Execute(
      "UPDATE pglayout.step SET rows_replayed = rows_replayed + $3 "
      "WHERE run_id = $1 AND step_key = $2",
      {std::to_string(run_id), key, std::to_string(rows)}, &r);
}

Status Journal::RecordVerification(int64_t run_id, const std::string& key,
                                   int64_t src_rows, int64_t src_sum,
                                   int64_t new_rows, int64_t new_sum) {
  SqlResult r;
  return session_->Execute(
      "INSERT INTO pglayout.verification (run_id, step_key, src_rows, "
      "src_sum, new_rows, new_sum) VALUES ($1, $2, $3, $4, $5, $6) ON "
      "CONFLICT (run_id, step_key) DO UPDATE SET src_rows = "
      "EXCLUDED.src_rows, src_sum = EXCLUDED.src_sum, new_rows = "
      "EXCLUDED.new_rows, new_sum = EXCLUDED.new_sum, verified_at = "
      "pg_catalog.now()",
      {std::to_string(run_id), key, std::to_string(src_rows),
       std::to_string(src_sum), std::to_string(new_rows),
       std::to_string(new_sum)},
      &r);
}

Status Journal::SetStepVerify(int64_t run_id, const std::string& key,
                              const std::string& verify) {
  SqlResult r;
  return session_->Execute(
      "UPDATE pglayout.step SET verify = $3 WHERE run_id = $1 AND step_key = "
      "$2",
      {std::to_string(run_id), key, verify}, &r);
}

Status Journal::RecordOriginal(int64_t run_id, const SettingRecord& s) {
  SqlResult r;
  return session_->Execute(
      "INSERT INTO pglayout.setting (run_id, kind, name, original_setting, "
      "original_auto_conf, new_value) VALUES ($1, $2, $3, $4, $5, $6) "
      "ON CONFLICT (run_id, kind, name) DO UPDATE SET new_value = "
      "EXCLUDED.new_value",
      {std::to_string(run_id), s.kind, s.name, s.original_setting,
       s.original_auto_conf, s.new_value},
      &r);
}

Status Journal::SetSettingState(int64_t run_id, const std::string& kind,
                                const std::string& name,
                                const std::string& state) {
  SqlResult r;
  return session_->Execute(
      "UPDATE pglayout.setting SET state = $4, changed_at = pg_catalog.now() "
      "WHERE run_id = $1 AND kind = $2 AND name = $3",
      {std::to_string(run_id), kind, name, state}, &r);
}

namespace {

constexpr char kSettingColumns[] =
    "name, kind, coalesce(original_setting, ''), original_auto_conf, "
    "new_value, state, changed_at::pg_catalog.text";

// One row of kSettingColumns, from column |first| on.
SettingRecord SettingFromRow(SqlRowReader& row, size_t first) {
  SettingRecord s;
  s.name = row.Text(first);
  s.kind = row.Text(first + 1);
  s.original_setting = row.Text(first + 2);
  if (!row.IsNull(first + 3)) s.original_auto_conf = row.Text(first + 3);
  s.new_value = row.Text(first + 4);
  s.state = row.Text(first + 5);
  s.changed_at = row.Text(first + 6);
  return s;
}

}  // namespace

Status Journal::LoadSettings(int64_t run_id,
                             std::vector<SettingRecord>* settings) {
  settings->clear();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      std::string("SELECT ") + kSettingColumns +
          " FROM pglayout.setting WHERE run_id = $1 ORDER BY kind, name",
      {std::to_string(run_id)}, &r));
  return ReadRows(r, "pglayout.setting", [&](SqlRowReader& row) {
    settings->push_back(SettingFromRow(row, 0));
  });
}

Status Journal::ListSettingsIn(
    const std::vector<std::string>& states,
    std::vector<std::pair<int64_t, SettingRecord>>* settings) {
  settings->clear();
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(Exists(&exists));
  if (!exists) return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      session_->Execute(std::string("SELECT run_id, ") + kSettingColumns +
                            " FROM pglayout.setting WHERE state = "
                            "ANY($1::pg_catalog.text[]) ORDER BY "
                            "run_id, name",
                        {TextArrayLiteral(states)}, &r));
  return ReadRows(r, "pglayout.setting", [&](SqlRowReader& row) {
    const int64_t run_id = row.Int(0);
    settings->emplace_back(run_id, SettingFromRow(row, 1));
  });
}

Status Journal::ListOldCopies(
    std::vector<std::pair<int64_t, std::string>>* copies) {
  copies->clear();
  bool exists = false;
  PGLAYOUT_RETURN_IF_ERROR(Exists(&exists));
  if (!exists) return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session_->Execute(
      "SELECT s.run_id, pg_catalog.format('%I.%I', 'pglayout', 'old_' || "
      "s.relation_oid) FROM pglayout.step s WHERE s.phase IN ('swapped', "
      "'done') AND s.relation_oid IS NOT NULL AND pg_catalog.to_regclass("
      "pg_catalog.format('%I.%I', 'pglayout', 'old_' || s.relation_oid)) IS "
      "NOT NULL ORDER BY 1, 2",
      {}, &r));
  return ReadRows(r, "pglayout.step (old copies)", [&](SqlRowReader& row) {
    const int64_t run_id = row.Int(0);
    copies->emplace_back(run_id, row.Text(1));
  });
}

std::string VerificationNote(const std::map<std::string, StepRecord>& records) {
  int64_t compared = 0, skipped = 0;
  for (const auto& [key, rec] : records) {
    compared += rec.verify == "full";
    skipped += rec.verify == "off";
  }
  if (skipped > 0) {
    return fmt::format(
        "unverified: {} not compared with {} table (--verify "
        "off)",
        CountOf(skipped, "online copy", "online copies"),
        skipped == 1 ? "its" : "their");
  }
  if (compared > 0) {
    return fmt::format("verified: {} compared with {} table",
                       CountOf(compared, "online copy", "online copies"),
                       compared == 1 ? "its" : "their");
  }
  return "";
}

std::string PlanHash(const std::string& canonical_plan_text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : canonical_plan_text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace pglayout::migrator
