// `pglayout observe` bad inputs through the real binary (issue 4): the
// user's mistakes exit 2 with a message naming the problem, an unreachable
// server exits 1 naming host and port, and the password never appears.
// The library functions behind them have their own tests (planner/).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/files.h"
#include "common/units.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ObserveCommand, DurationShorterThanTwoIntervalsExitsTwo) {
  // A server that would never answer: the options fail before connecting.
  Completion run = RunPglayout(
      {"observe", "--dsn", "host=192.0.2.1 connect_timeout=30", "--duration",
       "15s", "--interval", "10s", "-o", ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, "shorter than two intervals")) << run.output;
}

TEST(ObserveCommand, UnreachableServerNamesHostAndPortButNotThePassword) {
  std::string out = ::testing::TempDir() + "/unreachable.toml";
  std::filesystem::remove(out);
  Completion run =
      RunPglayout({"observe", "--dsn",
                   "host=127.0.0.1 port=1 user=monitor password=hunter2-secret "
                   "connect_timeout=3",
                   "--duration", "2s", "--interval", "1s", "-o", out});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "127.0.0.1")) << run.output;
  EXPECT_TRUE(Contains(run.output, "port 1")) << run.output;
  EXPECT_FALSE(Contains(run.output, "hunter2")) << run.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing observed, no file";
}

TEST(ObserveCommand, MalformedSegmentsCsvExitsTwoNamingLineAndColumn) {
  std::string csv = WriteTempFile(
      "bad_segments.csv",
      "owner,segment_name,segment_type,physical_reads,physical_writes,bytes,"
      "interval_seconds\nS,T,TABLE,12x,0,1,60\n");
  Completion run = RunPglayout({"observe", "--from-segments", csv, "-o",
                                ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(
      Contains(run.output, csv + ":2:11: column 'physical_reads' expected a "
                                 "non-negative number, got '12x'"))
      << run.output;
}

TEST(ObserveCommand, UnreadableLogNamesTheFile) {
  Completion run =
      RunPglayout({"observe", "--from-log", "/nonexistent/postgresql.log", "-o",
                   ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "could not read server log "
                       "\"/nonexistent/postgresql.log\": No such file"))
      << run.output;
}

// --- Oracle segment exports as DBAs have them (issue item 7). The fixtures
// are in observe/testdata; the tests run from the source root.

std::string Fixture(const std::string& name) {
  return std::filesystem::absolute("observe/testdata/" + name).string();
}

// Runs `observe --from-segments` into a fresh output file.
Completion ImportSegments(const std::vector<std::string>& extra,
                          const std::string& out) {
  std::filesystem::remove(out);
  std::vector<std::string> args = {"observe", "-o", out, "--from-segments"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunPglayout(args);
}

Workload ReadOutput(const std::string& out) {
  Workload w;
  Status st = ReadWorkloadFile(out, &w);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return w;
}

TEST(ObserveCommand, SqlPlusAwrExportWithOracleNamesWritesTheWorkload) {
  std::string out = ::testing::TempDir() + "/awr_sqlplus.toml";
  Completion run = ImportSegments({Fixture("awr_sqlplus.csv")}, out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "15 row(s), 3 snapshot(s)")) << run.output;
  EXPECT_TRUE(Contains(run.output, "skipped 2 LOB row(s) without table_name"))
      << run.output;

  Workload w = ReadOutput(out);
  EXPECT_EQ(w.source, "oracle-segments");
  EXPECT_DOUBLE_EQ(w.duration, 9000) << "from BEGIN/END_INTERVAL_TIME";
  ASSERT_EQ(w.relations.size(), 3u);
  EXPECT_EQ(w.relations[0].name, "shop.orders");
  EXPECT_NEAR(w.relations[0].read_iops, 290, 1e-9);
  EXPECT_NEAR(w.relations[0].read_iops_avg, 180, 1e-9);
  EXPECT_NEAR(w.relations[0].write_iops, 10, 1e-9);
  EXPECT_EQ(w.relations[0].size, 2 * kGiB + 32 * kMiB);
  EXPECT_EQ(w.relations[1].name, "shop.events");
  EXPECT_TRUE(w.relations[1].partitioned);
  EXPECT_NEAR(w.relations[1].write_iops, 20, 1e-9);
  EXPECT_EQ(w.relations[2].name, "shop.orders_pk");
  EXPECT_EQ(w.relations[2].kind, RelationKind::kIndex);
}

TEST(ObserveCommand, ExcelFileWithBomSemicolonsAndCrlfImports) {
  std::string out = ::testing::TempDir() + "/awr_excel.toml";
  Completion run = ImportSegments({Fixture("awr_excel_semicolon.csv")}, out);
  ASSERT_EQ(run.exit_code, 0) << run.output;

  Workload w = ReadOutput(out);
  EXPECT_DOUBLE_EQ(w.duration, 7200);
  ASSERT_EQ(w.relations.size(), 3u);
  EXPECT_EQ(w.relations[0].name, "lager.artikel");
  EXPECT_EQ(w.relations[0].size, 5 * kGiB) << "table and LOB segment";
  EXPECT_NEAR(w.relations[0].read_iops, 390.5, 1e-9);
  EXPECT_NEAR(w.relations[0].read_iops_avg, 305, 1e-9);
  const Relation* pk = w.Find("lager.artikel_pk");
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(pk->table, "lager.artikel");
  EXPECT_NE(w.Find("lager.\"bestand;alt\""), nullptr);
}

TEST(ObserveCommand, VSegmentStatisticsLongFormImports) {
  std::string out = ::testing::TempDir() + "/vsegstat.toml";
  Completion run = ImportSegments({Fixture("vsegstat_long.csv")}, out);
  ASSERT_EQ(run.exit_code, 0) << run.output;

  Workload w = ReadOutput(out);
  EXPECT_DOUBLE_EQ(w.duration, 864000);
  ASSERT_EQ(w.relations.size(), 3u);
  EXPECT_EQ(w.relations[0].name, "crm.customers");
  EXPECT_NEAR(w.relations[0].read_iops, 100, 1e-9);
  EXPECT_NEAR(w.relations[0].write_iops, 10, 1e-9);
  EXPECT_EQ(w.relations[0].size, 3 * kGiB);
  const Relation* contacts = w.Find("crm.contacts");
  ASSERT_NE(contacts, nullptr);
  EXPECT_EQ(contacts->size, 2 * kGiB);
}

TEST(ObserveCommand, WrongSeparatorOptionExitsTwoWithAHintAndNoFile) {
  std::string out = ::testing::TempDir() + "/forced_comma.toml";
  Completion run = ImportSegments(
      {Fixture("awr_excel_semicolon.csv"), "--separator", ","}, out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "awr_excel_semicolon.csv:1: the header lacks column(s) "
                       "owner, segment_name"))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "are fields separated by ';'?"))
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(out));

  run = ImportSegments({Fixture("awr_excel_semicolon.csv"), "--separator", ";"},
                       out);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(ReadOutput(out).relations.size(), 3u);

  run = ImportSegments({Fixture("awr_excel_semicolon.csv"), "--separator", ":"},
                       out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(
      Contains(run.output, "--separator ':': expected one of , ; | tab"))
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ObserveCommand, TwoNamesForOneColumnExitTwoNamingBothAndWriteNothing) {
  std::string csv = WriteTempFile(
      "two_reads.csv",
      "OWNER,OBJECT_NAME,OBJECT_TYPE,PHYSICAL_READS,PHYSICAL_READS_DELTA,"
      "PHYSICAL_WRITES,BYTES,INTERVAL_SECONDS\n"
      "S,T,TABLE,1,1,0,8192,60\n");
  std::string out = ::testing::TempDir() + "/two_reads.toml";
  Completion run = ImportSegments({csv}, out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       csv + ":1:46: columns 'PHYSICAL_READS' and "
                             "'PHYSICAL_READS_DELTA' both give physical_reads"))
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ObserveCommand, BadSnapshotTimeExitsTwoNamingLineAndColumn) {
  std::string csv = WriteTempFile(
      "bad_time.csv",
      "OWNER;OBJECT_NAME;OBJECT_TYPE;PHYSICAL_READS_DELTA;"
      "PHYSICAL_WRITES_DELTA;BYTES;BEGIN_INTERVAL_TIME;END_INTERVAL_TIME\r\n"
      "S;T;TABLE;1;0;8192;14.03.2024 10:00;14.03.2024 11:00\r\n"
      "S;T;TABLE;1;0;8192;03/14/2024 11:00;03/14/2024 12:00\r\n");
  std::string out = ::testing::TempDir() + "/bad_time.toml";
  Completion run = ImportSegments({csv}, out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, csv + ":3:20: column 'BEGIN_INTERVAL_TIME' "
                                         "expected a time"))
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ObserveCommand, SeparatorWithoutSegmentsExitsTwo) {
  Completion run =
      RunPglayout({"observe", "--from-log", "/nonexistent/postgresql.log",
                   "--separator", ";", "-o", ::testing::TempDir() + "/w.toml"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, "--separator apply to --from-segments"))
      << run.output;
}

// --from-log with the server logs of observe/testdata/server_logs (README.md
// there says what they hold).
#define SERVER_LOGS "observe/testdata/server_logs/"

// The "workload" object of `observe --json` (stdout and stderr come
// together: the JSON is the lines from "{" to "}").
nlohmann::json WorkloadOf(const Completion& run) {
  const std::string& out = run.output;
  size_t begin = out.rfind("{\n", 0) == 0 ? 0 : out.find("\n{\n");
  if (begin == std::string::npos) return {};
  if (begin != 0) ++begin;
  size_t end = out.find("\n}\n", begin);
  if (end == std::string::npos) return {};
  auto all =
      nlohmann::json::parse(out.substr(begin, end + 2 - begin), nullptr, false);
  return all.is_object() ? all["workload"] : nlohmann::json();
}

Completion ObserveLogs(const std::vector<std::string>& logs,
                       const std::string& output) {
  std::vector<std::string> args = {"observe", "--json", "-o", output};
  for (const std::string& log : logs) {
    args.push_back("--from-log");
    args.push_back(log);
  }
  return RunPglayout(args);
}

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ObserveCommand, ReadsAGzipLogAlone) {
  Completion run = ObserveLogs({SERVER_LOGS "rotated/postgresql.log.2.gz"},
                               ::testing::TempDir() + "/gz.toml");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json w = WorkloadOf(run);
  ASSERT_TRUE(w.is_object()) << run.output;
  EXPECT_EQ(w["checkpoints"]["timed"], 4);
  EXPECT_EQ(w["checkpoints"]["requested"], 0);
  EXPECT_DOUBLE_EQ(w["observation"]["duration"].get<double>(), 900.032);
  EXPECT_DOUBLE_EQ(w["wal"]["bytes_per_second"].get<double>(),
                   std::round((61440.0 + 81920 + 71680) * 1024 / 900.032));
  EXPECT_EQ(w["checkpoints"]["buffers_written"], 1210 + 980 + 1500 + 1320);
}

// A shell glob gives rotated logs newest first: postgresql.log,
// postgresql.log.1, postgresql.log.2.gz.
TEST(ObserveCommand, RotatedLogsNewestFirstGiveWhatOldestFirstGives) {
  std::string dir = ::testing::TempDir();
  Completion newest = ObserveLogs({SERVER_LOGS "rotated/postgresql.log",
                                   SERVER_LOGS "rotated/postgresql.log.1",
                                   SERVER_LOGS "rotated/postgresql.log.2.gz"},
                                  dir + "/newest.toml");
  Completion oldest = ObserveLogs({SERVER_LOGS "rotated/postgresql.log.2.gz",
                                   SERVER_LOGS "rotated/postgresql.log.1",
                                   SERVER_LOGS "rotated/postgresql.log"},
                                  dir + "/oldest.toml");
  ASSERT_EQ(newest.exit_code, 0) << newest.output;
  ASSERT_EQ(oldest.exit_code, 0) << oldest.output;
  nlohmann::json w = WorkloadOf(newest);
  ASSERT_TRUE(w.is_object()) << newest.output;
  EXPECT_EQ(w, WorkloadOf(oldest));
  EXPECT_EQ(FileText(dir + "/newest.toml"), FileText(dir + "/oldest.toml"));

  // 13 checkpoints (the shutdown one left out) over 55 min 3.188 s.
  EXPECT_EQ(w["checkpoints"]["timed"], 9);
  EXPECT_EQ(w["checkpoints"]["requested"], 4);
  EXPECT_DOUBLE_EQ(w["observation"]["duration"].get<double>(), 3303.188);
  EXPECT_DOUBLE_EQ(w["wal"]["bytes_per_second"].get<double>(),
                   std::round(2342518784.0 / 2500.688));
  // The 12 complete ones wrote 18310 buffers: 1526 per checkpoint.
  EXPECT_NE(newest.output.find("per checkpoint: 1526 buffers written"),
            std::string::npos)
      << newest.output;
}

TEST(ObserveCommand, LinesNewestFirstArePairedByTheirTimes) {
  Completion run = ObserveLogs({SERVER_LOGS "formats/cnpg-newest-first.jsonl"},
                               ::testing::TempDir() + "/cnpg.toml");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json w = WorkloadOf(run);
  ASSERT_TRUE(w.is_object()) << run.output;
  EXPECT_EQ(w["checkpoints"]["timed"], 1);
  EXPECT_EQ(w["checkpoints"]["requested"], 3);
  EXPECT_DOUBLE_EQ(w["observation"]["duration"].get<double>(), 900);
  EXPECT_DOUBLE_EQ(w["wal"]["bytes_per_second"].get<double>(),
                   std::round((65536.0 + 98304 + 16384) * 1024 / 900));
  EXPECT_EQ(w["checkpoints"]["buffers_written"], 500 + 900 + 700 + 100);
}

// A syslog line has no year: the one assumed is said, with the file.
TEST(ObserveCommand, SaysWhichYearASyslogFileWasGiven) {
  Completion run = ObserveLogs({SERVER_LOGS "formats/syslog", SERVER_LOGS
                                "formats/postgresql-2024-03-01_115958.csv"},
                               ::testing::TempDir() + "/syslog.toml");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("took 2024, the year nearest the times of"),
            std::string::npos)
      << run.output;
}

TEST(ObserveCommand, UnrecognisedLogExitsTwoNamingTheFile) {
  const std::string conf = SERVER_LOGS "bad/postgresql.conf";
  Completion run = ObserveLogs({SERVER_LOGS "rotated/postgresql.log", conf},
                               ::testing::TempDir() + "/conf.toml");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, conf + ": 7 lines in no server log format"))
      << run.output;
}

TEST(ObserveCommand, MissingLogNamesItAndChangesNothing) {
  std::string out = WriteTempFile("kept.toml", "# an earlier workload\n");
  Completion run = ObserveLogs(
      {SERVER_LOGS "rotated/postgresql.log", "/nonexistent/postgresql.log.1"},
      out);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "pglayout: error: could not read server log "
                       "\"/nonexistent/postgresql.log.1\": No such file or "
                       "directory\n"))
      << run.output;
  EXPECT_EQ(FileText(out), "# an earlier workload\n");
}

}  // namespace
}  // namespace pglayout
