// Connection strings, parsed and written by libpq's own rules. A command's
// -d/--dbname is a database name, a keyword=value connection string or a
// URI, with psql's option names. As in psql, which passes host, port and
// user before an expanded dbname to PQconnectdbParams, what a connection
// string or URI in -d says wins over -h/--host, -p/--port and
// -U/--username; those fill in only what it leaves out. Unset parts come
// from the PG* environment, as libpq reads it.

#ifndef PGLAYOUT_PG_CONNINFO_H_
#define PGLAYOUT_PG_CONNINFO_H_

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pglayout {

struct ConnectionOptions {
  std::string dbname;  // a name, "host=db1 dbname=app" or postgresql://...
  std::string host;
  std::string port;
  std::string username;
};

// The keyword=value connection string for |options|, each value quoted as
// libpq reads it ("host='db1' dbname='my db'"), -d's values over
// -h/-p/-U; "" when nothing is given (the PG* environment then decides).
// InvalidInput naming --dbname, with any password redacted, when --dbname does
// not parse.
Status ComposeConninfo(const ConnectionOptions& options, std::string* conninfo);

// keyword -> value, in the order libpq lists its keywords.
using ConninfoPairs = std::vector<std::pair<std::string, std::string>>;

// The keywords |text| (keywords or a URI) sets, as PQconninfoParse reads
// them; InvalidInput "invalid connection string: ..." with any password
// redacted when it does not parse.
Status ParseConninfo(const std::string& text, ConninfoPairs* pairs);
// |pairs| as one keyword string, each value quoted ("dbname='my db'").
std::string JoinConninfo(const ConninfoPairs& pairs);
// Sets |keyword| to |value| (replacing or appending); nothing if |value| is
// empty.
void SetConninfo(ConninfoPairs* pairs, const std::string& keyword,
                 const std::string& value);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_CONNINFO_H_
