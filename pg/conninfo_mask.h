// Hiding the password of a connection string from `ps`. A password given on
// the command line (`--dsn "... password=x"`, `--journal postgresql://u:x@h`)
// stays readable in /proc/PID/cmdline for the whole run; once the options
// are parsed into strings, the caller overwrites the argument's own memory
// with the masked text, and the connection still uses the parsed copy.
// Why: docs/security.md#files-for-people-and-secrets.

#ifndef PGLAYOUT_PG_CONNINFO_MASK_H_
#define PGLAYOUT_PG_CONNINFO_MASK_H_

#include <string>
#include <string_view>

namespace pglayout {

// |conninfo| with every byte of each password it holds replaced by '*', so
// the result has the same length. Reads the two forms libpq reads:
// keyword = value pairs (`password=s3cret`, `password = 'it''s'` with
// libpq's quotes and backslash escapes, also inside a dbname that is itself
// a connection string) and URIs (`postgresql://user:s3cret@host`, the query
// parameter `?password=s3cret`, percent-encoded keys included). Anything
// else comes back unchanged; never fails.
std::string MaskConninfoPassword(std::string_view conninfo);

// The same for one command-line argument: a connection string on its own,
// or an option's value after `--name=`.
std::string MaskArgumentPassword(std::string_view argument);

// |text| (a libpq message, which may echo part of the connection string)
// with every password of |conninfo| replaced by "****": as written, as a
// URI's percent-decoding reads it, and with libpq's backslash escapes
// undone.
std::string RedactPasswords(std::string_view text, std::string_view conninfo);

// Overwrites in place each argv[1..argc) whose masked text differs, so that
// /proc/PID/cmdline shows '*' where the password was. Call after the
// options were copied out of argv.
void MaskPasswordsInArgv(int argc, char** argv);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_CONNINFO_MASK_H_
