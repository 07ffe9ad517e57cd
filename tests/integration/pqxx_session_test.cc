// The libpqxx adapter against real PostgreSQL 12, 15 and 18: every server
// error reaches the caller with its SQLSTATE, including those libpqxx 6.4
// throws without one (the migrator retries on 40P01 and 55P03).

#include <gtest/gtest.h>

#include <thread>

#include "common/sql.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

class PqxxSessionTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PGLAYOUT_ASSERT_OK(SharedCluster(&pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&a_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&b_));
  }

  // Runs |sql| on |session|, which must fail; returns its SQLSTATE and
  // checks that the message carries it too.
  static std::string FailingState(SqlSession* session, const std::string& sql) {
    SqlResult r;
    Status st = session->Execute(sql, {}, &r);
    EXPECT_FALSE(st.ok()) << sql;
    std::string state = session->last_sqlstate();
    EXPECT_NE(st.message().find("(SQLSTATE " + state + ")"), std::string::npos)
        << st.message();
    return state;
  }

  static void Exec(SqlSession* session, const std::string& sql) {
    PGLAYOUT_EXPECT_OK(ExecuteSql(session, sql));
  }

  PgCluster* pg_ = nullptr;
  std::unique_ptr<SqlSession> a_, b_;
};

TEST_P(PqxxSessionTest, OrdinaryErrorsKeepTheirState) {
  EXPECT_EQ(FailingState(a_.get(), "SELECT * FROM no_such_table_here"),
            "42P01");
  EXPECT_EQ(FailingState(a_.get(), "SELECT 1/0"), "22012");
  // A success clears it.
  Exec(a_.get(), "SELECT 1");
  EXPECT_EQ(a_->last_sqlstate(), "");
}

TEST_P(PqxxSessionTest, PermissionDeniedHasItsState) {
  Exec(a_.get(),
       "DROP ROLE IF EXISTS pqxx_weak; CREATE ROLE pqxx_weak; "
       "SET ROLE pqxx_weak");
  EXPECT_EQ(FailingState(a_.get(), "SELECT * FROM pg_catalog.pg_authid"),
            "42501");
  Exec(a_.get(), "RESET ROLE; DROP ROLE pqxx_weak");
}

TEST_P(PqxxSessionTest, SerializationFailureHasItsState) {
  Exec(a_.get(),
       "DROP TABLE IF EXISTS pqxx_ser; CREATE TABLE pqxx_ser (id int, v int);"
       "INSERT INTO pqxx_ser VALUES (1, 0)");
  Exec(a_.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ");
  Exec(a_.get(), "SELECT * FROM pqxx_ser");
  Exec(b_.get(), "UPDATE pqxx_ser SET v = 1");
  EXPECT_EQ(FailingState(a_.get(), "UPDATE pqxx_ser SET v = 2"), "40001");
  Exec(a_.get(), "ROLLBACK; DROP TABLE pqxx_ser");
}

TEST_P(PqxxSessionTest, DeadlockHasItsState) {
  Exec(a_.get(),
       "DROP TABLE IF EXISTS pqxx_d1, pqxx_d2; CREATE TABLE pqxx_d1 (); "
       "CREATE TABLE pqxx_d2 ()");
  Exec(a_.get(), "BEGIN; LOCK pqxx_d1");
  Exec(b_.get(), "BEGIN; LOCK pqxx_d2");
  // Each now waits for the other's table: the server cancels one of them.
  Status a_status;
  std::string a_state;
  std::thread a_waits([&] {
    SqlResult r;
    a_status = a_->Execute("LOCK pqxx_d2", {}, &r);
    a_state = a_->last_sqlstate();
  });
  SqlResult r;
  Status b_status = b_->Execute("LOCK pqxx_d1", {}, &r);
  std::string b_state = b_->last_sqlstate();
  a_waits.join();
  EXPECT_NE(a_status.ok(), b_status.ok()) << "exactly one is cancelled";
  EXPECT_EQ(a_status.ok() ? b_state : a_state, "40P01");
  const Status& failed = a_status.ok() ? b_status : a_status;
  EXPECT_NE(failed.message().find("(SQLSTATE 40P01)"), std::string::npos)
      << failed.message();
  Exec(a_.get(), "ROLLBACK");
  Exec(b_.get(), "ROLLBACK");
  Exec(a_.get(), "DROP TABLE pqxx_d1, pqxx_d2");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(PqxxSessionTest);

}  // namespace
}  // namespace pglayout
