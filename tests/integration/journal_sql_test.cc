// The journal source against real PostgreSQL 12, 15 and 18 servers, reading
// what the migrator's own Journal writes (so a change to the journal's
// tables that the report does not follow fails here), and `pglayout report
// --journal` end to end.

#include "report/journal_sql.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/files.h"
#include "migrator/journal.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"

namespace pglayout::report {
namespace {

class SqlJournal : public PgVersionTest {
 protected:
  void SetUp() override {
    PGLAYOUT_ASSERT_OK(SharedCluster(&pg_));
    PGLAYOUT_ASSERT_OK(pg_->Connect(&session_));
    DropJournal();
  }
  void TearDown() override {
    if (session_) DropJournal();
  }
  void DropJournal() {
    PGLAYOUT_EXPECT_OK(ExecuteSql(
        session_.get(),
        "DROP SCHEMA IF EXISTS pglayout CASCADE; DROP TABLE IF EXISTS "
        "public.journal_orders"));
  }

  // A finished run as migrate leaves it: a tablespace step, a move of a
  // 1000-row table, the max_wal_size guard restored, a plan setting.
  void WriteRun() {
    PGLAYOUT_ASSERT_OK(
        ExecuteSql(session_.get(),
                   "CREATE TABLE public.journal_orders AS SELECT g AS id FROM "
                   "generate_series(1, 1000) g"));
    SqlValue oid;
    PGLAYOUT_ASSERT_OK(QueryValue(
        session_.get(), "SELECT 'public.journal_orders'::regclass::oid::text",
        {}, &oid));
    migrator::Journal journal(session_.get());
    PGLAYOUT_ASSERT_OK(journal.EnsureSchema());
    migrator::RunRecord run;
    PGLAYOUT_ASSERT_OK(
        journal.StartRun("00ff", "plan text", "0.1.0", 5, 2, &run));
    PGLAYOUT_ASSERT_OK(
        journal.SetStep(run.run_id, "tablespace:hot1", 1, "done", ""));
    PGLAYOUT_ASSERT_OK(
        journal.SetStep(run.run_id, "move:public.journal_orders", 2, "running",
                        "copy", static_cast<uint32_t>(std::stoul(*oid))));
    PGLAYOUT_ASSERT_OK(journal.RecordBatch(run.run_id,
                                           "move:public.journal_orders", 1, {},
                                           {"1000"}, 1000, 36000));
    PGLAYOUT_ASSERT_OK(
        journal.SetStepVerify(run.run_id, "move:public.journal_orders", "off"));
    PGLAYOUT_ASSERT_OK(journal.SetStep(run.run_id, "move:public.journal_orders",
                                       2, "done", "swapped"));
    migrator::SettingRecord guard;
    guard.name = "max_wal_size";
    guard.kind = "guard";
    guard.original_setting = "1GB";
    guard.new_value = "64GB";
    PGLAYOUT_ASSERT_OK(journal.RecordOriginal(run.run_id, guard));
    PGLAYOUT_ASSERT_OK(journal.SetSettingState(run.run_id, "guard",
                                               "max_wal_size", "restored"));
    migrator::SettingRecord plan = guard;
    plan.name = "effective_io_concurrency";
    plan.kind = "plan";
    plan.original_setting = "1";
    plan.new_value = "64";
    PGLAYOUT_ASSERT_OK(journal.RecordOriginal(run.run_id, plan));
    PGLAYOUT_ASSERT_OK(journal.SetSettingState(
        run.run_id, "plan", "effective_io_concurrency", "applied"));
    PGLAYOUT_ASSERT_OK(journal.FinishRun(run.run_id, "done", {9, 3}));
  }

  // A run that is still going (or was killed): started with the server's
  // current checkpoint counters, never finished.
  int64_t StartUnfinishedRun(migrator::Journal* journal) {
    PGLAYOUT_EXPECT_OK(journal->EnsureSchema());
    CheckpointCounts now;
    PGLAYOUT_EXPECT_OK(ReadCheckpointCounts(session_.get(), &now));
    migrator::RunRecord run;
    PGLAYOUT_EXPECT_OK(journal->StartRun("00ff", "plan text", "0.1.0",
                                         now.timed, now.requested, &run));
    return run.run_id;
  }

  PgCluster* pg_ = nullptr;
  std::unique_ptr<SqlSession> session_;
};

TEST_P(SqlJournal, NoJournalIsNotFound) {
  MigrationJournal journal;
  Status st = MakeSqlJournalSource(session_.get())->Read(&journal);
  EXPECT_EQ(st.code(), Status::Code::kNotFound) << st.message();
  EXPECT_NE(st.message().find("schema pglayout does not exist"),
            std::string::npos)
      << st.message();
  migrator::Journal writer(session_.get());
  PGLAYOUT_ASSERT_OK(writer.EnsureSchema());
  st = MakeSqlJournalSource(session_.get())->Read(&journal);
  EXPECT_EQ(st.code(), Status::Code::kNotFound) << st.message();
  EXPECT_NE(st.message().find("holds no run"), std::string::npos);
}

TEST_P(SqlJournal, ReadsWhatTheMigratorWrote) {
  WriteRun();
  MigrationJournal j;
  PGLAYOUT_ASSERT_OK(MakeSqlJournalSource(session_.get())->Read(&j));
  EXPECT_EQ(j.status, "done");
  EXPECT_EQ(j.plan, "plan hash 00ff");
  EXPECT_NE(j.started_at.find(" UTC"), std::string::npos) << j.started_at;
  EXPECT_FALSE(j.finished_at.empty());
  // From the counters kept at the start (5, 2) and the end (9, 3).
  EXPECT_FALSE(j.checkpoints_until_read);
  EXPECT_EQ(j.checkpoints_timed, 4);
  EXPECT_EQ(j.checkpoints_requested, 1);
  ASSERT_EQ(j.steps.size(), 2u);
  EXPECT_EQ(j.steps[0].ordinal, 1);
  EXPECT_EQ(j.steps[0].kind, "tablespace");
  EXPECT_EQ(j.steps[0].relation, "hot1");
  EXPECT_EQ(j.steps[1].kind, "move");
  EXPECT_EQ(j.steps[1].relation, "public.journal_orders");  // as planned
  EXPECT_EQ(j.steps[1].status, "done");
  EXPECT_EQ(j.steps[1].rows, 1000);
  EXPECT_EQ(j.steps[1].bytes, 36000u);  // what the copy wrote
  EXPECT_EQ(j.steps[1].description,
            "swapped; the old table is kept until --finalize");
  EXPECT_EQ(j.steps[0].verify, "");
  EXPECT_EQ(j.steps[1].verify, "off");  // --verify off
  EXPECT_EQ(VerificationOf(j),
            "unverified: 1 online copy not compared with its table (--verify "
            "off)");
  ASSERT_EQ(j.settings.size(), 2u);
  EXPECT_EQ(j.settings[0].name, "max_wal_size");
  EXPECT_TRUE(j.settings[0].temporary);
  EXPECT_EQ(j.settings[0].original, "1GB");
  EXPECT_EQ(j.settings[0].value, "64GB");
  EXPECT_EQ(j.settings[0].state, "restored");
  EXPECT_FALSE(j.settings[1].temporary);
}

TEST_P(SqlJournal, UnfinishedRunCountsCheckpointsUntilRead) {
  migrator::Journal journal(session_.get());
  StartUnfinishedRun(&journal);
  PGLAYOUT_ASSERT_OK(ExecuteSql(session_.get(), "CHECKPOINT"));
  // Before 15 the statistics collector publishes the checkpointer's counts
  // a moment later.
  MigrationJournal j;
  for (int i = 0; i < 50; ++i) {
    j = MigrationJournal();
    PGLAYOUT_ASSERT_OK(MakeSqlJournalSource(session_.get())->Read(&j));
    if (j.checkpoints_requested >= 1 || version() != PgVersion::k12) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(j.status, "running");
  EXPECT_TRUE(j.finished_at.empty());
  EXPECT_TRUE(j.checkpoints_until_read);
  EXPECT_GE(j.checkpoints_requested, 1);  // the CHECKPOINT above
}

TEST_P(SqlJournal, FailedStepCarriesItsErrorUntilDone) {
  migrator::Journal journal(session_.get());
  int64_t run = StartUnfinishedRun(&journal);
  PGLAYOUT_ASSERT_OK(
      journal.SetStep(run, "move:public.gone", 1, "running", "copy"));
  PGLAYOUT_ASSERT_OK(journal.RecordStepError(
      run, "move:public.gone", 1, "canceling statement due to lock timeout"));
  // A step that failed before the journal knew it.
  PGLAYOUT_ASSERT_OK(journal.RecordStepError(run, "tablespace:hot9", 2,
                                             "directory does not exist"));
  MigrationJournal j;
  PGLAYOUT_ASSERT_OK(MakeSqlJournalSource(session_.get())->Read(&j));
  ASSERT_EQ(j.steps.size(), 2u);
  EXPECT_EQ(j.steps[0].status, "failed");
  EXPECT_EQ(j.steps[0].error, "canceling statement due to lock timeout");
  EXPECT_EQ(j.steps[1].kind, "tablespace");
  EXPECT_EQ(j.steps[1].status, "failed");
  EXPECT_EQ(j.steps[1].error, "directory does not exist");

  // Resumed and finished: the error is history, not a failure.
  PGLAYOUT_ASSERT_OK(
      journal.SetStep(run, "move:public.gone", 1, "done", "done"));
  PGLAYOUT_ASSERT_OK(MakeSqlJournalSource(session_.get())->Read(&j));
  EXPECT_EQ(j.steps[0].status, "done");
  EXPECT_EQ(j.steps[0].error, "");
}

// A journal written before the end counters, step errors and bytes copied
// existed reads as a run without an end, with each step's relation size for
// its bytes; EnsureSchema then adds the columns.
TEST_P(SqlJournal, ReadsAndUpgradesAnOlderJournal) {
  WriteRun();
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      session_.get(),
      "ALTER TABLE pglayout.run DROP COLUMN checkpoints_timed_end, DROP "
      "COLUMN checkpoints_requested_end; ALTER TABLE pglayout.step DROP "
      "COLUMN error, DROP COLUMN bytes_copied"));
  MigrationJournal j;
  PGLAYOUT_ASSERT_OK(MakeSqlJournalSource(session_.get())->Read(&j));
  EXPECT_EQ(j.status, "done");
  EXPECT_TRUE(j.checkpoints_until_read);
  ASSERT_EQ(j.steps.size(), 2u);
  EXPECT_EQ(j.steps[1].status, "done");
  EXPECT_GT(j.steps[1].bytes, 8192u);  // the table's size

  migrator::Journal journal(session_.get());
  PGLAYOUT_ASSERT_OK(journal.EnsureSchema());
  SqlValue columns;
  PGLAYOUT_ASSERT_OK(QueryValue(
      session_.get(),
      "SELECT count(*) FROM pg_catalog.pg_attribute WHERE NOT attisdropped "
      "AND ((attrelid = 'pglayout.run'::regclass AND attname IN "
      "('checkpoints_timed_end', 'checkpoints_requested_end')) OR (attrelid "
      "= 'pglayout.step'::regclass AND attname IN ('error', 'bytes_copied')))",
      {}, &columns));
  EXPECT_EQ(columns.value_or(""), "4");
}

TEST_P(SqlJournal, ReportCommandShowsTheRun) {
  WriteRun();
  std::string out = ::testing::TempDir() + "/pglayout_journal_" +
                    std::to_string(getpid()) + ".html";
  Command command;
  command.argv = {PGLAYOUT_BINARY, "report", "--journal",
                  pg_->conninfo(), "-o",     out};
  std::string output;
  PGLAYOUT_ASSERT_OK(RunCommand(command, out + ".log", &output));
  std::string page;
  PGLAYOUT_ASSERT_OK(ReadTextFile(out, &page));
  unlink(out.c_str());
  unlink((out + ".log").c_str());
  EXPECT_NE(page.find("<section id=\"migration\""), std::string::npos);
  EXPECT_NE(page.find("id=\"migration-steps\""), std::string::npos);
  EXPECT_NE(page.find("✓ restored to 1GB"), std::string::npos);
}

TEST_P(SqlJournal, ReportCommandExplainsAMissingJournal) {
  std::string out = ::testing::TempDir() + "/pglayout_nojournal_" +
                    std::to_string(getpid()) + ".html";
  Command command;
  command.argv = {PGLAYOUT_BINARY, "report", "--journal",
                  pg_->conninfo(), "-o",     out};
  std::string output;
  PGLAYOUT_ASSERT_OK(RunCommand(command, out + ".log", &output));
  EXPECT_NE(output.find("warning: "), std::string::npos) << output;
  std::string page;
  PGLAYOUT_ASSERT_OK(ReadTextFile(out, &page));
  unlink(out.c_str());
  unlink((out + ".log").c_str());
  EXPECT_NE(page.find("<section id=\"migration\""), std::string::npos);
  EXPECT_NE(page.find("no migration journal"), std::string::npos);
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(SqlJournal);

}  // namespace
}  // namespace pglayout::report
