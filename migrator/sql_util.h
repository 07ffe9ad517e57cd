// Small helpers for reading SqlResult cells and building parameter values.

#ifndef PGLAYOUT_MIGRATOR_SQL_UTIL_H_
#define PGLAYOUT_MIGRATOR_SQL_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pg/sql.h"

namespace pglayout::migrator {

using SqlRow = std::vector<SqlValue>;

// The text of cell |i| ("" for NULL or a missing column).
std::string Cell(const SqlRow& row, size_t i);

// The pieces with |separator| between them.
std::string Join(const std::vector<std::string>& items,
                 const std::string& separator);
// "a, b, c" from already-quoted pieces.
std::string JoinComma(const std::vector<std::string>& items);
// Each name through QuoteIdent, joined by ", ".
std::string QuoteIdentList(const std::vector<std::string>& names);

// Whether |st| is a statement the server cancelled (SQLSTATE 57014:
// pg_cancel_backend or a statement_timeout), as SqlSession messages say.
bool IsCancelled(const Status& st);

// Whether the server rolled |st|'s transaction back to resolve a conflict
// with another session (SQLSTATE 40P01 deadlock, 40001 serialization
// failure): nothing of it stays, as with a cancel.
bool IsConflictRollback(const Status& st);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_SQL_UTIL_H_
