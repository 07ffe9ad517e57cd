#include "migrator/online_copy.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/units.h"
#include "migrator/copy_progress.h"
#include "migrator/online_detail.h"
#include "migrator/online_logical.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

constexpr char kFilenodeSql[] =
    "SELECT "
    "pg_catalog.pg_relation_filenode($1::pg_catalog.oid)::pg_catalog.text";

std::vector<SqlValue> Params(const std::vector<std::string>& a,
                             const std::vector<std::string>& b = {}) {
  std::vector<SqlValue> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The source's heap size in blocks, the block size, and how many blocks
// hold about batch_rows rows.
struct HeapBlocks {
  int64_t total = 0;
  int64_t block_size = 8192;
  int64_t per_batch = 1;
};

// The copy phase of one run: |state| advances with each batch.
class CopyPhase {
 public:
  CopyPhase(const OnlineContext& c, OnlinePace* pace, CopyState* state)
      : c_(c), pace_(pace), state_(state) {}

  Status Run();

 private:
  void Report(const std::string& what, double start, int64_t rows,
              int64_t bytes);
  Status ChooseCopyMode(CopyMode* mode);
  Status CopyBatch(CopyMode mode, bool* done);
  Status ReadHeapBlocks(int64_t batch_rows, HeapBlocks* heap);
  Status CheckNotRewritten();
  BlockCopyFilter BlockFilter() const;
  Status CopyBlockBatch(const HeapBlocks& heap, bool* done);

  const OnlineContext& c_;
  OnlinePace* pace_;
  CopyState* state_;
};

void CopyPhase::Report(const std::string& what, double start, int64_t rows,
                       int64_t bytes) {
  ProgressUpdate u;
  u.task = "copy " + c_.relation();
  u.step = what;
  u.elapsed_s = c_.Since(start);
  CopyProgressInput in;
  in.rows_done = rows;
  in.bytes_done = bytes;
  in.rows_before = state_->rows_copied - rows;
  in.rows_total = EstimatedRows(c_.table);
  in.elapsed_s = u.elapsed_s;
  in.cap_mbps = c_.ex->options().max_rate_mbps;
  const CopyProgress p = ComputeCopyProgress(in);
  u.fraction = p.fraction;
  if (p.eta_s) u.eta_s = *p.eta_s;
  u.detail = fmt::format(
      "{:.0f} rows/s, {:.1f} MB/s on average with the "
      "pauses, throttle {}",
      p.rows_per_second, p.mbps, pace_->State());
  c_.ex->progress()->Update(u);
}

// kTidRange or kPlain, as the step's detail recorded when the copy began;
// kSkipExisting if the shadow already has its key index: then it was made
// by an older version that built it before the copy and replayed during
// it.
Status CopyPhase::ChooseCopyMode(CopyMode* mode) {
  *mode = state_->by_blocks ? CopyMode::kTidRange : CopyMode::kPlain;
  for (const ShadowIndex& index :
       ShadowIndexSql(c_.table, c_.step.target, c_.names)) {
    if (!index.row_key) continue;
    bool exists = false;
    PGLAYOUT_RETURN_IF_ERROR(ShadowIndexExists(c_, index.temp_name, &exists));
    if (exists) *mode = CopyMode::kSkipExisting;
  }
  if (*mode == CopyMode::kSkipExisting) {
    c_.ex->Line(fmt::format(
        "{}: the shadow was made by an older pglayout (key index built "
        "before the copy); resuming its copy with ON CONFLICT DO NOTHING",
        c_.relation()));
  }
  return Status::Ok();
}

// One batch and its journal row in one transaction. *done when the
// batch was short (the end of the table).
Status CopyPhase::CopyBatch(CopyMode mode, bool* done) {
  std::string sql =
      CopyBatchSql(c_.table, c_.names, c_.ex->options().batch_rows,
                   state_->cursor.empty(), mode);
  int64_t batch_no = state_->batches + 1;
  int64_t rows = 0, bytes = 0;
  std::vector<std::string> last;
  PGLAYOUT_RETURN_IF_ERROR(BulkTransaction(
      c_.ex, fmt::format("copy-batch:{}", batch_no), [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(
            CheckShadow(c_, ShadowLock::kShareRowExclusive));
        SqlResult r;
        PGLAYOUT_RETURN_IF_ERROR(
            c_.ex->session()->Execute(sql, Params(state_->cursor), &r));
        rows = bytes = 0;
        if (!r.rows.empty()) {
          SqlRowReader counts(r, 0, "copy batch");
          rows = counts.Int(0);
          bytes = rows > 0 ? counts.Int(1) : 0;
          PGLAYOUT_RETURN_IF_ERROR(counts.status());
        }
        last.clear();
        for (size_t i = 2; rows > 0 && i < r.rows[0].size(); ++i) {
          last.push_back(Cell(r.rows[0], i));
        }
        if (rows > 0) {
          PGLAYOUT_RETURN_IF_ERROR(
              c_.ex->journal()->RecordBatch(c_.ex->run_id(), c_.key(), batch_no,
                                            state_->cursor, last, rows, bytes));
        }
        *done = rows < c_.ex->options().batch_rows;
        if (!*done) return Status::Ok();
        return c_.ex->journal()->SetStep(c_.ex->run_id(), c_.key(), c_.step_no,
                                         "running", "indexes");
      }));
  c_.ex->Failpoint(fmt::format("copy-batch:{}:after-commit", batch_no));
  if (rows > 0) {
    state_->batches = batch_no;
    state_->cursor = last;
    state_->rows_copied += rows;
    state_->bytes_copied += bytes;
  }
  return Status::Ok();
}

Status CopyPhase::ReadHeapBlocks(int64_t batch_rows, HeapBlocks* heap) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c_.ex->session()->Execute(
      "SELECT pg_catalog.pg_relation_size($1::pg_catalog.oid) / b, b FROM "
      "(SELECT "
      "pg_catalog.current_setting('block_size')::bigint AS b) s",
      {std::to_string(c_.oid)}, &r));
  SqlRowReader row(r, 0, "heap size");
  heap->total = row.Int(0);
  heap->block_size = row.Int(1);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  heap->per_batch = BlocksHolding(c_.table, batch_rows, heap->total);
  return Status::Ok();
}

// A block-range copy follows the heap's block positions, which VACUUM
// FULL, CLUSTER or a rewriting ALTER TABLE reshuffle (without firing the
// capture trigger): rows could be missed or read twice. Checked after the
// batch's read, whose lock holds a rewrite off until the batch commits.
Status CopyPhase::CheckNotRewritten() {
  if (state_->source_filenode.empty()) return Status::Ok();  // an older run's
  SqlValue now;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(c_.ex->session(), kFilenodeSql,
                                      {std::to_string(c_.oid)}, &now));
  if (now.value_or("") == state_->source_filenode) return Status::Ok();
  return Status::Aborted(fmt::format(
      "{}: the table was rewritten during the copy (VACUUM FULL, CLUSTER "
      "or an ALTER TABLE that rewrites it), so the heap block ranges the "
      "copy follows no longer hold the same rows; nothing was swapped. "
      "Run pglayout migrate --abort and start again",
      c_.relation()));
}

// A decoded log lags behind its commits, so logical capture leaves the
// recent rows to replay (its copies always record $3); a trigger copy
// begun by a version that did not record $3 looks every row up.
BlockCopyFilter CopyPhase::BlockFilter() const {
  if (c_.logical()) return BlockCopyFilter::kSinceXmin;
  return state_->copy_xmin.empty() ? BlockCopyFilter::kLoggedKeys
                                   : BlockCopyFilter::kLoggedSinceXmin;
}

// One block-range batch and its journal row (the cursor moves even when
// the range held no live row). *done once the range reaches |heap|'s end.
Status CopyPhase::CopyBlockBatch(const HeapBlocks& heap, bool* done) {
  int64_t lo = 0;
  if (!state_->cursor.empty() && !ParseBlockTid(state_->cursor[0], &lo)) {
    return Status::Internal(fmt::format(
        "{}: the journal's copy cursor {} is not a block position; run "
        "pglayout migrate --abort",
        c_.relation(), JoinComma(state_->cursor)));
  }
  int64_t hi = std::min(lo + heap.per_batch, std::max(heap.total, lo));
  int64_t batch_no = state_->batches + 1;
  int64_t rows = 0, bytes = (hi - lo) * heap.block_size;
  *done = hi >= heap.total;
  PGLAYOUT_RETURN_IF_ERROR(BulkTransaction(
      c_.ex, fmt::format("copy-batch:{}", batch_no), [&]() -> Status {
        if (hi > lo) {
          PGLAYOUT_RETURN_IF_ERROR(
              CheckShadow(c_, ShadowLock::kShareRowExclusive));
          BlockCopyFilter filter = BlockFilter();
          std::vector<SqlValue> params = {BlockTid(lo), BlockTid(hi)};
          if (filter != BlockCopyFilter::kLoggedKeys) {
            params.push_back(state_->copy_xmin);
          }
          if (filter == BlockCopyFilter::kLoggedSinceXmin) {
            for (const std::string& set : CopyByXminSettingsSql()) {
              PGLAYOUT_RETURN_IF_ERROR(c_.ex->Exec(set));
            }
          }
          SqlResult r;
          PGLAYOUT_RETURN_IF_ERROR(c_.ex->session()->Execute(
              CopyTidRangeSql(c_.table, c_.names, filter), params, &r));
          rows = r.affected_rows;
          PGLAYOUT_RETURN_IF_ERROR(CheckNotRewritten());
          PGLAYOUT_RETURN_IF_ERROR(c_.ex->journal()->RecordBatch(
              c_.ex->run_id(), c_.key(), batch_no, {BlockTid(lo)},
              {BlockTid(hi)}, rows, bytes));
        }
        if (!*done) return Status::Ok();
        return c_.ex->journal()->SetStep(c_.ex->run_id(), c_.key(), c_.step_no,
                                         "running", "indexes");
      }));
  c_.ex->Failpoint(fmt::format("copy-batch:{}:after-commit", batch_no));
  if (hi > lo) {
    state_->batches = batch_no;
    state_->cursor = {BlockTid(hi)};
    state_->rows_copied += rows;
    state_->bytes_copied += bytes;
  }
  return Status::Ok();
}

// No replay while copying: the shadow has no index to find keys by yet,
// and the capture log only grows by the foreground's changes, which the
// catch-up replays once the indexes exist. A block-range copy ends at the
// heap's size when the copy (re)starts: rows beyond it were written after
// the capture trigger existed, so their keys are in the log.
Status CopyPhase::Run() {
  CopyMode mode = CopyMode::kPlain;
  PGLAYOUT_RETURN_IF_ERROR(ChooseCopyMode(&mode));
  HeapBlocks heap;
  if (mode == CopyMode::kTidRange) {
    PGLAYOUT_RETURN_IF_ERROR(
        ReadHeapBlocks(c_.ex->options().batch_rows, &heap));
  }
  // A copy of one batch is over before a baseline could tell anything.
  bool one_batch = mode == CopyMode::kTidRange
                       ? heap.total <= heap.per_batch
                       : EstimatedRows(c_.table) <
                             static_cast<double>(c_.ex->options().batch_rows);
  if (!one_batch) PGLAYOUT_RETURN_IF_ERROR(pace_->SampleBaseline());
  const double start = c_.Now();
  int64_t rows_at_start = state_->rows_copied,
          bytes_at_start = state_->bytes_copied;
  bool done = false;
  while (!done) {
    PGLAYOUT_RETURN_IF_ERROR(pace_->MarkBatchStart());
    const double batch_start = c_.Now();
    if (mode == CopyMode::kTidRange) {
      PGLAYOUT_RETURN_IF_ERROR(CopyBlockBatch(heap, &done));
    } else {
      PGLAYOUT_RETURN_IF_ERROR(CopyBatch(mode, &done));
    }
    // Decoded changes go to the log as the copy runs, so that the slot
    // retains little WAL (and says so when it retains too much).
    if (c_.logical()) PGLAYOUT_RETURN_IF_ERROR(PumpChanges(c_));
    Report(fmt::format("batch {}", state_->batches), start,
           state_->rows_copied - rows_at_start,
           state_->bytes_copied - bytes_at_start);
    if (!done) {
      PGLAYOUT_RETURN_IF_ERROR(pace_->CopyPause(
          start, state_->bytes_copied - bytes_at_start, c_.Since(batch_start)));
    }
  }
  c_.ex->Line(fmt::format(
      "{}: copied {} ({}) in {}{} ({:.1f} s; throttle {})", c_.relation(),
      CountOf(state_->rows_copied, "row", "rows"),
      HumanSize(static_cast<double>(state_->bytes_copied)),
      CountOf(state_->batches, "batch", "batches"),
      mode == CopyMode::kTidRange
          ? fmt::format(" of {}; keys changed meanwhile come by replay",
                        CountOf(std::min(heap.per_batch, heap.total),
                                "heap block", "heap blocks"))
          : std::string(" in key order"),
      c_.Since(start), pace_->State()));
  return Status::Ok();
}

}  // namespace

Status PrepareShadow(const OnlineContext& c, CopyState* state) {
  // The slot before the copy's first snapshot: every change committed
  // after its consistent point is decoded, every one before is visible to
  // the batches (docs/online-migration.md#logical-capture).
  if (c.logical()) PGLAYOUT_RETURN_IF_ERROR(CreateLogicalCapture(c));
  std::vector<std::string> sql = ShadowCreateSql(
      c.table, c.step.target, c.names, c.ex->session()->server_version());
  for (const std::string& s : CaptureCreateSql(
           c.table, c.names, c.ex->run_id(), state->by_blocks, !c.logical())) {
    sql.push_back(s);
  }
  PGLAYOUT_RETURN_IF_ERROR(c.ex->WithLockRetry(
      "prepare " + c.relation(), {c.names.QualifiedTable()}, [&]() -> Status {
        for (const std::string& s : sql) {
          if (!s.empty()) PGLAYOUT_RETURN_IF_ERROR(c.ex->Exec(s));
        }
        PGLAYOUT_RETURN_IF_ERROR(c.ex->journal()->SetStep(
            c.ex->run_id(), c.key(), c.step_no, "running", "copy", c.oid));
        // The capture trigger's lock keeps the table from being
        // rewritten until this commits.
        SqlValue filenode;
        PGLAYOUT_RETURN_IF_ERROR(QueryValue(
            c.ex->session(), kFilenodeSql, {std::to_string(c.oid)}, &filenode));
        state->source_filenode = filenode.value_or("");
        if (state->by_blocks) {
          // Before any batch's snapshot, as CopyTidRangeSql requires.
          SqlValue xmin;
          PGLAYOUT_RETURN_IF_ERROR(
              QueryValue(c.ex->session(), kOldestRunningXidSql, {}, &xmin));
          state->copy_xmin = xmin.value_or("");
        }
        SqlResult r;
        return c.ex->session()->Execute(
            "UPDATE pglayout.step SET detail = $3 WHERE run_id = $1 AND "
            "step_key = $2",
            {std::to_string(c.ex->run_id()), c.key(),
             MakeDetail(c.table, state->by_blocks, state->source_filenode,
                        state->copy_xmin, c.capture_slot)},
            &r);
      }));
  c.ex->Line(fmt::format("{}: shadow {} and change capture installed",
                         c.relation(), c.names.QualifiedShadow()));
  c.ex->Failpoint("after-prepare:" + c.key());
  return Status::Ok();
}

Status CopyRows(const OnlineContext& c, OnlinePace* pace, CopyState* state) {
  return CopyPhase(c, pace, state).Run();
}

}  // namespace pglayout::migrator
