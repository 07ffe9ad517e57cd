// ParsePgbenchSummary on pgbench's own output (PostgreSQL 15's, with a
// second script, so each key appears again after the totals).

#include "testing/pgbench_summary.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

constexpr char kTwoScripts[] =
    "transaction type: multiple scripts\n"
    "scaling factor: 10\n"
    "number of transactions actually processed: 33456\n"
    "latency average = 2.391 ms\n"
    "initial connection time = 9.112 ms\n"
    "tps = 1672.845113 (without initial connection time)\n"
    "SQL script 1: <builtin: TPC-B (sort of)>\n"
    " - weight: 1 (targets 50.0% of total)\n"
    " - 16700 transactions (49.9% of total, tps = 835.017721)\n"
    " - latency average = 2.881 ms\n";

TEST(PgbenchSummary, ReadsTheTotalsNotTheScriptsLines) {
  const PgbenchSummary s = ParsePgbenchSummary(kTwoScripts);
  EXPECT_DOUBLE_EQ(s.tps, 1672.845113);
  EXPECT_DOUBLE_EQ(s.latency_ms, 2.391);
}

TEST(PgbenchSummary, OutputWithoutTotalsReadsAsZero) {
  const PgbenchSummary s =
      ParsePgbenchSummary("pgbench: error: connection to server failed\n");
  EXPECT_EQ(s.tps, 0);
  EXPECT_EQ(s.latency_ms, 0);
}

}  // namespace
}  // namespace pglayout
