#include "common/pg_catalog_read.h"

#include <gtest/gtest.h>

#include "common/fake_sql_session.h"

namespace pglayout {
namespace {

SqlResult Settings(std::vector<std::vector<SqlValue>> rows) {
  SqlResult r;
  r.columns = {"name", "setting", "coalesce", "context", "current_setting"};
  r.rows = std::move(rows);
  return r;
}

TEST(ReadPgSettings, ReadsTheRawValueItsUnitContextAndShownForm) {
  FakeSqlSession session;
  session.On(
      {"FROM pg_catalog.pg_settings",
       Settings({{"shared_buffers", "16384", "8kB", "postmaster", "128MB"},
                 {"wal_level", "replica", "", "postmaster", "replica"}}),
       "", -1});
  std::map<std::string, PgSetting> settings;
  ASSERT_TRUE(ReadPgSettings(&session, {"shared_buffers", "wal_level", "nope"},
                             &settings)
                  .ok());
  ASSERT_EQ(settings.size(), 2u);
  const PgSetting& sb = settings["shared_buffers"];
  EXPECT_EQ(sb.setting, "16384");
  EXPECT_EQ(sb.unit, "8kB");
  EXPECT_EQ(sb.context, "postmaster");
  EXPECT_EQ(sb.shown, "128MB");
  EXPECT_EQ(settings["wal_level"].unit, "");
  ASSERT_EQ(session.last_params.size(), 1u);
  EXPECT_EQ(session.last_params[0], R"({"shared_buffers","wal_level","nope"})");
}

TEST(ReadPgSettings, AShortRowIsAnErrorNamingTheQueryRowAndColumn) {
  FakeSqlSession session;
  session.On({"FROM pg_catalog.pg_settings",
              Settings({{"wal_level", "replica", "", "postmaster", "replica"},
                        {"max_wal_size", "1024", "MB", "sighup"}}),
              "", -1});
  std::map<std::string, PgSetting> settings;
  Status st =
      ReadPgSettings(&session, {"wal_level", "max_wal_size"}, &settings);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("pg_settings: row 2 has no column 5"),
            std::string::npos)
      << st.ToString();
}

TEST(ReadPgTablespaces, ReadsNamesAndLocationsInOrder) {
  FakeSqlSession session;
  SqlResult r;
  r.columns = {"spcname", "pg_tablespace_location"};
  r.rows = {{"fast", "/vol/fast"}, {"pg_default", ""}};
  session.On({"FROM pg_catalog.pg_tablespace", r, "", -1});
  std::vector<TablespaceInfo> tablespaces;
  ASSERT_TRUE(ReadPgTablespaces(&session, &tablespaces).ok());
  ASSERT_EQ(tablespaces.size(), 2u);
  EXPECT_EQ(tablespaces[0].name, "fast");
  EXPECT_EQ(tablespaces[0].location, "/vol/fast");
  EXPECT_EQ(tablespaces[1].location, "");

  r.rows = {{"fast"}};
  FakeSqlSession short_rows;
  short_rows.On({"FROM pg_catalog.pg_tablespace", r, "", -1});
  tablespaces.clear();
  Status st = ReadPgTablespaces(&short_rows, &tablespaces);
  EXPECT_NE(st.message().find("pg_tablespace: row 1 has no column 2"),
            std::string::npos)
      << st.ToString();
}

TEST(ReadPgTablespaces, TheServersErrorIsReturnedAsIs) {
  FakeSqlSession session;
  session.Fail("pg_tablespace", "42501", -1);
  std::vector<TablespaceInfo> tablespaces;
  Status st = ReadPgTablespaces(&session, &tablespaces);
  EXPECT_EQ(st.code(), Status::Code::kSqlError);
  EXPECT_EQ(session.last_sqlstate(), "42501");
}

}  // namespace
}  // namespace pglayout
