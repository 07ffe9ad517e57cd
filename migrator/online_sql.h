// The SQL of the online copy, as pure functions of TableFacts and names
// (unit-tested without a server): the shadow (plain, or hash-partitioned with
// each partition in its tablespace), the capture trigger and its log of row
// keys, the batched copy into the index-less shadow, the indexes, replay by
// key, the verification and the swap.
// Why: docs/online-migration.md#capture-and-replay.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_SQL_H_
#define PGLAYOUT_MIGRATOR_ONLINE_SQL_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/model.h"
#include "migrator/facts.h"

namespace pglayout::migrator {

// Where the table goes.
struct OnlineTarget {
  bool partitioned = false;
  std::vector<std::string> tablespaces;  // move: 1; partitions: 1..k
  int partitions = 0;                    // hash partitions (k)
  std::vector<std::string> key;          // partition key columns
  // Splitting a hash partition of a parent with modulus N, remainder r
  // (FitSplit): partition i of the copy takes remainder r + i*N of
  // modulus N*k, so every row of it falls in exactly one. 0: a conversion
  // (modulus k, remainder i).
  int parent_modulus = 0;
  int parent_remainder = 0;
};

// Where |p| puts its table: one tablespace (a move), or hash partitions by
// its key round robin over its tablespaces.
OnlineTarget TargetOf(const Placement& p);
// The same for table |t|: a hash placement of a hash partition splits it
// (docs/online-migration.md#splitting-a-hash-partition).
OnlineTarget TargetOf(const Placement& p, const TableFacts& t);

// The modulus of the copy's partitions, and partition i's remainder.
int TargetModulus(const OnlineTarget& target);
int TargetRemainder(const OnlineTarget& target, int i);

// A hash partition's bound as pg_get_expr prints it, "FOR VALUES WITH
// (modulus 3, remainder 1)" -> (3, 1); false for any other bound.
bool ParseHashBound(const std::string& bound, int* modulus, int* remainder);

// The names of every object an online run creates for table |oid|; derived
// from the oid so that a resumed run finds them again.
struct OnlineNames {
  std::string schema;                   // the table's schema (unquoted)
  std::string table;                    // the table's name (unquoted)
  std::string shadow;                   // "pglayout_new_<oid>" in |schema|
  std::string log;                      // pglayout.log_<oid> (quoted-qualified)
  std::string capture_function;         // pglayout.capture_<oid>()
  std::string truncate_function;        // pglayout.block_truncate_<oid>()
  std::string old_name;                 // "old_<oid>" in schema pglayout
  std::vector<std::string> partitions;  // "<table>_p<r>" in |schema|
  // Moving a partition: the shadow's CHECK constraint that equals the
  // partition constraint ("pglayout_bound_<oid>"), and the one on the
  // parent's DEFAULT partition that excludes it ("pglayout_excl_<oid>"),
  // so that ATTACH PARTITION scans neither.
  std::string bound_check;
  std::string default_check;

  std::string QualifiedTable() const;   // "schema"."table"
  std::string QualifiedShadow() const;  // "schema"."pglayout_new_<oid>"
  std::string QualifiedOld() const;     // "pglayout"."old_<oid>"
  std::string QualifiedPartition(int r) const;
  // The temporary name of the shadow's copy of index |i| (0-based).
  std::string TempIndexName(size_t i) const;
};

OnlineNames MakeOnlineNames(const TableFacts& table,
                            const OnlineTarget& target);

// Truncates |name| to PostgreSQL's 63 bytes without splitting a UTF-8
// character, keeping |suffix| whole: ("orders", "_p0") -> "orders_p0".
std::string TruncatedName(const std::string& name, const std::string& suffix);

// The name of |index|'s copy on partition r: "<partition>_pkey" for a
// primary key (as PostgreSQL names it when the key is declared on the
// parent), "<index>_p<r>" otherwise; cut to 63 bytes so that the partition
// number always survives ("<table>_p<r>_pkey" when "<partition>_pkey" is
// too long).
std::string PartitionIndexName(const IndexFacts& index,
                               const OnlineNames& names, int r);

// Every relation a hash conversion creates in the table's schema besides
// the shadow: the partitions and each index's copy on each of them.
std::vector<std::string> PartitionRelationNames(const TableFacts& table,
                                                const OnlineTarget& target);

// The tablespace of partition r (round robin over the target's list).
const std::string& PartitionTablespace(const OnlineTarget& target, int r);

// Statements that create the shadow table and its partitions, without any
// index (the copy is faster without them), owned by the running role until
// the swap (docs/security.md#code-of-other-roles); one transaction.
// |server_version| selects LIKE options.
std::vector<std::string> ShadowCreateSql(const TableFacts& t,
                                         const OnlineTarget& target,
                                         const OnlineNames& names,
                                         int server_version);

// One index (or index-backed constraint) of the table, built on the shadow
// after the copy: |sql| is one transaction. A partitioned shadow gets the
// parent index ON ONLY plus one index per partition in that partition's
// tablespace, attached.
struct ShadowIndex {
  std::string source;     // the table's index it copies
  std::string temp_name;  // its name on the shadow until the swap
  bool row_key = false;   // the row key's index (replay looks keys up in it)
  std::vector<std::string> sql;
};
// Every index of the table, the row key's first.
std::vector<ShadowIndex> ShadowIndexSql(const TableFacts& t,
                                        const OnlineTarget& target,
                                        const OnlineNames& names);

// The log table, capture and TRUNCATE-blocking functions and triggers, both
// ENABLE ALWAYS so they also fire for session_replication_role = replica;
// one transaction. With |key_index| the log also gets an index on its key
// columns, for the block-range copy's per-row lookups (CopyTidRangeSql).
// Without |row_trigger| (logical capture fills the log) only the log and the
// TRUNCATE block.
std::vector<std::string> CaptureCreateSql(const TableFacts& t,
                                          const OnlineNames& names,
                                          uint64_t run_id, bool key_index,
                                          bool row_trigger = true);

// Moving a partition (docs/online-migration.md#moving-a-partition): a
// constraint added before the swap, NOT VALID then validated (which does
// not block writes), so that ATTACH PARTITION under the swap's lock finds
// it instead of scanning: each foreign key the partition has from its
// parent, on the shadow under its own name (a split: on each of its
// partitions, as a partitioned table takes no NOT VALID foreign key
// before 18, and ATTACH then takes them over), and on the parent's DEFAULT
// partition a CHECK that no row falls within the moved partition's bounds.
struct AttachPrep {
  std::string table;       // quoted-qualified: the shadow or the DEFAULT
  std::string constraint;  // its name (unquoted)
  std::string add;         // ALTER TABLE ... ADD CONSTRAINT ... NOT VALID
  std::string validate;    // ALTER TABLE ... VALIDATE CONSTRAINT ...
  std::vector<std::string> locks;  // the relations |add| locks
};
std::vector<AttachPrep> AttachPrepSql(const TableFacts& t,
                                      const OnlineNames& names);

// Drops what CaptureCreateSql made; IF EXISTS throughout, so it is safe on
// any intermediate state.
std::vector<std::string> CaptureDropSql(const OnlineNames& names,
                                        bool source_exists);

// How a copy batch inserts. kTidRange (PostgreSQL 14+, a new copy): the
// rows of a range of heap blocks, read by a TID Range Scan in the order
// they lie on disk whatever the key order, inserted plainly into a shadow
// without indexes, leaving out rows that could be a second version of a
// key read before (BlockCopyFilter; replay copies those). kPlain:
// keyset batches in key order (12 and 13, which have no TID Range Scan,
// --copy-order key, and copies started by an older version); the key
// ranges are disjoint, so no conflict either.
// kSkipExisting: ON CONFLICT DO NOTHING, for a shadow made by an older
// version, which had the key index from the start and replayed during the
// copy (so rows above the cursor may already be there).
enum class CopyMode { kPlain, kSkipExisting, kTidRange };

// TID Range Scans, which the block-range copy and verification read by,
// exist from PostgreSQL 14 on (server_version_num).
inline bool HasTidRangeScans(int server_version) {
  return server_version >= 140000;
}

// One keyset copy batch (kPlain, kSkipExisting): inserts up to
// |batch_rows| rows with a key above the cursor ($1..$n, text) and returns
// one row: (rows read, bytes copied as the sum of pg_column_size of the
// rows, last key as text columns...). With |first| the cursor condition is
// left out.
std::string CopyBatchSql(const TableFacts& t, const OnlineNames& names,
                         int64_t batch_rows, bool first,
                         CopyMode mode = CopyMode::kPlain);

// Which rows of a kTidRange batch CopyTidRangeSql leaves out, and how.
//
// A key is read twice by a block-range copy only if one of the versions
// read was written after an earlier batch had read the other, so after the
// capture began. $3 is the oldest transaction running just after the
// capture began (the trigger installed, or the slot made): an older row's
// writer had ended before any batch began, so no other version of its key
// can have been read, and it is copied even when its key is logged (replay
// replaces it).
// - kLoggedKeys: every row is looked up in the log by a hash anti join,
//   rows with logged keys left out (a copy begun before $3 was recorded).
//   It cost 40 ms per batch of 100k rows at 55k logged keys, a third of
//   the batch (12 s instead of 8 s for 10 M rows under pgbench).
// - kLoggedSinceXmin (trigger capture): only rows written by $3 or later
//   are looked up, one probe each of the log's key index, and left out if
//   logged. The trigger logs a key in the same commit as its change, so a
//   later batch that sees a moved row's new version sees its log row too.
//   The batch must run with CopyByXminSettingsSql: the planner expects the
//   lookup for every row, not for the few the xmin test lets through, and
//   would hash the whole log for each batch.
// - kSinceXmin (logical capture, whose log lags behind the commits): rows
//   written by $3 or later are left out and their keys logged in the same
//   statement, for replay to copy. Every such writer commits after the
//   slot's consistent point, so decoding logs the key as well; the
//   statement's own log rows cover a row frozen long ago whose xmin wrapped
//   around to look recent, which no decoded change would name.
// A transaction left open (or prepared) holds $3 back: more rows count as
// recent, which costs probes or replays and changes nothing.
enum class BlockCopyFilter { kLoggedKeys, kLoggedSinceXmin, kSinceXmin };

// One kTidRange copy batch: inserts the rows of the source's heap blocks
// [$1, $2) (tids as text, "(n,0)") that |filter| keeps; $3 is an xid as
// text unless |filter| is kLoggedKeys. The row count is the statement's.
std::string CopyTidRangeSql(const TableFacts& t, const OnlineNames& names,
                            BlockCopyFilter filter);

// SET LOCALs for a CopyTidRangeSql batch with kLoggedSinceXmin: a hash
// memory too small to hash the log (work_mem 64kB, hash_mem_multiplier 1;
// 13+), which leaves the planner only the probe of the log's key index.
std::vector<std::string> CopyByXminSettingsSql();

// Its $3: the oldest transaction still running (every older one has
// ended), as a 32-bit xid like a tuple's xmin.
inline constexpr char kOldestRunningXidSql[] =
    "SELECT (pg_catalog.txid_snapshot_xmin(pg_catalog.txid_current_snapshot()) "
    "% 4294967296)::pg_catalog.text";

// "(n,0)": the first tuple id of heap block n, the cursor of kTidRange.
std::string BlockTid(int64_t block);
// The block of such a tid; false if |tid| is not one (a key cursor).
bool ParseBlockTid(const std::string& tid, int64_t* block);

// Replay, three statements in one transaction:
//   take:   deletes up to $1 log rows and returns (log rows, distinct keys,
//           key arrays as text...)
//   remove: deletes those keys from the shadow ($1.. = key arrays)
//   insert: inserts the current source rows of those keys
struct ReplaySql {
  std::string take;
  std::string remove;
  std::string insert;
};
ReplaySql MakeReplaySql(const TableFacts& t, const OnlineNames& names);

// Logical capture (docs/online-migration.md#logical-capture): inserts into
// the log one row per element of the key arrays $1..$n (array literals of
// the key columns' types, one per key column, of the same length).
std::string LogKeysInsertSql(const TableFacts& t, const OnlineNames& names);

// Of the keys in the arrays $1..$n, those without a log row, as arrays in
// replay's form (one row; NULLs when none is left).
std::string UnloggedKeysSql(const TableFacts& t, const OnlineNames& names);

// Verification hashes each column with the extended hash function of its
// type (ColumnFacts::hash_function: hashint4extended, hashtextextended,
// ...), called directly: twice as fast as hash_record_extended on the whole
// row, and available on 12+. Types without one (json, point, ...), and
// every column with |text_form_only|, hash their text form.
//
// What one verification statement reads of |relation| (the source with
// ONLY, or the shadow). Keys with log rows are left out of the comparison
// (they are resynchronised under the swap lock); rather than testing every
// row against the log, the sums over all rows are taken and the sums over
// the logged keys (found through the key index) subtracted.
enum class VerifyScope {
  kAll,         // every row
  kBlockRange,  // the rows in heap blocks [$1, $2) (tids as text), 14+
  kLoggedKeys,  // the rows whose keys have log rows
  kKeyArrays,   // the rows whose keys are in the arrays $1..$n (as replay's)
};

// One row: (rows, sum of row hashes reduced modulo 2^63-1 into bigint).
std::string VerifySumSql(const TableFacts& t, const OnlineNames& names,
                         const std::string& relation, VerifyScope scope,
                         bool text_form_only = false);

// Up to |limit| keys (as text) whose rows differ between the source and the
// shadow or exist on one side only, leaving out logged keys: the
// diagnosis after a failed verification.
std::string DifferingKeysSql(const TableFacts& t, const OnlineNames& names,
                             int limit, bool text_form_only = false);

// What the swap needs beyond the facts: read inside the swap transaction.
struct SwapInputs {
  // Identity sequences LIKE created for the shadow: column -> sequence
  // (quoted-qualified).
  std::map<std::string, std::string> shadow_identity_sequences;
  // The statistics objects LIKE created for the shadow, oldest first
  // (quoted-qualified); paired with TableFacts::statistics by position.
  std::vector<std::string> shadow_statistics;
};

// The statements of the swap transaction after the locks are held and the
// log is drained (docs/online-migration.md#swap-lock): drop capture
// triggers, give the shadow (which the running role owned until now) and
// its partitions to the table's owner, re-own serial sequences, detach incoming
// and outgoing foreign keys, move the old table to pglayout.old_<oid> (its
// indexes and identity sequences renamed first so they cannot collide there),
// give the shadow the table's name and its indexes and identity sequences their
// original names, continue identity sequences, then carry over grants, comment,
// RLS and policies, replica identity, user triggers (with their ENABLE state),
// dependent views (CREATE OR REPLACE VIEW inside the same transaction, so they
// never read a stale table) and foreign keys as NOT VALID.
std::vector<std::string> SwapSql(const TableFacts& t,
                                 const OnlineTarget& target,
                                 const OnlineNames& names,
                                 const SwapInputs& inputs);

// What the swap locks, in its order: first the other tables of the
// foreign keys it drops and adds again (its own, both ways, and a
// partition's parent's; each once, never the table itself), as dropping a
// key locks its other table in ACCESS EXCLUSIVE mode and, taken while the
// swap holds nothing else, they cannot close a cycle with a writer that
// reads one of them and then writes the table; then a partition's parent,
// as writers through the parent lock it before the partition; the table
// and the shadow; last the parent's DEFAULT partition, which ATTACH locks
// too. docs/online-migration.md#swap-lock.
std::vector<std::string> SwapLockedTables(const TableFacts& t,
                                          const OnlineNames& names);

// The swap's first statement: ACCESS EXCLUSIVE on SwapLockedTables(), the
// parent alone (ONLY: not its other partitions).
std::string SwapLockSql(const TableFacts& t, const OnlineNames& names);

// Names a foreign key of the table's, incoming or outgoing, across the
// swap: "out:<name>", "in:<referencing table>:<name>".
std::string ForeignKeyKey(const ForeignKeyFacts& fk, bool incoming);
// ForeignKeyKey()s of |t|'s foreign keys that are NOT VALID.
std::vector<std::string> NotValidForeignKeys(const TableFacts& t);

// After the swap committed: VALIDATE the re-added foreign keys (a scan that
// does not block writes) but those in |not_valid| (ForeignKeyKey()s of
// keys that were NOT VALID before the swap and stay so), and ANALYZE the
// new table (autovacuum never analyzes partitioned parents).
std::vector<std::string> PostSwapSql(const TableFacts& t,
                                     const OnlineNames& names,
                                     const std::set<std::string>& not_valid);

// "INSERT INTO shadow (cols) [OVERRIDING SYSTEM VALUE]": the column list
// leaves generated columns out.
std::vector<std::string> InsertColumns(const TableFacts& t);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_SQL_H_
