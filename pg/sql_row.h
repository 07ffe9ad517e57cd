// Typed reads of one row of a SqlResult, by column position.
//
// A NULL cell reads as "", 0 or false. A cell that is missing, or whose text
// is not of the type asked for, is an error: the first one is kept, later
// reads return those defaults, and status() names the query, the row, the
// column and the text. Read every cell of a row, then check status() once.

#ifndef PGLAYOUT_PG_SQL_ROW_H_
#define PGLAYOUT_PG_SQL_ROW_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "pg/sql.h"

namespace pglayout {

class SqlRowReader {
 public:
  // |what| names the query in errors ("pg_stat_database"). |result| must
  // outlive the reader.
  SqlRowReader(const SqlResult& result, size_t row, std::string what);

  bool IsNull(size_t column);
  std::string Text(size_t column);
  int64_t Int(size_t column);  // a decimal integer
  double Double(
      size_t column);        // also NaN and Infinity, as PostgreSQL prints them
  bool Bool(size_t column);  // t/f, true/false, on/off

  const Status& status() const { return status_; }

 private:
  const SqlValue* Cell(size_t column);
  void Fail(size_t column, const std::string& text, const char* type);

  const SqlResult& result_;
  size_t row_;
  std::string what_;
  Status status_;
};

// Every row of |result| through |read(SqlRowReader&)|, which reads its
// cells; stops at the first row with a bad cell and returns its error.
template <typename Read>
Status ReadRows(const SqlResult& result, const std::string& what, Read read) {
  for (size_t i = 0; i < result.rows.size(); ++i) {
    SqlRowReader row(result, i, what);
    read(row);
    PGLAYOUT_RETURN_IF_ERROR(row.status());
  }
  return Status::Ok();
}

}  // namespace pglayout

#endif  // PGLAYOUT_PG_SQL_ROW_H_
