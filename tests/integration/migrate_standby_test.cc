// `pglayout migrate --apply` against a real streaming standby on
// PostgreSQL 12, 15 and 18 (issue 6, bad input "a replica"): the preflight
// refuses before anything is written, and on the primary a new tablespace
// waits until the standby's directory is confirmed. The rules themselves
// are unit-tested with hand-made facts (migrator_test.cc, Preflight.*).

#include <gtest/gtest.h>

#include "common/files.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"

namespace pglayout::migrator {
namespace {

class MigrateStandbyTest : public PgVersionTest {};

TEST_P(MigrateStandbyTest, ApplyRefusesAStandby) {
  std::unique_ptr<PgCluster> primary, standby;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &primary));
  std::unique_ptr<SqlSession> on_primary;
  PGLAYOUT_ASSERT_OK(primary->Connect(&on_primary));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      on_primary.get(),
      "CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 100) g;"
      "ALTER TABLE t ADD PRIMARY KEY (id)"));
  PGLAYOUT_ASSERT_OK(PgCluster::StartStandby(*primary, &standby));
  // One file per version: ctest may run both at once.
  std::string dir, plan = ::testing::TempDir() + "/standby_plan_" +
                          PgVersionName(version()) + ".toml";
  PGLAYOUT_ASSERT_OK(standby->MakeDirectory("ts", &dir));
  PGLAYOUT_ASSERT_OK(
      WriteTextFile(plan, "[[tablespace]]\nname = \"ts\"\npath = \"" + dir +
                              "\"\n[[placement]]\nrelation = \"public.t\"\n"
                              "strategy = \"move\"\ntablespaces = [\"ts\"]\n"));

  Command c;
  c.argv = {PGLAYOUT_BINARY, "migrate",           plan,
            "--dsn",         standby->conninfo(), "--apply"};
  Completion run = RunToCompletion(c);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("server: the server is in recovery (a standby); "
                            "run against the primary"),
            std::string::npos)
      << run.output;
  // Nothing reached the primary, where the standby's changes would have
  // come from.
  EXPECT_EQ(
      Value(on_primary.get(), "SELECT to_regnamespace('pglayout') IS NULL"),
      "t");
  EXPECT_EQ(Value(on_primary.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname = 'ts'"),
            "0");

  // On the primary: the standby would replay CREATE TABLESPACE with the
  // same path, so the plan waits for --standby-dirs-ready.
  std::string primary_dir;
  PGLAYOUT_ASSERT_OK(primary->MakeDirectory("ts", &primary_dir));
  PGLAYOUT_ASSERT_OK(WriteTextFile(
      plan, "[[tablespace]]\nname = \"ts\"\npath = \"" + primary_dir +
                "\"\n[[placement]]\nrelation = \"public.t\"\n"
                "strategy = \"move\"\ntablespaces = [\"ts\"]\n"));
  c.argv = {PGLAYOUT_BINARY, "migrate",           plan,
            "--dsn",         primary->conninfo(), "--apply"};
  run = RunToCompletion(c);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("tablespace ts: standby "), std::string::npos)
      << run.output;
  EXPECT_NE(
      run.output.find("streams from this server and would stop "
                      "replaying at CREATE TABLESPACE unless directory '" +
                      primary_dir + "' exists on its host too"),
      std::string::npos)
      << run.output;
  EXPECT_EQ(Value(on_primary.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname = 'ts'"),
            "0");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(MigrateStandbyTest);

}  // namespace
}  // namespace pglayout::migrator
