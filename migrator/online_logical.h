// Change capture by logical decoding for an online copy: a replication
// slot (pgoutput, with a publication of the table alone) made before the
// copy's first snapshot, read as a stream (capture_reader.h) that stays
// open for the run; its decoded keys are pumped into the same log the
// trigger would write, so replay, verification and swap work unchanged.
// The slot is confirmed only after the keys it gave are committed in the
// log, so a kill between the two gives keys twice, never none (replay is
// idempotent). Why and the hazards: docs/online-migration.md#logical-capture.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_LOGICAL_H_
#define PGLAYOUT_MIGRATOR_ONLINE_LOGICAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "migrator/migrate_options.h"
#include "migrator/online_context.h"
#include "pg/capture_names.h"

namespace pglayout::migrator {

// What decides whether a table's changes can be captured by decoding.
struct CaptureFacts {
  std::string wal_level;
  int64_t free_slots = 0;      // max_replication_slots minus slots in use
  int64_t free_senders = 0;    // max_wal_senders minus WAL senders running
  bool may_replicate = false;  // superuser or REPLICATION
  // The replica identity ('d', 'f', 'i', 'n') and whether the old key it
  // logs holds the run's row key (FULL, or the identity's index is the
  // key's).
  std::string identity;
  bool identity_covers_key = false;
};

Status ReadCaptureFacts(SqlSession* session, uint32_t oid,
                        const std::vector<std::string>& row_key,
                        CaptureFacts* facts);

// Whether to capture by decoding: *why says what decided. kLogical that
// the server or table cannot serve is InvalidInput ("cannot ...").
Status ChooseCapture(CaptureMode requested, const CaptureFacts& facts,
                     bool* logical, std::string* why);

// The slot name this run would give table c.oid.
Status CaptureSlotFor(const OnlineContext& c, std::string* slot);

// The reader of c.capture_slot's stream (pgoutput, the table's
// publication), opened at its first read.
std::shared_ptr<CaptureReader> MakeCaptureReader(const OnlineContext& c);

// Outside any transaction: drops a leftover slot or publication of these
// names, makes the publication, then the slot (which waits for the
// transactions running then to end, at most lock_deadline_s).
Status CreateLogicalCapture(const OnlineContext& c);

// Checks the slot (CheckSlot), then moves what its stream has decoded up
// to the WAL flushed now into the log: one transaction, then the slot
// confirmed up to there. *keys receives how many keys were logged.
Status PumpChanges(const OnlineContext& c, int64_t* keys = nullptr);

// Inside the caller's transaction (the swap, holding the table's lock):
// logs what the stream decodes up to the WAL written now, without
// confirming it (the swap's commit ends the slot's use; after its
// rollback the keys stay pending for the next pump).
Status PumpChangesUnderLock(const OnlineContext& c);

// In the verification's snapshot: the keys changed up to the WAL written
// now that the log does not hold yet, as replay's arrays (empty if none).
Status UnloggedChangedKeys(const OnlineContext& c,
                           std::vector<SqlValue>* arrays);

// The slot as pg_replication_slots shows it.
struct SlotState {
  bool exists = false;
  bool lost = false;           // wal_status 'lost' (13+): changes are gone
  int64_t retained = 0;        // bytes of WAL from its restart_lsn to now
  int64_t keep_size = -1;      // max_slot_wal_keep_size in bytes; -1 = none
  std::string data_directory;  // "" = not readable by this role
};

Status ReadSlotState(SqlSession* session, const std::string& slot,
                     SlotState* state);

// Ok while |state| endangers nothing: Aborted (resumable) once the slot
// retains more than |max_retained| bytes, half its keep size, or more than
// |wal_free|, what the WAL's volume has left free as seen from this host
// (WalFreeBytes; 0 = unknown): it has then used half of what it had; Aborted
// when the slot is gone or lost (a resumed run copies again).
Status CheckSlot(const SlotState& state, const std::string& relation,
                 int64_t max_retained, uint64_t wal_free);

// The stop threshold CheckSlot applies.
int64_t RetentionLimit(const SlotState& state, int64_t max_retained);

// Whether the slot exists and is not lost.
Status SlotUsable(SqlSession* session, const std::string& slot, bool* usable);

// A capture slot or publication named exactly as pglayout names them
// (pg/capture_names.h), the table's oid read from the name; a slot's
// active_pid is the session using it (0 = none).
struct CaptureObject {
  std::string name;
  uint32_t oid = 0;
  int64_t active_pid = 0;
};

// This database's capture slots, by name.
Status ListCaptureSlots(SqlSession* session, std::vector<CaptureObject>* slots);

// This database's capture publications, by name.
Status ListCapturePublications(SqlSession* session,
                               std::vector<CaptureObject>* publications);

// Drops every capture slot of this database and every capture
// publication (the run's end, --abort), exactly those names, never a
// similar one; a slot still held by a killed
// client's backend is waited for, at most lock_deadline_s.
Status DropCaptureSlots(Executor* ex);

// Drops slot |slot| (CaptureSlotName) and its publication; "" = none.
Status DropCaptureSlot(Executor* ex, const std::string& slot);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_LOGICAL_H_
