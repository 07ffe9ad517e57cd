// The online copy's driver: copy -> indexes -> catchup -> swap -> swapped ->
// done, each phase persisted in pglayout.step with its work, so a client
// killed at any instant resumes by re-running the recorded phase. The
// phases live in online_copy, online_indexes, online_replay and
// online_verify (catchup), online_swap and online_cleanup; what they share
// in online_context, online_detail and online_pace.
// Why and how: docs/online-migration.md#how-an-online-copy-runs.

#include "migrator/online.h"

#include <fmt/format.h>

#include <string>

#include "migrator/executor.h"
#include "migrator/online_cleanup.h"
#include "migrator/online_context.h"
#include "migrator/online_copy.h"
#include "migrator/online_detail.h"
#include "migrator/online_indexes.h"
#include "migrator/online_logical.h"
#include "migrator/online_pace.h"
#include "migrator/online_replay.h"
#include "migrator/online_sql.h"
#include "migrator/online_swap.h"
#include "migrator/online_verify.h"
#include "migrator/server_facts.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// Where the copy stands when this run starts, from the journal.
CopyState CopyStateOf(const StepRecord& record, const Detail& detail) {
  CopyState state;
  state.by_blocks = detail.by_blocks;
  state.source_filenode = detail.filenode;
  state.copy_xmin = detail.copy_xmin;
  state.cursor = record.cursor;
  state.batches = record.batches;
  state.rows_copied = record.rows_copied;
  state.bytes_copied = record.bytes_copied;
  return state;
}

// The catch-up phase: replay, the verification, replay of what the
// foreground wrote meanwhile; records the phase "swap" and whether the
// verification ran. With --verify off, replay only.
Status CatchUpAndVerify(const OnlineContext& c, OnlinePace* pace,
                        OnlineVerifier* verifier) {
  PGLAYOUT_RETURN_IF_ERROR(CatchUp(c, pace));
  const VerifyMode mode = c.ex->verify();
  if (mode == VerifyMode::kFull) {
    PGLAYOUT_RETURN_IF_ERROR(verifier->Verify());
    PGLAYOUT_RETURN_IF_ERROR(CatchUp(c, pace));
  } else {
    c.ex->Line(c.relation() +
               ": not verified (--verify off): the copy is not compared "
               "with the table");
  }
  PGLAYOUT_RETURN_IF_ERROR(c.ex->journal()->SetStepVerify(
      c.ex->run_id(), c.key(), VerifyModeName(mode)));
  return c.ex->journal()->SetStep(c.ex->run_id(), c.key(), c.step_no, "running",
                                  "swap");
}

// Reads the table's facts and, unless |phase| is past the swap, checks the
// table is still there and names what the run makes.
Status ReadContext(const std::string& phase, OnlineContext* c) {
  PGLAYOUT_RETURN_IF_ERROR(
      GatherTableFacts(c->ex->session(), c->oid, &c->table));
  if (phase.empty() || phase == "copy" || phase == "indexes" ||
      phase == "catchup" || phase == "swap") {
    if (!c->table.exists) {
      return Status::Internal(fmt::format(
          "{}: the journal says phase '{}' but table oid {} is gone; run "
          "pglayout migrate --abort",
          c->relation(), phase, c->oid));
    }
    c->names = MakeOnlineNames(c->table, c->step.target);
  }
  return Status::Ok();
}

// The capture of a new copy (phase ""): decided now and said why; of a
// started one: the journal's. A logical capture whose slot is gone (dropped,
// or its WAL removed) may have missed changes: the copy starts again.
Status SetCapture(std::string* phase, StepRecord* record, OnlineContext* c) {
  if (!phase->empty()) {
    c->capture_slot = ParseDetail(record->detail).capture_slot;
    const bool copying = *phase == "copy" || *phase == "indexes" ||
                         *phase == "catchup" || *phase == "swap";
    if (!c->logical() || !copying) return Status::Ok();
    bool usable = false;
    PGLAYOUT_RETURN_IF_ERROR(
        SlotUsable(c->ex->session(), c->capture_slot, &usable));
    if (usable) return Status::Ok();
    c->ex->Line(fmt::format(
        "{}: replication slot {} is gone or lost, so changes may have been "
        "missed: copying the table again",
        c->relation(), c->capture_slot));
    PGLAYOUT_RETURN_IF_ERROR(RestartOnlineCopy(*c));
    StepRecord fresh;
    fresh.key = record->key;
    *record = fresh;
    phase->clear();
  }
  CaptureFacts facts;
  PGLAYOUT_RETURN_IF_ERROR(ReadCaptureFacts(c->ex->session(), c->oid,
                                            c->table.keys.row_key, &facts));
  bool logical = false;
  std::string why;
  PGLAYOUT_RETURN_IF_ERROR(
      ChooseCapture(c->ex->options().capture, facts, &logical, &why));
  c->ex->Line(c->relation() + ": " + why);
  c->capture_slot.clear();
  if (logical) PGLAYOUT_RETURN_IF_ERROR(CaptureSlotFor(*c, &c->capture_slot));
  return Status::Ok();
}

// Runs the phases from |phase| ("" = not started) to the end. The pace and
// the hash form are kept across the phases of this run.
Status RunPhases(const OnlineContext& c, std::string phase,
                 const StepRecord& record) {
  const std::string detail =
      record.detail.empty() && c.table.exists
          ? MakeDetail(c.table,
                       c.ex->options().copy_by_blocks &&
                           HasTidRangeScans(c.ex->session()->server_version()),
                       "", "", c.capture_slot)
          : record.detail;
  CopyState copy = CopyStateOf(record, ParseDetail(detail));
  OnlinePace pace(c);
  OnlineVerifier verifier(c);
  if (phase.empty()) {
    PGLAYOUT_RETURN_IF_ERROR(PrepareShadow(c, &copy));
    phase = "copy";
  }
  if (phase == "copy") {
    PGLAYOUT_RETURN_IF_ERROR(CopyRows(c, &pace, &copy));
    phase = "indexes";
  }
  if (phase == "indexes") {
    PGLAYOUT_RETURN_IF_ERROR(BuildShadowIndexes(c));
    phase = "catchup";
  }
  if (phase == "catchup") {
    PGLAYOUT_RETURN_IF_ERROR(CatchUpAndVerify(c, &pace, &verifier));
    phase = "swap";
  }
  if (phase == "swap") {
    PGLAYOUT_RETURN_IF_ERROR(SwapShadow(c, detail, &pace, &verifier));
    phase = "swapped";
  }
  return FinishOnlineCopy(c, detail);
}

}  // namespace

Status RunOnlineCopy(Executor* ex, const Step& step, int step_no,
                     const StepRecord& record, uint32_t oid) {
  OnlineContext c{ex, step, step_no, oid, {}, {}, {}, {}, {}};
  std::string phase = record.state == "pending" ? "" : record.phase;
  StepRecord started = record;
  Status st = ReadContext(phase, &c);
  if (st.ok()) st = SetCapture(&phase, &started, &c);
  if (st.ok() && c.logical()) c.capture_reader = MakeCaptureReader(c);
  if (st.ok()) st = RunPhases(c, phase, started);
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

}  // namespace pglayout::migrator
