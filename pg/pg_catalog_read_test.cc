#include "pg/pg_catalog_read.h"

#include <gtest/gtest.h>

#include "testing/fake_sql_session.h"

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

SqlResult Checkpoints(const std::string& timed) {
  SqlResult r;
  r.columns = {"num_timed", "num_requested",   "write_time",
               "sync_time", "buffers_written", "stats_reset"};
  r.rows = {{timed, "2", "10.5", "2.5", "300", "2026-01-01 00:00:00+00"}};
  return r;
}

TEST(ReadCheckpointStatistics, ReadsTheViewOfTheServersVersion) {
  FakeSqlSession pg18;
  pg18.version = 180000;
  pg18.On({"FROM pg_catalog.pg_stat_checkpointer", Checkpoints("7"), "", -1});
  CheckpointStatistics c;
  ASSERT_TRUE(ReadCheckpointStatistics(&pg18, false, &c).ok());
  EXPECT_EQ(c.timed, 7);
  EXPECT_EQ(c.requested, 2);
  EXPECT_DOUBLE_EQ(c.write_time_ms, 10.5);
  EXPECT_EQ(c.buffers_written, 300);
  EXPECT_EQ(c.stats_reset, "2026-01-01 00:00:00+00");
  EXPECT_EQ(pg18.Count("num_timed, num_requested"), 1);

  // A standby's checkpoints are its restartpoints, counted apart from 17.
  ASSERT_TRUE(ReadCheckpointStatistics(&pg18, true, &c).ok());
  EXPECT_EQ(pg18.Count("restartpoints_timed, restartpoints_req"), 1);

  FakeSqlSession pg15;
  pg15.On({"FROM pg_catalog.pg_stat_bgwriter", Checkpoints("4"), "", -1});
  ASSERT_TRUE(ReadCheckpointStatistics(&pg15, true, &c).ok());
  EXPECT_EQ(c.timed, 4);
  EXPECT_EQ(pg15.Count("restartpoints"), 0);
}

TEST(ReadCheckpointStatistics, ACountThatIsNotAnIntegerIsNamed) {
  FakeSqlSession session;
  session.version = 180000;
  session.On(
      {"FROM pg_catalog.pg_stat_checkpointer", Checkpoints("7.5"), "", -1});
  CheckpointStatistics c;
  Status st = ReadCheckpointStatistics(&session, false, &c);
  EXPECT_NE(st.message().find(
                "checkpoint statistics: row 1, num_timed: \"7.5\" is not an "
                "integer"),
            std::string::npos)
      << st.ToString();
  CheckpointCounts counts;
  EXPECT_FALSE(ReadCheckpointCounts(&session, &counts).ok());

  FakeSqlSession empty;  // answers every statement with no row
  EXPECT_EQ(ReadCheckpointStatistics(&empty, false, &c).code(),
            Status::Code::kNotFound);
}

}  // namespace
}  // namespace pglayout
