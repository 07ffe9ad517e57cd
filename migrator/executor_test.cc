// The executor's transactions and lock retries over a scripted session.

#include "migrator/executor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "migrator/journal.h"
#include "migrator/sql_util.h"
#include "testing/fake_sql_session.h"

namespace pglayout::migrator {
namespace {

struct ExecutorCase {
  FakeSqlSession session;
  Journal journal{&session};
  MigrateOptions options;
  MigrateResult report;
  NullProgress progress;
  std::vector<std::string> failpoints;

  ExecutorCase() {
    session.On({"pg_cancel_backend", {{}, {{"0"}}}, "", -1});
    options.lock_timeout_ms = 1;
    options.lock_deadline_s = 5;
    options.failpoint = [this](const std::string& n) {
      failpoints.push_back(n);
    };
  }
  Executor Make() {
    return Executor(&session, &journal, options, &progress, &report);
  }
};

TEST(Executor, RetriesLockTimeoutsInFreshTransactions) {
  ExecutorCase c;
  c.session.Fail("LOCK TABLE", "55P03", 2);
  Executor ex = c.Make();
  int between = 0;
  Status st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() { return ex.Exec("LOCK TABLE t IN ACCESS EXCLUSIVE MODE"); },
      [&]() {
        ++between;
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c.session.Count("BEGIN"), 3);
  // Between attempts, never before the first: PostgreSQL too cancels an
  // autovacuum only for a session that waited for it.
  EXPECT_EQ(c.session.Count("pg_cancel_backend"), 2);
  EXPECT_EQ(c.report.lines.size(), 0u) << "nothing was cancelled";
  EXPECT_EQ(c.session.Count("ROLLBACK"), 2);
  EXPECT_EQ(c.session.Count("COMMIT"), 1);
  EXPECT_EQ(c.session.Count("SET LOCAL lock_timeout = '1ms'"), 3);
  EXPECT_EQ(c.session.Count(
                "SET LOCAL idle_in_transaction_session_timeout = '10000ms'"),
            3)
      << "a frozen client must not keep its locks";
  EXPECT_EQ(c.session.Count("SAVEPOINT"), 0)
      << "savepoint loops overflow the subtransaction cache";
  EXPECT_EQ(between, 2);
  EXPECT_EQ(c.failpoints, std::vector<std::string>{"swap:before-commit"});
}

TEST(Executor, RetriesWhenTheBodyAsksToAndOnlyThen) {
  ExecutorCase c;
  Executor ex = c.Make();
  int calls = 0, between = 0;
  Status st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() -> Status {
        PGLAYOUT_RETURN_IF_ERROR(ex.Exec("LOCK TABLE t"));
        return ++calls == 1 ? ex.RetryLater("too much to replay")
                            : Status::Ok();
      },
      [&]() {
        ++between;
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(between, 1);
  EXPECT_EQ(c.session.Count("ROLLBACK"), 1);
  EXPECT_EQ(c.session.Count("COMMIT"), 1);

  // Any other failure of the body ends it at once.
  calls = 0;
  st = ex.WithLockRetry(
      "swap", {"t"},
      [&]() -> Status {
        ++calls;
        return Status::Aborted("verification failed");
      },
      nullptr);
  EXPECT_EQ(st.message(), "verification failed");
  EXPECT_EQ(calls, 1);
}

TEST(Executor, GivesUpAfterTheDeadlineAndNamesWhy) {
  ExecutorCase c;
  c.options.lock_deadline_s = 0.05;
  c.session.Fail("LOCK TABLE", "55P03", -1);
  c.session.On({"pg_locks l LEFT JOIN",
                {{},
                 {{"pid 42 (psql, idle in transaction for 30 s, "
                   "AccessShareLock on t)"}}},
                "",
                -1});
  Executor ex = c.Make();
  Status st = ex.WithLockRetry("swap", {"t", "\"odd \"\"name\""}, [&]() {
    return ex.Exec("LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("swap: gave up after"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("lock_timeout = 1 ms"), std::string::npos);
  EXPECT_NE(st.message().find("Holding locks on t, \"odd \"\"name\" now: pid "
                              "42 (psql, idle in transaction for 30 s, "
                              "AccessShareLock on t)"),
            std::string::npos)
      << st.message();
  ASSERT_TRUE(c.session.last_params.size() == 1 &&
              c.session.last_params[0].has_value());
  EXPECT_EQ(*c.session.last_params[0], "{\"t\",\"\\\"odd \\\"\\\"name\\\"\"}")
      << "the relations go as one text[] parameter";
}

TEST(Executor, SaysWhichAutovacuumWorkersItCancelled) {
  FakeSqlSession s;
  s.On({"pg_cancel_backend",
        {{},
         {{"2",
           "autovacuum: VACUUM public.t; autovacuum: VACUUM "
           "pg_toast.pg_toast_1"}}},
        "",
        1});
  s.On({"pg_cancel_backend", {{}, {{"0", std::nullopt}}}, "", 1});
  s.Fail("pg_cancel_backend", "42501", -1);
  Journal journal(&s);
  MigrateOptions options;
  NullProgress progress;
  MigrateResult report;
  Executor ex(&s, &journal, options, &progress, &report);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ex.CancelAutovacuumOn({"public.t", "pglayout.log_1"}).ok())
        << "cancelling is best effort";
  }
  ASSERT_EQ(report.lines.size(), 2u);
  EXPECT_EQ(report.lines[0],
            "cancelled 2 autovacuum worker(s) holding a lock this step needs "
            "(autovacuum: VACUUM public.t; autovacuum: VACUUM "
            "pg_toast.pg_toast_1), as PostgreSQL does for a lock waiter "
            "after deadlock_timeout; autovacuum comes back later");
  EXPECT_EQ(report.lines[1],
            "could not cancel autovacuum workers holding public.t, "
            "pglayout.log_1 (fake error (SQLSTATE 42501)); waiting for them "
            "instead")
      << "said once";
  const std::string& sql = s.statements[0];
  EXPECT_NE(sql.find("NOT LIKE '%to prevent wraparound%'"), std::string::npos)
      << "an anti-wraparound vacuum is never cancelled";
  EXPECT_NE(sql.find("AS MATERIALIZED"), std::string::npos)
      << "only the candidates are ever signalled";
}

TEST(Executor, DoesNotRetryOtherErrors) {
  ExecutorCase c;
  c.session.Fail("CREATE TABLE", "42P07", -1);
  Executor ex = c.Make();
  Status st = ex.WithLockRetry("prepare", {"x"},
                               [&]() { return ex.Exec("CREATE TABLE x ()"); });
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(c.session.Count("BEGIN"), 1);
  EXPECT_EQ(c.session.Count("ROLLBACK"), 1);
  EXPECT_EQ(c.session.Count("COMMIT"), 0);
}

}  // namespace

// A step's error says it resumes when the server rolled the transaction
// back: a cancel, and a deadlock's victim or a serialization failure; any
// other SQL error, or one with these codes in its text only, does not.
TEST(StepErrors, TellsRollbacksByTheServerFromOtherErrors) {
  const Status deadlock = Status::SqlError(
      "ERROR:  deadlock detected; DETAIL:  Process 1 waits for "
      "AccessShareLock (SQLSTATE 40P01)");
  const Status serialization =
      Status::SqlError("ERROR:  could not serialize access (SQLSTATE 40001)");
  const Status cancel = Status::SqlError(
      "ERROR:  canceling statement due to user request (SQLSTATE 57014)");
  EXPECT_TRUE(IsConflictRollback(deadlock));
  EXPECT_TRUE(IsConflictRollback(serialization));
  EXPECT_FALSE(IsConflictRollback(cancel));
  EXPECT_TRUE(IsCancelled(cancel));
  EXPECT_FALSE(IsCancelled(deadlock));
  EXPECT_FALSE(IsConflictRollback(Status::SqlError(
      "ERROR:  duplicate key value violates unique constraint (SQLSTATE "
      "23505)")));
  EXPECT_FALSE(IsConflictRollback(
      Status::InvalidInput("plan.toml:3: relation \"(SQLSTATE 40P01)\"")));
}

}  // namespace pglayout::migrator
