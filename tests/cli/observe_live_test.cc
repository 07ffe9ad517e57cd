// `pglayout observe` through the real binary against real servers: what
// the diagnosis says, and from which window.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "pg/sql.h"
#include "testing/pg_test.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

// Advice from the right window: a server whose past is full of requested
// checkpoints (CHECKPOINT commands), observed while none happens, is not
// told to raise max_wal_size; the history is reported as history.
class ObserveWindowTest : public PgVersionTest {};

TEST_P(ObserveWindowTest, HistorySinceTheResetIsNotAdvice) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &pg));
  std::unique_ptr<SqlSession> s;
  PGLAYOUT_ASSERT_OK(pg->Connect(&s));
  CheckpointCounts before;
  PGLAYOUT_ASSERT_OK(ReadCheckpointCounts(s.get(), &before));
  for (int i = 0; i < 3; ++i) {
    PGLAYOUT_ASSERT_OK(
        ExecuteSql(s.get(),
                   "CREATE TABLE IF NOT EXISTS t (a int); INSERT INTO t "
                   "VALUES (1)"));
    PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), "CHECKPOINT"));
  }
  // Before 15 the statistics arrive asynchronously: wait until the views
  // show the three, so that none lands in the observation's window.
  CheckpointCounts counts;
  for (int i = 0; i < 100; ++i) {
    PGLAYOUT_ASSERT_OK(ExecuteSql(s.get(), "SELECT pg_stat_clear_snapshot()"));
    PGLAYOUT_ASSERT_OK(ReadCheckpointCounts(s.get(), &counts));
    if (counts.requested >= before.requested + 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(counts.requested, before.requested + 3);
  Completion run = RunPglayout({"observe", "--dsn", pg->conninfo(),
                                "--duration", "3s", "--interval", "1s", "-o",
                                ::testing::TempDir() + "/window.toml"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("checkpoints during the observation: 0 timed, 0 "
                            "requested"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("no checkpoint happened during the observation; "
                            "since the last statistics reset"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(run.output.find("requested checkpoints are"), std::string::npos)
      << run.output;
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(ObserveWindowTest);

// On the database host, observe counts the read requests of the device that
// holds the data directory while it samples (docs/workload-model.md#page-
// cache), and leaves them out when asked to.
class ObserveDeviceReadsTest : public PgVersionTest {};

TEST_P(ObserveDeviceReadsTest, CountsTheDataDevicesReadsUnlessAskedNotTo) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  const std::string counted = ::testing::TempDir() + "/device_reads.toml";
  Completion run =
      RunPglayout({"observe", "--dsn", pg->conninfo(), "--duration", "2s",
                   "--interval", "1s", "-o", counted});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Workload w;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(counted, &w));
  const DataLocation* data = w.FindLocation("data_directory");
  ASSERT_NE(data, nullptr);
  ASSERT_TRUE(data->on.has_value());
  ASSERT_FALSE(data->on->device.empty()) << data->path;
  ASSERT_EQ(w.device_reads.size(), 1u);
  EXPECT_EQ(w.device_reads[0].device, data->on->device);
  EXPECT_EQ(w.device_reads[0].dev, data->on->dev);

  const std::string left_out = ::testing::TempDir() + "/no_device_reads.toml";
  run = RunPglayout({"observe", "--dsn", pg->conninfo(), "--duration", "2s",
                     "--interval", "1s", "--no-device-reads", "-o", left_out});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Workload without;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(left_out, &without));
  EXPECT_TRUE(without.device_reads.empty());
  EXPECT_EQ(without.locations.size(), w.locations.size());
  std::remove(counted.c_str());
  std::remove(left_out.c_str());
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(ObserveDeviceReadsTest);

// PostgreSQL's connection options, as psql takes them: -d is a database
// name, a connection string or a URI, whose values win over -h/-p/-U.
class ObserveConnectionTest : public PgVersionTest {};

bool Observes(const Workload& w, const std::string& relation) {
  for (const Relation& r : w.relations) {
    if (r.name == relation) return true;
  }
  return false;
}

TEST_P(ObserveConnectionTest, DbnameHostPortAndUsernameReachTheServer) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(pg->Connect(&admin));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(),
                                "DROP DATABASE IF EXISTS \"it's "
                                "db\""));
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "CREATE DATABASE \"it's db\""));
  std::unique_ptr<SqlSession> db;
  PGLAYOUT_ASSERT_OK(
      OpenPgSession("host=127.0.0.1 port=" + std::to_string(pg->port()) +
                        " user=postgres dbname='it\\'s db'",
                    "test", &db));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(db.get(),
                 "CREATE TABLE public.only_here AS SELECT g FROM "
                 "pg_catalog.generate_series(1, 1000) g"));
  const std::string port = std::to_string(pg->port());
  const std::string out = ::testing::TempDir() + "/connection.toml";
  const std::vector<std::string> timing = {"--duration", "1s", "--interval",
                                           "500ms",      "-o", out};
  auto observe = [&](std::vector<std::string> args) {
    std::vector<std::string> all = {"observe"};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), timing.begin(), timing.end());
    return RunPglayout(all);
  };
  // A connection string in -d.
  Completion run = observe({"-d", pg->conninfo()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  Workload w;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(out, &w));
  EXPECT_FALSE(Observes(w, "public.only_here"));

  // A database name that needs quoting, and -h, -p, -U.
  run = observe(
      {"-d", "it's db", "-h", "127.0.0.1", "-p", port, "-U", "postgres"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(out, &w));
  EXPECT_TRUE(Observes(w, "public.only_here"));

  // As in psql, a connection string's or URI's port wins over -p, which
  // fills in only a port the string leaves out: psql and pglayout go to
  // the same server, or fail on the same port.
  const std::string wrong = "1";
  const std::string names_right = pg->conninfo();
  const std::string names_wrong =
      "host=127.0.0.1 port=" + wrong + " user=postgres dbname=postgres";
  std::string psql_out;
  PGLAYOUT_ASSERT_OK(pg->RunClient(
      {"psql", "-X", "-At", "-d", names_right, "-p", wrong, "-c", "SHOW port"},
      &psql_out));
  EXPECT_NE(psql_out.find(port), std::string::npos) << psql_out;
  run = observe({"-d", names_right, "-p", wrong});
  EXPECT_EQ(run.exit_code, 0) << run.output;

  EXPECT_FALSE(pg->RunClient({"psql", "-X", "-At", "-d", names_wrong, "-p",
                              port, "-c", "SHOW port"},
                             &psql_out)
                   .ok())
      << psql_out;
  run = observe({"--dbname=" + names_wrong, "--port", port});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(std::regex_search(
      run.output, std::regex("pglayout: error: .*port " + wrong + "[^0-9]")))
      << run.output;

  run = observe({"-d",
                 "postgresql://postgres@127.0.0.1:" + wrong + "/it%27s%20db",
                 "-p", port});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  run = observe({"-d", "postgresql://postgres@127.0.0.1/it%27s%20db", "-p",
                 port, "-U", "nobody"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  PGLAYOUT_ASSERT_OK(ReadWorkloadFile(out, &w));
  EXPECT_TRUE(Observes(w, "public.only_here"));

  // The spelling before -d still works.
  run = observe({"--dsn", pg->conninfo()});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  db.reset();
  PGLAYOUT_ASSERT_OK(ExecuteSql(admin.get(), "DROP DATABASE \"it's db\""));
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(ObserveConnectionTest);

}  // namespace
}  // namespace pglayout
