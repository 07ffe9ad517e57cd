#include "testing/pg_test.h"

namespace pglayout {

void PrintTo(PgVersion version, std::ostream* os) {
  *os << PgVersionName(version);
}

std::string PgVersionParamName(
    const ::testing::TestParamInfo<PgVersion>& info) {
  return PgVersionName(info.param);
}

::testing::AssertionResult IsOkStatus(const char* expression,
                                      const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expression << " failed: " << status.ToString();
}

std::string Value(SqlSession* session, const std::string& sql,
                  const std::vector<SqlValue>& params) {
  SqlValue value;
  Status st = QueryValue(session, sql, params, &value);
  if (!st.ok()) return "<error: " + st.ToString() + ">";
  return value.value_or("<null>");
}

}  // namespace pglayout
