#include "migrator/online_logical.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "migrator/free_space.h"
#include "migrator/logical_decode.h"
#include "migrator/sql_util.h"
#include "pg/sql_row.h"

namespace pglayout::migrator {
namespace {

constexpr char kFlushLsnSql[] =
    "SELECT pg_catalog.pg_current_wal_flush_lsn()::pg_catalog.text";

constexpr char kSlotStateSql[] =
    "SELECT pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), "
    "s.restart_lsn)::bigint, {}, pg_catalog.current_setting("
    "'data_directory', true) FROM pg_catalog.pg_replication_slots s "
    "WHERE s.slot_name = $1";

Status ToLsn(const SqlValue& text, Lsn* lsn) {
  if (ParseLsn(text.value_or(""), lsn)) return Status::Ok();
  return Status::Internal("could not read WAL position " + text.value_or(""));
}

// |keys| as one array literal per key column.
std::vector<SqlValue> KeyArrays(const OnlineContext& c,
                                const std::set<DecodedKey>& keys) {
  std::vector<SqlValue> out;
  for (size_t i = 0; i < c.table.keys.row_key.size(); ++i) {
    std::vector<std::string> column;
    for (const DecodedKey& k : keys) column.push_back(k[i]);
    out.push_back(TextArrayLiteral(column));
  }
  return out;
}

Status LogKeys(const OnlineContext& c, const std::set<DecodedKey>& keys) {
  if (keys.empty()) return Status::Ok();
  SqlResult r;
  return c.ex->session()->Execute(LogKeysInsertSql(c.table, c.names),
                                  KeyArrays(c, keys), &r);
}

// Every commit before this instant flushed, so that decoding up to the
// flushed WAL sees them all: a side session commits a transactional
// message (ignored by pgoutput) with a local flush, which flushes all WAL
// before it, asynchronous commits included. Returns the flushed position.
Status FlushEarlierCommits(const OnlineContext& c, Lsn* upto) {
  std::unique_ptr<SqlSession> side;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->OpenSideSession("capture-flush", &side));
  PGLAYOUT_RETURN_IF_ERROR(
      ExecuteSql(side.get(), "SET synchronous_commit = local"));
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      side.get(),
      "SELECT pg_catalog.pg_logical_emit_message(true, 'pglayout', '')"));
  SqlValue flushed;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(c.ex->session(), kFlushLsnSql, {}, &flushed));
  return ToLsn(flushed, upto);
}

// Reads the slot's stream up to |upto|, naming the table on failure.
Status ReadChanges(const OnlineContext& c, Lsn upto) {
  Status st = c.capture_reader->ReadUpTo(upto);
  if (st.ok()) return st;
  return st.WithContext(c.relation() + ": logical capture from slot " +
                        c.capture_slot);
}

}  // namespace

Status ParseCaptureMode(const std::string& text, CaptureMode* mode) {
  if (text == "auto") {
    *mode = CaptureMode::kAuto;
  } else if (text == "trigger") {
    *mode = CaptureMode::kTrigger;
  } else if (text == "logical") {
    *mode = CaptureMode::kLogical;
  } else {
    return Status::InvalidInput("--capture: '" + text +
                                "' is not a capture mode; use auto, trigger "
                                "or logical");
  }
  return Status::Ok();
}

Status ReadCaptureFacts(SqlSession* session, uint32_t oid,
                        const std::vector<std::string>& row_key,
                        CaptureFacts* facts) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pg_catalog.current_setting('wal_level'), "
      "pg_catalog.current_setting('max_replication_slots')::bigint - "
      "(SELECT pg_catalog.count(*) FROM pg_catalog.pg_replication_slots), "
      "pg_catalog.current_setting('max_wal_senders')::bigint - (SELECT "
      "pg_catalog.count(*) FROM pg_catalog.pg_stat_replication), "
      "(SELECT r.rolsuper OR r.rolreplication FROM pg_catalog.pg_roles r "
      "WHERE r.rolname = current_user), c.relreplident::pg_catalog.text, "
      "(SELECT pg_catalog.array_agg(a.attname::pg_catalog.text ORDER BY "
      "a.attname) FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a "
      "ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) WHERE "
      "i.indrelid = c.oid AND CASE c.relreplident WHEN 'd' THEN "
      "i.indisprimary WHEN 'i' THEN i.indisreplident ELSE false "
      "END)::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.oid = "
      "$1::pg_catalog.oid",
      {std::to_string(oid)}, &r));
  SqlRowReader row(r, 0, "logical capture facts");
  facts->wal_level = row.Text(0);
  facts->free_slots = row.Int(1);
  facts->free_senders = row.Int(2);
  facts->may_replicate = row.Text(3) == "t";
  facts->identity = row.Text(4);
  PGLAYOUT_RETURN_IF_ERROR(row.status());
  std::vector<std::string> identity_columns, key(row_key);
  if (r.rows[0].size() > 5 && r.rows[0][5]) {
    for (const SqlValue& v : ParseArrayLiteral(*r.rows[0][5])) {
      if (v) identity_columns.push_back(*v);
    }
  }
  std::sort(key.begin(), key.end());
  facts->identity_covers_key =
      facts->identity == "f" || (!key.empty() && identity_columns == key);
  return Status::Ok();
}

Status ChooseCapture(CaptureMode requested, const CaptureFacts& facts,
                     bool* logical, std::string* why) {
  *logical = false;
  if (requested == CaptureMode::kTrigger) {
    *why = "change capture by trigger (--capture trigger)";
    return Status::Ok();
  }
  std::string missing;
  if (facts.wal_level != "logical") {
    missing = fmt::format("wal_level is {}, not logical", facts.wal_level);
  } else if (!facts.may_replicate) {
    missing = "the role is neither superuser nor REPLICATION";
  } else if (facts.free_slots < 1) {
    missing = "no replication slot is free (max_replication_slots)";
  } else if (facts.free_senders < 1) {
    missing = "no WAL sender is free to stream the slot (max_wal_senders)";
  } else if (!facts.identity_covers_key) {
    missing = fmt::format(
        "the table's replica identity ({}) does not log the row key of its "
        "updated and deleted rows",
        facts.identity == "n"   ? "NOTHING"
        : facts.identity == "i" ? "USING INDEX of another index"
                                : "DEFAULT without that primary key");
  }
  if (missing.empty()) {
    *logical = true;
    *why = "change capture by logical decoding";
    return Status::Ok();
  }
  if (requested == CaptureMode::kLogical) {
    return Status::InvalidInput("cannot capture changes by logical decoding: " +
                                missing);
  }
  *why = "change capture by trigger, since " + missing;
  return Status::Ok();
}

namespace {

Status DatabaseOid(SqlSession* session, uint32_t* oid) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session,
      "SELECT oid::pg_catalog.text FROM pg_catalog.pg_database WHERE datname "
      "= pg_catalog.current_database()",
      {}, &v));
  *oid = static_cast<uint32_t>(std::stoul(v.value_or("0")));
  return Status::Ok();
}

}  // namespace

Status CaptureSlotFor(const OnlineContext& c, std::string* slot) {
  uint32_t db = 0;
  PGLAYOUT_RETURN_IF_ERROR(DatabaseOid(c.ex->session(), &db));
  *slot = CaptureSlotName(db, c.oid);
  return Status::Ok();
}

std::shared_ptr<CaptureReader> MakeCaptureReader(const OnlineContext& c) {
  Executor* ex = c.ex;
  const std::string slot = c.capture_slot;
  const std::vector<std::pair<std::string, std::string>> options = {
      {"proto_version", "1"},
      {"publication_names", QuoteIdent(CapturePublicationName(c.oid))}};
  return std::make_shared<CaptureReader>(
      c.oid, c.table.keys.row_key,
      [ex, slot, options](std::unique_ptr<ReplicationStream>* stream) {
        return ex->OpenReplicationStream(kCaptureStreamRole, slot, options,
                                         stream);
      });
}

Status CreateLogicalCapture(const OnlineContext& c) {
  std::string slot;
  PGLAYOUT_RETURN_IF_ERROR(CaptureSlotFor(c, &slot));
  const std::string publication = QuoteIdent(CapturePublicationName(c.oid));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      "SELECT pg_catalog.pg_drop_replication_slot(slot_name) FROM "
      "pg_catalog.pg_replication_slots WHERE slot_name = $1",
      {slot}, &r));
  PGLAYOUT_RETURN_IF_ERROR(c.ex->WithLockRetry(
      "publish " + c.relation(), {c.names.QualifiedTable()}, [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(
            c.ex->Exec("DROP PUBLICATION IF EXISTS " + publication));
        return c.ex->Exec(fmt::format("CREATE PUBLICATION {} FOR TABLE ONLY {}",
                                      publication, c.names.QualifiedTable()));
      }));
  // The slot waits for every transaction running now: bounded, so that a
  // forgotten prepared transaction stops the run instead of hanging it.
  PGLAYOUT_RETURN_IF_ERROR(c.ex->Exec(fmt::format(
      "SET statement_timeout = {}",
      static_cast<int64_t>(c.ex->options().lock_deadline_s * 1000))));
  Status made = c.ex->session()->Execute(
      "SELECT pg_catalog.pg_create_logical_replication_slot($1, 'pgoutput')",
      {slot}, &r);
  PGLAYOUT_RETURN_IF_ERROR(c.ex->Exec("SET statement_timeout = 0"));
  if (!made.ok()) {
    return Status::Aborted(fmt::format(
        "{}: could not create replication slot {} (it waits for the "
        "transactions running when it starts, prepared ones too): {}",
        c.relation(), slot, made.message()));
  }
  c.ex->Failpoint("after-slot:" + c.key());
  return Status::Ok();
}

Status PumpChanges(const OnlineContext& c, int64_t* keys) {
  SlotState state;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadSlotState(c.ex->session(), c.capture_slot, &state));
  PGLAYOUT_RETURN_IF_ERROR(CheckSlot(state, c.relation(),
                                     c.ex->options().max_slot_wal_bytes,
                                     WalFreeBytes(state.data_directory)));
  SqlValue flushed;
  Lsn upto = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      QueryValue(c.ex->session(), kFlushLsnSql, {}, &flushed));
  PGLAYOUT_RETURN_IF_ERROR(ToLsn(flushed, &upto));
  PGLAYOUT_RETURN_IF_ERROR(ReadChanges(c, upto));
  const std::set<DecodedKey>& decoded = c.capture_reader->pending();
  if (keys) *keys = static_cast<int64_t>(decoded.size());
  if (!decoded.empty()) {
    PGLAYOUT_RETURN_IF_ERROR(c.ex->Transaction(
        "capture-pump", [&]() -> Status { return LogKeys(c, decoded); }));
  }
  c.ex->Failpoint("capture-pump:after-commit");
  return c.capture_reader->Confirm();
}

Status PumpChangesUnderLock(const OnlineContext& c) {
  bool usable = false;
  PGLAYOUT_RETURN_IF_ERROR(
      SlotUsable(c.ex->session(), c.capture_slot, &usable));
  if (!usable) {
    return Status::Aborted(fmt::format(
        "{}: replication slot {} is gone or lost; changes may have been "
        "missed, so the copy is not swapped. Run pglayout migrate again: it "
        "copies the table again",
        c.relation(), c.capture_slot));
  }
  Lsn upto = 0;
  PGLAYOUT_RETURN_IF_ERROR(FlushEarlierCommits(c, &upto));
  PGLAYOUT_RETURN_IF_ERROR(ReadChanges(c, upto));
  return LogKeys(c, c.capture_reader->pending());
}

Status UnloggedChangedKeys(const OnlineContext& c,
                           std::vector<SqlValue>* arrays) {
  arrays->clear();
  Lsn upto = 0;
  PGLAYOUT_RETURN_IF_ERROR(FlushEarlierCommits(c, &upto));
  PGLAYOUT_RETURN_IF_ERROR(ReadChanges(c, upto));
  const std::set<DecodedKey>& decoded = c.capture_reader->pending();
  if (decoded.empty()) return Status::Ok();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(c.ex->session()->Execute(
      UnloggedKeysSql(c.table, c.names), KeyArrays(c, decoded), &r));
  if (r.rows.empty() || r.rows[0].empty() || !r.rows[0][0]) {
    return Status::Ok();
  }
  arrays->assign(r.rows[0].begin(), r.rows[0].end());
  return Status::Ok();
}

Status ReadSlotState(SqlSession* session, const std::string& slot,
                     SlotState* state) {
  // wal_status and max_slot_wal_keep_size exist from 13 on.
  const bool has_status = session->server_version() >= 130000;
  std::string extra =
      has_status ? "s.wal_status::pg_catalog.text = 'lost', "
                   "pg_catalog.pg_size_bytes(pg_catalog.current_setting("
                   "'max_slot_wal_keep_size'))"
                 : "false, -1";
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      fmt::format(fmt::runtime(kSlotStateSql), extra), {slot}, &r));
  *state = SlotState();
  if (r.rows.empty()) return Status::Ok();
  SqlRowReader row(r, 0, "replication slot " + slot);
  state->exists = true;
  state->retained = r.rows[0][0] ? row.Int(0) : 0;
  state->lost = row.Text(1) == "t" || !r.rows[0][0];
  state->keep_size = row.Int(2);
  if (state->keep_size < 0) state->keep_size = -1;
  if (r.rows[0].size() > 3 && r.rows[0][3]) state->data_directory = row.Text(3);
  return row.status();
}

int64_t RetentionLimit(const SlotState& state, int64_t max_retained) {
  if (state.keep_size < 0) return max_retained;
  return std::min(max_retained, state.keep_size / 2);
}

Status CheckSlot(const SlotState& state, const std::string& relation,
                 int64_t max_retained, uint64_t wal_free) {
  if (!state.exists || state.lost) {
    return Status::Aborted(fmt::format(
        "{}: the capture's replication slot is {}; changes may have been "
        "missed. Run pglayout migrate again: it copies the table again",
        relation, state.exists ? "lost (its WAL was removed)" : "gone"));
  }
  const int64_t limit = RetentionLimit(state, max_retained);
  if (wal_free > 0 && static_cast<uint64_t>(state.retained) > wal_free) {
    return Status::Aborted(fmt::format(
        "{}: the capture's replication slot retains {} MB of WAL and the WAL "
        "volume has {} MB left free; stopping before it fills it (a long "
        "transaction holds it back?). Free space there, then run pglayout "
        "migrate again to resume, or --abort",
        relation, state.retained >> 20, wal_free >> 20));
  }
  if (state.retained <= limit) return Status::Ok();
  return Status::Aborted(fmt::format(
      "{}: the capture's replication slot retains {} MB of WAL, more than "
      "{} MB{}; stopping before it fills the WAL volume (a long transaction "
      "holds it back?). Run pglayout migrate again to resume, or --abort",
      relation, state.retained >> 20, limit >> 20,
      state.keep_size >= 0 ? " (half of max_slot_wal_keep_size)" : ""));
}

Status SlotUsable(SqlSession* session, const std::string& slot, bool* usable) {
  SlotState state;
  PGLAYOUT_RETURN_IF_ERROR(ReadSlotState(session, slot, &state));
  *usable = state.exists && !state.lost;
  return Status::Ok();
}

Status ListCaptureSlots(SqlSession* session,
                        std::vector<CaptureObject>* slots) {
  slots->clear();
  uint32_t db = 0;
  PGLAYOUT_RETURN_IF_ERROR(DatabaseOid(session, &db));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT slot_name::pg_catalog.text, active_pid::pg_catalog.text FROM "
      "pg_catalog.pg_replication_slots ORDER BY slot_name",
      {}, &r));
  for (const SqlRow& row : r.rows) {
    CaptureObject slot;
    slot.name = Cell(row, 0);
    if (!ParseCaptureSlotName(slot.name, db, &slot.oid)) continue;
    // NULL (no session uses it) reads "".
    slot.active_pid = std::stoll("0" + Cell(row, 1));
    slots->push_back(slot);
  }
  return Status::Ok();
}

Status ListCapturePublications(SqlSession* session,
                               std::vector<CaptureObject>* publications) {
  publications->clear();
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pubname::pg_catalog.text FROM pg_catalog.pg_publication ORDER "
      "BY pubname",
      {}, &r));
  for (const SqlRow& row : r.rows) {
    CaptureObject publication;
    publication.name = Cell(row, 0);
    if (ParseCapturePublicationName(publication.name, &publication.oid)) {
      publications->push_back(publication);
    }
  }
  return Status::Ok();
}

namespace {

// Drops this database's capture slots that |wanted| accepts ("" = all),
// once no session uses them.
Status DropSlotsListed(Executor* ex, const std::string& wanted) {
  const double start = ex->clock()->Now();
  while (true) {
    std::vector<CaptureObject> slots;
    PGLAYOUT_RETURN_IF_ERROR(ListCaptureSlots(ex->session(), &slots));
    bool waiting = false;
    for (const CaptureObject& slot : slots) {
      if (!wanted.empty() && slot.name != wanted) continue;
      if (slot.active_pid != 0) {
        waiting = true;
        continue;
      }
      SqlResult dropped;
      PGLAYOUT_RETURN_IF_ERROR(ex->session()->Execute(
          "SELECT pg_catalog.pg_drop_replication_slot($1)", {slot.name},
          &dropped));
    }
    if (!waiting) return Status::Ok();
    if (ex->clock()->Now() - start > ex->options().lock_deadline_s) {
      return Status::Aborted(
          "could not drop the capture's replication slot: a session still "
          "uses it (a killed run's backend?); run pglayout migrate --abort "
          "again once it has ended");
    }
    ex->clock()->Sleep(0.2);
  }
}

}  // namespace

Status DropCaptureSlot(Executor* ex, const std::string& slot) {
  if (slot.empty()) return Status::Ok();
  PGLAYOUT_RETURN_IF_ERROR(DropSlotsListed(ex, slot));
  // The journal's name: the table's oid follows its last '_'.
  const auto oid =
      static_cast<uint32_t>(std::stoul("0" + slot.substr(slot.rfind('_') + 1)));
  return ex->Exec("DROP PUBLICATION IF EXISTS " +
                  QuoteIdent(CapturePublicationName(oid)));
}

Status DropCaptureSlots(Executor* ex) {
  PGLAYOUT_RETURN_IF_ERROR(DropSlotsListed(ex, ""));
  std::vector<CaptureObject> publications;
  PGLAYOUT_RETURN_IF_ERROR(
      ListCapturePublications(ex->session(), &publications));
  for (const CaptureObject& publication : publications) {
    PGLAYOUT_RETURN_IF_ERROR(
        ex->Exec("DROP PUBLICATION IF EXISTS " + QuoteIdent(publication.name)));
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
