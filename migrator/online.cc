// The online copy state machine: copy -> indexes -> catchup -> swap ->
// swapped -> done, each phase persisted in pglayout.step with its work, so a
// client killed at any instant resumes by re-running the recorded phase:
// batches are keyed by the cursor committed with them, replay is idempotent,
// index creation checks the catalogs.
// Why and how: docs/online-migration.md#how-an-online-copy-runs.

#include <fmt/format.h>

#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "common/sql_row.h"
#include "common/units.h"
#include "migrator/copy_progress.h"
#include "migrator/executor.h"
#include "migrator/online_sql.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"
#include "migrator/throttle.h"

namespace pglayout::migrator {
namespace {

// Sessions of this database whose transaction holds a snapshot (or an xid)
// and started before $1; our own sessions and VACUUM do not count.
constexpr char kOlderTransactionsSql[] =
    "SELECT pg_catalog.format('pid %s (%s, transaction open since %s)', "
    "a.pid, coalesce(nullif(a.application_name, ''), a.usename), "
    "a.xact_start) FROM pg_catalog.pg_stat_activity a WHERE a.datname = "
    "pg_catalog.current_database() AND a.pid <> pg_catalog.pg_backend_pid() "
    "AND a.backend_type = 'client backend' AND a.application_name NOT LIKE "
    "'pglayout-migrate%' AND a.xact_start < $1::timestamptz AND "
    "(a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL) AND "
    "coalesce(a.query, '') !~* '^\\s*(vacuum|analyze)' ORDER BY a.xact_start";

constexpr char kCopyByBlocks[] = "copy=blocks";

// The first transaction id not yet completed: exact at any instant, unlike
// the commit counts of the statistics views.
constexpr char kCompletedXidsSql[] =
    "pg_catalog.txid_snapshot_xmax(pg_catalog.txid_current_snapshot())";

// step.detail: structure hash, schema, table, kCopyByBlocks when the copy
// goes by heap block ranges, the source's filenode when the shadow was
// made, the block-range copy's xmin threshold (CopyTidRangeSql), and the
// foreign keys that were NOT VALID then (a text[] literal), one per line.
// Fixed when the shadow is made, so a resumed run copies the way it
// started (a run started by an older version has no fourth line and
// resumes in key order, nor a fifth, nor a sixth: its log has no key index
// and every row is looked up by anti join; nor a seventh: it validates
// every key after the swap).
std::string MakeDetail(const TableFacts& t, bool by_blocks,
                       const std::string& filenode = "",
                       const std::string& copy_xmin = "") {
  return t.structure_hash + "\n" + t.schema + "\n" + t.name + "\n" +
         (by_blocks ? kCopyByBlocks : "") + "\n" + filenode + "\n" + copy_xmin +
         "\n" + TextArrayLiteral(NotValidForeignKeys(t));
}

struct Detail {
  std::string hash, schema, table;
  bool by_blocks = false;
  std::string filenode;   // "" = not recorded
  std::string copy_xmin;  // "" = not recorded
  // ForeignKeyKey()s of the keys that were NOT VALID when the shadow was
  // made: they stay so after the swap (empty for older runs).
  std::set<std::string> not_valid_fks;
};

Detail ParseDetail(const std::string& text) {
  Detail d;
  std::istringstream in(text);
  std::getline(in, d.hash);
  std::getline(in, d.schema);
  std::getline(in, d.table);
  std::string mode;
  std::getline(in, mode);
  d.by_blocks = mode == kCopyByBlocks;
  std::getline(in, d.filenode);
  std::getline(in, d.copy_xmin);
  std::string fks;
  std::getline(in, fks);
  for (const SqlValue& fk : ParseArrayLiteral(fks)) {
    if (fk) d.not_valid_fks.insert(*fk);
  }
  return d;
}

constexpr char kFilenodeSql[] =
    "SELECT pg_catalog.pg_relation_filenode($1::oid)::text";

// (a + b) mod 2^63-1, as the verification sums are reduced by the server.
int64_t AddChecksum(int64_t a, int64_t b) {
  constexpr __int128 kModulus = 9223372036854775807;
  __int128 sum = (static_cast<__int128>(a) + b) % kModulus;
  return static_cast<int64_t>(sum < 0 ? sum + kModulus : sum);
}

std::vector<SqlValue> Params(const std::vector<std::string>& a,
                             const std::vector<std::string>& b = {}) {
  std::vector<SqlValue> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

class OnlineRun {
 public:
  OnlineRun(Executor* ex, const Step& step, int step_no, uint32_t oid)
      : ex_(ex), step_(step), step_no_(step_no), oid_(oid) {}

  Status Run(const StepRecord& record) {
    PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(ex_->session(), oid_, &t_));
    std::string phase = record.state == "pending" ? "" : record.phase;
    if (phase.empty() || phase == "copy" || phase == "indexes" ||
        phase == "catchup" || phase == "swap") {
      if (!t_.exists) {
        return Status::Internal(fmt::format(
            "{}: the journal says phase '{}' but table oid {} is gone; run "
            "pglayout migrate --abort",
            step_.placement->relation, phase, oid_));
      }
      names_ = MakeOnlineNames(t_, step_.target);
    }
    std::string detail =
        record.detail.empty() && t_.exists
            ? MakeDetail(t_,
                         ex_->options().copy_by_blocks &&
                             HasTidRangeScans(ex_->session()->server_version()))
            : record.detail;
    Detail parsed = ParseDetail(detail);
    by_blocks_ = parsed.by_blocks;
    source_filenode_ = parsed.filenode;
    copy_xmin_ = parsed.copy_xmin;
    cursor_ = record.cursor;
    batches_ = record.batches;
    rows_copied_ = record.rows_copied;
    bytes_copied_ = record.bytes_copied;
    if (phase.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(Prepare());
      phase = "copy";
    }
    if (phase == "copy") {
      PGLAYOUT_RETURN_IF_ERROR(Copy());
      phase = "indexes";
    }
    if (phase == "indexes") {
      PGLAYOUT_RETURN_IF_ERROR(BuildIndexes());
      phase = "catchup";
    }
    if (phase == "catchup") {
      PGLAYOUT_RETURN_IF_ERROR(CatchUpAndVerify());
      phase = "swap";
    }
    if (phase == "swap") {
      PGLAYOUT_RETURN_IF_ERROR(Swap(detail));
      phase = "swapped";
    }
    return Finish(detail);
  }

 private:
  const std::string& key() const { return step_.key; }
  const std::string& relation() const { return step_.placement->relation; }

  Status Prepare() {
    std::vector<std::string> sql = ShadowCreateSql(
        t_, step_.target, names_, ex_->session()->server_version());
    for (const std::string& s :
         CaptureCreateSql(t_, names_, ex_->run_id(), by_blocks_)) {
      sql.push_back(s);
    }
    PGLAYOUT_RETURN_IF_ERROR(ex_->WithLockRetry(
        "prepare " + relation(), {names_.QualifiedTable()}, [&]() -> Status {
          for (const std::string& s : sql) {
            if (!s.empty()) PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(s));
          }
          PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->SetStep(
              ex_->run_id(), key(), step_no_, "running", "copy", oid_));
          // The capture trigger's lock keeps the table from being
          // rewritten until this commits.
          SqlValue filenode;
          PGLAYOUT_RETURN_IF_ERROR(QueryValue(
              ex_->session(), kFilenodeSql, {std::to_string(oid_)}, &filenode));
          source_filenode_ = filenode.value_or("");
          if (by_blocks_) {
            // Before any batch's snapshot, as CopyTidRangeSql requires.
            SqlValue xmin;
            PGLAYOUT_RETURN_IF_ERROR(
                QueryValue(ex_->session(), kOldestRunningXidSql, {}, &xmin));
            copy_xmin_ = xmin.value_or("");
          }
          SqlResult r;
          return ex_->session()->Execute(
              "UPDATE pglayout.step SET detail = $3 WHERE run_id = $1 AND "
              "step_key = $2",
              {std::to_string(ex_->run_id()), key(),
               MakeDetail(t_, by_blocks_, source_filenode_, copy_xmin_)},
              &r);
        }));
    ex_->Line(fmt::format("{}: shadow {} and change capture installed",
                          relation(), names_.QualifiedShadow()));
    ex_->Failpoint("after-prepare:" + key());
    return Status::Ok();
  }

  // A transaction of bulk work (copy batch, index build, replay round)
  // that does not wait for its commit to be flushed: the WAL writer flushes
  // it within moments, and should the server crash first, the work and its
  // journal row are lost together and the resumed run does them again.
  // Saves a WAL flush wait per batch behind the foreground's commits.
  Status BulkTransaction(const std::string& name,
                         const std::function<Status()>& body) {
    return ex_->Transaction(name, [&]() -> Status {
      PGLAYOUT_RETURN_IF_ERROR(ex_->Exec("SET LOCAL synchronous_commit = off"));
      return body();
    });
  }

  bool Adaptive() const {
    return ex_->options().throttle == ThrottleMode::kAdaptive;
  }

  // The foreground's pace just before the copy, over one throttle window
  // after the capture trigger is in place: the adaptive throttle's
  // reference. Not from the run's start: installing the trigger waits for
  // the table's lock and stalls its writers for a moment, which measured
  // as much as a sixth off a 5 s baseline on pgbench and made the copy
  // look cheaper than it was.
  Status SampleBaseline() {
    if (!Adaptive()) return Status::Ok();
    ThrottleSample first, second;
    PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(ex_, &first));
    Sleep(ex_->options().throttle_limits.window_s);
    PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(ex_, &second));
    throttle_.SetBaseline(first, second);
    baseline_sampled_ = true;
    ex_->Line(fmt::format(
        "{}: adaptive throttle baseline: {:.0f} {}/s in the database",
        relation(), throttle_.baseline_tps(), throttle_.measure()));
    return Status::Ok();
  }

  // Tells the adaptive throttle a batch starts now, which ends the pause
  // before it (nothing with --throttle off). One query: the pause only
  // needs the completed transactions, the rest is read after the batch.
  Status MarkBatchStart() {
    if (!Adaptive()) return Status::Ok();
    SqlValue xids;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        ex_->session(), std::string("SELECT ") + kCompletedXidsSql, {}, &xids));
    throttle_.BatchStarting(Now(), xids ? std::stoll(*xids) : 0);
    return Status::Ok();
  }

  // The adaptive throttle's pause after |work_s| seconds of bulk work (0
  // with --throttle off).
  Status AdaptivePause(double work_s, double* pause) {
    *pause = 0;
    if (!Adaptive()) return Status::Ok();
    ThrottleSample now;
    PGLAYOUT_RETURN_IF_ERROR(SampleThrottleSignals(ex_, &now));
    *pause = throttle_.Next(now, work_s);
    return Status::Ok();
  }

  void Sleep(double seconds) { ex_->clock()->Sleep(seconds); }
  double Now() const { return ex_->clock()->Now(); }
  double Since(double start) const { return Now() - start; }

  // The pause before the next copy batch: the adaptive throttle's, and at
  // least what keeps the copy under --max-rate (a hard cap) since |start|.
  Status Pause(double start, int64_t bytes, double batch_s) {
    double pause = 0;
    PGLAYOUT_RETURN_IF_ERROR(AdaptivePause(batch_s, &pause));
    double rate = ex_->options().max_rate_mbps;
    if (rate > 0) {
      double due = static_cast<double>(bytes) / (rate * 1e6);
      pause = std::max(pause, due - Since(start));
    }
    Sleep(pause);
    return Status::Ok();
  }

  std::string ThrottleState() const {
    std::string state = !Adaptive()         ? "off"
                        : baseline_sampled_ ? "adaptive " + throttle_.State()
                                            : "adaptive (one batch: no pause)";
    if (ex_->options().max_rate_mbps > 0) {
      state += fmt::format(", cap {:.0f} MB/s", ex_->options().max_rate_mbps);
    }
    return state;
  }

  void Report(const std::string& what, double start, int64_t rows,
              int64_t bytes) {
    ProgressUpdate u;
    u.task = "copy " + relation();
    u.step = what;
    u.elapsed_s = Since(start);
    CopyProgressInput in;
    in.rows_done = rows;
    in.bytes_done = bytes;
    in.rows_before = rows_copied_ - rows;
    in.rows_total = EstimatedRows();
    in.elapsed_s = u.elapsed_s;
    in.cap_mbps = ex_->options().max_rate_mbps;
    const CopyProgress p = ComputeCopyProgress(in);
    u.fraction = p.fraction;
    if (p.eta_s) u.eta_s = *p.eta_s;
    u.detail = fmt::format(
        "{:.0f} rows/s, {:.1f} MB/s on average with the "
        "pauses, throttle {}",
        p.rows_per_second, p.mbps, ThrottleState());
    ex_->progress()->Update(u);
  }

  // kTidRange or kPlain, as the step's detail recorded when the copy began;
  // kSkipExisting if the shadow already has its key index: then it was made
  // by an older version that built it before the copy and replayed during
  // it.
  Status ChooseCopyMode(CopyMode* mode) {
    *mode = by_blocks_ ? CopyMode::kTidRange : CopyMode::kPlain;
    for (const ShadowIndex& index : ShadowIndexSql(t_, step_.target, names_)) {
      if (!index.row_key) continue;
      bool exists = false;
      PGLAYOUT_RETURN_IF_ERROR(IndexExists(index.temp_name, &exists));
      if (exists) *mode = CopyMode::kSkipExisting;
    }
    if (*mode == CopyMode::kSkipExisting) {
      ex_->Line(fmt::format(
          "{}: the shadow was made by an older pglayout (key index built "
          "before the copy); resuming its copy with ON CONFLICT DO NOTHING",
          relation()));
    }
    return Status::Ok();
  }

  // One batch and its journal row in one transaction. *done when the
  // batch was short (the end of the table).
  Status CopyBatch(CopyMode mode, bool* done) {
    std::string sql = CopyBatchSql(t_, names_, ex_->options().batch_rows,
                                   cursor_.empty(), mode);
    int64_t batch_no = batches_ + 1;
    int64_t rows = 0, bytes = 0;
    std::vector<std::string> last;
    PGLAYOUT_RETURN_IF_ERROR(BulkTransaction(
        fmt::format("copy-batch:{}", batch_no), [&]() -> Status {
          SqlResult r;
          PGLAYOUT_RETURN_IF_ERROR(
              ex_->session()->Execute(sql, Params(cursor_), &r));
          rows = r.rows.empty() ? 0 : CellInt(r.rows[0], 0);
          bytes = rows > 0 ? CellInt(r.rows[0], 1) : 0;
          last.clear();
          for (size_t i = 2; rows > 0 && i < r.rows[0].size(); ++i) {
            last.push_back(Cell(r.rows[0], i));
          }
          if (rows > 0) {
            PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->RecordBatch(
                ex_->run_id(), key(), batch_no, cursor_, last, rows, bytes));
          }
          *done = rows < ex_->options().batch_rows;
          if (!*done) return Status::Ok();
          return ex_->journal()->SetStep(ex_->run_id(), key(), step_no_,
                                         "running", "indexes");
        }));
    ex_->Failpoint(fmt::format("copy-batch:{}:after-commit", batch_no));
    if (rows > 0) {
      batches_ = batch_no;
      cursor_ = last;
      rows_copied_ += rows;
      bytes_copied_ += bytes;
    }
    return Status::Ok();
  }

  // The source's heap size in blocks, the block size, and how many blocks
  // hold about batch_rows rows.
  struct HeapBlocks {
    int64_t total = 0;
    int64_t block_size = 8192;
    int64_t per_batch = 1;
  };

  Status ReadHeapBlocks(int64_t batch_rows, HeapBlocks* heap) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
        "SELECT pg_catalog.pg_relation_size($1::oid) / b, b FROM (SELECT "
        "pg_catalog.current_setting('block_size')::bigint AS b) s",
        {std::to_string(oid_)}, &r));
    heap->total = CellInt(r.rows.at(0), 0);
    heap->block_size = CellInt(r.rows[0], 1);
    heap->per_batch = BlocksHolding(batch_rows, heap->total);
    return Status::Ok();
  }

  // Rows per heap block assumed for a table never vacuumed or analyzed
  // (its reltuples, -1 on 14+ and 0 before, is read as 0).
  static constexpr double kRowsPerBlockGuess = 50;

  // The source's rows: reltuples, or a guess from its heap's 8 KiB blocks.
  double EstimatedRows() const {
    if (t_.reltuples > 0) return t_.reltuples;
    return static_cast<double>(t_.heap_size) / 8192.0 * kRowsPerBlockGuess;
  }

  // About how many of the source's |blocks| heap blocks hold |rows| rows
  // (at least 1).
  int64_t BlocksHolding(int64_t rows, int64_t blocks) const {
    double rows_per_block = t_.reltuples > 0 && blocks > 0
                                ? t_.reltuples / static_cast<double>(blocks)
                                : kRowsPerBlockGuess;
    return std::max<int64_t>(
        1, static_cast<int64_t>(static_cast<double>(rows) /
                                std::max(rows_per_block, 1.0)));
  }

  // A block-range copy follows the heap's block positions, which VACUUM
  // FULL, CLUSTER or a rewriting ALTER TABLE reshuffle (without firing the
  // capture trigger): rows could be missed or read twice. Checked after the
  // batch's read, whose lock holds a rewrite off until the batch commits.
  Status CheckNotRewritten() {
    if (source_filenode_.empty()) return Status::Ok();  // an older run's
    SqlValue now;
    PGLAYOUT_RETURN_IF_ERROR(
        QueryValue(ex_->session(), kFilenodeSql, {std::to_string(oid_)}, &now));
    if (now.value_or("") == source_filenode_) return Status::Ok();
    return Status::Aborted(fmt::format(
        "{}: the table was rewritten during the copy (VACUUM FULL, CLUSTER "
        "or an ALTER TABLE that rewrites it), so the heap block ranges the "
        "copy follows no longer hold the same rows; nothing was swapped. "
        "Run pglayout migrate --abort and start again",
        relation()));
  }

  // One block-range batch and its journal row (the cursor moves even when
  // the range held no live row). *done once the range reaches |heap|'s end.
  Status CopyBlockBatch(const HeapBlocks& heap, bool* done) {
    int64_t lo = 0;
    if (!cursor_.empty() && !ParseBlockTid(cursor_[0], &lo)) {
      return Status::Internal(fmt::format(
          "{}: the journal's copy cursor {} is not a block position; run "
          "pglayout migrate --abort",
          relation(), JoinComma(cursor_)));
    }
    int64_t hi = std::min(lo + heap.per_batch, std::max(heap.total, lo));
    int64_t batch_no = batches_ + 1;
    int64_t rows = 0, bytes = (hi - lo) * heap.block_size;
    *done = hi >= heap.total;
    PGLAYOUT_RETURN_IF_ERROR(BulkTransaction(
        fmt::format("copy-batch:{}", batch_no), [&]() -> Status {
          if (hi > lo) {
            bool by_xmin = !copy_xmin_.empty();
            std::vector<SqlValue> params = {BlockTid(lo), BlockTid(hi)};
            if (by_xmin) {
              params.push_back(copy_xmin_);
              for (const std::string& set : CopyByXminSettingsSql()) {
                PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(set));
              }
            }
            SqlResult r;
            PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
                CopyTidRangeSql(t_, names_, by_xmin), params, &r));
            rows = r.affected_rows;
            PGLAYOUT_RETURN_IF_ERROR(CheckNotRewritten());
            PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->RecordBatch(
                ex_->run_id(), key(), batch_no, {BlockTid(lo)}, {BlockTid(hi)},
                rows, bytes));
          }
          if (!*done) return Status::Ok();
          return ex_->journal()->SetStep(ex_->run_id(), key(), step_no_,
                                         "running", "indexes");
        }));
    ex_->Failpoint(fmt::format("copy-batch:{}:after-commit", batch_no));
    if (hi > lo) {
      batches_ = batch_no;
      cursor_ = {BlockTid(hi)};
      rows_copied_ += rows;
      bytes_copied_ += bytes;
    }
    return Status::Ok();
  }

  // No replay while copying: the shadow has no index to find keys by yet,
  // and the capture log only grows by the foreground's changes, which the
  // catch-up replays once the indexes exist. A block-range copy ends at the
  // heap's size when the copy (re)starts: rows beyond it were written after
  // the capture trigger existed, so their keys are in the log.
  Status Copy() {
    CopyMode mode = CopyMode::kPlain;
    PGLAYOUT_RETURN_IF_ERROR(ChooseCopyMode(&mode));
    HeapBlocks heap;
    if (mode == CopyMode::kTidRange) {
      PGLAYOUT_RETURN_IF_ERROR(
          ReadHeapBlocks(ex_->options().batch_rows, &heap));
    }
    // A copy of one batch is over before a baseline could tell anything.
    bool one_batch =
        mode == CopyMode::kTidRange
            ? heap.total <= heap.per_batch
            : EstimatedRows() < static_cast<double>(ex_->options().batch_rows);
    if (!one_batch) PGLAYOUT_RETURN_IF_ERROR(SampleBaseline());
    const double start = Now();
    int64_t rows_at_start = rows_copied_, bytes_at_start = bytes_copied_;
    bool done = false;
    while (!done) {
      PGLAYOUT_RETURN_IF_ERROR(MarkBatchStart());
      const double batch_start = Now();
      if (mode == CopyMode::kTidRange) {
        PGLAYOUT_RETURN_IF_ERROR(CopyBlockBatch(heap, &done));
      } else {
        PGLAYOUT_RETURN_IF_ERROR(CopyBatch(mode, &done));
      }
      Report(fmt::format("batch {}", batches_), start,
             rows_copied_ - rows_at_start, bytes_copied_ - bytes_at_start);
      if (!done) {
        PGLAYOUT_RETURN_IF_ERROR(
            Pause(start, bytes_copied_ - bytes_at_start, Since(batch_start)));
      }
    }
    ex_->Line(fmt::format(
        "{}: copied {} ({}) in {}{} ({:.1f} s; throttle {})", relation(),
        CountOf(rows_copied_, "row", "rows"),
        HumanSize(static_cast<double>(bytes_copied_)),
        CountOf(batches_, "batch", "batches"),
        mode == CopyMode::kTidRange
            ? fmt::format(" of {}; keys changed meanwhile come by replay",
                          CountOf(std::min(heap.per_batch, heap.total),
                                  "heap block", "heap blocks"))
            : std::string(" in key order"),
        Since(start), ThrottleState()));
    return Status::Ok();
  }

  Status IndexExists(const std::string& name, bool* exists) {
    SqlValue v;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        ex_->session(), "SELECT pg_catalog.to_regclass($1) IS NOT NULL",
        {QuoteIdent(names_.schema) + "." + QuoteIdent(name)}, &v));
    *exists = v && *v == "t";
    return Status::Ok();
  }

  // SET LOCAL for the index builds: maintenance_work_mem raised to
  // index_work_mem (never lowered below the server's setting), and with
  // the adaptive throttle no parallel workers: it cannot pause a CREATE
  // INDEX, and its workers would take every core from the foreground.
  Status IndexSettingsSql(std::vector<std::string>* sql) {
    SqlValue kb;
    PGLAYOUT_RETURN_IF_ERROR(
        QueryValue(ex_->session(),
                   "SELECT setting FROM pg_catalog.pg_settings WHERE name = "
                   "'maintenance_work_mem'",
                   {}, &kb));
    uint64_t current = std::strtoull(kb.value_or("0").c_str(), nullptr, 10);
    uint64_t wanted = ex_->options().index_work_mem / 1024;
    sql->clear();
    if (wanted > current) {
      sql->push_back(
          fmt::format("SET LOCAL maintenance_work_mem = '{}kB'", wanted));
    }
    if (Adaptive()) {
      sql->push_back("SET LOCAL max_parallel_maintenance_workers = 0");
    }
    return Status::Ok();
  }

  // The row key's index first (replay needs it), then the others; one
  // transaction each, skipped when a resumed run finds it built.
  Status BuildIndexes() {
    std::vector<std::string> settings;
    PGLAYOUT_RETURN_IF_ERROR(IndexSettingsSql(&settings));
    const double start = Now();
    int built = 0;
    for (const ShadowIndex& index : ShadowIndexSql(t_, step_.target, names_)) {
      bool exists = false;
      PGLAYOUT_RETURN_IF_ERROR(IndexExists(index.temp_name, &exists));
      if (exists) continue;
      PGLAYOUT_RETURN_IF_ERROR(
          BulkTransaction("index:" + index.source, [&]() -> Status {
            PGLAYOUT_RETURN_IF_ERROR(ex_->ExecAll(settings));
            return ex_->ExecAll(index.sql);
          }));
      ++built;
    }
    PGLAYOUT_RETURN_IF_ERROR(PrepareAttach());
    PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->SetStep(
        ex_->run_id(), key(), step_no_, "running", "catchup"));
    if (built > 0) {
      ex_->Line(fmt::format("{}: built {} ({:.1f} s)", relation(),
                            CountOf(built, "index", "indexes"), Since(start)));
    }
    return Status::Ok();
  }

  Status ConstraintExists(const std::string& table,
                          const std::string& constraint, bool* exists) {
    SqlValue v;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        ex_->session(),
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE "
        "conrelid = $1::pg_catalog.regclass AND conname = $2)",
        {table, constraint}, &v));
    *exists = v && *v == "t";
    return Status::Ok();
  }

  // Moving a partition: what ATTACH PARTITION would otherwise scan for
  // under the swap's lock, added NOT VALID (a brief lock) and validated
  // (a scan that does not block writes); a resumed run skips what exists.
  Status PrepareAttach() {
    for (const AttachPrep& prep : AttachPrepSql(t_, names_)) {
      bool exists = false;
      PGLAYOUT_RETURN_IF_ERROR(
          ConstraintExists(prep.table, prep.constraint, &exists));
      if (!exists) {
        PGLAYOUT_RETURN_IF_ERROR(
            ex_->WithLockRetry("add " + prep.constraint, prep.locks,
                               [&]() { return ex_->Exec(prep.add); }));
        ex_->Failpoint("attach-prep-added:" + key());
      }
      PGLAYOUT_RETURN_IF_ERROR(
          ex_->WithLockRetry("validate " + prep.constraint, {prep.table},
                             [&]() { return ex_->Exec(prep.validate); }));
      ex_->Line(
          fmt::format("{}: constraint {} on {} added and validated, so "
                      "that ATTACH PARTITION scans nothing",
                      relation(), DisplayIdent(prep.constraint), prep.table));
    }
    return Status::Ok();
  }

  // One replay transaction: take up to |limit| log rows, resync their keys.
  Status ReplayRound(int64_t limit, int64_t* log_rows) {
    ReplaySql sql = MakeReplaySql(t_, names_);
    return BulkTransaction("replay", [&]() -> Status {
      return ReplayInTransaction(sql, limit, log_rows);
    });
  }

  // Replays up to |limit| log rows; *keys (if given) receives the arrays
  // of the distinct keys replayed, as the replay's statements take them.
  Status ReplayInTransaction(const ReplaySql& sql, int64_t limit,
                             int64_t* log_rows,
                             std::vector<SqlValue>* keys = nullptr) {
    SqlResult taken;
    PGLAYOUT_RETURN_IF_ERROR(
        ex_->session()->Execute(sql.take, {std::to_string(limit)}, &taken));
    *log_rows = taken.rows.empty() ? 0 : CellInt(taken.rows[0], 0);
    if (*log_rows == 0) return Status::Ok();
    std::vector<SqlValue> arrays(taken.rows[0].begin() + 2,
                                 taken.rows[0].end());
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(sql.remove, arrays, &r));
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(sql.insert, arrays, &r));
    if (keys) *keys = arrays;
    return ex_->journal()->AddReplayed(ex_->run_id(), key(), *log_rows);
  }

  // The rows of |keys| (replay's arrays), just replayed under the swap's
  // lock, are the same on both sides: the verification before the swap
  // left them out as pending, so they are checked here.
  Status VerifyReplayedUnderLock(const std::vector<SqlValue>& keys,
                                 int64_t* rows) {
    SideSum sides[2];
    const std::string relations[2] = {"ONLY " + names_.QualifiedTable(),
                                      names_.QualifiedShadow()};
    for (int i = 0; i < 2; ++i) {
      SqlResult r;
      Status st = ex_->session()->Execute(
          VerifySumSql(t_, names_, relations[i], VerifyScope::kKeyArrays,
                       *text_form_),
          keys, &r);
      if (!st.ok() && !*text_form_ && st.code() == Status::Code::kSqlError) {
        // A type's hash function failed on a value the sample row lacked:
        // hash text forms instead, in a fresh attempt.
        text_form_ = true;
        return ex_->RetryLater(st.message());
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
        relation(), sides[0].rows, sides[0].sum, sides[1].rows, sides[1].sum));
  }

  // Between replay rounds the adaptive throttle's pause, but never longer
  // than the round: at half duty replay still outruns any foreground the
  // copy kept up with, and it must catch up to converge.
  Status ReplayPause(double round_s) {
    double pause = 0;
    PGLAYOUT_RETURN_IF_ERROR(AdaptivePause(round_s, &pause));
    Sleep(std::min(pause, round_s));
    return Status::Ok();
  }

  Status CatchUp() {
    throttle_.OtherWorkDone();  // index builds or the verification
    const double start = Now();
    int64_t limit = std::max<int64_t>(ex_->options().batch_rows, 1000);
    while (true) {
      int64_t n = 0;
      PGLAYOUT_RETURN_IF_ERROR(MarkBatchStart());
      const double round_start = Now();
      PGLAYOUT_RETURN_IF_ERROR(ReplayRound(limit, &n));
      if (n < ex_->options().switch_threshold) return Status::Ok();
      PGLAYOUT_RETURN_IF_ERROR(ReplayPause(Since(round_start)));
      if (Since(start) > ex_->options().catchup_timeout_s) {
        return Status::Aborted(fmt::format(
            "{}: replay did not converge in {:.0f} s (writes arrive faster "
            "than they can be replayed); nothing was swapped. Retry at a "
            "quieter time, or run --abort",
            relation(), ex_->options().catchup_timeout_s));
      }
    }
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

  // Chooses the hash form once per run of this step, outside any
  // transaction: a failing hash function would abort the swap's.
  Status EnsureHashForm() {
    if (text_form_) return Status::Ok();
    bool text_form = false;
    PGLAYOUT_RETURN_IF_ERROR(ChooseHashForm(&text_form));
    text_form_ = text_form;
    return Status::Ok();
  }

  // Hashes each column's value unless a row of the source shows that a
  // type's hash function fails (then every column hashes its text form).
  // An empty table has nothing to verify either way.
  Status ChooseHashForm(bool* text_form) {
    *text_form = false;
    std::string one_row =
        fmt::format("(SELECT * FROM ONLY {} LIMIT 1)", names_.QualifiedTable());
    if (ex_->Exec(VerifySumSql(t_, names_, one_row, VerifyScope::kAll)).ok()) {
      return Status::Ok();
    }
    *text_form = true;
    return ex_->Exec(
        VerifySumSql(t_, names_, one_row, VerifyScope::kAll, true));
  }

  // The heap sizes in blocks of the source and of the shadow (the largest
  // partition of a partitioned one): a block-range chunk covers that block
  // range of every partition.
  Status ReadVerifyExtent(int64_t* source_blocks, int64_t* shadow_blocks) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
        "SELECT pg_catalog.pg_relation_size($1::pg_catalog.regclass) / b, "
        "greatest(pg_catalog.pg_relation_size($2::pg_catalog.regclass), "
        "coalesce((SELECT max(pg_catalog.pg_relation_size(i.inhrelid)) FROM "
        "pg_catalog.pg_inherits i WHERE i.inhparent = "
        "$2::pg_catalog.regclass), 0)) / b FROM (SELECT "
        "pg_catalog.current_setting('block_size')::bigint AS b) s",
        {names_.QualifiedTable(), names_.QualifiedShadow()}, &r));
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
  Status SumSide(SqlSession* session, const std::string& side_sql,
                 int64_t blocks, int64_t chunk, bool text_form,
                 const AfterChunk& after, SideSum* out) const {
    bool ranged = HasTidRangeScans(session->server_version());
    std::string sql = VerifySumSql(
        t_, names_, side_sql,
        ranged ? VerifyScope::kBlockRange : VerifyScope::kAll, text_form);
    for (int64_t lo = 0; lo < blocks || (lo == 0 && !ranged); lo += chunk) {
      SqlResult r;
      std::vector<SqlValue> params;
      if (ranged) params = {BlockTid(lo), BlockTid(lo + chunk)};
      PGLAYOUT_RETURN_IF_ERROR(session->Execute(sql, params, &r));
      PGLAYOUT_RETURN_IF_ERROR(out->Add(r, +1));
      if (!ranged) break;
      if (after) {
        PGLAYOUT_RETURN_IF_ERROR(
            after(std::min(1.0, static_cast<double>(lo + chunk) /
                                    static_cast<double>(blocks))));
      }
    }
    SqlResult logged;
    PGLAYOUT_RETURN_IF_ERROR(session->Execute(
        VerifySumSql(t_, names_, side_sql, VerifyScope::kLoggedKeys, text_form),
        {}, &logged));
    return out->Add(logged, -1);
  }

  // Progress for |what|. No throttle pause: the verification holds one
  // snapshot from start to end, and a snapshot held longer costs the
  // foreground more than the hashing does (its updates' dead versions cannot
  // be pruned meanwhile; pgbench lost a third of its commits to 40 s of
  // paused verification).
  AfterChunk Progress(const std::string& what) {
    const double start = Now();
    return [this, what, start](double fraction) -> Status {
      ProgressUpdate u;
      u.task = "verify " + relation();
      u.step = what;
      u.fraction = fraction;
      u.elapsed_s = Since(start);
      ex_->progress()->Update(u);
      return Status::Ok();
    };
  }

  // The copy's side is hashed at the same time on a second session that
  // shares the main session's snapshot (pg_export_snapshot): on two cores
  // that halves the time the snapshot is held.
  Status SumSidesSideBySide(int64_t source_blocks, int64_t shadow_blocks,
                            int64_t chunk, bool text_form, SideSum* source,
                            SideSum* shadow) {
    SqlValue snapshot;
    PGLAYOUT_RETURN_IF_ERROR(
        QueryValue(ex_->session(), "SELECT pg_catalog.pg_export_snapshot()", {},
                   &snapshot));
    std::unique_ptr<SqlSession> side;
    PGLAYOUT_RETURN_IF_ERROR(ex_->OpenSideSession("verify", &side));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        side.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
        side.get(),
        "SET TRANSACTION SNAPSHOT " + QuoteLiteral(snapshot.value_or(""))));
    Status side_status;
    std::thread worker([&]() {
      side_status = SumSide(side.get(), names_.QualifiedShadow(), shadow_blocks,
                            chunk, text_form, nullptr, shadow);
    });
    Status st = SumSide(ex_->session(), "ONLY " + names_.QualifiedTable(),
                        source_blocks, chunk, text_form,
                        Progress("source and copy"), source);
    worker.join();
    (void)ExecuteSql(side.get(), side_status.ok() ? "COMMIT" : "ROLLBACK");
    PGLAYOUT_RETURN_IF_ERROR(st);
    return side_status;
  }

  Status SumBothSides(bool text_form, SideSum* source, SideSum* shadow) {
    int64_t source_blocks = 0, shadow_blocks = 0;
    PGLAYOUT_RETURN_IF_ERROR(ReadVerifyExtent(&source_blocks, &shadow_blocks));
    int64_t chunk =
        BlocksHolding(ex_->options().verify_range_rows, source_blocks);
    if (HasTidRangeScans(ex_->session()->server_version())) {
      return SumSidesSideBySide(source_blocks, shadow_blocks, chunk, text_form,
                                source, shadow);
    }
    PGLAYOUT_RETURN_IF_ERROR(
        SumSide(ex_->session(), "ONLY " + names_.QualifiedTable(),
                source_blocks, chunk, text_form, Progress("source"), source));
    return SumSide(ex_->session(), names_.QualifiedShadow(), shadow_blocks,
                   chunk, text_form, Progress("copy"), shadow);
  }

  // Up to 5 keys whose rows differ, for the error message.
  std::string DifferingKeys(bool text_form) {
    SqlResult r;
    if (!ex_->session()
             ->Execute(DifferingKeysSql(t_, names_, 5, text_form), {}, &r)
             .ok()) {
      return "could not list them";
    }
    std::vector<std::string> keys;
    for (const auto& row : r.rows) {
      std::vector<std::string> parts;
      for (size_t i = 0; i < row.size(); ++i) parts.push_back(Cell(row, i));
      keys.push_back("(" + JoinComma(parts) + ")");
    }
    return keys.empty() ? "none differs any more" : JoinComma(keys);
  }

  // Compares the source and the shadow in one REPEATABLE READ snapshot:
  // the row count and the sum of row hashes of each, leaving out keys with
  // pending log rows (the swap resynchronises them under its lock). Each
  // side is read in heap order by block-range chunks, both at once; no
  // replay runs meanwhile, the log only grows, and the catch-up after the
  // verification drains it.
  Status Verify() {
    ex_->Failpoint("before-verify:" + key());
    PGLAYOUT_RETURN_IF_ERROR(EnsureHashForm());
    const bool text_form = *text_form_;
    const double start = Now();
    SideSum source, shadow;
    PGLAYOUT_RETURN_IF_ERROR(
        ex_->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    Status st = SumBothSides(text_form, &source, &shadow);
    PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(st.ok() ? "COMMIT" : "ROLLBACK"));
    PGLAYOUT_RETURN_IF_ERROR(st);
    PGLAYOUT_RETURN_IF_ERROR(ex_->journal()->RecordVerification(
        ex_->run_id(), key(), source.rows, source.sum, shadow.rows,
        shadow.sum));
    if (source.rows != shadow.rows || source.sum != shadow.sum) {
      return Status::Internal(fmt::format(
          "{}: verification failed: the source has {} rows (checksum {}), "
          "the copy {} rows (checksum {}); keys that differ: {}. Nothing "
          "was swapped; run pglayout migrate --abort and report this",
          relation(), source.rows, source.sum, shadow.rows, shadow.sum,
          DifferingKeys(text_form)));
    }
    ex_->Line(fmt::format(
        "{}: verified {} rows: counts and checksums ({}) match ({:.1f} s)",
        relation(), source.rows,
        text_form ? "hashes of the text form" : "per-column hash functions",
        Since(start)));
    return Status::Ok();
  }

  Status CatchUpAndVerify() {
    PGLAYOUT_RETURN_IF_ERROR(CatchUp());
    PGLAYOUT_RETURN_IF_ERROR(Verify());
    PGLAYOUT_RETURN_IF_ERROR(CatchUp());
    return ex_->journal()->SetStep(ex_->run_id(), key(), step_no_, "running",
                                   "swap");
  }

  Status ShadowSwapInputs(SwapInputs* inputs) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
        "SELECT a.attname, pg_catalog.pg_get_serial_sequence($1, a.attname) "
        "FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::regclass "
        "AND a.attidentity <> '' AND a.attnum > 0 AND NOT a.attisdropped",
        {names_.QualifiedShadow()}, &r));
    for (const auto& row : r.rows) {
      inputs->shadow_identity_sequences[Cell(row, 0)] = Cell(row, 1);
    }
    SqlResult stats;
    PGLAYOUT_RETURN_IF_ERROR(ex_->session()->Execute(
        "SELECT pg_catalog.format('%I.%I', n.nspname, x.stxname) FROM "
        "pg_catalog.pg_statistic_ext x JOIN pg_catalog.pg_namespace n ON "
        "n.oid = x.stxnamespace WHERE x.stxrelid = $1::regclass ORDER BY "
        "x.oid",
        {names_.QualifiedShadow()}, &stats));
    for (const auto& row : stats.rows) {
      inputs->shadow_statistics.push_back(Cell(row, 0));
    }
    return Status::Ok();
  }

  Status CheckUnchanged(const std::string& detail) {
    std::string expected = ParseDetail(detail).hash;
    std::string hash;
    PGLAYOUT_RETURN_IF_ERROR(ReadStructureHash(
        ex_->session(), oid_, &hash, !expected.starts_with(kStructureHashTag)));
    if (!expected.empty() && hash != expected) {
      return Status::Aborted(fmt::format(
          "{}: its definition (columns, defaults, indexes, constraints, "
          "owner or storage parameters) changed since the copy started "
          "(concurrent DDL); the copy would be stale, so it is not swapped. "
          "Run pglayout migrate --abort and start again",
          relation()));
    }
    SqlValue enabled;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        ex_->session(),
        "SELECT coalesce((SELECT tgenabled::text FROM pg_catalog.pg_trigger "
        "WHERE tgrelid = $1::oid AND tgname = 'pglayout_capture'), 'missing')",
        {std::to_string(oid_)}, &enabled));
    if (enabled.value_or("") != "A") {
      return Status::Aborted(fmt::format(
          "{}: the capture trigger was disabled or dropped ({}); changes may "
          "have been missed, so the copy is not swapped. Run pglayout "
          "migrate --abort and start again",
          relation(), enabled.value_or("")));
    }
    return Status::Ok();
  }

  // The most log rows the swap replays under its ACCESS EXCLUSIVE lock
  // (about 0.5 s of replay); with more pending it gives the lock back, and
  // catches up before the next attempt.
  int64_t MaxBacklogUnderLock() const {
    return 5 * std::max<int64_t>(ex_->options().switch_threshold, 100);
  }

  Status SwapOnce(const std::string& detail) {
    PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(SwapLockSql(t_, names_)));
    PGLAYOUT_RETURN_IF_ERROR(CheckUnchanged(detail));
    SqlValue pending;
    PGLAYOUT_RETURN_IF_ERROR(QueryValue(
        ex_->session(),
        fmt::format("SELECT count(*) FROM (SELECT FROM {} LIMIT $1) l",
                    names_.log),
        {std::to_string(MaxBacklogUnderLock() + 1)}, &pending));
    if (std::stoll(pending.value_or("0")) > MaxBacklogUnderLock()) {
      return ex_->RetryLater(fmt::format(
          "{}: more than {} changes to replay under the swap's lock; "
          "replaying them first",
          relation(), MaxBacklogUnderLock()));
    }
    ReplaySql replay = MakeReplaySql(t_, names_);
    int64_t n = 0;
    replayed_under_lock_ = verified_under_lock_ = 0;
    do {
      std::vector<SqlValue> keys;
      PGLAYOUT_RETURN_IF_ERROR(ReplayInTransaction(replay, 100000, &n, &keys));
      replayed_under_lock_ += n;
      if (n > 0) {
        PGLAYOUT_RETURN_IF_ERROR(
            VerifyReplayedUnderLock(keys, &verified_under_lock_));
      }
    } while (n > 0);
    TableFacts fresh;
    PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(ex_->session(), oid_, &fresh));
    SwapInputs inputs;
    PGLAYOUT_RETURN_IF_ERROR(ShadowSwapInputs(&inputs));
    PGLAYOUT_RETURN_IF_ERROR(
        ex_->ExecAll(SwapSql(fresh, step_.target, names_, inputs)));
    return ex_->journal()->SetStep(ex_->run_id(), key(), step_no_, "running",
                                   "swapped");
  }

  // A prepared transaction holding a lock on the table never ends by
  // itself: the swap would wait for it until the lock deadline
  // (docs/online-migration.md#prepared-transactions).
  Status RefusePreparedLocks() {
    std::vector<std::string> gids;
    PGLAYOUT_RETURN_IF_ERROR(ReadPreparedLocks(ex_->session(), oid_, &gids));
    if (gids.empty()) return Status::Ok();
    return Status::Aborted(fmt::format(
        "{}: prepared transaction {} holds a lock on it, so the swap could "
        "never get its lock; COMMIT PREPARED or ROLLBACK PREPARED it, then "
        "run pglayout migrate again to resume",
        relation(), JoinComma(gids)));
  }

  // A rename swap is not MVCC-safe: a snapshot taken before it would see
  // the new table without the rows copied after the snapshot
  // (docs/online-migration.md#older-snapshots). Waits, bounded by
  // old_xact_wait_s, until every transaction of this database that holds a
  // snapshot and started before the swap phase has ended, as pg_repack
  // does; VACUUM and our own sessions are skipped.
  Status WaitForOlderTransactions() {
    SqlValue since;
    PGLAYOUT_RETURN_IF_ERROR(
        QueryValue(ex_->session(), "SELECT pg_catalog.clock_timestamp()::text",
                   {}, &since));
    const double start = Now();
    while (true) {
      SqlResult r;
      PGLAYOUT_RETURN_IF_ERROR(
          ex_->session()->Execute(kOlderTransactionsSql, {since}, &r));
      if (r.rows.empty()) return Status::Ok();
      std::vector<std::string> who;
      for (const auto& row : r.rows) who.push_back(Cell(row, 0));
      if (Since(start) > ex_->options().old_xact_wait_s) {
        return Status::Aborted(fmt::format(
            "{}: transactions older than the copy are still open after {:.0f} "
            "s: {}. After the swap their snapshots would see an incomplete "
            "table, so it is not swapped yet; end them and run pglayout "
            "migrate again to resume (or --abort)",
            relation(), ex_->options().old_xact_wait_s, JoinComma(who)));
      }
      ex_->Failpoint("swap-wait:" + key());
      ProgressUpdate u;
      u.task = "swap " + relation();
      u.step = "waiting for transactions older than the copy";
      u.elapsed_s = Since(start);
      u.detail = JoinComma(who);
      ex_->progress()->Update(u);
      Sleep(0.2);
    }
  }

  // What the swap locks: the table, the shadow (and its partitions) and
  // the other tables of its foreign keys, both ways.
  std::vector<std::string> SwapRelations() const {
    std::vector<std::string> out = {names_.QualifiedTable(),
                                    names_.QualifiedShadow()};
    for (const ForeignKeyFacts& fk : t_.fks_in) out.push_back(fk.table);
    for (const ForeignKeyFacts& fk : t_.fks_out) out.push_back(fk.table);
    for (const ForeignKeyFacts& fk : t_.inherited_fks_out) {
      out.push_back(fk.table);
    }
    if (!t_.partition_parent.empty()) out.push_back(t_.partition_parent);
    if (!t_.default_partition.empty()) out.push_back(t_.default_partition);
    return out;
  }

  Status Swap(const std::string& detail) {
    PGLAYOUT_RETURN_IF_ERROR(RefusePreparedLocks());
    PGLAYOUT_RETURN_IF_ERROR(WaitForOlderTransactions());
    // The foreground kept writing while we waited: replay that outside the
    // lock.
    PGLAYOUT_RETURN_IF_ERROR(CatchUp());
    PGLAYOUT_RETURN_IF_ERROR(EnsureHashForm());
    ex_->Failpoint("before-swap:" + key());
    const double start = Now();
    // Unlike the other steps, the swap cancels autovacuum before its first
    // attempt too: each attempt that times out costs a catch-up, and a
    // busy table (or one of its foreign keys' tables) is likely to have a
    // worker by the end of a long copy. The shadow has none: its
    // autovacuum is off until the swap.
    const std::vector<std::string> locked = SwapRelations();
    PGLAYOUT_RETURN_IF_ERROR(ex_->CancelAutovacuumOn(locked));
    PGLAYOUT_RETURN_IF_ERROR(ex_->WithLockRetry(
        "swap", locked, [&]() { return SwapOnce(detail); },
        [&]() { return CatchUp(); }));
    ex_->Line(fmt::format(
        "{}: swapped ({:.2f} s including lock waits; {} replayed and {} "
        "verified under the lock); the old table is kept as {}",
        relation(), Since(start),
        CountOf(replayed_under_lock_, "change", "changes"),
        CountOf(verified_under_lock_, "row", "rows"), names_.QualifiedOld()));
    ex_->Failpoint("after-swap:" + key());
    return Status::Ok();
  }

  Status Finish(const std::string& detail_text) {
    Detail d = ParseDetail(detail_text);
    TableFacts stub;
    stub.oid = oid_;
    stub.schema = d.schema;
    stub.name = d.table;
    OnlineNames names = MakeOnlineNames(stub, step_.target);
    uint32_t new_oid = 0;
    PGLAYOUT_RETURN_IF_ERROR(
        ResolveRelation(ex_->session(), names.QualifiedTable(), &new_oid));
    TableFacts now;
    if (new_oid) {
      PGLAYOUT_RETURN_IF_ERROR(GatherTableFacts(ex_->session(), new_oid, &now));
    }
    for (const std::string& sql : PostSwapSql(now, names, d.not_valid_fks)) {
      PGLAYOUT_RETURN_IF_ERROR(ex_->Exec(sql));
    }
    // The log takes the foreground's every change: autovacuum visits it.
    return ex_->WithLockRetry(
        "cleanup " + relation(), {names.log}, [&]() -> Status {
          PGLAYOUT_RETURN_IF_ERROR(ex_->ExecAll(CaptureDropSql(names, false)));
          return ex_->journal()->SetStep(ex_->run_id(), key(), step_no_, "done",
                                         "done");
        });
  }

  Executor* ex_;
  const Step& step_;
  int step_no_;
  uint32_t oid_;
  TableFacts t_;
  OnlineNames names_;
  bool by_blocks_ = false;       // the copy reads heap block ranges
  std::string source_filenode_;  // when the shadow was made; "" = unknown
  std::string copy_xmin_;        // CopyTidRangeSql's $3; "" = look every row up
  std::optional<bool> text_form_;    // hash text forms? (EnsureHashForm)
  int64_t replayed_under_lock_ = 0;  // log rows the swap replayed
  int64_t verified_under_lock_ = 0;  // rows of their keys it verified
  std::vector<std::string> cursor_;
  int64_t batches_ = 0;
  // The adaptive throttle has its baseline (a copy of one batch goes
  // without).
  bool baseline_sampled_ = false;
  int64_t rows_copied_ = 0;
  int64_t bytes_copied_ = 0;
  AdaptiveThrottle throttle_{ex_->options().throttle_limits};
};

}  // namespace

Status SampleThrottleSignals(Executor* ex, ThrottleSample* sample) {
  CheckpointCounts checkpoints;
  PGLAYOUT_RETURN_IF_ERROR(ReadCheckpointCounts(ex->session(), &checkpoints));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT (SELECT xact_commit FROM pg_catalog.pg_stat_database WHERE "
      "datname = pg_catalog.current_database()), " +
          std::string(kCompletedXidsSql) +
          ", coalesce((SELECT max("
          "extract(epoch FROM replay_lag)) FROM "
          "pg_catalog.pg_stat_replication), "
          "0), coalesce((SELECT max(pg_catalog.pg_wal_lsn_diff("
          "pg_catalog.pg_current_wal_lsn(), replay_lsn)) FROM "
          "pg_catalog.pg_stat_replication), 0)",
      {}, &r));
  sample->at_s = ex->clock()->Now();
  sample->xact_commit = CellInt(r.rows.at(0), 0);
  sample->requested_checkpoints = checkpoints.requested;
  sample->completed_xids = CellInt(r.rows[0], 1);
  sample->replica_lag_s = std::strtod(Cell(r.rows[0], 2).c_str(), nullptr);
  sample->replica_lag_bytes = std::strtod(Cell(r.rows[0], 3).c_str(), nullptr);
  return Status::Ok();
}

Status RunOnlineCopy(Executor* ex, const Step& step, int step_no,
                     const StepRecord& record, uint32_t oid) {
  OnlineRun run(ex, step, step_no, oid);
  Status st = run.Run(record);
  if (!st.ok()) return st.WithContext(step.title);
  return st;
}

bool OnlineStepTable(const StepRecord& record, std::string* schema,
                     std::string* table) {
  Detail d = ParseDetail(record.detail);
  if (d.schema.empty() || d.table.empty()) return false;
  *schema = d.schema;
  *table = d.table;
  return true;
}

Status AbortOnlineCopy(Executor* ex, const std::string& relation,
                       const StepRecord& record) {
  Detail d = ParseDetail(record.detail);
  if (d.schema.empty() || record.relation_oid == 0) return Status::Ok();
  TableFacts stub;
  stub.oid = record.relation_oid;
  stub.schema = d.schema;
  stub.name = d.table;
  OnlineTarget target;
  OnlineNames names = MakeOnlineNames(stub, target);
  uint32_t current = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      ResolveRelation(ex->session(), names.QualifiedTable(), &current));
  bool source_exists = current == record.relation_oid;
  // A partition's move may have put a constraint on its parent's DEFAULT
  // partition (AttachPrepSql).
  SqlResult excl;
  PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
      "SELECT c.conrelid::pg_catalog.regclass::text FROM "
      "pg_catalog.pg_constraint c WHERE c.conname = $1 AND c.contype = 'c'",
      {names.default_check}, &excl));
  // Drop the triggers first, under a bounded ACCESS EXCLUSIVE lock, before
  // the log they write to (pg_repack #55: the other order deadlocks with
  // writers).
  std::vector<std::string> locked = {names.QualifiedShadow(), names.log};
  if (source_exists) locked.push_back(names.QualifiedTable());
  for (const SqlRow& row : excl.rows) locked.push_back(Cell(row, 0));
  return ex->WithLockRetry("abort " + relation, locked, [&]() -> Status {
    if (source_exists) {
      PGLAYOUT_RETURN_IF_ERROR(ex->Exec(fmt::format(
          "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE", names.QualifiedTable())));
    }
    for (const SqlRow& row : excl.rows) {
      PGLAYOUT_RETURN_IF_ERROR(
          ex->Exec(fmt::format("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}",
                               Cell(row, 0), QuoteIdent(names.default_check))));
    }
    PGLAYOUT_RETURN_IF_ERROR(ex->ExecAll(CaptureDropSql(names, source_exists)));
    PGLAYOUT_RETURN_IF_ERROR(
        ex->Exec("DROP TABLE IF EXISTS " + names.QualifiedShadow()));
    SqlResult r;
    return ex->session()->Execute(
        "UPDATE pglayout.step SET state = 'aborted', finished_at = "
        "pg_catalog.now() WHERE run_id = $1 AND step_key = $2",
        {std::to_string(ex->run_id()), record.key}, &r);
  });
}

}  // namespace pglayout::migrator
