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

}  // namespace pglayout

#endif  // PGLAYOUT_PG_SERVER_MESSAGE_H_
