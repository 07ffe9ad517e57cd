// Reads of PostgreSQL's system catalogs that observe and migrate both need,
// so that the two read a fact the same way. Each runs one query through
// |session| and returns its error as is (callers add their own context); a
// cell that is not of the expected type is an error naming the query, the
// row and the column (pg/sql_row.h).

#ifndef PGLAYOUT_PG_PG_CATALOG_READ_H_
#define PGLAYOUT_PG_PG_CATALOG_READ_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

// One row of pg_settings.
struct PgSetting {
  std::string setting;  // pg_settings.setting, in |unit|: "16384" for 128MB
  std::string unit;     // "8kB", "MB", "ms", ...; "" when none
  std::string context;  // when a change applies: "postmaster", "sighup", ...
  std::string shown;    // current_setting(name), as SHOW prints it: "128MB"
};

// The settings among |names| that the server has, by name. Names a version
// does not have are absent, and so are those the role may not see
// (data_directory without pg_read_all_settings).
Status ReadPgSettings(SqlSession* session,
                      const std::vector<std::string>& names,
                      std::map<std::string, PgSetting>* settings);

// Every tablespace, by name, with its directory (pg_tablespace_location:
// "" for pg_default and pg_global), appended to |tablespaces|.
Status ReadPgTablespaces(SqlSession* session,
                         std::vector<TablespaceInfo>* tablespaces);

// The server's cumulative checkpoint statistics since their last reset:
// pg_stat_checkpointer from 17 on, which counts a standby's restartpoints
// apart (with |in_recovery| those are read: they are the checkpoints that
// happen there), pg_stat_bgwriter before, which counts restartpoints as
// checkpoints. Counts drop when the statistics are reset, so callers clamp
// differences at zero. NotFound if the view gives no row.
struct CheckpointStatistics {
  int64_t timed = 0;
  int64_t requested = 0;  // forced: WAL outran max_wal_size, or CHECKPOINT
  double write_time_ms = 0;
  double sync_time_ms = 0;
  int64_t buffers_written = 0;
  std::string stats_reset;  // when, as the server prints it
};
Status ReadCheckpointStatistics(SqlSession* session, bool in_recovery,
                                CheckpointStatistics* statistics);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_PG_CATALOG_READ_H_
