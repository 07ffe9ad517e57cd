// Table names with a newline, ESC, BEL and a right-to-left override run
// through the real `pglayout migrate` against PostgreSQL 12, 15 and 18: a
// refusal of such a table is one line, and an online move of one shows
// its progress, report lines and messages with every control character
// escaped (common/text.h). Nothing raw reaches the terminal.

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

// "a", newline, "b", ESC "[31m", BEL, U+202E, "c".
constexpr char kHostile[] =
    "a\nb\x1b[31m\a\u202E"
    "c";
// The same in a TOML basic string.
constexpr char kHostileToml[] = "a\\nb\\u001B[31m\\u0007\\u202Ec";
// As the messages show it.
constexpr char kShown[] = "a\\u000Ab\\u001B[31m\\u0007\\u202Ec";

class HostileNamesTest : public PgVersionTest {};

// No byte that moves the cursor, rings the bell or reorders the text.
void ExpectNoRawControls(const std::string& output) {
  EXPECT_EQ(output.find('\x1b'), std::string::npos) << output;
  EXPECT_EQ(output.find('\a'), std::string::npos) << output;
  EXPECT_EQ(output.find("\u202E"), std::string::npos) << output;
  // No line starts with the name's second half: nothing split.
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_FALSE(line.starts_with("b")) << output;
  }
}

TEST_P(HostileNamesTest, RefusalsAndProgressShowNamesOnOneLine) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin, s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(admin.get(), "DROP DATABASE IF EXISTS hostile_names"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE hostile_names"));
  const std::string dsn = "host=127.0.0.1 port=" + std::to_string(pg->port()) +
                          " dbname=hostile_names user=postgres";
  PGLAYOUT_ASSERT_OK(OpenPgSession(dsn, "hostile-names-test", &s));
  const std::string nopk =
      "public." + QuoteIdent(std::string("nopk ") + kHostile);
  const std::string moved =
      "public." + QuoteIdent(std::string("moved ") + kHostile);
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      s.get(), "CREATE TABLE " + nopk + " (a int); CREATE TABLE " + moved +
                   " (id int PRIMARY KEY, v text); INSERT INTO " + moved +
                   " SELECT g, md5(g::text) FROM generate_series(1, 3000) g"));
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("hostile_ts", &dir));
  const std::string ts =
      "[[tablespace]]\nname = \"hostile_ts\"\npath = \"" + dir + "\"\n";
  auto move = [](const std::string& prefix) {
    return "[[placement]]\nrelation = \"public.\\\"" + prefix + kHostileToml +
           "\\\"\"\nstrategy = \"move\"\ntablespaces = [\"hostile_ts\"]\n";
  };

  // The preflight's refusal: one line naming the table, escaped.
  Completion refused = RunPglayout(
      {"migrate", WriteTempFile("hostile_refused.toml", ts + move("nopk ")),
       "--dsn", dsn});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find(std::string("  public.\"nopk ") + kShown +
                                "\": has no primary key"),
            std::string::npos)
      << refused.output;
  ExpectNoRawControls(refused.output);

  // An online move: its steps, progress and report lines.
  Completion applied = RunPglayout(
      {"migrate", WriteTempFile("hostile_moved.toml", ts + move("moved ")),
       "--dsn", dsn, "--apply", "--no-checkpoint-guard", "--throttle", "off"});
  EXPECT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_NE(applied.output.find(std::string("copy public.\"moved ") + kShown),
            std::string::npos)
      << applied.output;
  EXPECT_NE(applied.output.find(std::string("public.\"moved ") + kShown +
                                "\": swapped"),
            std::string::npos)
      << applied.output;
  ExpectNoRawControls(applied.output);
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM " + moved), "3000");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(HostileNamesTest);

}  // namespace
}  // namespace pglayout
