// Options that several commands share, spelt as PostgreSQL's tools spell
// them: the connection (-d/--dbname, -h/--host, -p/--port, -U/--username)
// and durations with units (500ms, 10s, 5min).

#ifndef PGLAYOUT_CLI_OPTIONS_H_
#define PGLAYOUT_CLI_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "pg/conninfo.h"

namespace pglayout::cli {

// Adds -d/--dbname=CONNSTR (|what| describes it), -h/--host,
// -p/--port and -U/--username to the Connection options group, and the
// hidden |alias| ("--dsn", "--journal": the spelling before), which sets
// --dbname too. Compose the conninfo with ComposeConninfo: as in psql, a
// connection string's values win over -h/-p/-U.
void AddConnectionOptions(CLI::App* app, const std::string& what,
                          const std::string& alias, ConnectionOptions* out);

// Whether any connection option was given (a live server is meant).
bool Given(const ConnectionOptions& options);

// A duration option (placeholder DURATION) that sets |*seconds| when
// given: "500ms", "10s", "5min", "2h" as ParseDuration reads them
// (common/units.h); a bare number is in |bare_unit| ("ms" or "s"), what
// the option took before it had units. A bad duration, or one outside
// [min_seconds, max_seconds], is a usage error naming the option (exit 2).
CLI::Option* AddDurationOption(CLI::App* app, const std::string& name,
                               double* seconds, const std::string& description,
                               const std::string& bare_unit,
                               double min_seconds = 0,
                               double max_seconds = 1e12);

// An option that takes one of |words| (placeholder "full|off") and sets
// |*text| to it when given; |*text| keeps its default otherwise. Any other
// word is a usage error naming the option and the words (exit 2).
CLI::Option* AddWordOption(CLI::App* app, const std::string& name,
                           std::string* text,
                           const std::vector<std::string>& words,
                           const std::string& description);

}  // namespace pglayout::cli

#endif  // PGLAYOUT_CLI_OPTIONS_H_
