// Online moves whose changes are captured by logical decoding (--capture
// logical) against real PostgreSQL 12, 15 and 18 with wal_level = logical,
// under a writer that inserts, updates (the key too, and rows with TOASTed
// values) and deletes in t and, in the same transactions, in its twin t_v:
// after the move, after the main session is terminated at each phase and
// after a server crash mid-copy, each followed by a resume, t equals t_v, and
// no replication slot or capture publication is left; the same after the
// pglayout client itself is killed with SIGKILL at each phase, and a
// stream the server cut for its timeout is opened again; --abort
// after such a kill leaves no slot; --abort drops the slot; --finalize drops
// the slot and publication a finished run left, keeps one a session reads
// and leaves names that only resemble pglayout's; a
// slot dropped under a stopped run makes the resume copy again; and auto on a
// wal_level = replica server captures by trigger and says why. Why:
// docs/online-migration.md#logical-capture.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "common/files.h"
#include "migrator/executor.h"
#include "migrator/migrator.h"
#include "migrator/sql_util.h"
#include "pg/replication_stream.h"
#include "testing/pg_test.h"
#include "tests/integration/migrate_test_util.h"
#include "tests/integration/twin_writer.h"
#include "tests/run_pglayout.h"

namespace pglayout::migrator {
namespace {

Status Open(PgCluster* pg, const std::string& db,
            std::unique_ptr<SqlSession>* s) {
  return OpenPgSessionAsConfigured(Conninfo(pg, db), "pglayout-logical-test",
                                   s);
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

constexpr int kRows = 6000;

// Keeps t and t_v equal, each transaction changing both the same way:
// an insert, an update of a small value, an update of the key, an update
// of a TOASTed value, a delete.
TwinWriter StartTwinWriter(PgCluster* pg, const std::string& db) {
  return TwinWriter(
      [pg, db](std::unique_ptr<SqlSession>* s) { return Open(pg, db, s); },
      [](int i) {
        const int a = 1 + (i * 7919) % kRows, b = 1 + (i * 104729) % kRows,
                  c = 1 + (i * 1299709) % kRows, d = 1 + (i * 15485863) % kRows;
        std::string body;
        for (const char* table : {"t", "t_v"}) {
          body += fmt::format(
              "INSERT INTO {0} VALUES ({1}, 'new', NULL); "
              "UPDATE {0} SET v = v || 'u' WHERE id = {2}; "
              "UPDATE {0} SET id = id + 1000000 WHERE id = {3}; "
              "UPDATE {0} SET big = big || 'x' WHERE id = {4}; "
              "DELETE FROM {0} WHERE id = {5}; ",
              table, 100000 + i, a, b, c, d);
        }
        return body;
      },
      std::chrono::milliseconds(10));
}

// The failpoints where the main session is terminated, one per phase.
const std::vector<std::string> kPhases = {
    "after-slot:",                // slot made, nothing journaled yet
    "copy-batch:2:after-commit",  // the copy
    "capture-pump:after-commit",  // keys logged, the slot not advanced
    "index:",                     // an index build (":before-commit")
    "before-verify:",             // the verification
    "before-swap:",               // the swap
};

// The failpoints where the pglayout binary kills itself with SIGKILL, in
// the order one run after another meets them: each resume is killed at the
// next. The copy (slot made before its journal row; a batch; keys logged,
// the slot not advanced), the catch-up (a replay; the verification) and
// the swap.
const std::vector<std::string> kKillPoints = {
    "after-slot:move:public.t",    "copy-batch:2:after-commit",
    "capture-pump:after-commit",   "replay:before-commit",
    "before-verify:move:public.t", "before-swap:move:public.t",
};

// `pglayout migrate PLAN --apply` with the suite's options on database
// |db|, killing itself at |failpoint| ("" = none).
Completion RunMigrateBinary(PgCluster* pg, const std::string& plan_path,
                            const std::string& db,
                            const std::string& failpoint) {
  return RunPglayout(
      {"migrate", plan_path, "--dsn", Conninfo(pg, db), "--apply", "--capture",
       "logical", "--batch-rows", "1500", "--throttle", "off",
       "--old-xact-wait", "5"},
      failpoint.empty() ? std::vector<std::string>{} : FailpointEnv(failpoint));
}

// The capture slots and publications a killed client leaves: "slots,
// publications" counted by pglayout's prefix.
std::string CaptureLeft(SqlSession* s) {
  return Value(s,
               "SELECT (SELECT count(*) FROM pg_replication_slots WHERE "
               "slot_name LIKE 'pglayout\\_%') || ',' || (SELECT count(*) "
               "FROM pg_publication WHERE pubname LIKE 'pglayout\\_%')");
}

bool AtPhase(const std::string& phase, const std::string& name) {
  if (phase == "index:") {
    return name.starts_with("index:") && name.ends_with(":before-commit");
  }
  return name.starts_with(phase);
}

class MigrateLogicalTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PgClusterOptions options;
    options.settings = {{"wal_level", "logical"},
                        {"max_replication_slots", "4"}};
    PGLAYOUT_ASSERT_OK(StartCluster(options, &pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&admin_));
    options_.throttle = ThrottleMode::kOff;
    options_.batch_rows = 1500;
    options_.capture = CaptureMode::kLogical;
    options_.old_xact_wait_s = 5;
  }

  // A fresh database |db| with t (6,000 rows, every tenth with a TOASTed
  // value) and its twin, and the plan moving t.
  void MakeDatabase(const std::string& db, std::string* plan) {
    Exec(admin_.get(), "DROP DATABASE IF EXISTS " + db);
    Exec(admin_.get(), "CREATE DATABASE " + db);
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &s));
    Exec(s.get(),
         fmt::format("CREATE TABLE t (id int PRIMARY KEY, v text, big text);"
                     "INSERT INTO t SELECT g, md5(g::text), CASE WHEN g % 10 "
                     "= 0 THEN (SELECT string_agg(md5(g::text || i), '') FROM "
                     "generate_series(1, 200) i) END FROM "
                     "generate_series(1, {}) g;"
                     "CREATE TABLE t_v AS TABLE t; ALTER TABLE t_v ADD "
                     "PRIMARY KEY (id); ANALYZE t",
                     kRows));
    // The TOASTed values are out of line, as the test means them.
    EXPECT_NE(Value(s.get(),
                    "SELECT pg_relation_size(reltoastrelid) FROM pg_class "
                    "WHERE relname = 't'"),
              "0");
    std::string dir;
    PGLAYOUT_ASSERT_OK(pg_->MakeDirectory("ts_" + db, &dir));
    *plan = fmt::format(
        "[[tablespace]]\nname = \"ts_{0}\"\npath = \"{1}\"\n"
        "[[placement]]\nrelation = \"public.t\"\nstrategy = \"move\"\n"
        "tablespaces = [\"ts_{0}\"]\n",
        db, dir);
  }

  // t equals its twin, it sits in its new tablespace, and nothing of the
  // capture is left.
  void ExpectConverged(const std::string& db, int commits) {
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &s));
    EXPECT_GT(commits, 0);
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) FROM ((TABLE t EXCEPT ALL TABLE t_v) "
                    "UNION ALL (TABLE t_v EXCEPT ALL TABLE t)) d"),
              "0");
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) = (SELECT count(*) FROM t_v) "
                    "FROM t"),
              "t");
    EXPECT_EQ(Value(s.get(),
                    "SELECT spcname FROM pg_class c JOIN pg_tablespace ts ON "
                    "ts.oid = c.reltablespace WHERE c.oid = 't'::regclass"),
              "ts_" + db);
    ExpectNoCapture(s.get());
  }

  void ExpectNoCapture(SqlSession* s) {
    EXPECT_EQ(Value(s,
                    "SELECT count(*) FROM pg_replication_slots WHERE "
                    "slot_name LIKE 'pglayout%'"),
              "0");
    EXPECT_EQ(Value(s,
                    "SELECT count(*) FROM pg_publication WHERE pubname "
                    "LIKE 'pglayout%'"),
              "0");
    EXPECT_EQ(Value(s,
                    "SELECT count(*) FROM pg_trigger WHERE tgname = "
                    "'pglayout_capture'"),
              "0");
  }

  // options_ with a failpoint that terminates the run's main session (or,
  // with |crash|, stops the server at once and starts it again) the first
  // time the run reaches |phase| (AtPhase); *injected says it did.
  MigrateOptions TerminatedAt(const std::string& phase, bool* injected,
                              bool crash = false) {
    MigrateOptions faulty = options_;
    *injected = false;
    faulty.failpoint = [this, phase, injected, crash](const std::string& name) {
      if (*injected || !AtPhase(phase, name)) return;
      *injected = true;
      if (crash) {
        PGLAYOUT_EXPECT_OK(pg_->Restart(StopMode::kImmediate));
        return;
      }
      std::unique_ptr<SqlSession> s;
      PGLAYOUT_ASSERT_OK(pg_->Connect(&s));
      Exec(s.get(),
           "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
           "application_name LIKE 'pglayout-migrate/run%/main'");
    };
    return faulty;
  }

  std::unique_ptr<PgCluster> pg_;
  std::unique_ptr<SqlSession> admin_;
  MigrateOptions options_;
};

TEST_P(MigrateLogicalTest, MovesUnderWritesWithoutATrigger) {
  std::string plan;
  MakeDatabase("l0", &plan);
  TwinWriter writer = StartTwinWriter(pg_.get(), "l0");
  bool saw_no_trigger = false;
  MigrateOptions options = options_;
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:2:after-commit") return;
    std::unique_ptr<SqlSession> s;
    if (!Open(pg_.get(), "l0", &s).ok()) return;
    // During the copy: a slot, no capture trigger on t.
    saw_no_trigger = Value(s.get(),
                           "SELECT count(*) FROM pg_trigger WHERE tgname = "
                           "'pglayout_capture'") == "0" &&
                     Value(s.get(),
                           "SELECT count(*) FROM pg_replication_slots WHERE "
                           "slot_name LIKE 'pglayout%' AND plugin = "
                           "'pgoutput'") == "1";
  };
  MigrateResult report;
  Status st = Migrate(plan, Conninfo(pg_.get(), "l0"), options,
                      MigrateMode::kRun, &report);
  writer.Stop();
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(report);
  EXPECT_TRUE(saw_no_trigger);
  EXPECT_TRUE(HasLine(report, "change capture by logical decoding"))
      << Lines(report);
  EXPECT_TRUE(HasLine(
      report, version() == PgVersion::k12 ? "in key order" : "heap block"))
      << Lines(report);
  ExpectConverged("l0", writer.commits());
}

// The stream stays open between pumps; while the run works elsewhere past
// wal_sender_timeout the server cuts it, and the next pump opens it again
// at the slot's confirmed position.
TEST_P(MigrateLogicalTest, AStreamTheServerCutIsOpenedAgain) {
  Exec(admin_.get(), "ALTER SYSTEM SET wal_sender_timeout = '1s'");
  Exec(admin_.get(), "SELECT pg_reload_conf()");
  std::string plan;
  MakeDatabase("w0", &plan);
  TwinWriter writer = StartTwinWriter(pg_.get(), "w0");
  bool cut = false;
  MigrateOptions options = options_;
  options.failpoint = [&](const std::string& name) {
    if (name != "copy-batch:2:after-commit") return;
    std::this_thread::sleep_for(std::chrono::seconds(3));
    cut = Value(admin_.get(),
                "SELECT count(*) FROM pg_stat_replication WHERE "
                "application_name LIKE 'pglayout-migrate/%/capture'") == "0";
  };
  MigrateResult report;
  Status st = Migrate(plan, Conninfo(pg_.get(), "w0"), options,
                      MigrateMode::kRun, &report);
  writer.Stop();
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(report);
  EXPECT_TRUE(cut) << "the server kept the idle stream";
  ExpectConverged("w0", writer.commits());
}

TEST_P(MigrateLogicalTest, ATerminationAtEachPhaseResumesToTheSameRows) {
  for (size_t i = 0; i < kPhases.size(); ++i) {
    SCOPED_TRACE(kPhases[i]);
    const std::string db = fmt::format("k{}", i);
    std::string plan;
    MakeDatabase(db, &plan);
    TwinWriter writer = StartTwinWriter(pg_.get(), db);
    bool injected = false;
    MigrateOptions faulty = TerminatedAt(kPhases[i], &injected);
    MigrateResult first, second;
    Status st = Migrate(plan, Conninfo(pg_.get(), db), faulty,
                        MigrateMode::kRun, &first);
    ASSERT_TRUE(injected) << Lines(first);
    ASSERT_FALSE(st.ok()) << Lines(first);
    st = Migrate(plan, Conninfo(pg_.get(), db), options_, MigrateMode::kRun,
                 &second);
    writer.Stop();
    ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(second);
    EXPECT_TRUE(HasLine(second, "run 1 done")) << Lines(second);
    ExpectConverged(db, writer.commits());
    if (HasFatalFailure()) return;
  }
}

// The client itself killed with SIGKILL (no destructor, no cleanup of its
// own) at each phase in turn, each resume killed at the next: the slot
// outlives each kill, and the last resume converges with no slot left.
TEST_P(MigrateLogicalTest, AKilledClientAtEachPhaseResumesToTheSameRows) {
  std::string plan;
  MakeDatabase("s0", &plan);
  const std::string path = WriteTempFile(
      fmt::format("logical_s0_{}.toml", PgVersionName(version())), plan);
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(Open(pg_.get(), "s0", &s));
  TwinWriter writer = StartTwinWriter(pg_.get(), "s0");
  for (const std::string& failpoint : kKillPoints) {
    Completion killed = RunMigrateBinary(pg_.get(), path, "s0", failpoint);
    ASSERT_EQ(killed.signal, SIGKILL) << failpoint << "\n" << killed.output;
    EXPECT_EQ(CaptureLeft(s.get()), "1,1") << failpoint;
  }
  Completion last = RunMigrateBinary(pg_.get(), path, "s0", "");
  writer.Stop();
  ASSERT_EQ(last.exit_code, 0) << last.output;
  EXPECT_NE(last.output.find("run 1 done"), std::string::npos) << last.output;
  EXPECT_EQ(CaptureLeft(s.get()), "0,0");
  ExpectConverged("s0", writer.commits());
}

// The client killed with SIGKILL in the copy (before the slot's journal
// row, and after a batch) and in the catch-up, then --abort: no slot, no
// publication, no shadow left.
TEST_P(MigrateLogicalTest, AKilledClientThenAbortLeavesNoSlot) {
  const std::vector<std::string> points = {"after-slot:move:public.t",
                                           "copy-batch:2:after-commit",
                                           "replay:before-commit"};
  for (size_t i = 0; i < points.size(); ++i) {
    SCOPED_TRACE(points[i]);
    const std::string db = fmt::format("b{}", i);
    std::string plan;
    MakeDatabase(db, &plan);
    const std::string path = WriteTempFile(
        fmt::format("logical_{}_{}.toml", db, PgVersionName(version())), plan);
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), db, &s));
    Completion killed = RunMigrateBinary(pg_.get(), path, db, points[i]);
    ASSERT_EQ(killed.signal, SIGKILL) << killed.output;
    EXPECT_EQ(CaptureLeft(s.get()), "1,1");
    Completion aborted =
        RunPglayout({"migrate", "--abort", "--dsn", Conninfo(pg_.get(), db)});
    ASSERT_EQ(aborted.exit_code, 0) << aborted.output;
    EXPECT_NE(aborted.output.find("run 1 aborted"), std::string::npos)
        << aborted.output;
    EXPECT_EQ(CaptureLeft(s.get()), "0,0");
    ExpectNoCapture(s.get());
    EXPECT_EQ(Value(s.get(),
                    "SELECT count(*) FROM pg_class WHERE relname LIKE "
                    "'pglayout_new_%'"),
              "0");
    EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM t"), std::to_string(kRows));
    if (HasFatalFailure()) return;
  }
}

// The names of the slots and publications, sorted, comma-separated.
std::string SlotNames(SqlSession* s) {
  return Value(s,
               "SELECT coalesce(string_agg(slot_name::text, ',' ORDER BY "
               "slot_name), '') FROM pg_replication_slots");
}
std::string PublicationNames(SqlSession* s) {
  return Value(s,
               "SELECT coalesce(string_agg(pubname::text, ',' ORDER BY "
               "pubname), '') FROM pg_publication");
}

// --finalize drops the capture a finished run left behind (made here as
// a kill right after the slot, before its journal row, leaves it) and
// tells which run left it; it keeps, and tells, a slot a session reads
// (pg_recvlogical), until that session ends; and it never touches a slot
// or publication whose name only resembles pglayout's, nor another
// database's.
TEST_P(MigrateLogicalTest, FinalizeDropsTheCaptureARunLeftBehind) {
  std::string plan;
  MakeDatabase("f0", &plan);
  const std::string path = WriteTempFile(
      fmt::format("logical_f0_{}.toml", PgVersionName(version())), plan);
  Completion done = RunMigrateBinary(pg_.get(), path, "f0", "");
  ASSERT_EQ(done.exit_code, 0) << done.output;
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(Open(pg_.get(), "f0", &s));
  ASSERT_EQ(SlotNames(s.get()), "");
  const std::string db =
      Value(s.get(),
            "SELECT oid FROM pg_database WHERE datname = current_database()");
  // The moved table's oid at the run (its old copy's now), and t_v's.
  const std::string moved =
      Value(s.get(),
            "SELECT relation_oid FROM pglayout.step WHERE step_key = "
            "'move:public.t'");
  const std::string twin = Value(s.get(), "SELECT 't_v'::regclass::oid");
  const std::string left = fmt::format("pglayout_{}_{}", db, moved);
  const std::string held = fmt::format("pglayout_{}_{}", db, twin);
  const std::string similar = left + "_mine";
  const std::string other_db = fmt::format("pglayout_1_{}", moved);
  for (const std::string& slot : {left, held, similar, other_db}) {
    Exec(s.get(), fmt::format("SELECT pg_create_logical_replication_slot('{}', "
                              "'pgoutput')",
                              slot));
  }
  Exec(s.get(), fmt::format("CREATE PUBLICATION pglayout_capture_{0} FOR "
                            "TABLE t; CREATE PUBLICATION pglayout_capture_{1} "
                            "FOR TABLE t_v; CREATE PUBLICATION "
                            "pglayout_capture_{0}_mine FOR TABLE t",
                            moved, twin));
  std::unique_ptr<BackgroundClient> reader;
  PGLAYOUT_ASSERT_OK(pg_->StartClient(
      {"pg_recvlogical", "-d", "f0", "--slot", held, "--start", "-o",
       "proto_version=1", "-o", "publication_names=pglayout_capture_" + twin,
       "-f", "/dev/null"},
      &reader));
  const std::string active_sql = fmt::format(
      "SELECT active FROM pg_replication_slots WHERE slot_name = '{}'", held);
  for (int i = 0; i < 300 && Value(s.get(), active_sql) != "t"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(Value(s.get(), active_sql), "t") << "pg_recvlogical reads it";

  Completion status =
      RunPglayout({"migrate", "--status", "--dsn", Conninfo(pg_.get(), "f0")});
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find(fmt::format(
                "capture slot {} (left by run 1): `pglayout migrate "
                "--finalize` drops it",
                left)),
            std::string::npos)
      << status.output;
  EXPECT_EQ(status.output.find(similar), std::string::npos) << status.output;
  Completion first = RunPglayout(
      {"migrate", "--finalize", "--dsn", Conninfo(pg_.get(), "f0")});
  EXPECT_NE(first.exit_code, 0) << first.output;
  for (const std::string& line :
       {fmt::format("dropped slot {} (left by run 1)", left),
        fmt::format("dropped publication pglayout_capture_{} (left by run 1)",
                    moved),
        fmt::format("kept slot {} (left by run 1): in use by process ", held),
        fmt::format("kept publication pglayout_capture_{} (left by run 1): "
                    "its slot is kept",
                    twin),
        std::string("1 capture slot was kept:"),
        std::string("pglayout: hint: a session still uses the slot")}) {
    EXPECT_NE(first.output.find(line), std::string::npos) << line << "\n"
                                                          << first.output;
  }
  std::vector<std::string> slots = {held, similar, other_db};
  std::sort(slots.begin(), slots.end());
  EXPECT_EQ(SlotNames(s.get()),
            fmt::format("{},{},{}", slots[0], slots[1], slots[2]));
  std::vector<std::string> publications = {
      fmt::format("pglayout_capture_{}_mine", moved),
      "pglayout_capture_" + twin};
  std::sort(publications.begin(), publications.end());
  EXPECT_EQ(PublicationNames(s.get()), publications[0] + "," + publications[1]);

  PGLAYOUT_EXPECT_OK(reader->Stop(nullptr));
  const std::string inactive_sql = fmt::format(
      "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{}' AND "
      "active",
      held);
  for (int i = 0; i < 300 && Value(s.get(), inactive_sql) != "0"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Completion second = RunPglayout(
      {"migrate", "--finalize", "--dsn", Conninfo(pg_.get(), "f0")});
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(
      second.output.find(fmt::format("dropped slot {} (left by run 1)", held)),
      std::string::npos)
      << second.output;
  std::vector<std::string> foreign = {similar, other_db};
  std::sort(foreign.begin(), foreign.end());
  EXPECT_EQ(SlotNames(s.get()), foreign[0] + "," + foreign[1]);
  EXPECT_EQ(PublicationNames(s.get()),
            fmt::format("pglayout_capture_{}_mine", moved));
  for (const std::string& slot : foreign) {
    Exec(s.get(), fmt::format("SELECT pg_drop_replication_slot('{}')", slot));
  }
}

// A server crash mid-copy keeps the slot (saved on disk), perhaps at an
// older position: the resume gets some changes twice, and converges.
TEST_P(MigrateLogicalTest, AServerCrashMidCopyResumesToTheSameRows) {
  std::string plan;
  MakeDatabase("c0", &plan);
  TwinWriter writer = StartTwinWriter(pg_.get(), "c0");
  bool injected = false;
  MigrateOptions faulty =
      TerminatedAt("copy-batch:2:after-commit", &injected, true);
  MigrateResult first, second;
  ASSERT_FALSE(Migrate(plan, Conninfo(pg_.get(), "c0"), faulty,
                       MigrateMode::kRun, &first)
                   .ok());
  ASSERT_TRUE(injected);
  Status st = Migrate(plan, Conninfo(pg_.get(), "c0"), options_,
                      MigrateMode::kRun, &second);
  writer.Stop();
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(second);
  EXPECT_FALSE(HasLine(second, "copying the table again")) << Lines(second);
  ExpectConverged("c0", writer.commits());
}

TEST_P(MigrateLogicalTest, AbortDropsTheSlot) {
  std::string plan;
  MakeDatabase("a0", &plan);
  bool injected = false;
  MigrateOptions faulty = TerminatedAt("copy-batch:2:after-commit", &injected);
  MigrateResult first, aborted;
  ASSERT_FALSE(Migrate(plan, Conninfo(pg_.get(), "a0"), faulty,
                       MigrateMode::kRun, &first)
                   .ok());
  ASSERT_TRUE(injected);
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(Open(pg_.get(), "a0", &s));
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_replication_slots WHERE "
                  "slot_name LIKE 'pglayout%'"),
            "1");
  Status st = Migrate(plan, Conninfo(pg_.get(), "a0"), options_,
                      MigrateMode::kAbort, &aborted);
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(aborted);
  EXPECT_TRUE(HasLine(aborted, "run 1 aborted")) << Lines(aborted);
  ExpectNoCapture(s.get());
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_class WHERE relname LIKE "
                  "'pglayout_new_%'"),
            "0");
}

// The slot dropped while the run is stopped (as if lost): the resume
// cannot know what it missed, so it copies the table again.
TEST_P(MigrateLogicalTest, AResumeWhoseSlotIsGoneCopiesAgain) {
  std::string plan;
  MakeDatabase("g0", &plan);
  TwinWriter writer = StartTwinWriter(pg_.get(), "g0");
  bool injected = false;
  MigrateOptions faulty = TerminatedAt("copy-batch:2:after-commit", &injected);
  MigrateResult first, second;
  ASSERT_FALSE(Migrate(plan, Conninfo(pg_.get(), "g0"), faulty,
                       MigrateMode::kRun, &first)
                   .ok());
  ASSERT_TRUE(injected);
  {
    std::unique_ptr<SqlSession> s;
    PGLAYOUT_ASSERT_OK(Open(pg_.get(), "g0", &s));
    // Once the stopped run's walsender has let go of it (a moment after
    // its stream closed).
    for (int i = 0; i < 100; ++i) {
      Exec(s.get(),
           "SELECT pg_drop_replication_slot(slot_name) FROM "
           "pg_replication_slots WHERE slot_name LIKE 'pglayout%' AND "
           "active_pid IS NULL");
      if (Value(s.get(),
                "SELECT count(*) FROM pg_replication_slots WHERE "
                "slot_name LIKE 'pglayout%'") == "0") {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  Status st = Migrate(plan, Conninfo(pg_.get(), "g0"), options_,
                      MigrateMode::kRun, &second);
  writer.Stop();
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(second);
  EXPECT_TRUE(HasLine(second,
                      "is gone or lost, so changes may have been "
                      "missed: copying the table again"))
      << Lines(second);
  ExpectConverged("g0", writer.commits());
}

// The adaptive throttle slows the copy for a standby that falls behind;
// the run's own capture stream is a walsender too, whose confirmed position
// trails the WAL by a pump's worth by design, and must not count as one (it
// made an adaptive logical move pause five times its batches). Another
// stream lagging as much still counts.
TEST_P(MigrateLogicalTest, TheThrottleDoesNotTakeItsOwnStreamForAStandby) {
  std::string plan;
  MakeDatabase("g0", &plan);
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(OpenPgSession(Conninfo(pg_.get(), "g0"), "test", &s));
  Exec(s.get(),
       "SELECT pg_create_logical_replication_slot('lagging', 'pgoutput'); "
       "CREATE PUBLICATION p FOR TABLE public.t");
  Journal journal(s.get());
  NullProgress progress;
  MigrateResult report;
  MigrateOptions options = options_;
  options.conninfo = Conninfo(pg_.get(), "g0");
  Executor ex(s.get(), &journal, options, &progress, &report);
  ex.set_run_id(7);
  auto lag_seen = [&](const std::string& role) {
    std::unique_ptr<ReplicationStream> stream;
    Status st = ex.OpenReplicationStream(
        role, "lagging",
        {{"proto_version", "1"}, {"publication_names", "\"p\""}}, &stream);
    if (!st.ok()) return st.ToString();
    // Confirmed at the start, then WAL it never confirms.
    Lsn start = 0;
    ParseLsn(Value(s.get(), "SELECT pg_current_wal_lsn()::text"), &start);
    st = stream->Confirm(start, false);
    Exec(s.get(),
         "UPDATE public.t SET v = v || '' WHERE id <= 3000; SELECT "
         "pg_sleep(0.5)");
    ThrottleSample sample;
    if (st.ok()) st = SampleThrottleSignals(&ex, &sample);
    if (!st.ok()) return st.ToString();
    return sample.replica_lag_bytes > 1e5 ? std::string("lag") : "none";
  };
  EXPECT_EQ(lag_seen(kCaptureStreamRole), "none");
  EXPECT_EQ(lag_seen("someone-else"), "lag");
}

// wal_level = replica (the shared plain server): auto captures by trigger
// and says why; --capture logical is refused, nothing changed.
TEST_P(MigrateLogicalTest, AutoFallsBackToTheTriggerWithoutLogicalWal) {
  PgCluster* shared = nullptr;
  PGLAYOUT_ASSERT_OK(SharedCluster(&shared));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(shared->Connect(&admin));
  ASSERT_EQ(Value(admin.get(), "SELECT current_setting('wal_level')"),
            "replica");
  const std::string db = "logical_fallback";
  Exec(admin.get(), "DROP DATABASE IF EXISTS " + db);
  Exec(admin.get(), "CREATE DATABASE " + db);
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(Open(shared, db, &s));
  Exec(s.get(),
       "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, "
       "md5(g::text) FROM generate_series(1, 2000) g; ANALYZE t");
  std::string dir;
  PGLAYOUT_ASSERT_OK(shared->MakeDirectory("ts_logical_fallback", &dir));
  const std::string plan = fmt::format(
      "[[tablespace]]\nname = \"ts_logical_fallback\"\npath = \"{}\"\n"
      "[[placement]]\nrelation = \"public.t\"\nstrategy = \"move\"\n"
      "tablespaces = [\"ts_logical_fallback\"]\n",
      dir);
  MigrateOptions refused = options_;
  MigrateResult no;
  Status st =
      Migrate(plan, Conninfo(shared, db), refused, MigrateMode::kRun, &no);
  ASSERT_FALSE(st.ok()) << Lines(no);
  EXPECT_NE(st.message().find("cannot capture changes by logical decoding: "
                              "wal_level is replica"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(Value(s.get(),
                  "SELECT count(*) FROM pg_class WHERE relname LIKE "
                  "'pglayout_new_%'"),
            "0");
  MigrateOptions automatic = options_;
  automatic.capture = CaptureMode::kAuto;
  MigrateResult report;
  st = Migrate(plan, Conninfo(shared, db), automatic, MigrateMode::kRun,
               &report);
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << Lines(report);
  EXPECT_TRUE(HasLine(report,
                      "change capture by trigger, since wal_level is "
                      "replica, not logical"))
      << Lines(report);
  EXPECT_EQ(Value(s.get(), "SELECT count(*) FROM t"), "2000");
  s.reset();
  Exec(admin.get(), "DROP DATABASE " + db);
  Exec(admin.get(), "DROP TABLESPACE ts_logical_fallback");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(MigrateLogicalTest);

}  // namespace
}  // namespace pglayout::migrator
