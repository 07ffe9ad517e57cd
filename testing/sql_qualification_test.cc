#include "testing/sql_qualification.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pglayout {
namespace {

using Names = std::vector<std::string>;

TEST(UnqualifiedNames, FlagsCallsAndCastsWithoutASchema) {
  EXPECT_EQ(UnqualifiedNames("SELECT quote_ident(n.nspname) FROM x"),
            Names({"quote_ident("}));
  EXPECT_EQ(UnqualifiedNames("SELECT $1::oid, 'a'::regclass, x::text[]"),
            Names({"::oid", "::regclass", "::text"}));
  EXPECT_EQ(UnqualifiedNames("SELECT count(*), now(), format('%I', a)"),
            Names({"count(", "now(", "format("}));
  EXPECT_EQ(UnqualifiedNames("SELECT \"lower\"(a), x::\"text\""),
            Names({"\"lower\"(", "::\"text\""}));
  EXPECT_EQ(UnqualifiedNames("SELECT a FROM t JOIN u ON lower(a) = b"),
            Names({"lower("}));
  EXPECT_EQ(UnqualifiedNames("SELECT x::bool, json_agg (x)"),
            Names({"::bool", "json_agg("}));
  // The observe SQL of before the hardening.
  EXPECT_EQ(UnqualifiedNames("SELECT json_agg(a.attname) FROM pg_index i, "
                             "unnest(i.indkey) WITH ORDINALITY k(attnum, ord)"),
            Names({"json_agg(", "unnest("}));
  // An aliased call is still a call; so is one before a WITH query's AS.
  EXPECT_EQ(UnqualifiedNames("WITH q(a) AS (SELECT count(x) AS n FROM t) "
                             "SELECT lower(a) AS l, upper(a) FROM q"),
            Names({"count(", "lower(", "upper("}));
}

TEST(UnqualifiedNames, AcceptsQualifiedNamesKeywordsLiteralsAndDefinitions) {
  EXPECT_TRUE(
      UnqualifiedNames("SELECT pg_catalog.quote_ident(n.nspname), "
                       "$1::pg_catalog.oid, x::pg_catalog.text[], "
                       "COALESCE(a, 0), NULLIF(b, ''), GREATEST(1, 2), "
                       "CASE WHEN a IN (1, 2) THEN 1 END, CAST(a AS integer), "
                       "extract(epoch FROM pg_catalog.now()), ARRAY(SELECT 1), "
                       "EXISTS (SELECT 1), a = ANY($2::pg_catalog.text[]), "
                       "x::bigint, x::integer, x::boolean, x::interval, "
                       "x::double precision, x::numeric(10, 2)")
          .empty());
  EXPECT_TRUE(UnqualifiedNames("SELECT 'now() and x::oid', "
                               "E'it\\'s lower(x)', $q$count(*)$q$, "
                               "\"count(\" -- format(x)\n"
                               "/* now() */ FROM t")
                  .empty());
  EXPECT_TRUE(
      UnqualifiedNames(
          "CREATE TABLE pglayout.run (id bigint PRIMARY KEY, "
          "UNIQUE (a, b), CHECK (a > 0)); INSERT INTO t (a) "
          "VALUES ($1); CREATE INDEX i ON ONLY s.t USING btree (a); "
          "SELECT 1 FROM pg_catalog.unnest(x) WITH ORDINALITY "
          "k(attnum, ord), (SELECT 1) AS z(a) "
          "PARTITION BY HASH (id) FOR VALUES WITH (MODULUS 3, "
          "REMAINDER 0) FROM (1) TO (2); INSERT INTO s.t VALUES (1) "
          "ON CONFLICT (a) DO NOTHING; ALTER TABLE s.t RESET (fillfactor)")
          .empty());
  // WITH queries' column lists, an alias's after a subquery, OPERATOR().
  EXPECT_TRUE(UnqualifiedNames(
                  "WITH RECURSIVE types(typ, col) AS (SELECT 1, 2), "
                  "objs(o) AS MATERIALIZED (SELECT 1), n(x) AS NOT "
                  "MATERIALIZED (SELECT 1) SELECT * FROM types CROSS JOIN "
                  "LATERAL (SELECT 1) n(typ) WHERE a OPERATOR(pg_catalog.=) b")
                  .empty());
}

TEST(ParseStatementLog, ReadsSimpleAndExtendedStatementsWithTheirLines) {
  const std::string log =
      "2026-12-03 15:50:00.123 UTC [41] app=pglayout observe LOG:  "
      "statement: SELECT 1\n"
      "2026-12-03 15:50:00.124 UTC [41] app=pglayout observe LOG:  "
      "execute <unnamed>: SELECT\n"
      "\tquote_ident(x)\n"
      "2026-12-03 15:50:00.124 UTC [41] app=pglayout observe DETAIL:  "
      "parameters: $1 = '7'\n"
      "2026-12-03 15:50:00.125 UTC [42] app= LOG:  statement: BEGIN\n"
      "2026-12-03 15:50:00.126 UTC [42] app= LOG:  checkpoint starting\n";
  std::vector<LoggedStatement> s = ParseStatementLog(log);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].pid, 41);
  EXPECT_EQ(s[0].application_name, "pglayout observe");
  EXPECT_EQ(s[0].sql, "SELECT 1");
  EXPECT_EQ(s[1].sql, "SELECT\nquote_ident(x)");
  EXPECT_EQ(s[2].pid, 42);
  EXPECT_EQ(s[2].application_name, "");
  EXPECT_EQ(s[2].sql, "BEGIN");
}

}  // namespace
}  // namespace pglayout
