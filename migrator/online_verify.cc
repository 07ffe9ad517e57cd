#include "migrator/online_verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "migrator/online_logical.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

// (a + b) mod 2^63-1, as the verification sums are reduced by the server.
int64_t AddChecksum(int64_t a, int64_t b) {
  constexpr __int128 kModulus = 9223372036854775807;
  __int128 sum = (static_cast<__int128>(a) + b) % kModulus;
  return static_cast<int64_t>(sum < 0 ? sum + kModulus : sum);
}

// Rows and checksum of one side.
struct SideSum {
  int64_t rows = 0, sum = 0;
  // Adds (|sign| +1) or takes away (-1) the count and checksum in the
  // first row of |r|. Text that is not a number is an error: a
  // verification never compares what it could not read.
  [[nodiscard]] Status Add(const SqlResult& r, int sign) {
    SqlRowReader row(r, 0, "verification sums");
    const int64_t n = row.Int(0), checksum = row.Int(1);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
    rows += sign * n;
    sum = AddChecksum(sum, sign * checksum);
    return Status::Ok();
  }
};

// Whether |st| (SQLSTATE |sqlstate|) is the statement's own failure, such
// as a type's hash function raising on a value, rather than the run's: a
// cancel or a statement_timeout (class 57), the connection (08), resources
// (53, 58), a lock or the transaction's state (55, 25, 40) end the
// verification instead of switching it to text forms.
bool StatementFailed(const Status& st, const std::string& sqlstate) {
  if (st.code() != Status::Code::kSqlError) return false;
  for (const char* run : {"57", "08", "53", "58", "55", "25", "40"}) {
    if (sqlstate.starts_with(run)) return false;
  }
  return true;
}

// Hashes each column's value unless a row of the source shows that a
// type's hash function fails (then every column hashes its text form).
// An empty table has nothing to verify either way.
Status ChooseHashForm(const OnlineContext& c, bool* text_form) {
  *text_form = false;
  std::string one_row =
      fmt::format("(SELECT * FROM ONLY {} LIMIT 1)", c.names.QualifiedTable());
  Status st =
      c.ex->Exec(VerifySumSql(c.table, c.names, one_row, VerifyScope::kAll));
  if (st.ok()) return Status::Ok();
  if (!StatementFailed(st, c.ex->session()->last_sqlstate())) return st;
  *text_form = true;
  return c.ex->Exec(
      VerifySumSql(c.table, c.names, one_row, VerifyScope::kAll, true));
}

// The heap sizes in blocks of the source and of the shadow (the largest
// partition of a partitioned one): a block-range chunk covers that block
// range of every partition.
Status ReadVerifyExtent(const OnlineContext& c, int64_t* source_blocks,
                        int64_t* shadow_blocks) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      "SELECT pg_catalog.pg_relation_size($1::pg_catalog.regclass) / b, "
      "greatest(pg_catalog.pg_relation_size($2::pg_catalog.regclass), "
      "coalesce((SELECT "
      "pg_catalog.max(pg_catalog.pg_relation_size(i.inhrelid)) FROM "
      "pg_catalog.pg_inherits i WHERE i.inhparent = "
      "$2::pg_catalog.regclass), 0)) / b FROM (SELECT "
      "pg_catalog.current_setting('block_size')::bigint AS b) s",
      {c.names.QualifiedTable(), c.names.QualifiedShadow()}, &r));
  SqlRowReader row(r, 0, "relation sizes");
  *source_blocks = row.Int(0);
  *shadow_blocks = row.Int(1);
  return row.status();
}

// Between two verification chunks: progress (|fraction| of the side).
using AfterChunk = std::function<Status(double fraction)>;

// One side's rows and checksum over |side_sql| on |session|, minus those
// of its logged keys: |chunk| blocks at a time (14+), |after| running
// between chunks, or in one statement.
Status SumSide(const OnlineContext& c, SqlSession* session,
               const std::string& side_sql, int64_t blocks, int64_t chunk,
               bool text_form, const AfterChunk& after,
               const std::vector<SqlValue>& unlogged, SideSum* out) {
  bool ranged = HasTidRangeScans(session->server_version());
  std::string sql = VerifySumSql(
      c.table, c.names, side_sql,
      ranged ? VerifyScope::kBlockRange : VerifyScope::kAll, text_form);
  for (int64_t lo = 0; lo < blocks || (lo == 0 && !ranged); lo += chunk) {
    SqlResult r;
    std::vector<SqlValue> params;
    if (ranged) params = {BlockTid(lo), BlockTid(lo + chunk)};
    PGLAYOUT_RETURN_IF_ERROR(session->Execute(sql, params, &r));
    PGLAYOUT_RETURN_IF_ERROR(out->Add(r, +1));
    if (!ranged) break;
    if (after) {
      PGLAYOUT_RETURN_IF_ERROR(after(std::min(
          1.0, static_cast<double>(lo + chunk) / static_cast<double>(blocks))));
    }
  }
  SqlResult logged;
  PGLAYOUT_RETURN_IF_ERROR(
      session->Execute(VerifySumSql(c.table, c.names, side_sql,
                                    VerifyScope::kLoggedKeys, text_form),
                       {}, &logged));
  PGLAYOUT_RETURN_IF_ERROR(out->Add(logged, -1));
  if (unlogged.empty()) return Status::Ok();
  SqlResult changed;
  PGLAYOUT_RETURN_IF_ERROR(
      session->Execute(VerifySumSql(c.table, c.names, side_sql,
                                    VerifyScope::kKeyArrays, text_form),
                       unlogged, &changed));
  return out->Add(changed, -1);
}

// Progress for |what|. No throttle pause: the verification holds one
// snapshot from start to end, and a snapshot held longer costs the
// foreground more than the hashing does (its updates' dead versions cannot
// be pruned meanwhile; pgbench lost a third of its commits to 40 s of
// paused verification).
AfterChunk Progress(const OnlineContext& c, const std::string& what) {
  const double start = c.Now();
  return [&c, what, start](double fraction) -> Status {
    ProgressUpdate u;
    u.task = "verify " + c.relation();
    u.step = what;
    u.fraction = fraction;
    u.elapsed_s = c.Since(start);
    c.ex->progress()->Update(u);
    return Status::Ok();
  };
}

// The copy's side is hashed at the same time on a second session that
// shares the main session's snapshot (pg_export_snapshot): on two cores
// that halves the time the snapshot is held.
Status SumSidesSideBySide(const OnlineContext& c, int64_t source_blocks,
                          int64_t shadow_blocks, int64_t chunk, bool text_form,
                          const std::vector<SqlValue>& unlogged,
                          SideSum* source, SideSum* shadow) {
  SqlValue snapshot;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(c.ex->session(),
                                      "SELECT pg_catalog.pg_export_snapshot()",
                                      {}, &snapshot));
  std::unique_ptr<SqlSession> side;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->OpenSideSession("verify", &side));
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      side.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      side.get(),
      "SET TRANSACTION SNAPSHOT " + QuoteLiteral(snapshot.value_or(""))));
  Status side_status;
  std::thread worker([&]() {
    side_status =
        SumSide(c, side.get(), c.names.QualifiedShadow(), shadow_blocks, chunk,
                text_form, nullptr, unlogged, shadow);
  });
  Status st = SumSide(c, c.ex->session(), "ONLY " + c.names.QualifiedTable(),
                      source_blocks, chunk, text_form,
                      Progress(c, "source and copy"), unlogged, source);
  worker.join();
  (void)ExecuteSql(side.get(), side_status.ok() ? "COMMIT" : "ROLLBACK");
  PGLAYOUT_RETURN_IF_ERROR(st);
  return side_status;
}

// |unlogged|: keys changed before the snapshot that the log does not hold
// yet (logical capture), left out like logged ones.
Status SumBothSides(const OnlineContext& c, bool text_form,
                    const std::vector<SqlValue>& unlogged, SideSum* source,
                    SideSum* shadow) {
  int64_t source_blocks = 0, shadow_blocks = 0;
  PGLAYOUT_RETURN_IF_ERROR(ReadVerifyExtent(c, &source_blocks, &shadow_blocks));
  int64_t chunk =
      BlocksHolding(c.table, c.ex->options().verify_range_rows, source_blocks);
  if (HasTidRangeScans(c.ex->session()->server_version())) {
    return SumSidesSideBySide(c, source_blocks, shadow_blocks, chunk, text_form,
                              unlogged, source, shadow);
  }
  PGLAYOUT_RETURN_IF_ERROR(SumSide(
      c, c.ex->session(), "ONLY " + c.names.QualifiedTable(), source_blocks,
      chunk, text_form, Progress(c, "source"), unlogged, source));
  return SumSide(c, c.ex->session(), c.names.QualifiedShadow(), shadow_blocks,
                 chunk, text_form, Progress(c, "copy"), unlogged, shadow);
}

// Up to 5 keys whose rows differ, for the error message.
std::string DifferingKeys(const OnlineContext& c, bool text_form) {
  SqlResult r;
  if (!c.ex->session()
           ->Execute(DifferingKeysSql(c.table, c.names, 5, text_form), {}, &r)
           .ok()) {
    return "could not list them";
  }
  std::vector<std::string> keys;
  for (const auto& row : r.rows) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < row.size(); ++i) parts.push_back(Cell(row, i));
    keys.push_back(fmt::format("({})", JoinComma(parts)));
  }
  return keys.empty() ? "none differs any more" : JoinComma(keys);
}

}  // namespace

// Chooses the hash form once per run of this step, outside any
// transaction: a failing hash function would abort the swap's.
Status OnlineVerifier::EnsureHashForm() {
  if (text_form_) return Status::Ok();
  bool text_form = false;
  PGLAYOUT_RETURN_IF_ERROR(ChooseHashForm(c_, &text_form));
  text_form_ = text_form;
  return Status::Ok();
}

// Compares the source and the shadow in one REPEATABLE READ snapshot:
// the row count and the sum of row hashes of each, leaving out keys with
// pending log rows (the swap resynchronises them under its lock). Each
// side is read in heap order by block-range chunks, both at once; no
// replay runs meanwhile, the log only grows, and the catch-up after the
// verification drains it.
Status OnlineVerifier::Verify() {
  c_.ex->Failpoint("before-verify:" + c_.key());
  PGLAYOUT_RETURN_IF_ERROR(EnsureHashForm());
  const bool text_form = *text_form_;
  const double start = c_.Now();
  SideSum source, shadow;
  PGLAYOUT_RETURN_IF_ERROR(
      c_.ex->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  Status st = CheckShadow(c_, ShadowLock::kAccessShare);
  // The snapshot is taken: a logical capture's log lags behind it.
  std::vector<SqlValue> unlogged;
  if (st.ok() && c_.logical()) st = UnloggedChangedKeys(c_, &unlogged);
  if (st.ok()) st = SumBothSides(c_, text_form, unlogged, &source, &shadow);
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->Exec(st.ok() ? "COMMIT" : "ROLLBACK"));
  PGLAYOUT_RETURN_IF_ERROR(st);
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->journal()->RecordVerification(
      c_.ex->run_id(), c_.key(), source.rows, source.sum, shadow.rows,
      shadow.sum));
  if (source.rows != shadow.rows || source.sum != shadow.sum) {
    return Status::Internal(fmt::format(
        "{}: verification failed: the source has {} rows (checksum {}), "
        "the copy {} rows (checksum {}); keys that differ: {}. Nothing "
        "was swapped; run pglayout migrate --abort and report this",
        c_.relation(), source.rows, source.sum, shadow.rows, shadow.sum,
        DifferingKeys(c_, text_form)));
  }
  c_.ex->Line(fmt::format(
      "{}: verified {} rows: counts and checksums ({}) match ({:.1f} s)",
      c_.relation(), source.rows,
      text_form ? "hashes of the text form" : "per-column hash functions",
      c_.Since(start)));
  return Status::Ok();
}

// The rows of |keys| (replay's arrays), just replayed under the swap's
// lock, are the same on both sides: the verification before the swap
// left them out as pending, so they are checked here.
Status OnlineVerifier::VerifyKeys(const std::vector<SqlValue>& keys,
                                  int64_t* rows) {
  SideSum sides[2];
  const std::string relations[2] = {"ONLY " + c_.names.QualifiedTable(),
                                    c_.names.QualifiedShadow()};
  for (int i = 0; i < 2; ++i) {
    SqlResult r;
    Status st = c_.ex->session()->Execute(
        VerifySumSql(c_.table, c_.names, relations[i], VerifyScope::kKeyArrays,
                     *text_form_),
        keys, &r);
    if (!st.ok() && !*text_form_ &&
        StatementFailed(st, c_.ex->session()->last_sqlstate())) {
      // A type's hash function failed on a value the sample row lacked:
      // hash text forms instead, in a fresh attempt.
      text_form_ = true;
      return c_.ex->RetryLater(st.message());
    }
    PGLAYOUT_RETURN_IF_ERROR(st);
    PGLAYOUT_RETURN_IF_ERROR(sides[i].Add(r, +1));
  }
  *rows += sides[0].rows;
  if (sides[0].rows == sides[1].rows && sides[0].sum == sides[1].sum) {
    return Status::Ok();
  }
  return Status::Internal(fmt::format(
      "{}: the rows replayed under the swap's lock differ: the source has "
      "{} rows (checksum {}), the copy {} (checksum {}). Nothing was "
      "swapped; run pglayout migrate --abort and report this",
      c_.relation(), sides[0].rows, sides[0].sum, sides[1].rows, sides[1].sum));
}

}  // namespace pglayout::migrator
