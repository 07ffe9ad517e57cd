// Where the server keeps its files: the data directory, pg_wal and each
// tablespace's location, resolved to devices (common/locate.h) when they
// exist on this host, as they do when observe runs on the database host.
//
// The data directory decides: when it (with its PG_VERSION) is not found
// here, the server runs elsewhere and every location is recorded as a path
// only, with one line saying so. Nothing is guessed: pg_wal is resolved
// through its own symlink, not assumed to sit beside the data.

#ifndef PGLAYOUT_OBSERVE_DATA_LOCATIONS_H_
#define PGLAYOUT_OBSERVE_DATA_LOCATIONS_H_

#include <map>
#include <string>
#include <vector>

#include "common/locate.h"
#include "common/model.h"

namespace pglayout {

struct LocatedDirectories {
  std::vector<DataLocation> locations;  // data_directory, pg_wal, tablespaces
  std::string note;                     // one line: how they were found
};

// |settings| as ServerInfo::settings (data_directory among them when the
// role may read it); |tablespaces| as pg_tablespace lists them.
LocatedDirectories LocateServerDirectories(
    const SystemPaths& paths,
    const std::map<std::string, std::string>& settings,
    const std::vector<TablespaceInfo>& tablespaces);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_DATA_LOCATIONS_H_
