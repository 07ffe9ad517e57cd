#include "migrator/online_logical.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/fake_sql_session.h"

namespace pglayout::migrator {
namespace {

CaptureFacts Capable() {
  CaptureFacts f;
  f.wal_level = "logical";
  f.free_slots = 3;
  f.free_senders = 1;
  f.may_replicate = true;
  f.identity = "d";
  f.identity_covers_key = true;
  return f;
}

TEST(ChooseCapture, AutoTakesLogicalDecodingWhereItCan) {
  bool logical = false;
  std::string why;
  ASSERT_TRUE(
      ChooseCapture(CaptureMode::kAuto, Capable(), &logical, &why).ok());
  EXPECT_TRUE(logical);
  ASSERT_TRUE(
      ChooseCapture(CaptureMode::kTrigger, Capable(), &logical, &why).ok());
  EXPECT_FALSE(logical);
  EXPECT_NE(why.find("--capture trigger"), std::string::npos);
}

TEST(ChooseCapture, AutoFallsBackAndSaysWhyLogicalRefuses) {
  struct Case {
    CaptureFacts facts;
    std::string reason;
  };
  std::vector<Case> cases;
  cases.push_back({Capable(), "wal_level is replica"});
  cases.back().facts.wal_level = "replica";
  cases.push_back({Capable(), "neither superuser nor REPLICATION"});
  cases.back().facts.may_replicate = false;
  cases.push_back({Capable(), "no replication slot is free"});
  cases.back().facts.free_slots = 0;
  cases.push_back({Capable(), "no WAL sender is free"});
  cases.back().facts.free_senders = 0;
  cases.push_back({Capable(), "replica identity (NOTHING)"});
  cases.back().facts.identity = "n";
  cases.back().facts.identity_covers_key = false;
  for (const Case& c : cases) {
    bool logical = true;
    std::string why;
    ASSERT_TRUE(
        ChooseCapture(CaptureMode::kAuto, c.facts, &logical, &why).ok());
    EXPECT_FALSE(logical) << c.reason;
    EXPECT_NE(why.find("by trigger, since"), std::string::npos) << why;
    EXPECT_NE(why.find(c.reason), std::string::npos) << why;
    Status st = ChooseCapture(CaptureMode::kLogical, c.facts, &logical, &why);
    EXPECT_TRUE(st.IsInvalidInput()) << c.reason;
    EXPECT_NE(st.message().find("cannot capture"), std::string::npos);
    EXPECT_NE(st.message().find(c.reason), std::string::npos) << st.message();
  }
}

TEST(ParseCaptureMode, NamesTheModes) {
  CaptureMode mode = CaptureMode::kAuto;
  ASSERT_TRUE(ParseCaptureMode("logical", &mode).ok());
  EXPECT_EQ(mode, CaptureMode::kLogical);
  ASSERT_TRUE(ParseCaptureMode("trigger", &mode).ok());
  EXPECT_EQ(mode, CaptureMode::kTrigger);
  Status st = ParseCaptureMode("wal", &mode);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("auto, trigger or logical"), std::string::npos);
}

TEST(ReadCaptureFacts, IdentityMustHoldTheRowKey) {
  FakeSqlSession s;
  s.Answer("current_setting('wal_level')",
           {{"logical", "2", "4", "t", "d", "{id}"}});
  CaptureFacts f;
  ASSERT_TRUE(ReadCaptureFacts(&s, 42, {"id"}, &f).ok());
  EXPECT_TRUE(f.identity_covers_key);
  EXPECT_EQ(f.free_slots, 2);
  EXPECT_EQ(f.free_senders, 4);
  ASSERT_TRUE(ReadCaptureFacts(&s, 42, {"id", "region"}, &f).ok());
  EXPECT_FALSE(f.identity_covers_key);
  s.Answer("current_setting('wal_level')",
           {{"logical", "2", "4", "t", "f", std::nullopt}});
  ASSERT_TRUE(ReadCaptureFacts(&s, 42, {"id", "region"}, &f).ok());
  EXPECT_TRUE(f.identity_covers_key);
  s.Answer("current_setting('wal_level')",
           {{"logical", "2", "4", "f", "d", std::nullopt}});
  ASSERT_TRUE(ReadCaptureFacts(&s, 42, {"id"}, &f).ok());
  EXPECT_FALSE(f.identity_covers_key);  // DEFAULT without a primary key
  EXPECT_FALSE(f.may_replicate);
}

// The WAL the slot retains, through the fake session: the run stops,
// resumable, at the stated threshold, not later.
TEST(SlotRetention, StopsBeforeTheSlotEndangersTheServer) {
  const int64_t gib = int64_t{1} << 30;
  FakeSqlSession s(150000);
  SlotState state;
  s.Answer("FROM pg_catalog.pg_replication_slots s",
           {{std::to_string(gib), "f", "-1"}});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_TRUE(state.exists);
  EXPECT_EQ(state.retained, gib);
  EXPECT_EQ(state.keep_size, -1);
  EXPECT_TRUE(CheckSlot(state, "public.t", 4 * gib, 0).ok());
  EXPECT_EQ(s.last_params[0], SqlValue("pglayout_1_42"));

  s.Answer("FROM pg_catalog.pg_replication_slots s",
           {{std::to_string(5 * gib), "f", "-1"}});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  Status st = CheckSlot(state, "public.t", 4 * gib, 0);
  EXPECT_EQ(st.code(), Status::Code::kAborted);
  EXPECT_NE(st.message().find("retains 5120 MB of WAL, more than 4096 MB"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("resume"), std::string::npos);

  // max_slot_wal_keep_size = 2 GB: the limit is half of it.
  s.Answer("FROM pg_catalog.pg_replication_slots s",
           {{std::to_string(gib + 1), "f", std::to_string(2 * gib)}});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_EQ(RetentionLimit(state, 4 * gib), gib);
  st = CheckSlot(state, "public.t", 4 * gib, 0);
  EXPECT_NE(st.message().find("half of max_slot_wal_keep_size"),
            std::string::npos)
      << st.message();

  // The WAL volume as seen from here: the slot has used half of what was
  // free once it retains more than is left, whatever the limits.
  s.Answer("FROM pg_catalog.pg_replication_slots s",
           {{std::to_string(gib), "f", "-1", "/srv/pg"}});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_EQ(state.data_directory, "/srv/pg");
  EXPECT_TRUE(CheckSlot(state, "public.t", 4 * gib, gib + 1).ok());
  st = CheckSlot(state, "public.t", 4 * gib, gib / 2);
  EXPECT_EQ(st.code(), Status::Code::kAborted);
  EXPECT_NE(st.message().find("retains 1024 MB of WAL and the WAL volume "
                              "has 512 MB left free"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("resume"), std::string::npos);
  // Unknown from here (0): the limits alone.
  EXPECT_TRUE(CheckSlot(state, "public.t", 4 * gib, 0).ok());

  // Lost (its WAL removed) or gone: the copy must start again.
  s.Answer("FROM pg_catalog.pg_replication_slots s",
           {{std::nullopt, "t", std::to_string(2 * gib)}});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_TRUE(state.lost);
  st = CheckSlot(state, "public.t", 4 * gib, 0);
  EXPECT_NE(st.message().find("lost"), std::string::npos);
  s.Answer("FROM pg_catalog.pg_replication_slots s", {});
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_FALSE(state.exists);
  st = CheckSlot(state, "public.t", 4 * gib, 0);
  EXPECT_NE(st.message().find("copies the table again"), std::string::npos);
}

TEST(SlotRetention, TwelveHasNoWalStatus) {
  FakeSqlSession s(120000);
  s.Answer("FROM pg_catalog.pg_replication_slots s", {{"100", "f", "-1"}});
  SlotState state;
  ASSERT_TRUE(ReadSlotState(&s, "pglayout_1_42", &state).ok());
  EXPECT_EQ(s.Count("wal_status"), 0);
  EXPECT_EQ(s.Count("max_slot_wal_keep_size"), 0);
  EXPECT_EQ(state.retained, 100);
}

TEST(CaptureNames, SlotNamesKeepDatabasesApart) {
  EXPECT_EQ(CaptureSlotName(16384, 42), "pglayout_16384_42");
  EXPECT_NE(CaptureSlotName(16385, 42), CaptureSlotName(16384, 42));
  EXPECT_EQ(CapturePublicationName(42), "pglayout_capture_42");
}

}  // namespace
}  // namespace pglayout::migrator
