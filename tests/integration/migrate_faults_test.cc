// Faults in the middle of `pglayout migrate` against real PostgreSQL 12, 15
// and 18: the server killed (pg_ctl stop -m immediate), the migrator's main
// session terminated or cancelled, at each phase of an online move and of a
// hash conversion, with the checkpoint guard's raise capped. After each:
// no row lost or duplicated against a twin kept equal by a writer,
// `--status` names the raised max_wal_size and the way back, no count is
// negative, and a resume (or an --abort) converges with max_wal_size back
// at its original. And two databases of one cluster, one after the other
// and at once, leave max_wal_size at the cluster's original.
// Why: docs/checkpoints.md#after-a-fault.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <regex>
#include <thread>

#include "common/files.h"
#include "migrator/migrator.h"
#include "migrator/sql_util.h"
#include "testing/pg_test.h"
#include "tests/integration/migrate_test_util.h"
#include "tests/integration/twin_writer.h"

namespace pglayout::migrator {
namespace {

Status Open(PgCluster* pg, const std::string& db,
            std::unique_ptr<SqlSession>* s) {
  return OpenPgSessionAsConfigured(Conninfo(pg, db), "pglayout-faults-test", s);
}

// A negative count anywhere ("-4 requested", "-1 timed").
bool HasNegativeCount(const MigrateResult& report) {
  static const std::regex negative("-[0-9]+ (timed|requested)");
  return std::regex_search(Lines(report), negative);
}

// max_wal_size once a pending reload has reached |s| (pg_reload_conf only
// signals), and what postgresql.auto.conf says about it and pglayout's
// cluster-wide record.
std::string MaxWalSizeSettled(SqlSession* s, const std::string& expected) {
  std::string value = Value(s, "SHOW max_wal_size");
  for (int i = 0; i < 50 && value != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    value = Value(s, "SHOW max_wal_size");
  }
  return value;
}

std::string AutoConfEntries(SqlSession* s) {
  return Value(s,
               "SELECT coalesce(string_agg(name || '=' || setting, ',' ORDER "
               "BY name), '') FROM pg_file_settings WHERE sourcefile LIKE "
               "'%postgresql.auto.conf' AND (name = 'max_wal_size' OR name "
               "LIKE 'pglayout.%')");
}

Status Migrate(const std::string& plan_toml, const std::string& conninfo,
               const MigrateOptions& base, MigrateMode mode,
               MigrateResult* report) {
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ParsePlan(plan_toml, "plan.toml", &plan));
  MigrateOptions options = base;
  options.conninfo = conninfo;
  options.apply = mode != MigrateMode::kStatus;
  options.mode = mode;
  *report = MigrateResult();
  return pglayout::migrator::Migrate(plan, options, nullptr, report);
}

enum class Fault { kCrash, kTerminate, kCancel };
enum class Phase { kCopy, kIndexBuild, kVerify, kSwapWait };

const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kCrash:
      return "crash";
    case Fault::kTerminate:
      return "terminate";
    case Fault::kCancel:
      return "cancel";
  }
  return "?";
}

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kCopy:
      return "copy";
    case Phase::kIndexBuild:
      return "index build";
    case Phase::kVerify:
      return "verification";
    case Phase::kSwapWait:
      return "swap wait";
  }
  return "?";
}

// Whether failpoint |name| marks |phase|.
bool AtPhase(Phase phase, const std::string& name) {
  switch (phase) {
    case Phase::kCopy:
      return name == "copy-batch:2:after-commit";
    case Phase::kIndexBuild:
      return name.starts_with("index:") && name.ends_with(":before-commit");
    case Phase::kVerify:
      return name.starts_with("before-verify:");
    case Phase::kSwapWait:
      return name.starts_with("swap-wait:");
  }
  return false;
}

struct FaultCase {
  bool hash = false;  // a hash conversion, else a move
  Phase phase = Phase::kCopy;
  Fault fault = Fault::kCrash;
  bool abort = false;  // --abort after the fault, else resume
};

std::string CaseName(const FaultCase& c) {
  return fmt::format("{} at the {} of a {}, then {}", FaultName(c.fault),
                     PhaseName(c.phase), c.hash ? "hash conversion" : "move",
                     c.abort ? "--abort" : "a resume");
}

// Keeps table t and its twin t_v equal: each transaction changes both.
TwinWriter StartTwinWriter(PgCluster* pg, const std::string& db) {
  return TwinWriter(
      [pg, db](std::unique_ptr<SqlSession>* s) { return Open(pg, db, s); },
      [](int i) {
        int id = 1 + (i * 7919) % 12000;
        return fmt::format(
            "UPDATE t SET v = v || 'u' WHERE id = {0}; UPDATE t_v SET v = v "
            "|| 'u' WHERE id = {0}; INSERT INTO t VALUES ({1}, 'new'); "
            "INSERT INTO t_v VALUES ({1}, 'new');",
            id, 100000 + i);
      },
      std::chrono::milliseconds(20));
}

// A cancel that lands on a statement of the migrator's main session in the
// phase of the failpoint, whatever the timing: from Start() (in the
// failpoint) a session of the test holds ACCESS EXCLUSIVE on t and its
// shadow (queued behind the migrator's open transaction, if any), so the
// main session's next statement that needs either waits for the lock; the
// canceller cancels that wait (one it blocks, which cannot end before the
// cancel lands, unlike a wait for the writer's short transactions), then
// releases the lock. Stop() ends it if
// the run ended first (a swap that gave up waiting).
class Canceller {
 public:
  Canceller(PgCluster* pg, std::string db) : pg_(pg), db_(std::move(db)) {}
  ~Canceller() { Stop(); }

  void Start() {
    PGLAYOUT_ASSERT_OK(Open(pg_, db_, &holder_));
    PGLAYOUT_ASSERT_OK(Open(pg_, db_, &watcher_));
    const std::string pid = Value(holder_.get(), "SELECT pg_backend_pid()");
    const std::string shadow =
        Value(holder_.get(), "SELECT 'pglayout_new_' || 't'::regclass::oid");
    Exec(holder_.get(), "BEGIN");
    thread_ = std::thread([this, shadow, pid]() { Run(shadow, pid); });
    // The lock is held or queued before the migrator goes on: any request
    // of the shadow from now on waits behind it.
    for (int i = 0; i < 6000 && !locked_; ++i) {
      if (Value(watcher_.get(),
                "SELECT count(*) FROM pg_locks WHERE pid = " + pid +
                    " AND locktype = 'relation' AND "
                    "mode = 'AccessExclusiveLock'") != "0") {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(locked_) << "the canceller's lock was never requested";
  }

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool cancelled() const { return cancelled_; }

 private:
  void Run(const std::string& shadow, const std::string& holder_pid) {
    // The shadow alone: the copy's statements lock it before t, so holding
    // both could deadlock with the run instead of making it wait.
    Status st = ExecuteSql(
        holder_.get(), "LOCK TABLE " + shadow + " IN ACCESS EXCLUSIVE MODE");
    locked_ = true;
    std::unique_ptr<SqlSession> s;
    if (!st.ok() || !Open(pg_, db_, &s).ok()) return;
    const std::string waiting =
        "FROM pg_stat_activity WHERE application_name LIKE "
        "'pglayout-migrate/run%/main' AND state = 'active' AND " +
        holder_pid + " = ANY (pg_blocking_pids(pid))";
    SqlResult r;
    while (!stop_ && !cancelled_) {
      if (s->Execute(
               "SELECT pg_cancel_backend(pid), pid, query_start " + waiting, {},
               &r)
              .ok() &&
          !r.rows.empty() && r.rows[0][0] == "t") {
        cancelled_ = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    // The lock goes once the cancelled statement has ended (not a later
    // one that waits for it again: the run may still need t).
    for (int i = 0; cancelled_ && i < 3000; ++i) {
      SqlResult same;
      if (!s->Execute("SELECT FROM pg_stat_activity WHERE pid = $1::int AND "
                      "state = 'active' AND query_start = $2::timestamptz",
                      {r.rows[0][1], r.rows[0][2]}, &same)
               .ok() ||
          same.rows.empty()) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    (void)ExecuteSql(holder_.get(), "ROLLBACK");
  }

  PgCluster* pg_;
  std::string db_;
  std::unique_ptr<SqlSession> holder_, watcher_;
  std::atomic<bool> stop_{false}, locked_{false}, cancelled_{false};
  std::thread thread_;
};

class MigrateFaultsTest : public PgVersionTest {
 protected:
  // A private server (it is crashed) with a small max_wal_size, so that
  // the guard raises it for a table of a few MB.
  void SetUp() override {
    PgClusterOptions options;
    options.settings = {{"max_wal_size", "32MB"},
                        {"min_wal_size", "32MB"},
                        {"checkpoint_timeout", "1h"}};
    PGLAYOUT_ASSERT_OK(StartCluster(options, &pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin_));
    options_.throttle = ThrottleMode::kOff;
    options_.batch_rows = 3000;
    // The guard's raise (32 MB + the copy's WAL) capped at 36 MB.
    options_.max_wal_size_cap = 36ull << 20;
    options_.restore_wait_s = 0;  // restore at once: no room to wait for
    options_.old_xact_wait_s = 5;
  }

  // A fresh database |db| with t (12,000 rows, about 2 MB) and its twin,
  // and the plan: move t, or convert it to 4 hash partitions.
  void MakeDatabase(const std::string& db, bool hash, std::string* plan) {
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin_));  // a crash ended the last
    Exec(admin_.get(), "DROP DATABASE IF EXISTS " + db);
    Exec(admin_.get(), "CREATE DATABASE " + db);
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &s));
    Exec(s.get(),
         "CREATE TABLE t (id int PRIMARY KEY, v text);"
         "INSERT INTO t SELECT g, repeat(md5(g::text), 3) FROM "
         "generate_series(1, 12000) g;"
         "CREATE TABLE t_v AS TABLE t; ALTER TABLE t_v ADD PRIMARY KEY (id);"
         "ANALYZE t");
    std::string dir;
    PGLAYOUT_ASSERT_OK(pg_->MakeDirectory("ts_" + db, &dir));
    *plan = fmt::format(
        "[[tablespace]]\nname = \"ts_{0}\"\npath = \"{1}\"\n"
        "[[placement]]\nrelation = \"public.t\"\n",
        db, dir);
    *plan += hash ? fmt::format(
                        "strategy = \"hash_partition\"\nkey = [\"id\"]\n"
                        "partitions = 4\ntablespaces = [\"ts_{}\", "
                        "\"pg_default\"]\n",
                        db)
                  : fmt::format(
                        "strategy = \"move\"\ntablespaces = [\"ts_{}\"]\n", db);
  }

  // The fault, from the failpoint: the server killed, or the main session
  // terminated; a cancel needs a statement running (one that has just
  // ended ignores it), so the canceller makes the next statement that
  // needs the shadow wait for its lock, and cancels that.
  void Inject(Fault fault, Canceller* canceller) {
    switch (fault) {
      case Fault::kCrash:
        PGLAYOUT_EXPECT_OK(pg_->Restart(StopMode::kImmediate));
        return;
      case Fault::kTerminate: {
        std::unique_ptr<SqlSession> s;
        PGLAYOUT_ASSERT_OK(pg_->Connect(&s));
        Exec(s.get(),
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
             "application_name LIKE 'pglayout-migrate/run%/main'");
        return;
      }
      case Fault::kCancel:
        canceller->Start();
        return;
    }
  }

  // *stopped: the fault stopped the run (every one must).
  void RunCase(const FaultCase& c, int number, bool* stopped) {
    SCOPED_TRACE(CaseName(c));
    const std::string db = fmt::format("f{}", number);
    std::string plan;
    MakeDatabase(db, c.hash, &plan);
    if (HasFatalFailure()) return;
    const std::string conninfo = Conninfo(pg_.get(), db);
    // An old transaction makes the swap wait for it.
    std::unique_ptr<SqlSession> old;
    if (c.phase == Phase::kSwapWait) {
      PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &old));
      Exec(old.get(), "BEGIN; SELECT txid_current()");
    }
    TwinWriter writer = StartTwinWriter(pg_.get(), db);
    MigrateOptions faulty = options_;
    Canceller canceller(pg_.get(), db);
    bool injected = false;
    faulty.failpoint = [&](const std::string& name) {
      if (injected || !AtPhase(c.phase, name)) return;
      injected = true;
      Inject(c.fault, &canceller);
    };
    MigrateResult first;
    Status st = Migrate(plan, conninfo, faulty, MigrateMode::kRun, &first);
    canceller.Stop();
    old.reset();  // ends the old transaction (a crash ended it already)
    ASSERT_TRUE(injected) << Lines(first);
    EXPECT_FALSE(HasNegativeCount(first)) << Lines(first);
    *stopped = !st.ok();
    // Every fault stops the run, and the run says it resumes (a cancel
    // included: it lands on a statement the run cannot do without).
    ASSERT_FALSE(st.ok()) << Lines(first);
    EXPECT_NE(st.message().find("resume"), std::string::npos) << st.message();
    if (c.fault == Fault::kCancel && c.phase != Phase::kSwapWait) {
      // (The swap's wait may give up before it needs the lock.)
      EXPECT_TRUE(canceller.cancelled());
      EXPECT_NE(st.message().find("a statement was cancelled"),
                std::string::npos)
          << st.message();
    }
    {
      // The truth after the fault: the raise, its run, the way back.
      MigrateResult status;
      PGLAYOUT_ASSERT_OK(
          Migrate(plan, conninfo, options_, MigrateMode::kStatus, &status));
      EXPECT_FALSE(HasNegativeCount(status)) << Lines(status);
      EXPECT_TRUE(HasLine(status,
                          "max_wal_size raised to 36MB by run 1, "
                          "which stopped at "))
          << Lines(status);
      EXPECT_TRUE(HasLine(status,
                          "restores max_wal_size to 32MB at its end, "
                          "`pglayout migrate --abort` restores it now"))
          << Lines(status);
      EXPECT_FALSE(HasLine(status, "no restore is pending")) << Lines(status);
      ASSERT_EQ(status.settings.size(), 1u) << Lines(status);
      EXPECT_EQ(status.settings[0].original, "32MB");
      MigrateResult end;
      PGLAYOUT_ASSERT_OK(
          Migrate(plan, conninfo, options_,
                  c.abort ? MigrateMode::kAbort : MigrateMode::kRun, &end));
      EXPECT_FALSE(HasNegativeCount(end)) << Lines(end);
      EXPECT_TRUE(HasLine(end, c.abort ? "run 1 aborted" : "run 1 done"))
          << Lines(end);
      if (c.fault == Fault::kCrash && !c.abort) {
        EXPECT_TRUE(HasLine(end,
                            "checkpoints during the run: unknown (statistics "
                            "were reset by a server restart)"))
            << Lines(end);
      }
    }
    writer.Stop();
    EXPECT_GT(writer.commits(), 0);
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &s));
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) FROM ((TABLE t EXCEPT ALL TABLE t_v) "
                    "UNION ALL (TABLE t_v EXCEPT ALL TABLE t)) d"),
              "0");
    EXPECT_EQ(MaxWalSizeSettled(s.get(), "32MB"), "32MB");
    EXPECT_EQ(AutoConfEntries(s.get()), "");
    EXPECT_EQ(
        Value(s.get(), "SELECT string_agg(state, ',') FROM pglayout.setting"),
        "restored");
  }

  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> admin_;
  MigrateOptions options_;
};

// Each phase of a move and of a hash conversion, under each fault in turn
// (each fault at two or more phases), then a resume or an --abort.
TEST_P(MigrateFaultsTest, AFaultAtAnyPhaseLeavesTheTruthAndConverges) {
  const std::vector<FaultCase> cases = {
      {false, Phase::kCopy, Fault::kCrash, false},
      {false, Phase::kCopy, Fault::kCancel, false},
      {false, Phase::kIndexBuild, Fault::kTerminate, false},
      {false, Phase::kIndexBuild, Fault::kCrash, true},
      {false, Phase::kVerify, Fault::kCancel, true},
      {false, Phase::kVerify, Fault::kTerminate, false},
      {false, Phase::kSwapWait, Fault::kCrash, false},
      {false, Phase::kSwapWait, Fault::kTerminate, true},
      {true, Phase::kCopy, Fault::kTerminate, false},
      {true, Phase::kIndexBuild, Fault::kCancel, false},
      {true, Phase::kVerify, Fault::kCrash, false},
      {true, Phase::kSwapWait, Fault::kCancel, true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    bool stopped = false;
    RunCase(cases[i], static_cast<int>(i), &stopped);
    std::cerr << fmt::format(
        "{} (the fault {} the run): {:.1f} s\n", CaseName(cases[i]),
        stopped ? "stopped" : "did not stop",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    if (HasFatalFailure()) return;
  }
}

// max_wal_size is one value for the cluster: a run in database a leaves it
// raised (--leave-raised), a run in database b takes the cluster's
// original from the record a left (not a's raised value), restores it, and
// a's --finalize finds it back. Then both at once: one waits for the
// other's settings lock; the cluster ends at its original.
TEST_P(MigrateFaultsTest, TwoDatabasesOfOneClusterEndAtItsOriginal) {
  std::string plan_a, plan_b;
  MakeDatabase("a", false, &plan_a);
  MakeDatabase("b", false, &plan_b);
  const std::string in_a = Conninfo(pg_.get(), "a");
  const std::string in_b = Conninfo(pg_.get(), "b");
  MigrateOptions leave = options_;
  leave.leave_guard_raised = true;
  MigrateResult a, status_b, b, finalize_a;
  PGLAYOUT_ASSERT_OK(Migrate(plan_a, in_a, leave, MigrateMode::kRun, &a));
  EXPECT_EQ(MaxWalSizeSettled(admin_.get(), "36MB"), "36MB");
  EXPECT_EQ(AutoConfEntries(admin_.get()),
            "max_wal_size=36MB,pglayout.max_wal_size_raised_by=run 1 in "
            "database a,pglayout.original_max_wal_size=32MB");
  // Database b's --status names the raise from a.
  PGLAYOUT_ASSERT_OK(
      Migrate(plan_b, in_b, options_, MigrateMode::kStatus, &status_b));
  EXPECT_TRUE(HasLine(status_b,
                      "max_wal_size: raised by run 1 in database a from the "
                      "cluster's original 32MB"))
      << Lines(status_b);
  PGLAYOUT_ASSERT_OK(Migrate(plan_b, in_b, options_, MigrateMode::kRun, &b));
  EXPECT_TRUE(HasLine(b, "checkpoint guard: raise max_wal_size 32MB -> 36MB"))
      << Lines(b);
  EXPECT_TRUE(HasLine(b, "restored max_wal_size to 32MB")) << Lines(b);
  EXPECT_EQ(MaxWalSizeSettled(admin_.get(), "32MB"), "32MB");
  EXPECT_EQ(AutoConfEntries(admin_.get()), "");
  MigrateOptions finalize = options_;
  PGLAYOUT_ASSERT_OK(
      Migrate(plan_a, in_a, finalize, MigrateMode::kFinalize, &finalize_a));
  EXPECT_TRUE(HasLine(finalize_a, "is already back at 32MB"))
      << Lines(finalize_a);
  EXPECT_EQ(MaxWalSizeSettled(admin_.get(), "32MB"), "32MB");
  EXPECT_EQ(AutoConfEntries(admin_.get()), "");

  // At once, on fresh tables: one run holds the settings lock for its
  // whole length, the other waits for it.
  MakeDatabase("c", false, &plan_a);
  MakeDatabase("d", false, &plan_b);
  MigrateOptions patient = options_;
  patient.lock_wait_s = 120;
  MigrateResult c, d;
  Status st_c, st_d;
  std::thread tc([&]() {
    st_c = Migrate(plan_a, Conninfo(pg_.get(), "c"), patient, MigrateMode::kRun,
                   &c);
  });
  std::thread td([&]() {
    st_d = Migrate(plan_b, Conninfo(pg_.get(), "d"), patient, MigrateMode::kRun,
                   &d);
  });
  tc.join();
  td.join();
  PGLAYOUT_EXPECT_OK(st_c);
  PGLAYOUT_EXPECT_OK(st_d);
  EXPECT_EQ(MaxWalSizeSettled(admin_.get(), "32MB"), "32MB")
      << Lines(c) << "--\n"
      << Lines(d);
  EXPECT_EQ(AutoConfEntries(admin_.get()), "");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(MigrateFaultsTest);

}  // namespace
}  // namespace pglayout::migrator
