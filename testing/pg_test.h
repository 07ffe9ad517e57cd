// GoogleTest support for tests on a real PostgreSQL server: a fixture
// derived from PgVersionTest and instantiated with
// PGLAYOUT_INSTANTIATE_PG_VERSIONS runs each TEST_P once per version
// (.../pg15, .../pg18), and SharedCluster() lends it the shared plain
// server. Missing binaries fail the tests, never skip them:
// docs/test-harness.md#tests-by-version.

#ifndef PGLAYOUT_TESTING_PG_TEST_H_
#define PGLAYOUT_TESTING_PG_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"

namespace pglayout {

// Fixture base for tests parameterized by server version.
class PgVersionTest : public ::testing::TestWithParam<PgVersion> {
 protected:
  PgVersion version() const { return GetParam(); }

  // The plain server of version() shared by all tests of the process (see
  // SharedPgCluster): for tests that do not change settings or restart it.
  Status SharedCluster(PgCluster** cluster) const {
    return SharedPgCluster(version(), cluster);
  }

  // A private server of version(), stopped when *cluster is destroyed.
  Status StartCluster(const PgClusterOptions& options,
                      std::unique_ptr<PgCluster>* cluster) const {
    return PgCluster::Start(version(), options, cluster);
  }
};

// Prints "pg12" / "pg15" / "pg18" in gtest messages (GetParam() = pg15).
void PrintTo(PgVersion version, std::ostream* os);

// Names the instances "pg12", "pg15" and "pg18".
std::string PgVersionParamName(const ::testing::TestParamInfo<PgVersion>& info);

// The first column of the single row |sql| returns, "<null>" for NULL, or
// "<error: ...>" when it fails: for comparing in EXPECT_EQ.
std::string Value(SqlSession* session, const std::string& sql,
                  const std::vector<SqlValue>& params = {});

// gtest predicate formatter: succeeds for an OK Status, otherwise prints the
// expression and the Status message.
::testing::AssertionResult IsOkStatus(const char* expression,
                                      const Status& status);

}  // namespace pglayout

// Instantiates a PgVersionTest-derived fixture for PostgreSQL 15 and 18.
#define PGLAYOUT_INSTANTIATE_PG_VERSIONS(fixture)                         \
  INSTANTIATE_TEST_SUITE_P(PgVersions, fixture,                           \
                           ::testing::Values(::pglayout::PgVersion::k15,  \
                                             ::pglayout::PgVersion::k18), \
                           ::pglayout::PgVersionParamName)

// The same for PostgreSQL 12, 15 and 18: for the code whose SQL depends on
// the server's version (catalog and statistics queries, the migrator).
#define PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(fixture)                 \
  INSTANTIATE_TEST_SUITE_P(PgVersions, fixture,                           \
                           ::testing::Values(::pglayout::PgVersion::k12,  \
                                             ::pglayout::PgVersion::k15,  \
                                             ::pglayout::PgVersion::k18), \
                           ::pglayout::PgVersionParamName)

// ASSERT/EXPECT that a Status is OK; both accept "<< more context".
#define PGLAYOUT_ASSERT_OK(expr) \
  ASSERT_PRED_FORMAT1(::pglayout::IsOkStatus, expr)
#define PGLAYOUT_EXPECT_OK(expr) \
  EXPECT_PRED_FORMAT1(::pglayout::IsOkStatus, expr)

#endif  // PGLAYOUT_TESTING_PG_TEST_H_
