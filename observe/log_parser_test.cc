#include "observe/log_parser.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace pglayout {
namespace {

// Logs written by real servers of this project's harness versions with
// log_checkpoints = on and max_wal_size = 32MB during a bulk insert, then a
// CHECKPOINT and a shutdown.
constexpr char kPg15Log[] = "observe/testdata/checkpoints_pg15.log";
constexpr char kPg18Log[] = "observe/testdata/checkpoints_pg18.log";

TEST(CheckpointLog, CountsPg15MessagesAsTheStatisticsViewsDo) {
  CheckpointLogReport report;
  Status st = ReadCheckpointLogs({kPg15Log}, &report);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(report.events.size(), 5u);
  EXPECT_EQ(report.Timed(), 0);
  EXPECT_EQ(report.Requested(), 4) << "wal x3 and CHECKPOINT; not shutdown";
  EXPECT_EQ(report.WalTriggered(), 4)
      << "'immediate force wait wal' is a CHECKPOINT that absorbed a WAL one";
  EXPECT_EQ(report.too_frequent_warnings, 4);
  EXPECT_EQ(report.too_frequent_seconds, (std::vector<double>{1, 0, 0, 0}));

  const CheckpointLogEvent& first = report.events[0];
  EXPECT_EQ(first.flags, std::vector<std::string>{"wal"});
  EXPECT_TRUE(first.completed);
  EXPECT_EQ(first.buffers, 34);
  EXPECT_DOUBLE_EQ(first.write_s, 0.100);
  EXPECT_DOUBLE_EQ(first.sync_s, 0.109);
  EXPECT_DOUBLE_EQ(first.total_s, 0.273);
  EXPECT_EQ(first.distance_kb, 11379);
  EXPECT_EQ(first.source, std::string(kPg15Log) + ":7");
  EXPECT_EQ(report.events[3].flags,
            (std::vector<std::string>{"immediate", "force", "wait", "wal"}));
  EXPECT_NEAR(report.Span(), 26.028 - 25.412, 1e-6);

  Workload w = LogReportToWorkload(report);
  EXPECT_EQ(w.source, "log");
  EXPECT_EQ(w.checkpoints.timed, 0);
  EXPECT_EQ(w.checkpoints.requested, 4);
  EXPECT_EQ(w.checkpoints.buffers_written, 34 + 2 + 95 + 183 + 1);
  EXPECT_NEAR(w.checkpoints.write_time_ms, 100 + 64 + 53 + 17 + 13, 1e-6);
  double expected = (34607.0 + 22646 + 9068 + 1) * 1024 / (26.028 - 25.412);
  EXPECT_NEAR(w.wal_bytes_per_second, expected, expected * 1e-6)
      << "times are seconds since the epoch: relative error only";
  EXPECT_GT(w.wal_bytes_per_second_peak, 0);
}

TEST(CheckpointLog, ReadsPg18CompleteMessagesWithSlruAndLsn) {
  CheckpointLogReport report;
  ASSERT_TRUE(ReadCheckpointLogs({kPg18Log}, &report).ok());
  ASSERT_EQ(report.events.size(), 6u);
  EXPECT_EQ(report.Requested(), 5);
  EXPECT_EQ(report.WalTriggered(), 4);
  EXPECT_EQ(report.events[0].buffers, 29) << "not the 3 SLRU buffers";
  EXPECT_EQ(report.events[0].distance_kb, 9112);
  EXPECT_DOUBLE_EQ(report.events[0].sync_s, 0.148);
}

TEST(CheckpointLog, TimedCheckpointsCsvlogAndRestartpoints) {
  constexpr char kText[] =
      "2024-03-01 10:00:00 UTC [1] LOG:  checkpoint starting: time\n"
      "2024-03-01 10:02:15 UTC [1] LOG:  checkpoint complete: wrote 500 "
      "buffers (3.1%); 0 WAL file(s) added; write=134.9 s, sync=0.5 s, "
      "total=135.6 s; sync files=9, longest=0.1 s, average=0.1 s; "
      "distance=60000 kB, estimate=60000 kB\n"
      "2024-03-01 10:05:00.000 UTC,,,1,,65e1,3,,2024-03-01 09:00:00 UTC,,0,"
      "LOG,00000,\"checkpoint starting: time\",,,,,,,,,\"\",\"checkpointer\""
      ",,0\n"
      "2024-03-01 10:05:30 UTC,,,1,,LOG,00000,\"checkpoint complete: wrote "
      "10 buffers (0.1%); write=29.0 s, sync=1.0 s, total=30.0 s; "
      "distance=30000 kB, estimate=55000 kB\",,,\n"
      "2024-03-01 10:06:00 UTC [2] LOG:  restartpoint starting: time\n"
      "2024-03-01 10:06:01 UTC [2] LOG:  restartpoint complete: wrote 1 "
      "buffers (0.0%); write=0.5 s, sync=0.1 s, total=0.6 s; distance=1 kB, "
      "estimate=1 kB\n";
  CheckpointLogReport report;
  ParseCheckpointLog(kText, "x.log", &report);
  ASSERT_EQ(report.events.size(), 3u);
  EXPECT_EQ(report.Timed(), 3);
  EXPECT_EQ(report.Requested(), 0);
  EXPECT_EQ(report.events[1].flags, std::vector<std::string>{"time"})
      << "the csvlog quote ends the flags";
  EXPECT_EQ(report.events[1].buffers, 10);
  EXPECT_TRUE(report.events[2].restartpoint);
  EXPECT_DOUBLE_EQ(report.Span(), 360);
  Workload w = LogReportToWorkload(report);
  // One checkpoint interval (restartpoints are a standby's): 30000 kB over
  // 300 s.
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second, 30000.0 * 1024 / 300);
}

TEST(CheckpointLog, BadInputs) {
  CheckpointLogReport report;
  Status st = ReadCheckpointLogs({"/nonexistent/postgresql.log"}, &report);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot read server log "
                              "/nonexistent/postgresql.log"),
            std::string::npos)
      << st.message();

  std::string path = ::testing::TempDir() + "/quiet.log";
  ASSERT_TRUE(WriteTextFile(path,
                            "2024-01-01 LOG:  database system is "
                            "ready\n")
                  .ok());
  CheckpointLogReport empty;
  st = ReadCheckpointLogs({path}, &empty);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("log_checkpoints = on"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace pglayout
