#include "pg/pg_catalog_read.h"

#include "pg/sql_row.h"

namespace pglayout {

// Names are schema-qualified as everywhere (docs/security.md, "Sessions"),
// though every session OpenPgSession opens searches pg_catalog first.
Status ReadPgSettings(SqlSession* session,
                      const std::vector<std::string>& names,
                      std::map<std::string, PgSetting>* settings) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT name, setting, coalesce(unit, ''), context, "
      "pg_catalog.current_setting(name) FROM pg_catalog.pg_settings "
      "WHERE name = ANY($1::pg_catalog.text[])",
      {TextArrayLiteral(names)}, &r));
  return ReadRows(r, "pg_settings", [&](SqlRowReader& row) {
    (*settings)[row.Text(0)] = {row.Text(1), row.Text(2), row.Text(3),
                                row.Text(4)};
  });
}

Status ReadPgTablespaces(SqlSession* session,
                         std::vector<TablespaceInfo>* tablespaces) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      session->Execute("SELECT spcname, pg_catalog.pg_tablespace_location(oid) "
                       "FROM pg_catalog.pg_tablespace ORDER BY spcname",
                       {}, &r));
  return ReadRows(r, "pg_tablespace", [&](SqlRowReader& row) {
    tablespaces->push_back({row.Text(0), row.Text(1)});
  });
}

// The columns were renamed when they moved to pg_stat_checkpointer in 17
// (commit 96f0526); their order is the same.
Status ReadCheckpointStatistics(SqlSession* session, bool in_recovery,
                                CheckpointStatistics* statistics) {
  std::string sql;
  if (session->server_version() >= 170000) {
    sql = std::string("SELECT ") +
          (in_recovery ? "restartpoints_timed, restartpoints_req"
                       : "num_timed, num_requested") +
          ", write_time, sync_time, buffers_written, stats_reset "
          "FROM pg_catalog.pg_stat_checkpointer";
  } else {
    sql =
        "SELECT checkpoints_timed, checkpoints_req, checkpoint_write_time, "
        "checkpoint_sync_time, buffers_checkpoint, stats_reset "
        "FROM pg_catalog.pg_stat_bgwriter";
  }
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(sql, {}, &r));
  if (r.rows.empty()) {
    return Status::NotFound("checkpoint statistics: no row from " + sql);
  }
  SqlRowReader row(r, 0, "checkpoint statistics");
  statistics->timed = row.Int(0);
  statistics->requested = row.Int(1);
  statistics->write_time_ms = row.Double(2);
  statistics->sync_time_ms = row.Double(3);
  statistics->buffers_written = row.Int(4);
  statistics->stats_reset = row.Text(5);
  return row.status();
}

}  // namespace pglayout
