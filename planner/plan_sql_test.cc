#include "planner/plan_sql.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/ddl.h"
#include "planner/file_text.h"

namespace pglayout::planner {
namespace {

Plan SamplePlan() {
  Plan plan;
  plan.tablespaces = {
      {"pglayout_d1", "/mnt/d'1", "d1", {{"random_page_cost", "1.1"}}},
      {"pglayout_d2", "/mnt/d2", "d2", {}}};
  Placement move;
  move.relation = "public.\"My Table\"";
  move.strategy = Strategy::kMove;
  move.tablespaces = {"pglayout_d1"};
  move.online = false;
  move.reason = "hot\nDROP TABLE x";
  Placement part;
  part.relation = "public.a";
  part.strategy = Strategy::kHashPartition;
  part.tablespaces = {"pglayout_d1", "pg_default"};
  part.partitions = 2;
  part.key = {"id"};
  plan.placements = {move, part};
  plan.settings = {{"max_wal_size", "8GB", "1GB", "why"},
                   {"io_max_combine_limit", "1MB", "", "why"}};
  return plan;
}

TEST(PlanSql, QuotesEverythingAndKeepsTheOrder) {
  SqlObjects objects;
  objects.indexes["public.\"My Table\""] = {"public.\"My Table_pkey\""};
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(SamplePlan(), objects, &steps).ok());
  std::string sql = RenderPlanSql(steps);
  EXPECT_NE(sql.find("CREATE TABLESPACE \"pglayout_d1\" LOCATION '/mnt/d''1';"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("ALTER TABLESPACE \"pglayout_d1\" SET "
                     "(\"random_page_cost\" = '1.1');"),
            std::string::npos);
  EXPECT_NE(sql.find("ALTER TABLE \"public\".\"My Table\" SET TABLESPACE "
                     "\"pglayout_d1\";"),
            std::string::npos);
  EXPECT_NE(sql.find("ALTER INDEX \"public\".\"My Table_pkey\" SET TABLESPACE "
                     "\"pglayout_d1\";"),
            std::string::npos);
  // The conversion is migrate's: shown, never run by hand (its names
  // depend on the table's oid).
  EXPECT_NE(
      sql.find("-- [online] CREATE TABLE \"public\".\"pglayout_new_<oid>\" "
               "(LIKE \"public\".\"a\" INCLUDING ALL) PARTITION BY HASH "
               "(\"id\");"),
      std::string::npos)
      << sql;
  EXPECT_EQ(sql.find("\nCREATE TABLE \"public\".\"a_p"), std::string::npos);
  EXPECT_NE(sql.find("-- [online] ALTER TABLE \"public\".\"old_<oid>\" SET "
                     "SCHEMA pglayout;"),
            std::string::npos);
  EXPECT_NE(sql.find("FOR VALUES WITH (MODULUS 2, REMAINDER 1) TABLESPACE "
                     "\"pg_default\";"),
            std::string::npos);
  EXPECT_NE(sql.find("-- [online] ALTER TABLE \"public\".\"a\" RENAME TO"),
            std::string::npos);
  EXPECT_NE(sql.find("ALTER SYSTEM SET \"max_wal_size\" = '8GB';"),
            std::string::npos);
  EXPECT_NE(sql.find("SELECT pg_catalog.pg_reload_conf();"), std::string::npos);
  EXPECT_NE(sql.find("[needs a restart]"), std::string::npos);
  EXPECT_LT(sql.find("CREATE TABLESPACE"), sql.find("ALTER TABLE"));
  EXPECT_LT(sql.find("ALTER TABLE"), sql.find("ALTER SYSTEM"));
  EXPECT_EQ(sql.find("\nDROP TABLE x"), std::string::npos)
      << "a newline in a reason must not start a statement";
}

std::vector<std::string> SqlLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// A line break (or a carriage return, which also ends an SQL comment) in a
// volume's name, a path or the data directory stays inside its comment,
// shown escaped: `psql -f plan.sql` runs only the plan's statements.
TEST(PlanSql, NoValueEndsAComment) {
  Plan plan = SamplePlan();
  plan.tablespaces[1].volume = "d2\rDROP TABLE a;";
  plan.placements[1].online = true;
  plan.placements[1].tablespaces = {"pglayout_d1\nDROP TABLE b;"};
  plan.wal_volume = "wal\nDROP TABLE c;";
  plan.wal_move = WalMove{"", "/old\nDROP TABLE d;", "/new\rDROP TABLE e;",
                          "/data\nDROP TABLE f;", 0};
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(plan, {}, &steps).ok());
  const std::string sql = RenderPlanSql(steps) + WalMoveSqlNote(plan);
  for (const std::string& line : SqlLines(sql)) {
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    EXPECT_FALSE(line.starts_with("DROP")) << line;
  }
  EXPECT_NE(sql.find("/* tablespace on volume d2\\rDROP TABLE a; [outside"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("/*   mv '/old\\nDROP TABLE d;' '/new\\rDROP TABLE e;'"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("/* pg_wal moves to wal\\nDROP TABLE c; [needs"),
            std::string::npos)
      << sql;
  // A value cannot end or nest a note's block comment either.
  EXPECT_EQ(SqlNote("a */ DROP TABLE g; /* b"),
            "/* a *\\/ DROP TABLE g; /\\* b */");
}

// The literals of plan.sql are written for standard_conforming_strings =
// on, which a database or role may have set off: the file sets it first.
TEST(PlanSql, SetsStandardConformingStringsBeforeAnyLiteral) {
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(SamplePlan(), {}, &steps).ok());
  const std::string sql = RenderPlanSql(steps);
  const size_t set = sql.find("\nSET standard_conforming_strings = on;\n");
  ASSERT_NE(set, std::string::npos) << sql;
  EXPECT_LT(set, sql.find("LOCATION '"));
  EXPECT_NE(RenderPlanSql({}).find("SET standard_conforming_strings = on;"),
            std::string::npos);
}

TEST(PlanSql, OnlineMoveShowsIndexesBuiltOnTheCopy) {
  Plan plan = SamplePlan();
  plan.placements[0].online = true;
  SqlObjects objects;
  objects.indexes["public.\"My Table\""] = {"public.\"My Table_pkey\""};
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(plan, objects, &steps).ok());
  std::string sql = RenderPlanSql(steps);
  EXPECT_NE(sql.find("-- [online] ALTER TABLE \"public\".\"My Table\""),
            std::string::npos);
  EXPECT_NE(sql.find("-- [online] ALTER INDEX \"public\".\"My Table_pkey\" "
                     "SET TABLESPACE \"pglayout_d1\";"),
            std::string::npos)
      << sql;
  EXPECT_EQ(sql.find("REINDEX"), std::string::npos)
      << "migrate builds the indexes on the online copy; it runs no REINDEX";
}

// plan.sql shows, byte for byte, what migrate runs (both use common/ddl).
TEST(PlanSql, StatementsAreTheTextMigrateRuns) {
  Plan plan = SamplePlan();
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(plan, {}, &steps).ok());
  std::vector<std::string> sql;
  for (const SqlStep& step : steps) sql.push_back(step.sql);
  for (const std::string& expected :
       {CreateTablespaceSql(plan.tablespaces[0]),
        AlterTablespaceOptionsSql(plan.tablespaces[0]),
        SetTablespaceSql('r', "\"public\".\"My Table\"", "pglayout_d1"),
        AlterSystemSetSql("max_wal_size", "8GB"), ReloadConfSql()}) {
    EXPECT_NE(std::find(sql.begin(), sql.end(), expected), sql.end())
        << expected;
  }
}

TEST(PlanSql, ExistingTablespacesAreNotCreatedAgain) {
  SqlObjects objects;
  objects.existing_tablespaces = {"pglayout_d1"};
  std::vector<SqlStep> steps;
  ASSERT_TRUE(PlanSqlSteps(SamplePlan(), objects, &steps).ok());
  EXPECT_EQ(RenderPlanSql(steps).find("CREATE TABLESPACE \"pglayout_d1\""),
            std::string::npos);
}

TEST(PlanSql, RejectsNamesThatAreNotPlainIdentifiers) {
  Plan plan = SamplePlan();
  plan.settings.push_back({"work_mem = 1; DROP TABLE x", "1", "", ""});
  std::vector<SqlStep> steps;
  EXPECT_TRUE(PlanSqlSteps(plan, {}, &steps).IsInvalidInput());
  plan = SamplePlan();
  plan.tablespaces[0].options["x) ; DROP"] = "1";
  EXPECT_TRUE(PlanSqlSteps(plan, {}, &steps).IsInvalidInput());
}

TEST(PlanSql, LongNamesStayWithin63Bytes) {
  std::string name(70, 'x');
  EXPECT_EQ(PartitionName("public." + name, 12).size(), 63u);
  EXPECT_TRUE(PartitionName("public." + name, 12).ends_with("_p12"));
}

}  // namespace
}  // namespace pglayout::planner
