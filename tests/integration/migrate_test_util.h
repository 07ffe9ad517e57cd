// Small helpers shared by the migrate suites that run against a real server
// (faults, logical capture): a statement that must succeed, the harness
// server's connection string, and the lines of a run's result.

#ifndef PGLAYOUT_TESTS_INTEGRATION_MIGRATE_TEST_UTIL_H_
#define PGLAYOUT_TESTS_INTEGRATION_MIGRATE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "migrator/migrate_result.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"

namespace pglayout::migrator {

// Runs |sql|; a failure fails the test, naming the statement.
inline void Exec(SqlSession* s, const std::string& sql) {
  Status st = ExecuteSql(s, sql);
  ASSERT_TRUE(st.ok()) << sql << ": " << st.ToString();
}

// Database |db| of |pg| as the postgres superuser, over TCP.
inline std::string Conninfo(PgCluster* pg, const std::string& db) {
  return "host=127.0.0.1 port=" + std::to_string(pg->port()) + " dbname=" + db +
         " user=postgres";
}

// The run's lines, one per line; whether |text| is in one of them.
inline std::string Lines(const MigrateResult& result) {
  std::string out;
  for (const std::string& line : result.lines) out += line + "\n";
  return out;
}
inline bool HasLine(const MigrateResult& result, const std::string& text) {
  return Lines(result).find(text) != std::string::npos;
}

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_TESTS_INTEGRATION_MIGRATE_TEST_UTIL_H_
