// The StatsSource of a live PostgreSQL server (12 to 18), over SqlSession.
//
// Version-specific SQL: checkpoints from pg_stat_checkpointer on 17+ and
// pg_stat_bgwriter before; pg_stat_wal on 14+; pg_stat_io on 16+. Servers
// before 12 are refused. On a standby the WAL position is the replay
// position and, on 17+, the checkpoint counters are the restartpoint ones.
// Relation sizes count every fork (Relation::size).
//
// Read-only by construction: the session is switched to
// default_transaction_read_only and each sample is one READ ONLY
// transaction, which also gives the sample one consistent statistics
// snapshot. The transaction ends after each sample: inside one long
// transaction the statistics views would keep returning the same snapshot.

#ifndef PGLAYOUT_OBSERVE_OBSERVE_PG_H_
#define PGLAYOUT_OBSERVE_OBSERVE_PG_H_

#include <memory>
#include <string>

#include "common/status.h"
#include "observe/observe.h"
#include "pg/sql.h"

namespace pglayout {

// The oldest server version observe supports (server_version_num).
inline constexpr int kMinObservedVersion = 120000;

// Checks the server version (Aborted, naming the version, when older than
// 12), makes the session read-only with statement and lock timeouts, and
// returns a source reading through |session|, which must outlive it.
Status OpenPgStatsSource(SqlSession* session,
                         std::unique_ptr<StatsSource>* source);

// Observe() against a live server: opens a libpq session from |conninfo|
// ("" = PG* environment), read-only, on the system clock.
Status ObserveServer(const std::string& conninfo, ProgressSink* progress,
                     const ObserveOptions& options, ObserveResult* result);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_OBSERVE_PG_H_
