// Text for the files people read and run (stripe.sh, plan.sql,
// citus.sql): a name or path written into a comment stays on its line, so
// uncommenting a line never turns the rest of a value into a command or a
// statement. Why: docs/security.md#files-for-people-and-secrets.

#ifndef PGLAYOUT_PLANNER_FILE_TEXT_H_
#define PGLAYOUT_PLANNER_FILE_TEXT_H_

#include <string>
#include <string_view>

namespace pglayout::planner {

// |text| with each control character (bytes 0x00-0x1f and 0x7f) written
// visibly as \n, \r, \t or \xNN, and a backslash as \\; the result holds
// no line break. Every other byte is kept.
std::string Visible(std::string_view text);

// |text| as a block comment of plan.sql and citus.sql: "/* text */", made
// Visible, with "*/" and "/*" inside written "*\/" and "/\*" so that no
// value ends the comment or nests another. Unlike a "-- " line, a note in
// a block comment stays a comment when someone takes "-- " off every
// line, and psql runs no backslash command inside it.
std::string SqlNote(std::string_view text);

// true when |text| holds a control character (a line break among them).
bool HasControl(std::string_view text);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_FILE_TEXT_H_
