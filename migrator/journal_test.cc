// The journal's statements over a scripted session.

#include "migrator/journal.h"

#include <gtest/gtest.h>

#include "testing/fake_sql_session.h"

namespace pglayout::migrator {
namespace {

TEST(Journal, KeepsTheFirstOriginalOfASetting) {
  FakeSqlSession session;
  Journal journal(&session);
  SettingRecord rec;
  rec.name = "max_wal_size";
  rec.kind = "guard";
  rec.original_setting = "1GB";
  rec.new_value = "20GB";
  EXPECT_TRUE(journal.RecordOriginal(7, rec).ok());
  EXPECT_NE(session.statements.back().find("ON CONFLICT (run_id, kind, name) "
                                           "DO UPDATE SET new_value = "
                                           "EXCLUDED.new_value"),
            std::string::npos)
      << "a resumed run must not record its own raised value as original, "
         "and must record the value it writes";
  EXPECT_EQ(PlanHash("a"), PlanHash("a"));
  EXPECT_NE(PlanHash("a"), PlanHash("b"));
}

TEST(Journal, VerificationNoteSaysWhetherTheOnlineCopiesWereCompared) {
  std::map<std::string, StepRecord> steps;
  steps["tablespace:fast"].verify = "";
  EXPECT_EQ(VerificationNote(steps), "");  // no online copy got there
  steps["copy:public.a"].verify = "full";
  steps["copy:public.b"].verify = "full";
  EXPECT_EQ(VerificationNote(steps),
            "verified: 2 online copies compared with their table");
  steps["copy:public.b"].verify = "off";
  EXPECT_EQ(VerificationNote(steps),
            "unverified: 1 online copy not compared with its table (--verify "
            "off)");
}

TEST(Journal, ReadsTheVerifyOfJournalsOlderVersionsMade) {
  FakeSqlSession session;
  session.Answer("to_regclass('pglayout.setting')", {{"t"}});
  session.Answer("FROM pglayout.run r",
                 {{"7", "00ff", "running", "0", "0", "2026-12-06", "off"}});
  Journal journal(&session);
  RunRecord run;
  EXPECT_TRUE(journal.FindActiveRun(&run).ok());
  EXPECT_EQ(run.run_id, 7);
  EXPECT_EQ(run.verify, "off");
  std::map<std::string, StepRecord> steps;
  EXPECT_TRUE(journal.LoadSteps(3, &steps).ok());
  for (const std::string& sql : session.statements) {
    if (sql.find("FROM pglayout.run") == std::string::npos &&
        sql.find("FROM pglayout.step") == std::string::npos) {
      continue;
    }
    // A journal no run of this version has upgraded has no verify column.
    EXPECT_NE(sql.find("pg_catalog.to_jsonb("), std::string::npos) << sql;
  }
}

}  // namespace
}  // namespace pglayout::migrator
