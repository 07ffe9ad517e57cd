#include "migrator/sql_util.h"

#include <cstdlib>

namespace pglayout::migrator {

std::string Cell(const SqlRow& row, size_t i) {
  if (i >= row.size() || !row[i]) return "";
  return *row[i];
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string JoinComma(const std::vector<std::string>& items) {
  return Join(items, ", ");
}

std::string QuoteIdentList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  quoted.reserve(names.size());
  for (const std::string& n : names) quoted.push_back(QuoteIdent(n));
  return JoinComma(quoted);
}

bool IsCancelled(const Status& st) {
  return st.code() == Status::Code::kSqlError &&
         st.message().find("(SQLSTATE 57014)") != std::string::npos;
}

bool IsConflictRollback(const Status& st) {
  return st.code() == Status::Code::kSqlError &&
         (st.message().find("(SQLSTATE 40P01)") != std::string::npos ||
          st.message().find("(SQLSTATE 40001)") != std::string::npos);
}

}  // namespace pglayout::migrator
