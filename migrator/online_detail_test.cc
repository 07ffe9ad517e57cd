#include "migrator/online_detail.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "migrator/online_context.h"

namespace pglayout::migrator {
namespace {

TableFacts Table() {
  TableFacts t;
  t.structure_hash = "h2:abc";
  t.schema = "public";
  t.name = "My Table";
  ForeignKeyFacts loose;
  loose.name = "orders_customer_fk";
  loose.table = "public.customers";
  loose.valid = false;
  t.dependents.fks_out.push_back(loose);
  ForeignKeyFacts checked = loose;
  checked.name = "orders_item_fk";
  checked.valid = true;
  t.dependents.fks_out.push_back(checked);
  return t;
}

TEST(OnlineDetail, WhatTheShadowWasMadeWithReadsBack) {
  Detail d = ParseDetail(MakeDetail(Table(), true, "16384", "7421"));
  EXPECT_EQ(d.hash, "h2:abc");
  EXPECT_EQ(d.schema, "public");
  EXPECT_EQ(d.table, "My Table");
  EXPECT_TRUE(d.by_blocks);
  EXPECT_EQ(d.filenode, "16384");
  EXPECT_EQ(d.copy_xmin, "7421");
  EXPECT_EQ(d.not_valid_fks, std::set<std::string>{"out:orders_customer_fk"});
}

TEST(OnlineDetail, AKeyOrderCopyHasNoBlockFacts) {
  Detail d = ParseDetail(MakeDetail(Table(), false));
  EXPECT_FALSE(d.by_blocks);
  EXPECT_EQ(d.filenode, "");
  EXPECT_EQ(d.copy_xmin, "");
  EXPECT_EQ(d.not_valid_fks.size(), 1u);
}

// A run started by an older version recorded three lines: it resumes in
// key order, with no filenode to check and no key found NOT VALID.
TEST(OnlineDetail, AnOlderRunsThreeLinesLeaveTheRestUnset) {
  Detail d = ParseDetail("h1\npublic\norders");
  EXPECT_EQ(d.hash, "h1");
  EXPECT_EQ(d.table, "orders");
  EXPECT_FALSE(d.by_blocks);
  EXPECT_EQ(d.filenode, "");
  EXPECT_TRUE(d.not_valid_fks.empty());
  EXPECT_EQ(ParseDetail("").schema, "");
}

// A name may hold a newline, a carriage return or a backslash: each item
// stays one item, and the items after it keep their places.
TEST(OnlineDetail, ANameWithANewlineStaysOneItem) {
  TableFacts t = Table();
  t.schema = "sch\nema\\";
  t.name = "two\nlines\r\\n";
  std::string text = MakeDetail(t, true, "16384", "7421");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 8) << text;
  Detail d = ParseDetail(text);
  EXPECT_EQ(d.hash, "h2:abc");
  EXPECT_EQ(d.schema, "sch\nema\\");
  EXPECT_EQ(d.table, "two\nlines\r\\n");
  EXPECT_TRUE(d.by_blocks);
  EXPECT_EQ(d.filenode, "16384");
  EXPECT_EQ(d.copy_xmin, "7421");
  EXPECT_EQ(d.not_valid_fks, std::set<std::string>{"out:orders_customer_fk"});
}

// A seven-line detail of the previous version is read raw: a backslash in
// its names is kept as written.
TEST(OnlineDetail, ASevenLineDetailOfThePreviousVersionIsReadRaw) {
  Detail d =
      ParseDetail("h2:abc\npublic\nback\\slash\ncopy=blocks\n16384\n7\n{}");
  EXPECT_EQ(d.table, "back\\slash");
  EXPECT_TRUE(d.by_blocks);
  EXPECT_EQ(d.filenode, "16384");
  EXPECT_EQ(d.copy_xmin, "7");
}

// The capture's slot is journaled with the step; the previous version's
// eight-line detail has none: it captured by trigger.
TEST(OnlineDetail, TheCapturesSlotReadsBackAndOlderRunsHaveNone) {
  Detail d = ParseDetail(MakeDetail(Table(), false, "", "", "pglayout_5_42"));
  EXPECT_EQ(d.capture_slot, "pglayout_5_42");
  EXPECT_EQ(d.not_valid_fks.size(), 1u);
  EXPECT_EQ(ParseDetail(MakeDetail(Table(), true)).capture_slot, "");
  Detail older = ParseDetail(
      "h2:abc\npublic\nback\\\\slash\ncopy=blocks\n16384\n7\n{}\n"
      "detail=escaped");
  EXPECT_EQ(older.table, "back\\slash");
  EXPECT_TRUE(older.by_blocks);
  EXPECT_EQ(older.copy_xmin, "7");
  EXPECT_EQ(older.capture_slot, "");
}

TEST(OnlineContext, BlocksHoldingFollowsTheTablesDensityOrAGuess) {
  TableFacts t;
  t.storage.reltuples = 1000;  // 10 rows a block over 100 blocks
  EXPECT_EQ(BlocksHolding(t, 200, 100), 20);
  EXPECT_EQ(BlocksHolding(t, 1, 100), 1);  // never 0
  TableFacts unanalyzed;                   // 50 rows a block assumed
  EXPECT_EQ(BlocksHolding(unanalyzed, 500, 100), 10);
  unanalyzed.storage.heap_size = 10 * 8192;
  EXPECT_DOUBLE_EQ(EstimatedRows(unanalyzed), 500);
  EXPECT_DOUBLE_EQ(EstimatedRows(t), 1000);
}

}  // namespace
}  // namespace pglayout::migrator
