#include "pg/journal_schema.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/fake_sql_session.h"

namespace pglayout {
namespace {

JournalSchemaObject Object(const std::string& category, const std::string& name,
                           const std::string& detail, uint32_t oid,
                           uint32_t parent, const std::string& description) {
  JournalSchemaObject o;
  o.category = category;
  o.name = name;
  o.detail = detail;
  o.oid = oid;
  o.parent = parent;
  o.owner = "dba";
  o.trusted_owner = true;
  o.description = description;
  return o;
}

// What pglayout leaves after an online move of table 16500: the journal,
// a capture log with its sequence and index, the capture functions, and
// the retired table (the application's) with its trigger and grant.
std::vector<JournalSchemaObject> OwnJournal() {
  std::vector<JournalSchemaObject> out = {
      Object("schema", "pglayout", "", 100, 0, "schema pglayout"),
      Object("relation", "run", "r", 101, 0, "table pglayout.run"),
      Object("relation", "run_run_id_seq", "S", 102, 101,
             "sequence pglayout.run_run_id_seq"),
      Object("relation", "run_pkey", "i", 103, 101, "index pglayout.run_pkey"),
      Object("relation", "step", "r", 104, 0, "table pglayout.step"),
      Object("trigger", "RI_ConstraintTrigger", "", 105, 104, "internal"),
      Object("relation", "log_16500", "r", 106, 0, "table pglayout.log_16500"),
      Object("relation", "log_16500_id_seq", "S", 107, 106, "sequence"),
      Object("function", "capture_16500", "f", 108, 0,
             "function pglayout.capture_16500()"),
      Object("function", "block_truncate_16500", "f", 109, 0,
             "function pglayout.block_truncate_16500()"),
      Object("relation", "old_16500", "r", 16500, 0,
             "table pglayout.old_16500"),
      Object("relation", "old_16500_i0", "i", 16501, 16500, "index"),
      Object("trigger", "audit", "", 16502, 16500,
             "trigger audit on table pglayout.old_16500"),
  };
  // The internal trigger is not listed by the query; the retired table is
  // the application's.
  out.erase(out.begin() + 5);
  out[9].owner = "app";
  out[9].trusted_owner = false;
  out[9].granted = true;
  return out;
}

TEST(JournalSchemaTest, NoSchemaAndItsOwnJournalPass) {
  EXPECT_TRUE(JudgeJournalSchema({}, "dba").ok());
  Status st = JudgeJournalSchema(OwnJournal(), "dba");
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(JournalSchemaTest, ForeignObjectsAreEachNamed) {
  std::vector<JournalSchemaObject> objects = OwnJournal();
  objects[0].owner = "app";
  objects[0].trusted_owner = false;
  objects.push_back(Object("trigger", "trap", "", 200, 101,
                           "trigger trap on table pglayout.run"));
  objects.push_back(
      Object("relation", "setting", "v", 201, 0, "view pglayout.setting"));
  objects.push_back(
      Object("rule", "spy", "", 202, 104, "rule spy on table pglayout.step"));
  objects.push_back(
      Object("function", "now", "f", 203, 0, "function pglayout.now()"));
  objects.push_back(Object("type", "mood", "e", 204, 0, "type pglayout.mood"));
  // An old_ name whose oid is not its own is no retired table.
  objects.push_back(
      Object("relation", "old_1", "r", 205, 0, "table pglayout.old_1"));
  Status st = JudgeJournalSchema(objects, "dba");
  ASSERT_TRUE(st.IsInvalidInput()) << st.ToString();
  for (const char* expected :
       {"schema pglayout is owned by role app, which is neither the running "
        "role (dba) nor a superuser",
        "trigger trap on table pglayout.run (owner dba): not an object",
        "view pglayout.setting (owner dba): not an object",
        "rule spy on table pglayout.step", "function pglayout.now()",
        "type pglayout.mood", "table pglayout.old_1"}) {
    EXPECT_NE(st.message().find(expected), std::string::npos)
        << expected << "\n"
        << st.message();
  }
  // What to do about it is the hint, not a line of the error.
  EXPECT_EQ(st.hint().rfind("A superuser should inspect the schema", 0), 0u)
      << st.hint();
  EXPECT_EQ(st.message().find("A superuser should"), std::string::npos);
}

TEST(JournalSchemaTest, ItsOwnKindsNeedATrustedOwnerNoGrantsNoRowSecurity) {
  std::vector<JournalSchemaObject> objects = OwnJournal();
  objects[1].granted = true;       // run
  objects[4].row_security = true;  // step
  objects[5].owner = "app";        // log_16500
  objects[5].trusted_owner = false;
  objects[7].owner = "app";  // capture_16500
  objects[7].trusted_owner = false;
  Status st = JudgeJournalSchema(objects, "dba");
  ASSERT_TRUE(st.IsInvalidInput()) << st.ToString();
  for (const char* expected :
       {"table pglayout.run grants privileges to other roles",
        "table pglayout.step has row level security enabled",
        "table pglayout.log_16500 is owned by role app",
        "function pglayout.capture_16500() is owned by role app"}) {
    EXPECT_NE(st.message().find(expected), std::string::npos)
        << expected << "\n"
        << st.message();
  }
}

// The functions PUBLIC can execute: an older run's capture functions lose
// the grant, a function pglayout does not make is left to the schema check.
TEST(RevokeOwnFunctionsFromPublic, RevokesOnlyTheCaptureFunctions) {
  FakeSqlSession session;
  session.Answer(
      "has_function_privilege('public'",
      {{"block_truncate_16500"}, {"capture_16500"}, {"capture_x"}, {"now"}});
  std::vector<std::string> revoked;
  Status st = RevokeOwnFunctionsFromPublic(&session, &revoked);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(revoked,
            (std::vector<std::string>{"\"pglayout\".\"block_truncate_16500\"()",
                                      "\"pglayout\".\"capture_16500\"()"}));
  ASSERT_EQ(session.statements.size(), 3u);
  EXPECT_NE(session.statements[0].find("pg_catalog.to_regnamespace($1)"),
            std::string::npos);
  EXPECT_EQ(
      session.statements[1],
      "REVOKE EXECUTE ON FUNCTION \"pglayout\".\"block_truncate_16500\"() "
      "FROM PUBLIC");
  EXPECT_EQ(session.statements[2],
            "REVOKE EXECUTE ON FUNCTION \"pglayout\".\"capture_16500\"() FROM "
            "PUBLIC");
}

TEST(RevokeOwnFunctionsFromPublic, NothingToRevokeSendsOneQuery) {
  FakeSqlSession session;
  Status st = RevokeOwnFunctionsFromPublic(&session, nullptr);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(session.statements.size(), 1u);
}

TEST(RevokeOwnFunctionsFromPublic, AFailedRevokeNamesTheFunction) {
  FakeSqlSession session;
  session.Answer("has_function_privilege('public'", {{"capture_16500"}});
  session.Fail("REVOKE EXECUTE", "42501");
  Status st = RevokeOwnFunctionsFromPublic(&session, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(
                "could not revoke EXECUTE on pglayout.capture_16500() from "
                "PUBLIC"),
            std::string::npos)
      << st.ToString();
}

}  // namespace
}  // namespace pglayout
