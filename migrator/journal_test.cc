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

}  // namespace
}  // namespace pglayout::migrator
