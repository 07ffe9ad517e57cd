#include "pg/sql.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pglayout {
namespace {

TEST(SessionHardeningSql, SetsEverySettingOfTheVersionInOneStatement) {
  const std::string v12 = SessionHardeningSql(120000);
  for (const char* expected :
       {"pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)",
        "pg_catalog.set_config('standard_conforming_strings', 'on', false)",
        "pg_catalog.set_config('row_security', 'off', false)",
        "pg_catalog.set_config('statement_timeout', '0', false)",
        "pg_catalog.set_config('lock_timeout', '0', false)",
        "pg_catalog.set_config('idle_in_transaction_session_timeout', '0', "
        "false)",
        "pg_catalog.set_config('client_encoding', 'UTF8', false)",
        "pg_catalog.set_config('application_name', $1, false)"}) {
    EXPECT_NE(v12.find(expected), std::string::npos) << expected;
  }
  EXPECT_EQ(v12.find(';'), std::string::npos) << v12;
  EXPECT_EQ(v12.find("idle_session_timeout"), std::string::npos);
  EXPECT_EQ(v12.find("transaction_timeout',"), std::string::npos);
  const std::string v14 = SessionHardeningSql(140000);
  EXPECT_NE(v14.find("'idle_session_timeout', '0'"), std::string::npos);
  EXPECT_EQ(v14.find("'transaction_timeout'"), std::string::npos);
  EXPECT_NE(SessionHardeningSql(170000).find("'transaction_timeout', '0'"),
            std::string::npos);
}

TEST(CheckpointsBetween, AResetMakesTheCountsUnknownNeverNegative) {
  CheckpointDelta ok = CheckpointsBetween({10, 4}, {12, 4}, "");
  EXPECT_TRUE(ok.known);
  EXPECT_EQ(ok.timed, 2);
  EXPECT_EQ(ok.requested, 0);
  EXPECT_EQ(CountText(ok, ok.timed), "2");
  CheckpointDelta down = CheckpointsBetween({10, 4}, {1, 0}, "");
  EXPECT_FALSE(down.known);
  EXPECT_EQ(down.timed, 0);
  EXPECT_EQ(down.requested, 0);
  EXPECT_EQ(CountText(down, down.requested), "unknown (statistics were reset)");
  CheckpointDelta one_down = CheckpointsBetween({10, 4}, {11, 0}, "");
  EXPECT_FALSE(one_down.known);
  CheckpointDelta past_reset = CheckpointsBetween(
      {1, 1}, {12, 9}, "statistics were reset by a server restart");
  EXPECT_FALSE(past_reset.known);
  EXPECT_EQ(CountText(past_reset, past_reset.timed),
            "unknown (statistics were reset by a server restart)");
}

TEST(TextArrayLiteral, RoundTripsThroughParseArrayLiteral) {
  std::vector<std::string> values = {"a\"b", "c,d", "x\\y", ""};
  auto parsed = ParseArrayLiteral(TextArrayLiteral(values));
  ASSERT_EQ(parsed.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(*parsed[i], values[i]);
  auto with_null = ParseArrayLiteral("{1,NULL,\"NULL\"}");
  ASSERT_EQ(with_null.size(), 3u);
  EXPECT_FALSE(with_null[1].has_value());
  EXPECT_EQ(*with_null[2], "NULL");
}

}  // namespace
}  // namespace pglayout
