#include "observe/log_parser.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/files.h"
#include "observe/workload_stats.h"

namespace pglayout {
namespace {

// Logs written by real servers of this project's harness versions with
// log_checkpoints = on and max_wal_size = 32MB during a bulk insert, then a
// CHECKPOINT and a shutdown.
constexpr char kPg15Log[] = "observe/testdata/checkpoints_pg15.log";
constexpr char kPg18Log[] = "observe/testdata/checkpoints_pg18.log";

// observe/testdata/server_logs (make_logs.py writes them, README.md says
// what they hold).
#define SERVER_LOGS "observe/testdata/server_logs/"
constexpr char kRotated[] = SERVER_LOGS "rotated/postgresql.log";
constexpr char kRotated1[] = SERVER_LOGS "rotated/postgresql.log.1";
constexpr char kRotated2Gz[] = SERVER_LOGS "rotated/postgresql.log.2.gz";
constexpr char kSyslog[] = SERVER_LOGS "formats/syslog";
constexpr char kRds[] = SERVER_LOGS "formats/postgresql.log.2024-03-01-12";

// 2024-03-01 00:00:00 UTC, seconds since the epoch.
constexpr double kMarch1 = 1709251200;

CheckpointLogSummary Read(const std::vector<std::string>& paths) {
  CheckpointLogSummary report;
  Status st = ReadCheckpointLogs(paths, &report);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return report;
}

CheckpointLogSummary Parse(const std::string& text) {
  CheckpointLogSummary report;
  Status st = ParseCheckpointLogs({{"x.log", text}}, &report);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return report;
}

bool HasNote(const CheckpointLogSummary& report, const std::string& part) {
  for (const std::string& note : report.notes) {
    if (note.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(CheckpointLog, CountsPg15MessagesAsTheStatisticsViewsDo) {
  CheckpointLogSummary report = Read({kPg15Log});
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
  EXPECT_NEAR(report.Span(), 25.941 - 25.412, 1e-6)
      << "up to the CHECKPOINT: the shutdown checkpoint is left out";

  Workload w = LogSummaryToWorkload(report);
  EXPECT_EQ(w.source, "log");
  EXPECT_EQ(w.checkpoints.timed, 0);
  EXPECT_EQ(w.checkpoints.requested, 4);
  EXPECT_EQ(w.checkpoints.buffers_written, 34 + 2 + 95 + 183)
      << "not the shutdown checkpoint's buffer";
  EXPECT_NEAR(w.checkpoints.write_time_ms, 100 + 64 + 53 + 17, 1e-6);
  double expected = (34607.0 + 22646 + 9068) * 1024 / (25.941 - 25.412);
  EXPECT_NEAR(w.wal_bytes_per_second.value_or(-1), expected, expected * 1e-6)
      << "times are seconds since the epoch: relative error only";
  EXPECT_GT(w.wal_bytes_per_second_peak, 0);
}

TEST(CheckpointLog, ReadsPg18CompleteMessagesWithSlruAndLsn) {
  CheckpointLogSummary report = Read({kPg18Log});
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
  CheckpointLogSummary report = Parse(kText);
  ASSERT_EQ(report.events.size(), 3u);
  EXPECT_EQ(report.Timed(), 3);
  EXPECT_EQ(report.Requested(), 0);
  EXPECT_EQ(report.events[1].flags, std::vector<std::string>{"time"})
      << "the csvlog quote ends the flags";
  EXPECT_EQ(report.events[1].buffers, 10);
  EXPECT_TRUE(report.events[2].restartpoint);
  EXPECT_DOUBLE_EQ(report.Span(), 360);
  Workload w = LogSummaryToWorkload(report);
  // One checkpoint interval (restartpoints are a standby's): 30000 kB over
  // 300 s.
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1), 30000.0 * 1024 / 300);
}

// The rotated Debian log: 14 checkpoints from 10:00:00.012 to 10:55:03.200,
// a shutdown at 10:45 (left out), the last one still running.
void ExpectRotatedDay(const CheckpointLogSummary& report) {
  EXPECT_EQ(report.files, 3);
  ASSERT_EQ(report.events.size(), 14u);
  EXPECT_EQ(report.Timed(), 9);
  EXPECT_EQ(report.Requested(), 4) << "wal, wal, wal time, CHECKPOINT";
  EXPECT_EQ(report.WalTriggered(), 3);
  EXPECT_EQ(report.Completed(), 12) << "the last one has no complete yet";
  EXPECT_EQ(report.unpaired_completions, 0);
  EXPECT_EQ(report.too_frequent_seconds, std::vector<double>{20});
  EXPECT_NEAR(report.Span(), 55 * 60 + 3.188, 1e-3);

  // Started in postgresql.log.1, completed in postgresql.log.
  const CheckpointLogEvent& across = report.events[9];
  EXPECT_EQ(across.source.rfind(kRotated1, 0), 0u) << across.source;
  EXPECT_TRUE(across.completed);
  EXPECT_EQ(across.buffers, 1000);
  EXPECT_EQ(report.events[7].flags, (std::vector<std::string>{"wal", "time"}));

  CheckpointAverages a = report.Averages();
  EXPECT_EQ(a.checkpoints, 12);
  EXPECT_NEAR(a.buffers, 18310.0 / 12, 1e-9);

  Workload w = LogSummaryToWorkload(report);
  EXPECT_DOUBLE_EQ(w.duration, 3303.188);
  EXPECT_EQ(w.checkpoints.timed, 9);
  EXPECT_EQ(w.checkpoints.requested, 4);
  EXPECT_EQ(w.checkpoints.buffers_written, std::llround(18310.0 / 12 * 13))
      << "per counted checkpoint, the average of the 12 complete ones";
  // Ten intervals, 10:00:00.012 to the CHECKPOINT at 10:41:40.700; those
  // around the restart are left out.
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1),
                   std::round(2342518784.0 / 2500.688));
}

// Before 9.6 the complete message has no distance=: the WAL rate is
// unknown, not zero, and the workload file says so.
TEST(CheckpointLog, NoDistanceMeansAnUnknownWalRate) {
  constexpr char kText[] =
      "2016-03-01 10:00:00 UTC [1] LOG:  checkpoint starting: time\n"
      "2016-03-01 10:04:30 UTC [1] LOG:  checkpoint complete: wrote 500 "
      "buffers (3.1%); 0 transaction log file(s) added, 0 removed, 1 "
      "recycled; write=269.9 s, sync=0.1 s, total=270.0 s; sync files=9, "
      "longest=0.1 s, average=0.0 s\n"
      "2016-03-01 10:05:00 UTC [1] LOG:  checkpoint starting: xlog\n"
      "2016-03-01 10:05:40 UTC [1] LOG:  checkpoint complete: wrote 900 "
      "buffers (5.5%); 0 transaction log file(s) added, 0 removed, 3 "
      "recycled; write=39.0 s, sync=0.5 s, total=40.0 s; sync files=9, "
      "longest=0.1 s, average=0.0 s\n";
  CheckpointLogSummary report = Parse(kText);
  ASSERT_EQ(report.events.size(), 2u);
  EXPECT_EQ(report.events[1].distance_kb, -1);
  Workload w = LogSummaryToWorkload(report);
  EXPECT_FALSE(w.wal_bytes_per_second.has_value()) << *w.wal_bytes_per_second;
  EXPECT_EQ(w.wal_bytes_per_second_peak, 0);
  EXPECT_EQ(w.checkpoints.timed + w.checkpoints.requested, 2);
}

TEST(CheckpointLog, RotatedLogsGiveTheSameResultInAnyOrder) {
  CheckpointLogSummary oldest_first = Read({kRotated2Gz, kRotated1, kRotated});
  CheckpointLogSummary newest_first = Read({kRotated, kRotated1, kRotated2Gz});
  ExpectRotatedDay(oldest_first);
  ExpectRotatedDay(newest_first);
  Workload a = LogSummaryToWorkload(oldest_first);
  Workload b = LogSummaryToWorkload(newest_first);
  EXPECT_EQ(a.wal_bytes_per_second_peak, b.wal_bytes_per_second_peak);
  EXPECT_EQ(a.checkpoints.write_time_ms, b.checkpoints.write_time_ms);
  ASSERT_EQ(newest_first.inputs.size(), 3u);
  EXPECT_EQ(newest_first.inputs[2].compression, "gzip");
  EXPECT_EQ(newest_first.inputs[2].format, "stderr");
  EXPECT_EQ(newest_first.inputs[2].messages, 8) << "4 starting, 4 complete";
  EXPECT_EQ(newest_first.inputs[0].compression, "");
}

TEST(CheckpointLog, ReadsAGzipFileAlone) {
  CheckpointLogSummary report = Read({kRotated2Gz});
  EXPECT_EQ(report.Timed(), 4);
  EXPECT_EQ(report.Requested(), 0);
  EXPECT_EQ(report.Completed(), 4);
  EXPECT_GT(report.lines, 8);
  Workload w = LogSummaryToWorkload(report);
  EXPECT_DOUBLE_EQ(w.duration, 900.032);
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1),
                   std::round((61440.0 + 81920 + 71680) * 1024 / 900.032));
}

// The same five checkpoints around noon in each format: S1 time, S2 wal,
// S3 wal time, S4 CHECKPOINT, S5 shutdown (left out).
struct FormatCase {
  const char* name;  // of the test
  const char* file;
  const char* format;
  const char* compression;
};

class EveryFormat : public ::testing::TestWithParam<FormatCase> {};

TEST_P(EveryFormat, GivesTheSameCheckpoints) {
  const FormatCase& c = GetParam();
  CheckpointLogSummary report = Read({std::string(SERVER_LOGS) + c.file});
  ASSERT_EQ(report.inputs.size(), 1u);
  EXPECT_EQ(report.inputs[0].format, c.format);
  EXPECT_EQ(report.inputs[0].compression, c.compression);
  ASSERT_EQ(report.events.size(), 5u);
  EXPECT_EQ(report.Timed(), 1);
  EXPECT_EQ(report.Requested(), 3) << "'wal time' is requested";
  EXPECT_EQ(report.WalTriggered(), 2);
  EXPECT_EQ(report.Completed(), 4);
  EXPECT_EQ(report.unpaired_completions, 0);
  EXPECT_EQ(report.events[3].flags,
            (std::vector<std::string>{"immediate", "force", "wait"}));
  EXPECT_EQ(report.events[3].buffers, 100) << "paired with its own complete";
  EXPECT_DOUBLE_EQ(report.Span(), 900) << "the events' own times";
  EXPECT_DOUBLE_EQ(std::fmod(report.events[0].time - kMarch1, 86400), 12 * 3600)
      << "12:00:00 UTC on 2024-03-01";
  CheckpointAverages a = report.Averages();
  EXPECT_DOUBLE_EQ(a.buffers, 550);
  EXPECT_NEAR(a.write_s, 58.85, 1e-9);
  EXPECT_NEAR(a.sync_s, 0.2375, 1e-9);

  Workload w = LogSummaryToWorkload(report);
  EXPECT_EQ(w.checkpoints.buffers_written, 2200);
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1),
                   std::round((65536.0 + 98304 + 16384) * 1024 / 900));
  EXPECT_DOUBLE_EQ(
      w.wal_bytes_per_second_peak,
      std::round(Percentile95(
          {65536.0 * 1024 / 300, 98304.0 * 1024 / 300, 16384.0 * 1024 / 300})));
}

INSTANTIATE_TEST_SUITE_P(
    ServerLogs, EveryFormat,
    ::testing::Values(
        FormatCase{"Csvlog", "formats/postgresql-2024-03-01_115958.csv",
                   "csvlog", ""},
        FormatCase{"JsonlogBzip2",
                   "formats/postgresql-2024-03-01_115958.json.bz2", "jsonlog",
                   "bzip2"},
        // gzip data under a name without .gz
        FormatCase{"RdsGzipWithoutExtension",
                   "formats/postgresql.log.2024-03-01-12", "stderr", "gzip"},
        FormatCase{"Syslog", "formats/syslog", "syslog", ""},
        FormatCase{"CloudNativePgNewestFirst",
                   "formats/cnpg-newest-first.jsonl", "cloudnativepg", ""},
        FormatCase{"CloudLoggingInReceivedOrder",
                   "formats/cloudsql-export.jsonl", "cloud logging", ""},
        FormatCase{"GcloudArrayNewestFirst", "formats/cloudsql-gcloud.json",
                   "cloud logging", ""}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CheckpointLog, SyslogTakesTheYearOfAnotherFile) {
  CheckpointLogSummary report = Read({kSyslog, kRds});
  EXPECT_TRUE(
      HasNote(report, std::string(kSyslog) +
                          ": syslog times carry no year: took 2024, the "
                          "year nearest the times of " +
                          kRds))
      << ::testing::PrintToString(report.notes);
  EXPECT_EQ(report.Timed(), 2) << "the same checkpoints, twice";
  EXPECT_DOUBLE_EQ(report.Span(), 900) << "both on 2024-03-01";
}

TEST(CheckpointLog, SyslogAloneTakesTheCurrentYearAcrossNewYear) {
  constexpr char kText[] =
      "Dec 31 23:58:00 db1 postgres[7]: [1-1] LOG:  checkpoint starting: "
      "time\n"
      "Jan  1 00:03:00 db1 postgres[7]: [2-1] LOG:  checkpoint starting: "
      "time\n";
  CheckpointLogSummary report = Parse(kText);
  EXPECT_TRUE(HasNote(report, "x.log: syslog times carry no year: took "))
      << ::testing::PrintToString(report.notes);
  EXPECT_EQ(report.Timed(), 2);
  EXPECT_DOUBLE_EQ(report.Span(), 300) << "January follows December";
}

TEST(CheckpointLog, LinesNewestFirstPairInTheirOwnOrder) {
  // Newest first, two checkpoints within one second (%t has no fraction).
  constexpr char kText[] =
      "2024-03-01 10:05:01 UTC [9] LOG:  checkpoint complete: wrote 3 "
      "buffers (0.0%); write=0.1 s, sync=0.1 s, total=0.3 s; distance=30 kB\n"
      "2024-03-01 10:05:01 UTC [9] LOG:  checkpoint starting: time\n"
      "2024-03-01 10:00:01 UTC [9] LOG:  checkpoint complete: wrote 2 "
      "buffers (0.0%); write=0.1 s, sync=0.1 s, total=0.2 s; distance=20 kB\n"
      "2024-03-01 10:00:01 UTC [9] LOG:  checkpoint starting: immediate "
      "force wait\n"
      "2024-03-01 10:00:01 UTC [9] LOG:  checkpoint complete: wrote 1 "
      "buffers (0.0%); write=0.1 s, sync=0.1 s, total=0.2 s; distance=10 kB\n"
      "2024-03-01 10:00:01 UTC [9] LOG:  checkpoint starting: wal\n";
  CheckpointLogSummary report = Parse(kText);
  ASSERT_EQ(report.events.size(), 3u);
  EXPECT_EQ(report.events[0].flags, std::vector<std::string>{"wal"});
  EXPECT_EQ(report.events[0].buffers, 1);
  EXPECT_EQ(report.events[1].buffers, 2);
  EXPECT_EQ(report.events[2].buffers, 3);
  EXPECT_DOUBLE_EQ(report.Span(), 300);
}

TEST(CheckpointLog, FilesKeepTheirOrderWithinOneSecond) {
  // logrotate ran between a start and its complete, in the same second (%t
  // has no fraction); the files are given newest first.
  constexpr char kOlder[] =
      "2024-03-01 09:55:00 UTC [9] LOG:  checkpoint starting: time\n"
      "2024-03-01 09:55:30 UTC [9] LOG:  checkpoint complete: wrote 5 "
      "buffers (0.0%); write=29.5 s, sync=0.1 s, total=30.0 s; distance=50 "
      "kB\n"
      "2024-03-01 10:00:00 UTC [9] LOG:  checkpoint starting: wal\n";
  constexpr char kNewer[] =
      "2024-03-01 10:00:00 UTC [9] LOG:  checkpoint complete: wrote 6 "
      "buffers (0.0%); write=0.3 s, sync=0.1 s, total=0.4 s; distance=60 "
      "kB\n"
      "2024-03-01 10:05:00 UTC [9] LOG:  checkpoint starting: time\n";
  CheckpointLogSummary report;
  ASSERT_TRUE(
      ParseCheckpointLogs({{"new.log", kNewer}, {"old.log", kOlder}}, &report)
          .ok());
  ASSERT_EQ(report.events.size(), 3u);
  EXPECT_EQ(report.events[1].buffers, 6);
  EXPECT_EQ(report.Completed(), 2);
  EXPECT_EQ(report.unpaired_completions, 0);
}

TEST(CheckpointLog, CompleteWithoutItsStartIsNotPairedWithAnOldOne) {
  constexpr char kText[] =
      "2024-03-01 10:00:00.000 UTC [9] LOG:  checkpoint starting: time\n"
      "2024-03-01 10:10:00.000 UTC [9] LOG:  checkpoint starting: wal\n"
      "2024-03-01 10:10:30.000 UTC [9] LOG:  checkpoint complete: wrote 7 "
      "buffers (0.0%); write=29.0 s, sync=0.5 s, total=30.000 s; "
      "distance=70 kB\n"
      // Its start was in a file not given.
      "2024-03-01 10:20:05.000 UTC [9] LOG:  checkpoint complete: wrote 9 "
      "buffers (0.0%); write=4.5 s, sync=0.5 s, total=5.000 s; distance=90 "
      "kB\n";
  CheckpointLogSummary report = Parse(kText);
  ASSERT_EQ(report.events.size(), 2u);
  EXPECT_FALSE(report.events[0].completed)
      << "10:00 + total=5 s does not reach 10:20:05";
  EXPECT_EQ(report.events[1].buffers, 7);
  EXPECT_EQ(report.unpaired_completions, 1);
  EXPECT_EQ(report.Completed(), 1);
  EXPECT_DOUBLE_EQ(report.Averages().buffers, 7);
  EXPECT_TRUE(HasNote(report, "1 \"complete\" message(s) without"));
}

TEST(CheckpointLog, ShutdownAndEndOfRecoveryAreLeftOut) {
  constexpr char kText[] =
      "2024-03-01 10:00:00 UTC [9] LOG:  checkpoint starting: end-of-recovery "
      "immediate wait\n"
      "2024-03-01 10:00:01 UTC [9] LOG:  checkpoint complete: wrote 900 "
      "buffers (5.0%); write=0.5 s, sync=0.4 s, total=0.9 s; distance=9000 "
      "kB\n"
      "2024-03-01 10:05:01 UTC [9] LOG:  checkpoint starting: time\n"
      "2024-03-01 10:06:01 UTC [9] LOG:  checkpoint complete: wrote 100 "
      "buffers (0.5%); write=59.5 s, sync=0.4 s, total=60.0 s; distance=3000 "
      "kB\n"
      "2024-03-01 10:10:01 UTC [9] LOG:  checkpoint starting: wal\n"
      "2024-03-01 10:10:31 UTC [9] LOG:  checkpoint complete: wrote 300 "
      "buffers (1.5%); write=29.5 s, sync=0.4 s, total=30.0 s; "
      "distance=6000 kB\n"
      "2024-03-01 10:12:00 UTC [9] LOG:  checkpoint starting: shutdown "
      "immediate\n"
      "2024-03-01 10:12:01 UTC [9] LOG:  checkpoint complete: wrote 50 "
      "buffers (0.1%); write=0.5 s, sync=0.4 s, total=0.9 s; distance=1000 "
      "kB\n";
  CheckpointLogSummary report = Parse(kText);
  EXPECT_EQ(report.events.size(), 4u);
  EXPECT_EQ(report.Timed(), 1);
  EXPECT_EQ(report.Requested(), 1);
  EXPECT_EQ(report.Completed(), 2);
  EXPECT_DOUBLE_EQ(report.Averages().buffers, 200);
  EXPECT_DOUBLE_EQ(report.Span(), 300);
  Workload w = LogSummaryToWorkload(report);
  EXPECT_DOUBLE_EQ(w.wal_bytes_per_second.value_or(-1),
                   std::round(6000.0 * 1024 / 300))
      << "only the interval between the two counted checkpoints";
}

TEST(CheckpointLog, NamedZonesFollowDaylightSavingTime) {
  // Berlin falls back from 03:00 CEST to 02:00 CET on 2024-10-27: the
  // second checkpoint is five minutes after the first, not 55 before.
  constexpr char kText[] =
      "2024-10-27 02:58:00.000 CEST [9] LOG:  checkpoint starting: time\n"
      "2024-10-27 02:03:00.000 CET [9] LOG:  checkpoint starting: time\n"
      "2024-10-27 02:08:00.000 +01 [9] LOG:  checkpoint starting: time\n";
  CheckpointLogSummary report = Parse(kText);
  ASSERT_EQ(report.events.size(), 3u);
  EXPECT_DOUBLE_EQ(report.events[1].time - report.events[0].time, 300);
  EXPECT_DOUBLE_EQ(report.Span(), 600);
}

TEST(CheckpointLog, QuotedWordsInAStatementAreNotAMessage) {
  CheckpointLogSummary report;
  Status st = ParseCheckpointLogs(
      {{"x.log",
        "2024-03-01 10:25:13.201 UTC [2417] app@shop LOG:  statement: INSERT "
        "INTO audit (note) VALUES ('checkpoint starting: wal')\n"}},
      &report);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  EXPECT_NE(st.message().find("no checkpoint messages in x.log (stderr, 1 "
                              "lines)"),
            std::string::npos)
      << st.message();
}

TEST(CheckpointLog, ReadsEveryMemberOfConcatenatedGzip) {
  std::string gz;
  ASSERT_TRUE(ReadTextFile(kRotated2Gz, &gz).ok());
  CheckpointLogSummary once = Parse(gz);
  CheckpointLogSummary twice = Parse(gz + gz);
  EXPECT_EQ(twice.lines, 2 * once.lines);
  EXPECT_EQ(twice.Timed(), 8);
  EXPECT_EQ(twice.Completed(), 8);
}

TEST(CheckpointLog, CutsVeryLongLinesAndReadsOn) {
  std::string text = "2024-03-01 10:00:00 UTC [1] LOG:  statement: SELECT '" +
                     std::string(3 << 20, 'x') + "'\n" +
                     "2024-03-01 10:05:00 UTC [1] LOG:  checkpoint starting: "
                     "time\n";
  CheckpointLogSummary report = Parse(text);
  EXPECT_EQ(report.lines, 2);
  EXPECT_EQ(report.Timed(), 1);
}

TEST(CheckpointLog, BadInputs) {
  CheckpointLogSummary report;
  Status st =
      ReadCheckpointLogs({kRotated, "/nonexistent/postgresql.log"}, &report);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_NE(st.message().find("could not read server log "
                              "\"/nonexistent/postgresql.log\": No such file "
                              "or directory"),
            std::string::npos)
      << st.message();

  std::string path = ::testing::TempDir() + "/quiet.log";
  ASSERT_TRUE(WriteTextFile(path,
                            "2024-01-01 LOG:  database system is "
                            "ready\n")
                  .ok());
  CheckpointLogSummary empty;
  st = ReadCheckpointLogs({path}, &empty);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find(path + " (stderr, 1 lines)"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("log_checkpoints = on"), std::string::npos)
      << st.message();

  // A configuration file among logs: no format of a log at all.
  const std::string conf = SERVER_LOGS "bad/postgresql.conf";
  st = ReadCheckpointLogs({kRotated, conf}, &report);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find(conf + ": 7 lines in no server log format"),
            std::string::npos)
      << st.message();

  std::string gz;
  ASSERT_TRUE(ReadTextFile(kRotated2Gz, &gz).ok());
  st = ParseCheckpointLogs({{"cut.gz", gz.substr(0, gz.size() / 2)}}, &report);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("could not read server log \"cut.gz\" (line "),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("gzip data ends early"), std::string::npos)
      << st.message();

  st = ParseCheckpointLogs({{"log.xz", std::string("\xfd"
                                                   "7zXZ\0\0",
                                                   8)}},
                           &report);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("log.xz is xz-compressed"), std::string::npos)
      << st.message();
}

TEST(CheckpointLog, AFileWithoutCheckpointsAmongOthersIsANote) {
  const std::string quiet = SERVER_LOGS "bad/postgresql-quiet.log";
  CheckpointLogSummary report = Read({quiet, kRotated2Gz});
  EXPECT_EQ(report.Timed(), 4);
  EXPECT_TRUE(
      HasNote(report, quiet + " (stderr, 6 lines): no checkpoint message"))
      << ::testing::PrintToString(report.notes);
}

}  // namespace
}  // namespace pglayout
