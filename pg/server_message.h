// The text of a PostgreSQL or libpq error as pglayout passes it on: one
// line, with the control and bidirectional characters of any name it
// quotes escaped as DisplayName does (common/text.h). libpq prints the
// server's fields (DETAIL, HINT, CONTEXT, ...) on lines of their own; those
// line breaks become "; " so that the fields stay readable, and every other
// line break (one inside a quoted name) is escaped as \u000A.

#ifndef PGLAYOUT_PG_SERVER_MESSAGE_H_
#define PGLAYOUT_PG_SERVER_MESSAGE_H_

#include <string>
#include <string_view>

namespace pglayout {

// |text| as libpq or libpqxx gives it (trailing newline included) as one
// escaped line. The caret line under "LINE n:" is dropped: it points into
// the line above and means nothing once the two are joined.
std::string OneLineServerMessage(std::string_view text);

// |text| without the trailing newline and spaces libpq adds.
std::string TrimmedLibpqMessage(std::string text);

// A libpq or server message as it leaves pg/, for the terminal and the
// journal: libpq's text may echo the connection string (a bad
// percent-encoding in a URI), so the passwords of |conninfo| are masked
// first, on the raw text; then the names it quotes (a table's, a
// database's) are escaped and the message made one line.
std::string PassedOnMessage(const std::string& text,
                            const std::string& conninfo);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_SERVER_MESSAGE_H_
