// The cluster-wide record of the checkpoint guard: max_wal_size is one value
// for the whole cluster, while each database keeps its own journal. The
// value it had before the first pglayout run raised it is written once, with
// ALTER SYSTEM, next to the raised value in postgresql.auto.conf
// (pglayout.original_max_wal_size, plus ..._auto_conf when the file had an
// entry of its own), with the run that raised it last
// (pglayout.max_wal_size_raised_by). A run in any database takes its
// original from there when present; the restore by the run named last
// clears it. Why: docs/checkpoints.md#one-original-per-cluster.

#ifndef PGLAYOUT_MIGRATOR_GUARD_CLUSTER_H_
#define PGLAYOUT_MIGRATOR_GUARD_CLUSTER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "migrator/executor.h"
#include "pg/sql.h"

namespace pglayout::migrator {

struct ClusterOriginal {
  bool present = false;
  std::string setting;                   // pg_settings value with its unit
  std::optional<std::string> auto_conf;  // nullopt: RESET restores it
  std::string raised_by;                 // RaiserName of the last raise
};

// "run 3 in database app": who raised max_wal_size, as the record names it.
std::string RaiserName(int64_t run_id, const std::string& database);

// Reads the record from postgresql.auto.conf (pg_file_settings: no reload
// needed, and the same in every database).
Status ReadClusterOriginal(SqlSession* session, ClusterOriginal* record);

// Writes the original (only when no record is there yet: the first raise's
// original is the cluster's) and names |raised_by| as the last raiser.
Status WriteClusterOriginal(Executor* ex, const ClusterOriginal& original,
                            const std::string& raised_by);

// Removes the record (the last raiser's restore, or a value someone else
// set since: the original no longer matters).
Status ClearClusterOriginal(Executor* ex);

// The current database's name.
Status CurrentDatabase(SqlSession* session, std::string* name);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_GUARD_CLUSTER_H_
