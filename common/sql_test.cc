#include "common/sql.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(DisplayIdent, QuotesOnlyWhatAPersonCouldMisread) {
  EXPECT_EQ(DisplayIdent("order_id"), "order_id");
  EXPECT_EQ(DisplayIdent("_x$1"), "_x$1");
  EXPECT_EQ(DisplayIdent("Order"), "\"Order\"");
  EXPECT_EQ(DisplayIdent("1st"), "\"1st\"");
  EXPECT_EQ(DisplayIdent("a b"), "\"a b\"");
  EXPECT_EQ(DisplayIdent(""), "\"\"");
  EXPECT_EQ(DisplayIdent(",\")"), "\",\"\")\"");
  EXPECT_EQ(DisplayIdentList({",\")", "col1"}), "\",\"\")\", col1");
}

TEST(QuoteIdent, AlwaysQuotesAndDoublesQuotes) {
  EXPECT_EQ(QuoteIdent("orders"), "\"orders\"");
  EXPECT_EQ(QuoteIdent("My \"Big\" Table"), "\"My \"\"Big\"\" Table\"");
}

TEST(QuoteLiteral, DoublesSingleQuotes) {
  EXPECT_EQ(QuoteLiteral("it's"), "'it''s'");
}

// The comment of issue 34's attack: with standard_conforming_strings = off
// a plain '...' would end at \' and leave the rest as SQL. As an E'...'
// string with backslashes doubled it is one literal under either setting.
TEST(QuoteLiteral, ABackslashMakesAnEscapeStringWithBackslashesDoubled) {
  EXPECT_EQ(QuoteLiteral("c\\'; CREATE ROLE pwned SUPERUSER LOGIN; --"),
            " E'c\\\\''; CREATE ROLE pwned SUPERUSER LOGIN; --'");
  EXPECT_EQ(QuoteLiteral("a\\b"), " E'a\\\\b'");
  EXPECT_EQ(QuoteLiteral("\\"), " E'\\\\'");
  EXPECT_EQ(QuoteLiteral(""), "''");
  EXPECT_EQ(QuoteLiteral("no backslash"), "'no backslash'");
}

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

TEST(SplitQualifiedName, FollowsRegclassSpelling) {
  std::string schema, name;
  ASSERT_TRUE(SplitQualifiedName("public.orders", &schema, &name).ok());
  EXPECT_EQ(schema, "public");
  EXPECT_EQ(name, "orders");
  ASSERT_TRUE(SplitQualifiedName("Public.Orders", &schema, &name).ok());
  EXPECT_EQ(name, "orders") << "unquoted parts fold to lower case";
  ASSERT_TRUE(
      SplitQualifiedName("\"Sales\".\"Q1.data \"\"x\"\"\"", &schema, &name)
          .ok());
  EXPECT_EQ(schema, "Sales");
  EXPECT_EQ(name, "Q1.data \"x\"");
  ASSERT_TRUE(SplitQualifiedName("orders", &schema, &name).ok());
  EXPECT_EQ(schema, "");
}

TEST(SplitQualifiedName, RejectsMalformedNames) {
  std::string schema, name;
  EXPECT_TRUE(SplitQualifiedName("", &schema, &name).IsInvalidInput());
  EXPECT_TRUE(SplitQualifiedName("a.", &schema, &name).IsInvalidInput());
  EXPECT_TRUE(SplitQualifiedName("a.b.c", &schema, &name).IsInvalidInput());
  EXPECT_TRUE(SplitQualifiedName("\"open", &schema, &name).IsInvalidInput());
}

TEST(QuoteQualified, QuotesEachPartAndNeverInjects) {
  EXPECT_EQ(QuoteQualified("public.\"My Table\""), "\"public\".\"My Table\"");
  EXPECT_EQ(QuoteQualified("x\"; DROP TABLE t; --"),
            "\"x\"\"; drop table t; --\"");
}

}  // namespace
}  // namespace pglayout

namespace pglayout {
namespace {

// After a server crash the statistics start over: a count that went down
// is unknown, never negative; so is one that went up again past a reset.
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

}  // namespace
}  // namespace pglayout
