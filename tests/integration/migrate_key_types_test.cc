// The row key's type in an online move: the copy's cursor ($1::type, one
// batch after another in key order) and the replay's key arrays
// ($1::type[]) cast to the key columns' types by their schema
// (ColumnFacts::cast_type). Every kind of key that moved before moves: each
// table copied in batches of 50 rows with rows updated and deleted during
// the copy, then compared with a twin that saw the same writes.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/files.h"
#include "migrator/migrator.h"
#include "pg/sql.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

// A table's key columns (SQL column definitions) and the values of its
// rows, expressions over g = 1..kRows.
struct KeyKind {
  const char* name;     // the table's: k_<name>
  const char* columns;  // "k text"
  const char* values;   // "'k' || g"
  const char* key;      // the PRIMARY KEY's columns
};

// A schema whose name needs every kind of quoting.
constexpr char kOddSchema[] = "\"Odd \"\"Schema\"\".x\"";

const KeyKind kKinds[] = {
    {"int", "k int", "g", "k"},
    {"bigint", "k bigint", "g * 10000000000", "k"},
    {"text", "k text", "'k' || g", "k"},
    {"text_c", "k text COLLATE \"C\"", "'K' || g", "k"},
    {"varchar", "k varchar(12)", "'v' || g", "k"},
    {"char", "k char(8)", "'c' || g", "k"},
    {"numeric", "k numeric(12,3)", "g * 1.125", "k"},
    {"uuid", "k uuid", "pg_catalog.md5(g::text)::uuid", "k"},
    {"timestamptz", "k timestamptz",
     "'2020-01-01 00:00:00.123456+00'::timestamptz + g * interval '1 hour "
     "1.5 seconds'",
     "k"},
    {"composite", "a varchar(10), b timestamptz",
     "'a' || g % 7, '2021-06-01'::timestamptz + g * interval '1 minute'",
     "a, b"},
    {"domain", "k public.label", "'d' || g", "k"},
    {"enum", "m public.mood, n int",
     "(ARRAY['sad', 'ok', 'happy'])[g % 3 + "
     "1]::public.mood, g",
     "m, n"},
    {"odd_schema", "k \"Odd \"\"Schema\"\".x\".\"My Int\"", "g * 3", "k"},
};

constexpr int kRows = 300;

std::string Table(const KeyKind& k) {
  return std::string("public.k_") + k.name;
}
std::string Twin(const KeyKind& k) {
  return std::string("public.twin_") + k.name;
}

// The types the kinds use, then each kind's table and its twin.
std::string SetupSql() {
  std::string sql = fmt::format(
      "CREATE DOMAIN public.label AS text CHECK (VALUE <> '');"
      "CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy');"
      "CREATE SCHEMA {0}; CREATE DOMAIN {0}.\"My Int\" AS int CHECK (VALUE "
      "> 0);",
      kOddSchema);
  for (const KeyKind& k : kKinds) {
    sql += fmt::format(
        "CREATE TABLE {0} ({1}, v int NOT NULL, PRIMARY KEY ({2}));"
        "INSERT INTO {0} SELECT {3}, g FROM pg_catalog.generate_series(1, "
        "{4}) g; CREATE TABLE {5} AS SELECT * FROM {0};",
        Table(k), k.columns, k.key, k.values, kRows, Twin(k));
  }
  return sql;
}

// The same writes to a table and its twin: every 10th row updated, every
// 25th deleted (their keys come back by replay).
std::string Writes(const std::string& table, const std::string& twin) {
  std::string sql;
  for (const std::string& t : {table, twin}) {
    sql += fmt::format(
        "UPDATE {0} SET v = v + 1000 WHERE v % 10 = 0; DELETE FROM {0} "
        "WHERE v % 25 = 0;",
        t);
  }
  return sql;
}

std::string PlanToml(const std::string& tablespace, const std::string& dir) {
  std::string toml = fmt::format(
      "[[tablespace]]\nname = \"{}\"\npath = \"{}\"\n", tablespace, dir);
  for (const KeyKind& k : kKinds) {
    toml += fmt::format(
        "[[placement]]\nrelation = \"{}\"\nstrategy = \"move\"\n"
        "tablespaces = [\"{}\"]\n",
        Table(k), tablespace);
  }
  return toml;
}

class MigrateKeyTypesTest : public PgVersionTest {};

TEST_P(MigrateKeyTypesTest, EveryKindOfKeyMovesOnlineInKeyOrder) {
  PgCluster* pg = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  const std::string db = "key_types";
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  for (const std::string& sql : std::vector<std::string>{
           "DROP DATABASE IF EXISTS " + db,
           "DROP TABLESPACE IF EXISTS key_types_ts", "CREATE DATABASE " + db}) {
    PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), sql));
  }
  const std::string conninfo = pg->conninfo() + " dbname=" + db;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(OpenPgSessionAsConfigured(conninfo, "pglayout-test", &s));
  PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), SetupSql()));
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("key_types_ts", &dir));

  Plan plan;
  PGLAYOUT_ASSERT_OK(
      ParsePlan(PlanToml("key_types_ts", dir), "plan.toml", &plan));
  migrator::MigrateOptions options;
  options.conninfo = conninfo;
  options.apply = true;
  options.checkpoint_guard = false;
  options.throttle = migrator::ThrottleMode::kOff;
  options.batch_rows = 50;
  options.copy_by_blocks = false;  // the cursor's casts, on every version
  // While each table's copy runs (after its second batch), its writes.
  const KeyKind* copying = nullptr;
  int writes = 0;
  options.failpoint = [&](const std::string& name) {
    for (const KeyKind& k : kKinds) {
      if (name == "after-prepare:move:" + Table(k)) copying = &k;
    }
    if (name != "copy-batch:2:after-commit" || copying == nullptr) return;
    PGLAYOUT_EXPECT_OK(
        ExecuteSql(s.get(), Writes(Table(*copying), Twin(*copying))));
    copying = nullptr;
    ++writes;
  };
  migrator::MigrateResult report;
  PGLAYOUT_ASSERT_OK(migrator::Migrate(plan, options, nullptr, &report));
  EXPECT_EQ(writes, static_cast<int>(std::size(kKinds)));
  for (const KeyKind& k : kKinds) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(Value(s.get(),
                    "SELECT t.spcname FROM pg_catalog.pg_class c JOIN "
                    "pg_catalog.pg_tablespace t ON t.oid = c.reltablespace "
                    "WHERE c.oid = $1::pg_catalog.regclass",
                    {Table(k)}),
              "key_types_ts");
    const std::string count = Value(
        s.get(), fmt::format("SELECT pg_catalog.count(*) FROM {}", Table(k)));
    EXPECT_EQ(count, std::to_string(kRows - kRows / 25));
    EXPECT_EQ(Value(s.get(),
                    fmt::format("SELECT pg_catalog.count(*) FROM ((TABLE {0} "
                                "EXCEPT ALL TABLE {1}) UNION ALL (TABLE {1} "
                                "EXCEPT ALL TABLE {0})) d",
                                Table(k), Twin(k))),
              "0");
  }
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(MigrateKeyTypesTest);

}  // namespace
}  // namespace pglayout
