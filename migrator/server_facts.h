// Reads the facts the migrator needs from a live server's system catalogs.
//
// Every function only reads; none changes the server. Queries are
// schema-qualified and safe under the hardened search_path that
// OpenPgSession sets.

#ifndef PGLAYOUT_MIGRATOR_SERVER_FACTS_H_
#define PGLAYOUT_MIGRATOR_SERVER_FACTS_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "migrator/facts.h"
#include "pg/sql.h"

namespace pglayout::migrator {

// The triggers an online copy installs on its table, as an SQL list for
// "tgname IN ...": a user's trigger of another name, pglayout_ prefix or
// not, is the user's and is carried over.
inline constexpr char kOwnTriggerNames[] =
    "('pglayout_capture', 'pglayout_block_truncate')";
// (online_sql.cc creates them.)

// The advisory lock that allows one `pglayout migrate` per database at a
// time: pg_try_advisory_lock(kRunLockClass, kRunLockObject).
inline constexpr int kRunLockClass = 1885826169;  // "pgly"
inline constexpr int kRunLockObject = 1;
// Held (in the run's own database) while a run may change server-wide
// settings with ALTER SYSTEM. Advisory locks are per database, so a run
// also looks in pg_locks, which spans the cluster, for the same key held
// from another database (see GuardRestorer::AcquireSettingsLock).
inline constexpr int kSettingsLockObject = 2;

// The migrator's own settings, on top of what OpenPgSession set for every
// session (search_path, timeouts = 0, row_security = off, ...:
// docs/security.md): read-write read-committed transactions whatever the
// role's defaults, synchronous_commit = on,
// client_connection_check_interval = 1s (14+) so a backend whose client was
// killed stops its statement quickly, and jit = off: each copy batch, replay
// round and verification chunk is a statement of its own, compiled anew,
// and the by-xmin copy's estimated lookups put it past
// jit_inline_above_cost: about 30 ms of compiling added to a 75 ms batch of
// 100k rows (PostgreSQL 15, pgbench_accounts).
Status HardenSession(SqlSession* session);

// Resolves a plan relation name (regclass spelling) to its oid with the
// search_path the session started with, so that an unqualified name in a
// hand-written plan means what it means to its user; the session keeps
// kSessionSearchPath for everything else. *oid = 0 when it does not exist.
Status ResolveRelation(SqlSession* session, const std::string& name,
                       uint32_t* oid);

// Server-wide facts, plus the state of each tablespace path |plan| names
// and the settings the migrator may touch (max_wal_size & co. and the
// plan's [settings]).
Status GatherServerFacts(SqlSession* session, const Plan& plan,
                         ServerFacts* facts);

// Everything about the relation with |oid|. facts->exists is false when
// the oid no longer names a relation (then nothing else is filled).
Status GatherTableFacts(SqlSession* session, uint32_t oid, TableFacts* facts);

// Which of |names| already name a relation in |schema| (unquoted names).
Status ReadTakenNames(SqlSession* session, const std::string& schema,
                      const std::vector<std::string>& names,
                      std::vector<std::string>* taken);

// The gids (as quoted literals) of prepared transactions holding a lock on
// the relation with |oid|; they never end by themselves
// (docs/online-migration.md#prepared-transactions).
Status ReadPreparedLocks(SqlSession* session, uint32_t oid,
                         std::vector<std::string>* gids);

// The structure hash alone (see TableFacts::structure_hash), tagged with
// kStructureHashTag. |legacy|: the untagged form of versions before the
// tag, which covered columns (name, type, NOT NULL), indexes and
// constraints only; a run journaled by such a version is checked by it.
constexpr char kStructureHashTag[] = "h2:";
Status ReadStructureHash(SqlSession* session, uint32_t oid, std::string* hash,
                         bool legacy = false);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_SERVER_FACTS_H_
