// The sampling loop with a scripted source and a fake clock, and the
// version-specific SQL of the PostgreSQL source with a fake session.

#include "observe/observe.h"

#include <gtest/gtest.h>

#include <map>

#include "common/files.h"
#include "observe/observe_diagnosis.h"
#include "observe/observe_pg.h"
#include "pg/sql.h"
#include "testing/fake_clock.h"
#include "testing/fake_sql_session.h"

namespace pglayout {
namespace {

class RecordingProgress : public ProgressSink {
 public:
  void Update(const ProgressUpdate& u) override { updates.push_back(u); }
  void Finish(const std::string& task, const std::string& summary) override {
    finished = task + ": " + summary;
  }
  std::vector<ProgressUpdate> updates;
  std::string finished;
};

// One hot table (oid 1) with an index (2) and TOAST (3), one idle table
// (4): every sample adds 100 blocks read to the hot table.
class ScriptedSource : public StatsSource {
 public:
  explicit ScriptedSource(FakeClock* clock) : clock_(clock) {}

  Status ReadServer(ServerInfo* info) override {
    info->version_num = 150004;
    info->description = "fake:5432/db as me";
    info->settings = {{"max_wal_size", "1GB"},
                      {"checkpoint_timeout", "5min"},
                      {"checkpoint_completion_target", "0.9"}};
    info->tablespaces = {{"pg_default", ""}, {"fast", "/mnt/nvme/pg"}};
    info->checkpoints_since_reset.timed = 10;
    info->checkpoints_since_reset.requested = 5;
    info->in_recovery = in_recovery;
    return Status::Ok();
  }

  Status ReadSample(Sample* sample, bool* skipped) override {
    int n = samples_read++;
    *skipped = n == skip_sample;
    sample->server.time = clock_->now;
    sample->server.wal_lsn = 1e6 * n;
    sample->server.checkpoints.requested = n >= 3 ? requested_at_3 : 0;
    RelationCounters hot;
    hot.blocks_read = 100 * n;
    hot.tuples_updated = 10 * n;
    hot.size = 8192 * 1000;
    RelationCounters index;
    index.blocks_read = 1 * n;
    index.size = 8192 * 100;
    sample->relations = {{1, hot}, {2, index}, {3, {}}, {4, {}}};
    return Status::Ok();
  }

  Status ReadRelations(std::vector<RelationInfo>* relations) override {
    RelationInfo hot{1, "public.hot", RelationKind::kTable, "", 0, "fast"};
    RelationInfo index{
        2, "public.hot_pkey", RelationKind::kIndex, "public.hot", 1, "fast"};
    RelationInfo toast{
        3,     "pg_toast.pg_toast_1", RelationKind::kToast, "public.hot", 1,
        "fast"};
    RelationInfo idle{4, "public.idle", RelationKind::kTable, "",
                      0, "pg_default"};
    *relations = {hot, index, toast, idle};
    return Status::Ok();
  }

  Status ReadFacts(const RelationInfo& table, Relation* relation) override {
    facts_for.push_back(table.name);
    relation->primary_key = {"id"};
    return Status::Ok();
  }

  int samples_read = 0;
  int skip_sample = -1;
  int requested_at_3 = 1;  // requested checkpoints from the fourth sample
  bool in_recovery = false;
  std::vector<std::string> facts_for;

 private:
  FakeClock* clock_;
};

ObserveOptions ShortRun() {
  ObserveOptions o;
  o.duration = 6;
  o.interval = 1;
  return o;
}

TEST(Observe, SamplesOnAFixedScheduleAndRanksRelations) {
  FakeClock clock;
  ScriptedSource source(&clock);
  RecordingProgress progress;
  ObserveResult result;
  Status st = Observe(&source, &clock, &progress, ShortRun(), &result);
  ASSERT_TRUE(st.ok()) << st.ToString();

  EXPECT_EQ(source.samples_read, 7);
  EXPECT_EQ(clock.sleeps, (std::vector<double>{101, 102, 103, 104, 105, 106}));
  const Workload& w = result.workload;
  EXPECT_EQ(w.source, "live");
  EXPECT_DOUBLE_EQ(w.duration, 6);
  ASSERT_EQ(w.relations.size(), 4u);
  EXPECT_EQ(w.relations[0].name, "public.hot");
  EXPECT_DOUBLE_EQ(w.relations[0].read_iops, 100);
  EXPECT_DOUBLE_EQ(w.relations[0].write_iops, 10) << "10 updates/s";
  EXPECT_EQ(w.relations[0].tablespace, "fast");
  EXPECT_EQ(w.relations[0].primary_key, std::vector<std::string>{"id"});
  EXPECT_EQ(source.facts_for, std::vector<std::string>{"public.hot"})
      << "the index leads to its table once; idle tables get no facts";
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1), 1e6);
  EXPECT_EQ(w.checkpoints.requested, 1);
  EXPECT_EQ(w.Setting("max_wal_size").value_or(""), "1GB");
  EXPECT_EQ(w.tablespaces.size(), 2u);

  ASSERT_EQ(progress.updates.size(), 7u);
  EXPECT_EQ(progress.updates.back().step, "sample 7/7");
  EXPECT_DOUBLE_EQ(progress.updates.back().fraction, 1);
  EXPECT_NE(progress.finished.find("observe: 7 samples"), std::string::npos)
      << progress.finished;
}

TEST(Observe, TopKeepsTheHottestAndSkippedSamplesAreCounted) {
  FakeClock clock;
  ScriptedSource source(&clock);
  source.skip_sample = 2;
  NullProgress progress;
  ObserveOptions options = ShortRun();
  options.top = 2;
  ObserveResult result;
  ASSERT_TRUE(Observe(&source, &clock, &progress, options, &result).ok());
  EXPECT_EQ(result.skipped_samples, 1);
  EXPECT_EQ(result.rates.intervals, 5);
  ASSERT_EQ(result.workload.relations.size(), 2u);
  EXPECT_EQ(result.workload.relations[1].name, "public.hot_pkey");
  // The skipped sample's interval is covered by the next one: still 100/s.
  EXPECT_DOUBLE_EQ(result.workload.relations[0].read_iops_avg, 100);
}

TEST(Observe, CancelKeepsTheSamplesTakenSoFar) {
  NullProgress progress;
  std::atomic<bool> cancel{false};
  ObserveOptions options = ShortRun();
  options.cancel = &cancel;
  // A clock that raises the flag after the third sleep.
  struct CancellingClock : FakeClock {
    std::atomic<bool>* flag = nullptr;
    void SleepUntil(double deadline, const std::atomic<bool>* c) override {
      FakeClock::SleepUntil(deadline, c);
      if (sleeps.size() == 3) flag->store(true);
    }
  } cancelling;
  cancelling.flag = &cancel;
  ScriptedSource source2(&cancelling);
  ObserveResult result;
  Status st = Observe(&source2, &cancelling, &progress, options, &result);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(source2.samples_read, 3);
  EXPECT_DOUBLE_EQ(result.workload.duration, 2);
}

TEST(ObserveOptions, DurationMustHoldTwoIntervals) {
  ObserveOptions o;
  o.duration = 15;
  o.interval = 10;
  Status st = ValidateObserveOptions(o);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("--duration 15s is shorter than two intervals "
                              "of 10s"),
            std::string::npos)
      << st.message();
  o.interval = 0;
  EXPECT_NE(ValidateObserveOptions(o).message().find("--interval must be "
                                                     "positive"),
            std::string::npos);
  o.interval = 5;
  EXPECT_TRUE(ValidateObserveOptions(o).ok());
}

TEST(Diagnosis, NamesRequestedCheckpointsAndHotTablespaces) {
  FakeClock clock;
  ScriptedSource source(&clock);
  NullProgress progress;
  ObserveResult result;
  ASSERT_TRUE(Observe(&source, &clock, &progress, ShortRun(), &result).ok());
  std::string text = FormatDiagnosis(DiagnoseLive(result), result.workload, 3);
  EXPECT_NE(text.find("checkpoints during the observation: 0 timed, 1 "
                      "requested (100% requested)"),
            std::string::npos)
      << text;
  // Advice from the observation's own window (1 of 1), not mixed with the
  // counters since the last reset (5 of 15).
  EXPECT_NE(text.find("requested checkpoints are 100% of all during the "
                      "observation"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("since the last statistics reset 33%"), std::string::npos)
      << text;
  EXPECT_NE(text.find("public.hot"), std::string::npos);
  EXPECT_NE(text.find("fast (/mnt/nvme/pg)"), std::string::npos) << text;
  EXPECT_NE(text.find("estimated"), std::string::npos);
  EXPECT_EQ(text.find("public.idle"), std::string::npos) << "limit 3";
}

// No checkpoint during the observation: the counters since the last reset
// (5 requested of 15) are history, reported as such, never as advice to
// raise max_wal_size.
TEST(Diagnosis, HistorySinceTheResetIsNotAdvice) {
  FakeClock clock;
  ScriptedSource source(&clock);
  source.requested_at_3 = 0;
  NullProgress progress;
  ObserveResult result;
  ASSERT_TRUE(Observe(&source, &clock, &progress, ShortRun(), &result).ok());
  std::string text = FormatDiagnosis(DiagnoseLive(result), result.workload, 3);
  EXPECT_NE(text.find("checkpoints during the observation: 0 timed, 0 "
                      "requested"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("requested checkpoints are"), std::string::npos) << text;
  EXPECT_NE(text.find("no checkpoint happened during the observation; since "
                      "the last statistics reset 33% of checkpoints were "
                      "requested"),
            std::string::npos)
      << text;
}

// The WAL pressure line needs max_wal_size, checkpoint_timeout and a
// checkpoint_completion_target it can read: text that is not a fraction
// judges nothing rather than counting as 0.
TEST(Diagnosis, WalPressureNeedsACompletionTargetItCanRead) {
  ObserveResult result;
  result.workload.wal_bytes_per_second_peak = 20e6;
  result.workload.settings = {{"max_wal_size", "1GB"},
                              {"checkpoint_timeout", "5min"},
                              {"checkpoint_completion_target", "0.9"}};
  const std::string pressure = "at the peak WAL rate";
  std::string text = FormatDiagnosis(DiagnoseLive(result), result.workload, 3);
  EXPECT_NE(text.find(pressure), std::string::npos) << text;
  // 1GB / 1.9 = 539 MiB: with the target read as 0 it would be 1 GiB.
  EXPECT_NE(text.find("allows about 539"), std::string::npos) << text;
  result.workload.settings["checkpoint_completion_target"] = "ninety";
  text = FormatDiagnosis(DiagnoseLive(result), result.workload, 3);
  EXPECT_EQ(text.find(pressure), std::string::npos) << text;
}

// ------------------------------------------------ the PostgreSQL source --

// A server at db.example, as bob.
FakeSqlSession BobsServer(int version) {
  FakeSqlSession session(version);
  session.description = "db.example:5433/app as bob";
  return session;
}

void AnswerSample(FakeSqlSession* s) {
  s->Answer("extract(epoch FROM pg_catalog.clock_timestamp())",
            {{"1700000000.5", "123456", "42", "7"}});
  s->Answer("pg_is_in_recovery()", {{"f"}});
  s->Answer("FROM pg_catalog.pg_stat_checkpointer",
            {{"3", "1", "10.5", "2.5", "100", "2024-01-01"}});
  s->Answer("FROM pg_catalog.pg_stat_bgwriter",
            {{"4", "2", "11", "3", "200", "2024-01-02"}});
}

TEST(PgStatsSource, RefusesServersOlderThan12) {
  FakeSqlSession session = BobsServer(110005);
  std::unique_ptr<StatsSource> source;
  Status st = OpenPgStatsSource(&session, &source);
  EXPECT_EQ(st.code(), Status::Code::kAborted);
  EXPECT_NE(st.message().find("runs PostgreSQL 11.5, older than 12"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("db.example:5433"), std::string::npos);
  EXPECT_TRUE(session.statements.empty());
}

TEST(PgStatsSource, SessionIsReadOnlyAndSamplesAreReadOnlyTransactions) {
  FakeSqlSession session = BobsServer(150004);
  AnswerSample(&session);
  std::unique_ptr<StatsSource> source;
  ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
  EXPECT_TRUE(session.Ran(
      "pg_catalog.set_config('default_transaction_read_only', 'on'"));
  Sample sample;
  bool skipped = true;
  Status st = source->ReadSample(&sample, &skipped);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_FALSE(skipped);
  EXPECT_EQ(session.statements[1], "BEGIN READ ONLY");
  EXPECT_EQ(session.statements.back(), "COMMIT");
  EXPECT_DOUBLE_EQ(sample.server.time, 1700000000.5);
  EXPECT_DOUBLE_EQ(sample.server.wal_lsn, 123456);
  EXPECT_EQ(sample.server.commits, 42);
  EXPECT_EQ(sample.server.checkpoints.timed, 4) << "pg_stat_bgwriter on 15";
  EXPECT_EQ(sample.server.checkpoints.buffers_written, 200);
  EXPECT_FALSE(session.Ran("pg_stat_checkpointer"));
  EXPECT_FALSE(session.Ran("pg_stat_io")) << "pg_stat_io is 16+";
  EXPECT_TRUE(session.Ran("pg_stat_wal"));
}

TEST(PgStatsSource, UsesTheViewsOfEachVersion) {
  struct Case {
    int version;
    bool checkpointer, io, wal;
  };
  for (Case c :
       {Case{120010, false, false, false}, Case{160002, false, true, true},
        Case{170000, true, true, true}, Case{180001, true, true, true}}) {
    FakeSqlSession session = BobsServer(c.version);
    AnswerSample(&session);
    std::unique_ptr<StatsSource> source;
    ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
    Sample sample;
    bool skipped;
    ASSERT_TRUE(source->ReadSample(&sample, &skipped).ok());
    SCOPED_TRACE(c.version);
    EXPECT_EQ(session.Ran("FROM pg_catalog.pg_stat_checkpointer"),
              c.checkpointer);
    EXPECT_EQ(session.Ran("checkpoints_req"), !c.checkpointer);
    EXPECT_EQ(session.Ran("FROM pg_catalog.pg_stat_io"), c.io);
    EXPECT_EQ(session.Ran("FROM pg_catalog.pg_stat_wal"), c.wal);
    EXPECT_EQ(sample.server.checkpoints.requested, c.checkpointer ? 1 : 2);
  }
}

TEST(PgStatsSource, MissingPrivilegeNamesTheRoleToGrant) {
  FakeSqlSession session = BobsServer(160000);
  AnswerSample(&session);
  session.Fail("FROM pg_catalog.pg_stat_io", "42501");
  std::unique_ptr<StatsSource> source;
  ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
  Sample sample;
  bool skipped;
  Status st = source->ReadSample(&sample, &skipped);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.hint().find("pg_read_all_stats (or pg_monitor)"),
            std::string::npos)
      << st.hint();
  EXPECT_NE(st.hint().find("as bob"), std::string::npos) << st.hint();
  EXPECT_EQ(st.message().find("pg_read_all_stats"), std::string::npos)
      << "the advice is the hint, not the error: " << st.message();
  EXPECT_EQ(session.statements.back(), "ROLLBACK");
}

TEST(PgStatsSource, ALockTimeoutSkipsTheSample) {
  FakeSqlSession session = BobsServer(150000);
  AnswerSample(&session);
  session.Fail("pg_relation_size", "55P03");
  std::unique_ptr<StatsSource> source;
  ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
  Sample sample;
  bool skipped = false;
  Status st = source->ReadSample(&sample, &skipped);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(skipped);
}

TEST(PgStatsSource, StandbysUseTheReplayPosition) {
  FakeSqlSession session = BobsServer(150000);
  AnswerSample(&session);
  session.Answer("pg_is_in_recovery()", {{"t"}});
  std::unique_ptr<StatsSource> source;
  ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
  ServerInfo info;
  ASSERT_TRUE(source->ReadServer(&info).ok());
  EXPECT_TRUE(info.in_recovery);
  EXPECT_EQ(info.checkpoints_reset_at, "2024-01-02");
  Sample sample;
  bool skipped;
  ASSERT_TRUE(source->ReadSample(&sample, &skipped).ok());
  EXPECT_TRUE(session.Ran("pg_last_wal_replay_lsn()"));
  EXPECT_FALSE(session.Ran("pg_current_wal_lsn()"));
  EXPECT_FALSE(session.Ran("restartpoints")) << "15 counts them as checkpoints";
}

// From 17 a standby's checkpoints are restartpoints, counted apart.
TEST(PgStatsSource, Pg17StandbysCountRestartpoints) {
  FakeSqlSession session = BobsServer(180000);
  AnswerSample(&session);
  session.Answer("pg_is_in_recovery()", {{"t"}});
  session.Answer("restartpoints_timed, restartpoints_req",
                 {{"6", "2", "1", "1", "50", "2024-01-03"}});
  std::unique_ptr<StatsSource> source;
  ASSERT_TRUE(OpenPgStatsSource(&session, &source).ok());
  ServerInfo info;
  ASSERT_TRUE(source->ReadServer(&info).ok());
  EXPECT_EQ(info.checkpoints_since_reset.timed, 6);
  Sample sample;
  bool skipped;
  ASSERT_TRUE(source->ReadSample(&sample, &skipped).ok());
  EXPECT_EQ(sample.server.checkpoints.requested, 2);
  EXPECT_FALSE(session.Ran("num_timed"));
}

TEST(Diagnosis, AStandbySaysCheckpointsAreRestartpoints) {
  FakeClock clock;
  ScriptedSource source(&clock);
  source.in_recovery = true;
  NullProgress progress;
  ObserveResult result;
  ASSERT_TRUE(Observe(&source, &clock, &progress, ShortRun(), &result).ok());
  EXPECT_TRUE(result.workload.in_recovery);
  std::string text = FormatDiagnosis(DiagnoseLive(result), result.workload, 3);
  EXPECT_NE(text.find("checkpoints on a standby are restartpoints"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("restartpoints during the observation: 0 timed, 1 "
                      "requested"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("write rates are underestimated"), std::string::npos);
  EXPECT_NE(
      WorkloadToToml(result.workload).find("[server]\nin_recovery = true"),
      std::string::npos);
}

}  // namespace
}  // namespace pglayout
