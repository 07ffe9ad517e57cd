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

}  // namespace pglayout
