#include "common/pg_catalog_read.h"

#include "common/sql_row.h"

namespace pglayout {

// Names are schema-qualified: the migrator's session searches pg_catalog
// first anyway, observe's may have any search_path.
Status ReadPgSettings(SqlSession* session,
                      const std::vector<std::string>& names,
                      std::map<std::string, PgSetting>* settings) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT name, setting, coalesce(unit, ''), context, "
      "pg_catalog.current_setting(name) FROM pg_catalog.pg_settings "
      "WHERE name = ANY($1::text[])",
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

}  // namespace pglayout
