// The libpqxx adapter against real PostgreSQL 12, 15 and 18: every server
// error reaches the caller with its SQLSTATE, including those libpqxx 6.4
// throws without one (the migrator retries on 40P01 and 55P03).

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "pg/sql.h"
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
// The session's backend, as another session sees it: waits (bounded) until
// |pid| has left pg_stat_activity, which is when its connection is closed.
void WaitUntilGone(SqlSession* observer, const std::string& pid) {
  for (int i = 0; i < 600; ++i) {
    if (Value(observer,
              "SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity "
              "WHERE pid = $1",
              {pid}) == "0") {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "backend " << pid << " did not end";
}

// Every later statement of a lost session repeats the server's reason, not
// libpqxx's "Could not obtain client encoding: not connected".
// |reason| may list alternatives separated by '|'.
void ExpectLostBecause(SqlSession* session, const std::string& reason) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    SqlResult r;
    Status st = session->Execute("SELECT 1", {}, &r);
    EXPECT_EQ(st.code(), Status::Code::kUnavailable) << st.ToString();
    EXPECT_NE(st.message().find("lost connection to "), std::string::npos)
        << st.message();
    bool found = false;
    for (size_t at = 0; at <= reason.size();) {
      size_t bar = reason.find('|', at);
      if (bar == std::string::npos) bar = reason.size();
      found |=
          st.message().find(reason.substr(at, bar - at)) != std::string::npos;
      at = bar + 1;
    }
    EXPECT_TRUE(found) << st.message() << " does not say " << reason;
    EXPECT_EQ(st.message().find("client encoding"), std::string::npos)
        << st.message();
  }
}

TEST_P(PqxxSessionTest, ATerminatedSessionSaysItWasTerminated) {
  std::unique_ptr<SqlSession> victim;
  PGLAYOUT_ASSERT_OK(OpenPgSession(pg_->conninfo(), "victim", &victim));
  const std::string pid =
      Value(victim.get(), "SELECT pg_catalog.pg_backend_pid()");
  EXPECT_EQ(
      Value(a_.get(), "SELECT pg_catalog.pg_terminate_backend($1)", {pid}),
      "t");
  WaitUntilGone(a_.get(), pid);
  ExpectLostBecause(victim.get(),
                    "terminating connection due to administrator command");
}

TEST_P(PqxxSessionTest, AnIdleTimeoutSaysWhichOne) {
  std::unique_ptr<SqlSession> idle;
  PGLAYOUT_ASSERT_OK(OpenPgSession(pg_->conninfo(), "idle", &idle));
  std::string pid = Value(idle.get(), "SELECT pg_catalog.pg_backend_pid()");
  Exec(idle.get(), "SET idle_in_transaction_session_timeout = '100ms'");
  Exec(idle.get(), "BEGIN");
  WaitUntilGone(a_.get(), pid);
  ExpectLostBecause(idle.get(), "idle-in-transaction timeout");
  if (version() == PgVersion::k12) return;  // idle_session_timeout: 14+
  PGLAYOUT_ASSERT_OK(OpenPgSession(pg_->conninfo(), "idle", &idle));
  pid = Value(idle.get(), "SELECT pg_catalog.pg_backend_pid()");
  Exec(idle.get(), "SET idle_session_timeout = '100ms'");
  WaitUntilGone(a_.get(), pid);
  ExpectLostBecause(idle.get(), "idle-session timeout");
}

TEST_P(PqxxSessionTest, AServerStoppedUnderASessionSaysTheConnectionClosed) {
  std::unique_ptr<PgCluster> own;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &own));
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(OpenPgSession(own->conninfo(), "crashed", &s));
  PGLAYOUT_ASSERT_OK(own->Restart(StopMode::kImmediate));
  ExpectLostBecause(s.get(),
                    "server closed the connection unexpectedly|terminating "
                    "connection due to immediate shutdown|terminating "
                    "connection because of crash");
}

// Role and database settings of the server do not reach pglayout's
// session: OpenPgSession overrides each before anything else runs.
TEST_P(PqxxSessionTest, RoleAndDatabaseSettingsAreOverriddenAtOpen) {
  Exec(a_.get(), "DROP DATABASE IF EXISTS pqxx_hostile");
  Exec(a_.get(), "CREATE DATABASE pqxx_hostile");
  Exec(a_.get(),
       "ALTER DATABASE pqxx_hostile SET search_path = public, pg_catalog; "
       "ALTER DATABASE pqxx_hostile SET standard_conforming_strings = off; "
       "ALTER DATABASE pqxx_hostile SET statement_timeout = '1ms'; "
       "ALTER DATABASE pqxx_hostile SET lock_timeout = '1ms'; "
       "ALTER DATABASE pqxx_hostile SET row_security = on; "
       "ALTER DATABASE pqxx_hostile SET DateStyle = 'SQL, DMY'; "
       "ALTER DATABASE pqxx_hostile SET extra_float_digits = -15; "
       "ALTER DATABASE pqxx_hostile SET "
       "idle_in_transaction_session_timeout = '1ms'");
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(
      OpenPgSession(pg_->conninfo() + " dbname=pqxx_hostile", "hardened", &s));
  EXPECT_EQ(Value(s.get(),
                  "SELECT pg_catalog.concat_ws('|', "
                  "pg_catalog.current_setting('search_path'), "
                  "pg_catalog.current_setting('standard_conforming_strings'), "
                  "pg_catalog.current_setting('statement_timeout'), "
                  "pg_catalog.current_setting('lock_timeout'), "
                  "pg_catalog.current_setting('row_security'), "
                  "pg_catalog.current_setting('DateStyle'), "
                  "pg_catalog.current_setting('extra_float_digits'), "
                  "pg_catalog.current_setting("
                  "'idle_in_transaction_session_timeout'), "
                  "pg_catalog.current_setting('application_name'))"),
            "pg_catalog, pg_temp|on|0|0|off|ISO, MDY|1|0|hardened");
  // The timeouts were off from the startup packet on, before the hardening
  // statement itself ran: RESET returns to the startup value, not the
  // database's 1ms.
  const std::string reset_values =
      "SELECT pg_catalog.string_agg(name || '=' || reset_val, ' ' ORDER BY "
      "name) FROM pg_catalog.pg_settings WHERE name IN "
      "('statement_timeout', 'lock_timeout', "
      "'idle_in_transaction_session_timeout')";
  EXPECT_EQ(Value(s.get(), reset_values),
            "idle_in_transaction_session_timeout=0 lock_timeout=0 "
            "statement_timeout=0");
  // The same database as configured, for contrast; without its 1ms
  // statement_timeout, which would cancel the contrast's own queries.
  Exec(a_.get(), "ALTER DATABASE pqxx_hostile RESET statement_timeout");
  std::unique_ptr<SqlSession> plain;
  PGLAYOUT_ASSERT_OK(OpenPgSessionAsConfigured(
      pg_->conninfo() + " dbname=pqxx_hostile", "plain", &plain));
  EXPECT_EQ(
      Value(plain.get(), "SELECT pg_catalog.current_setting('search_path')"),
      "public, pg_catalog");
  EXPECT_EQ(Value(plain.get(), reset_values),
            "idle_in_transaction_session_timeout=1 lock_timeout=1 "
            "statement_timeout=0");
  s.reset();
  plain.reset();
  Exec(a_.get(), "DROP DATABASE pqxx_hostile");
}

// The caller's own startup options survive the ones OpenPgSession adds,
// from a keyword string and from a URI alike.
TEST_P(PqxxSessionTest, TheCallersStartupOptionsAreKept) {
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(OpenPgSession(
      pg_->conninfo() + " options='-c work_mem=7MB'", "options", &s));
  EXPECT_EQ(Value(s.get(), "SELECT pg_catalog.current_setting('work_mem')"),
            "7MB");
  PGLAYOUT_ASSERT_OK(
      OpenPgSession("postgresql://127.0.0.1:" + std::to_string(pg_->port()) +
                        "/postgres?user=postgres&options=-c%20work_mem%3D9MB",
                    "options", &s));
  EXPECT_EQ(Value(s.get(), "SELECT pg_catalog.current_setting('work_mem')"),
            "9MB");
  EXPECT_EQ(
      Value(s.get(), "SELECT pg_catalog.current_setting('application_name')"),
      "options");
}

TEST_P(PqxxSessionTest, ConnectionErrorsNeverShowThePassword) {
  // libpq echoes a URI with a bad percent-encoding whole.
  std::unique_ptr<SqlSession> s;
  Status st =
      OpenPgSession("postgresql://app:hunter%zz2@127.0.0.1:1/x", "t", &s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("percent"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("hunter"), std::string::npos) << st.message();
  st = OpenPgSession("postgresql://app:hunter2@127.0.0.1:" +
                         std::to_string(pg_->port()) + "/no_such_db_here",
                     "t", &s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().find("hunter2"), std::string::npos) << st.message();
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(PqxxSessionTest);

}  // namespace
}  // namespace pglayout
