#include "migrator/logical_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "migrator/pgoutput_test_messages.h"

namespace pglayout::migrator {
namespace {

using namespace pgoutput_test;

const std::vector<std::string> kColumns = {"v", "id"};
const std::vector<std::string> kKey = {"id"};

// The keys |messages| change, read by one decoder in order.
Status DecodeChangedKeys(const std::vector<std::string>& messages, uint32_t oid,
                         const std::vector<std::string>& key,
                         std::vector<DecodedKey>* keys) {
  ChangeDecoder decoder(oid, key);
  Lsn end = 0;
  for (const std::string& m : messages) {
    PGLAYOUT_RETURN_IF_ERROR(decoder.Add(m, keys, &end));
  }
  return Status::Ok();
}

TEST(LogicalDecode, KeysOfInsertsUpdatesAndDeletes) {
  std::vector<std::string> messages = {
      "B" + Be(0, 8) + Be(0, 8) + Be(7, 4), Relation(42, kColumns),
      Insert(42, {"a", "1"}),
      // An update of the key: old key, then the new row.
      "U" + Be(42, 4) + "K" + Tuple({"", "1"}) + "N" + Tuple({"a", "3"}),
      // An update that keeps the key: the new row only.
      "U" + Be(42, 4) + "N" + Tuple({"b", "3"}),
      "D" + Be(42, 4) + "K" + Tuple({"", "2"}),
      "C" + std::string(1, '\0') + Be(0, 8) + Be(0, 8) + Be(0, 8)};
  std::vector<DecodedKey> keys;
  ASSERT_TRUE(DecodeChangedKeys(messages, 42, kKey, &keys).ok());
  std::vector<DecodedKey> want = {{"1"}, {"1"}, {"3"}, {"3"}, {"2"}};
  EXPECT_EQ(keys, want);
}

TEST(LogicalDecode, OtherRelationsAreSkipped) {
  std::vector<std::string> messages = {Relation(7, {"id"}), Insert(7, {"9"}),
                                       Relation(42, kColumns),
                                       Insert(42, {"x", "5"})};
  std::vector<DecodedKey> keys;
  ASSERT_TRUE(DecodeChangedKeys(messages, 42, kKey, &keys).ok());
  EXPECT_EQ(keys, (std::vector<DecodedKey>{{"5"}}));
}

TEST(LogicalDecode, HostileNamesAndValuesAreTakenByLength) {
  // A column name and values that look like message syntax, a NUL inside.
  const std::string name = "id\"; N t\n";
  const std::string value = std::string("it's\0 t\x00\x01N", 10);
  std::vector<std::string> messages = {Relation(42, {"v", name}),
                                       Insert(42, {"N", value})};
  std::vector<DecodedKey> keys;
  ASSERT_TRUE(DecodeChangedKeys(messages, 42, {name}, &keys).ok());
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0][0], value);
}

TEST(LogicalDecode, CompositeKeysKeepTheKeysOrder) {
  std::vector<std::string> messages = {Relation(42, {"b", "x", "a"}),
                                       Insert(42, {"2", "zz", "1"})};
  std::vector<DecodedKey> keys;
  ASSERT_TRUE(DecodeChangedKeys(messages, 42, {"a", "b"}, &keys).ok());
  EXPECT_EQ(keys, (std::vector<DecodedKey>{{"1", "2"}}));
}

TEST(LogicalDecode, UnchangedToastKeyNeedsTheOldKey) {
  std::vector<std::string> with_old = {
      Relation(42, kColumns),
      "U" + Be(42, 4) + "K" + Tuple({"", "long"}) + "N" + Tuple({"b", "\x01"})};
  std::vector<DecodedKey> keys;
  ASSERT_TRUE(DecodeChangedKeys(with_old, 42, kKey, &keys).ok());
  EXPECT_EQ(keys, (std::vector<DecodedKey>{{"long"}}));

  std::vector<std::string> without = {
      Relation(42, kColumns), "U" + Be(42, 4) + "N" + Tuple({"b", "\x01"})};
  keys.clear();
  Status st = DecodeChangedKeys(without, 42, kKey, &keys);
  EXPECT_TRUE((st.code() == Status::Code::kAborted)) << st.ToString();
  EXPECT_NE(st.message().find("unchanged TOAST"), std::string::npos);
}

TEST(LogicalDecode, RefusesWhatItCannotRead) {
  std::vector<DecodedKey> keys;
  // A truncated insert: Internal, nothing silently skipped.
  std::string cut = Insert(42, {"a", "1"});
  cut.resize(cut.size() - 1);
  Status st = DecodeChangedKeys({Relation(42, kColumns), cut}, 42, kKey, &keys);
  EXPECT_TRUE((st.code() == Status::Code::kInternal)) << st.ToString();
  // A change before its relation's description.
  st = DecodeChangedKeys({Insert(42, {"a", "1"})}, 42, kKey, &keys);
  EXPECT_TRUE((st.code() == Status::Code::kInternal)) << st.ToString();
  // A NULL key, a renamed key column, a TRUNCATE of the table.
  st = DecodeChangedKeys({Relation(42, kColumns), Insert(42, {"a", ""})}, 42,
                         kKey, &keys);
  EXPECT_TRUE((st.code() == Status::Code::kAborted)) << st.ToString();
  st = DecodeChangedKeys({Relation(42, {"v", "renamed"})}, 42, kKey, &keys);
  EXPECT_TRUE((st.code() == Status::Code::kAborted)) << st.ToString();
  EXPECT_NE(st.message().find("id"), std::string::npos);
  st = DecodeChangedKeys(
      {"T" + Be(2, 4) + std::string(1, '\0') + Be(7, 4) + Be(42, 4)}, 42, kKey,
      &keys);
  EXPECT_TRUE((st.code() == Status::Code::kAborted)) << st.ToString();
  EXPECT_NE(st.message().find("truncated"), std::string::npos);
}

// One decoder over several calls: the relation is described once, as a
// walsender does per connection, and each COMMIT gives its WAL's end.
TEST(LogicalDecode, KeepsTheDescriptionAcrossMessages) {
  ChangeDecoder decoder(42, kKey);
  std::vector<DecodedKey> keys;
  Lsn end = 0;
  ASSERT_TRUE(decoder.Add(Relation(42, kColumns), &keys, &end).ok());
  ASSERT_TRUE(decoder.Add(Insert(42, {"a", "1"}), &keys, &end).ok());
  EXPECT_EQ(end, 0u);
  ASSERT_TRUE(decoder.Add(Commit(0x1a8), &keys, &end).ok());
  EXPECT_EQ(end, 0x1a8u);
  ASSERT_TRUE(decoder.Add(Insert(42, {"b", "2"}), &keys, &end).ok());
  EXPECT_EQ(keys, (std::vector<DecodedKey>{{"1"}, {"2"}}));
  // A new description (a column added before the key) moves the key.
  ASSERT_TRUE(decoder.Add(Relation(42, {"w", "v", "id"}), &keys, &end).ok());
  ASSERT_TRUE(decoder.Add(Insert(42, {"x", "y", "3"}), &keys, &end).ok());
  EXPECT_EQ(keys.back(), (DecodedKey{"3"}));
  // A COMMIT cut short gives no position.
  end = 0;
  Status st = decoder.Add("C" + std::string(1, '\0') + Be(1, 8), &keys, &end);
  EXPECT_TRUE((st.code() == Status::Code::kInternal)) << st.ToString();
  EXPECT_EQ(end, 0u);
}

}  // namespace
}  // namespace pglayout::migrator
