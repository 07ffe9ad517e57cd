// The connection string of a command, composed as psql composes its own:
// -d/--dbname is a database name, a keyword=value connection string or a
// URI; -h/--host, -p/--port and -U/--username, when given, override what
// it says (or add to it). Unset parts come from the PG* environment, as
// libpq reads it.

#ifndef PGLAYOUT_COMMON_CONNINFO_H_
#define PGLAYOUT_COMMON_CONNINFO_H_

#include <string>

#include "common/status.h"

namespace pglayout {

struct ConnectionOptions {
  std::string dbname;  // a name, "host=db1 dbname=app" or postgresql://...
  std::string host;
  std::string port;
  std::string username;
};

// The keyword=value connection string for |options|, each value quoted as
// libpq reads it ("dbname='my db' host='db1'"); "" when nothing is given
// (the PG* environment then decides). InvalidInput naming --dbname, with
// any password redacted, when --dbname does not parse.
Status ComposeConninfo(const ConnectionOptions& options, std::string* conninfo);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_CONNINFO_H_
