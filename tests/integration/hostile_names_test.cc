// Table names with a newline, ESC, BEL and a right-to-left override run
// through the real `pglayout migrate` against PostgreSQL 12, 15 and 18: a
// refusal of such a table is one line, and an online move of one shows
// its progress, report lines and messages with every control character
// escaped (common/text.h). Nothing raw reaches the terminal, and neither
// does a server error that quotes such a name (pg/server_message.h).

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

// The server's own errors quote names raw; the session passes them on
// escaped and on one line, with the SQLSTATE kept.
TEST_P(HostileNamesTest, ServerErrorsQuoteNamesEscapedOnOneLine) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&s));
  SqlResult ignored;
  Status missing = s->Execute(
      "SELECT * FROM public." + QuoteIdent(std::string("gone ") + kHostile), {},
      &ignored);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(s->last_sqlstate(), "42P01");
  EXPECT_NE(missing.message().find(std::string("relation \"public.gone ") +
                                   kShown + "\" does not exist"),
            std::string::npos)
      << missing.message();
  EXPECT_NE(missing.message().find("(SQLSTATE 42P01)"), std::string::npos)
      << missing.message();
  ExpectNoRawControls(missing.message());
  EXPECT_EQ(missing.message().find('\n'), std::string::npos)
      << missing.message();

  // The server's DETAIL stays, on the same line.
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(s.get(),
                 "DROP TABLE IF EXISTS public.hostile_dup; CREATE TABLE "
                 "public.hostile_dup (k text PRIMARY KEY)"));
  const std::string key = std::string("k ") + kHostile;
  PGLAYOUT_ASSERT_OK(s->Execute("INSERT INTO public.hostile_dup VALUES ($1)",
                                {key}, &ignored));
  Status dup =
      s->Execute("INSERT INTO public.hostile_dup VALUES ($1)", {key}, &ignored);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.message().find(std::string("; DETAIL:  Key (k)=(k ") + kShown +
                               ") already exists."),
            std::string::npos)
      << dup.message();
  ExpectNoRawControls(dup.message());
  EXPECT_EQ(dup.message().find('\n'), std::string::npos) << dup.message();

  // Through the binary: the server refuses a database of that name at
  // connection, and its FATAL reaches the terminal escaped.
  Completion refused = RunPglayout(
      {"observe", "--dsn",
       "host=127.0.0.1 port=" + std::to_string(pg->port()) +
           " user=postgres dbname='" + std::string("nodb ") + kHostile + "'",
       "--duration", "3s", "--interval", "1s"});
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find(std::string("database \"nodb ") + kShown +
                                "\" does not exist"),
            std::string::npos)
      << refused.output;
  ExpectNoRawControls(refused.output);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(HostileNamesTest);

}  // namespace
}  // namespace pglayout
