#include "common/quote.h"

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

}  // namespace
}  // namespace pglayout
