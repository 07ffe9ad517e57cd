// The security suite's own check of its attacker (attacker.h): the trap
// fires when a superuser runs it, and not when its owner does. Without
// this, a suite whose attacks never reach the superuser would pass for a
// defended pglayout. The attacks on each pglayout command are in
// security_*_test.cc beside this file; docs/security.md lists them.

#include <gtest/gtest.h>

#include <memory>

#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/integration/attacker.h"

namespace pglayout {
namespace {

class SecurityTrapTest : public PgVersionTest {};

TEST_P(SecurityTrapTest, FiresOnlyWithASuperusersPrivileges) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&cluster));
  AttackerDatabase db;
  PGLAYOUT_ASSERT_OK(MakeAttackerDatabase(cluster, "trap", &db));
  std::unique_ptr<SqlSession> attacker;
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(db.attacker_conninfo, "attacker", &attacker));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      attacker.get(),
      "CREATE FUNCTION public.trap() RETURNS int LANGUAGE plpgsql AS " +
          QuoteLiteral(EscalationBody(db, "1"))));
  EXPECT_EQ(Value(attacker.get(), "SELECT public.trap()"), "1");
  EXPECT_TRUE(NoEscalation(cluster, db)) << "the owner's own call";

  std::unique_ptr<SqlSession> super;
  PGLAYOUT_ASSERT_OK(OpenPgSession(db.superuser_conninfo, "victim", &super));
  EXPECT_EQ(Value(super.get(), "SELECT public.trap()"), "1");
  EXPECT_FALSE(NoEscalation(cluster, db)) << "a superuser's call must fire";
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SecurityTrapTest);

}  // namespace
}  // namespace pglayout
