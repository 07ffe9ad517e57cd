// The catalog facts and the journal's rows read over a fake session: what a
// well-formed row gives, and that a cell that is not of its type is an error
// naming the query and the column, never a 0 or a false.

#include "migrator/server_facts.h"

#include <gtest/gtest.h>

#include "migrator/journal.h"
#include "testing/fake_sql_session.h"

namespace pglayout::migrator {
namespace {

SqlResult Rows(std::vector<std::string> columns,
               std::vector<std::vector<SqlValue>> rows) {
  SqlResult r;
  r.columns = std::move(columns);
  r.rows = std::move(rows);
  return r;
}

// ReadTableRow's 22 columns for public.orders, with |heap_size| as the
// server sent it.
SqlResult TableRow(const std::string& heap_size) {
  return Rows(
      {"oid",
       "nspname",
       "relname",
       "relkind",
       "relpersistence",
       "relispartition",
       "inherits",
       "typed",
       "extension",
       "system",
       "owner",
       "spcname",
       "table",
       "heap_size",
       "toast_size",
       "index_size",
       "reltuples",
       "relrowsecurity",
       "relforcerowsecurity",
       "relreplident",
       "comment",
       "owner_privileges"},
      {{"16384", "public", "orders", "r", "p",          "f",       "f", "f",
        "f",     "f",      "app",    "",  "",           heap_size, "0", "8192",
        "1000",  "f",      "f",      "d", std::nullopt, "f"}});
}

constexpr char kTableRowSql[] = "c.relrowsecurity, c.relforcerowsecurity";
constexpr char kIndexesSql[] = "x.indisclustered, x.indisreplident";

SqlResult Indexes(const std::string& valid) {
  return Rows({"relname", "spcname", "size", "indisvalid", "indisunique",
               "indisprimary", "partial", "expressions", "conname", "contype",
               "indexdef", "table", "condef", "indisclustered",
               "indisreplident", "reloptions"},
              {{"orders_pkey", "", "16384", valid, "t", "t", "f", "f",
                "orders_pkey", "p",
                "CREATE UNIQUE INDEX orders_pkey ON public.orders USING btree "
                "(id)",
                "public.orders", "PRIMARY KEY (id)", "f", "f", std::nullopt}});
}

TEST(GatherTableFacts, ReadsTheTableRowAndItsIndexes) {
  FakeSqlSession session;
  session.On({kTableRowSql, TableRow("24576"), "", -1});
  session.On({kIndexesSql, Indexes("t"), "", -1});
  session.On({"pg_catalog.md5(", Rows({"hash"}, {{"h2:abc"}}), "", -1});
  session.On({"pg_catalog.has_column_privilege(",
              Rows({"has_column_privilege"}, {{"t"}}), "", -1});
  TableFacts t;
  Status st = GatherTableFacts(&session, 16384, &t);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(t.structure_hash, "h2:abc");
  EXPECT_TRUE(t.exists);
  EXPECT_EQ(t.name, "orders");
  EXPECT_EQ(t.kind, 'r');
  EXPECT_EQ(t.storage.heap_size, 24576u);
  EXPECT_EQ(t.storage.index_size, 8192u);
  EXPECT_DOUBLE_EQ(t.storage.reltuples, 1000);
  EXPECT_EQ(t.storage.replica_identity, ReplicaIdentity::kDefault);
  EXPECT_FALSE(t.security.owner_privileges);
  ASSERT_EQ(t.indexes.size(), 1u);
  EXPECT_TRUE(t.indexes[0].valid);
  EXPECT_TRUE(t.indexes[0].primary);
  EXPECT_EQ(t.indexes[0].size, 16384u);
  EXPECT_EQ(t.indexes[0].constraint_type, 'p');
  EXPECT_EQ(t.indexes[0].using_clause, "USING btree (id)");
}

TEST(GatherTableFacts, ASizeThatIsNotANumberIsAnErrorNamingItsColumn) {
  FakeSqlSession session;
  session.On({kTableRowSql, TableRow("24 kB"), "", -1});
  TableFacts t;
  Status st = GatherTableFacts(&session, 16384, &t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(
                "pg_class (the table): row 1, heap_size: \"24 kB\" is not an "
                "integer"),
            std::string::npos)
      << st.ToString();
}

TEST(GatherTableFacts, AFlagThatIsNotABooleanIsAnErrorNamingItsColumn) {
  FakeSqlSession session;
  session.On({kTableRowSql, TableRow("24576"), "", -1});
  session.On({kIndexesSql, Indexes("yes"), "", -1});
  TableFacts t;
  Status st = GatherTableFacts(&session, 16384, &t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(
                "pg_index: row 1, indisvalid: \"yes\" is not a boolean"),
            std::string::npos)
      << st.ToString();
}

TEST(GatherServerFacts, AVersionThatIsNotANumberIsAnErrorNamingItsColumn) {
  FakeSqlSession session;
  session.On({"r.rolsuper",
              Rows({"current_setting", "rolsuper", "create", "recovery",
                    "current_user", "current_database", "data_directory",
                    "allow_alter_system", "temp_tablespaces"},
                   {{"15.2", "t", "t", "f", "postgres", "app", "/pg", "on",
                     "{pg_default}"}}),
              "", -1});
  ServerFacts f;
  Status st = GatherServerFacts(&session, Plan(), &f);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("row 1, current_setting: \"15.2\" is not an "
                              "integer"),
            std::string::npos)
      << st.ToString();
}

TEST(ResolveRelation, AnOidThatIsNotANumberIsAnError) {
  FakeSqlSession session;
  session.On({"to_regclass", Rows({"to_regclass"}, {{"orders"}}), "", -1});
  uint32_t oid = 7;
  Status st = ResolveRelation(&session, "orders", &oid);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("to_regclass: \"orders\" is not an integer"),
            std::string::npos)
      << st.ToString();

  FakeSqlSession missing;
  missing.On({"to_regclass", Rows({"to_regclass"}, {{std::nullopt}}), "", -1});
  ASSERT_TRUE(ResolveRelation(&missing, "nope", &oid).ok());
  EXPECT_EQ(oid, 0u);
}

// ------------------------------------------------------------ the journal --

TEST(Journal, AnOldCopysRunThatIsNotANumberIsAnErrorNamingItsColumn) {
  FakeSqlSession session;
  session.On(
      {"to_regclass('pglayout.setting')", Rows({"exists"}, {{"t"}}), "", -1});
  session.On({"'old_' || s.relation_oid",
              Rows({"run_id", "format"},
                   {{"3", "pglayout.old_16384"}, {"3x", "pglayout.old_16390"}}),
              "", -1});
  std::vector<std::pair<int64_t, std::string>> copies;
  Status st = Journal(&session).ListOldCopies(&copies);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("row 2, run_id: \"3x\" is not an integer"),
            std::string::npos)
      << st.ToString();
}

TEST(Journal, ReadsSettingRowsWithTheirRunAndAutoConf) {
  FakeSqlSession session;
  session.On(
      {"to_regclass('pglayout.setting')", Rows({"exists"}, {{"t"}}), "", -1});
  session.On({"FROM pglayout.setting WHERE state",
              Rows({"run_id", "name", "kind", "coalesce", "original_auto_conf",
                    "new_value", "state", "changed_at"},
                   {{"2", "max_wal_size", "guard", "1GB", std::nullopt, "8GB",
                     "left", "2026-01-01 00:00:00+00"},
                    {"4", "min_wal_size", "guard", "80MB", "160MB", "1GB",
                     "deferred", "2026-01-02 00:00:00+00"}}),
              "", -1});
  std::vector<std::pair<int64_t, SettingRecord>> settings;
  Status st = Journal(&session).ListSettingsIn({"left", "deferred"}, &settings);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(settings.size(), 2u);
  EXPECT_EQ(settings[0].first, 2);
  EXPECT_EQ(settings[0].second.name, "max_wal_size");
  EXPECT_FALSE(settings[0].second.original_auto_conf.has_value());
  EXPECT_EQ(settings[1].first, 4);
  EXPECT_EQ(settings[1].second.original_auto_conf.value_or(""), "160MB");
  EXPECT_EQ(settings[1].second.state, "deferred");
}

}  // namespace
}  // namespace pglayout::migrator
