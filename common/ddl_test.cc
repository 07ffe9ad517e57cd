#include "common/ddl.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(Ddl, TablespaceStatementsQuoteNamesAndPaths) {
  TablespaceSpec ts{"we\"ird", "/it's", "", {}};
  EXPECT_EQ(CreateTablespaceSql(ts),
            "CREATE TABLESPACE \"we\"\"ird\" LOCATION '/it''s'");
  EXPECT_EQ(AlterTablespaceOptionsSql(ts), "") << "no options: nothing to do";
  ts.options = {{"random_page_cost", "1.1"},
                {"effective_io_concurrency", "2'00"}};
  EXPECT_EQ(AlterTablespaceOptionsSql(ts),
            "ALTER TABLESPACE \"we\"\"ird\" SET (\"effective_io_concurrency\" "
            "= '2''00', \"random_page_cost\" = '1.1')");
}

TEST(Ddl, SetTablespaceByRelkind) {
  EXPECT_EQ(SetTablespaceSql('r', "\"s\".\"My T\"", "fast 1"),
            "ALTER TABLE \"s\".\"My T\" SET TABLESPACE \"fast 1\"");
  EXPECT_EQ(SetTablespaceSql('i', "\"s\".\"i\"", "f"),
            "ALTER INDEX \"s\".\"i\" SET TABLESPACE \"f\"");
  EXPECT_EQ(SetTablespaceSql('m', "\"s\".\"mv\"", "f"),
            "ALTER MATERIALIZED VIEW \"s\".\"mv\" SET TABLESPACE \"f\"");
  EXPECT_EQ(ReindexConcurrentlySql("\"s\".\"i\"", "f"),
            "REINDEX (TABLESPACE \"f\") INDEX CONCURRENTLY \"s\".\"i\"");
}

TEST(Ddl, AlterSystemQuotesNameAndValue) {
  EXPECT_EQ(AlterSystemSetSql("work_mem", "64MB"),
            "ALTER SYSTEM SET \"work_mem\" = '64MB'");
  EXPECT_EQ(AlterSystemSetSql("x\"; DROP", "a'b"),
            "ALTER SYSTEM SET \"x\"\"; DROP\" = 'a''b'");
  EXPECT_EQ(AlterSystemResetSql("max_wal_size"),
            "ALTER SYSTEM RESET \"max_wal_size\"");
  EXPECT_EQ(ReloadConfSql(), "SELECT pg_catalog.pg_reload_conf()");
}

TEST(Ddl, WithOptionsClauseFromReloptions) {
  EXPECT_EQ(WithOptionsClause({}, {}), "");
  EXPECT_EQ(WithOptionsClause({"fillfactor=90"}, {"autovacuum_enabled=off"}),
            "WITH (\"fillfactor\" = '90', toast.\"autovacuum_enabled\" = "
            "'off')");
}

}  // namespace
}  // namespace pglayout
