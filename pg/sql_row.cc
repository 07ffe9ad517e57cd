#include "pg/sql_row.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace pglayout {

SqlRowReader::SqlRowReader(const SqlResult& result, size_t row,
                           std::string what)
    : result_(result), row_(row), what_(std::move(what)) {}

const SqlValue* SqlRowReader::Cell(size_t column) {
  if (!status_.ok()) return nullptr;
  if (row_ >= result_.rows.size() || column >= result_.rows[row_].size()) {
    const size_t width =
        row_ < result_.rows.size() ? result_.rows[row_].size() : 0;
    status_ =
        Status::Internal(fmt::format("{}: row {} has no column {} (it has {})",
                                     what_, row_ + 1, column + 1, width));
    return nullptr;
  }
  return &result_.rows[row_][column];
}

void SqlRowReader::Fail(size_t column, const std::string& text,
                        const char* type) {
  const std::string name = column < result_.columns.size()
                               ? result_.columns[column]
                               : fmt::format("column {}", column + 1);
  status_ = Status::Internal(fmt::format("{}: row {}, {}: \"{}\" is not {}",
                                         what_, row_ + 1, name, text, type));
}

bool SqlRowReader::IsNull(size_t column) {
  const SqlValue* v = Cell(column);
  return v == nullptr || !v->has_value();
}

std::string SqlRowReader::Text(size_t column) {
  const SqlValue* v = Cell(column);
  return v ? v->value_or("") : "";
}

int64_t SqlRowReader::Int(size_t column) {
  const SqlValue* v = Cell(column);
  if (v == nullptr || !v->has_value()) return 0;
  const std::string& text = **v;
  int64_t out = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Fail(column, text, "an integer");
    return 0;
  }
  return out;
}

double SqlRowReader::Double(size_t column) {
  const SqlValue* v = Cell(column);
  if (v == nullptr || !v->has_value()) return 0;
  const std::string& text = **v;
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  double out = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Fail(column, text, "a number");
    return 0;
  }
  return out;
}

bool SqlRowReader::Bool(size_t column) {
  const SqlValue* v = Cell(column);
  if (v == nullptr || !v->has_value()) return false;
  const std::string& text = **v;
  if (text == "t" || text == "true" || text == "on") return true;
  if (text == "f" || text == "false" || text == "off") return false;
  Fail(column, text, "a boolean");
  return false;
}

}  // namespace pglayout
