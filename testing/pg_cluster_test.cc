// Integration tests of the harness itself, against real PostgreSQL 15 and 18
// servers. They double as the first check that common/'s SqlSession works
// against both versions.

#include "testing/pg_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pg/sql.h"
#include "testing/pg_test.h"

namespace pglayout {
namespace {

namespace fs = std::filesystem;

bool WaitFor(const std::function<bool()>& condition, int timeout_ms) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Running, i.e. neither gone nor a zombie waiting for init to reap it.
bool ProcessExists(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  return line.find(") Z") == std::string::npos;
}

class PgClusterTest : public PgVersionTest {};

TEST_P(PgClusterTest, ServerHasTheRequestedVersion) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(pg->conninfo(), "harness-test", &session));

  int version_num = std::stoi(Value(session.get(), "SHOW server_version_num"));
  int major = PgVersionMajor(version());
  EXPECT_GE(version_num, major * 10000);
  EXPECT_LT(version_num, (major + 1) * 10000);
  EXPECT_EQ(session->server_version(), version_num);
  EXPECT_EQ(pg->version(), version());
  EXPECT_EQ(pg->conninfo(),
            "host=127.0.0.1 port=" + std::to_string(pg->port()) +
                " dbname=postgres user=postgres");
}

TEST_P(PgClusterTest, CreatesAndDropsTablespaceInMadeDirectory) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_ASSERT_OK(pg->Connect(&session));
  std::string dir;
  PGLAYOUT_ASSERT_OK(pg->MakeDirectory("volumes/ts one", &dir));
  EXPECT_EQ(dir, pg->root_dir() + "/volumes/ts one");

  // CREATE TABLESPACE cannot run in a transaction block; Execute runs it in
  // autocommit mode.
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(session.get(), "CREATE TABLESPACE " + QuoteIdent("Ts One") +
                                    " LOCATION " + QuoteLiteral(dir)));
  PGLAYOUT_ASSERT_OK(ExecuteSql(
      session.get(), "CREATE TABLE moved (id int) TABLESPACE \"Ts One\""));
  EXPECT_EQ(
      Value(session.get(),
            "SELECT tablespace FROM pg_tables WHERE tablename = $1", {"moved"}),
      "Ts One");
  // The server really put its files into our directory.
  std::string prefix = "PG_" + std::to_string(PgVersionMajor(version())) + "_";
  bool found = false;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    found |= e.path().filename().string().rfind(prefix, 0) == 0;
  }
  EXPECT_TRUE(found) << "no " << prefix << "* directory in " << dir;

  PGLAYOUT_ASSERT_OK(ExecuteSql(session.get(), "DROP TABLE moved"));
  PGLAYOUT_ASSERT_OK(ExecuteSql(session.get(), "DROP TABLESPACE \"Ts One\""));
  EXPECT_EQ(Value(session.get(),
                  "SELECT count(*) FROM pg_tablespace WHERE spcname = $1",
                  {"Ts One"}),
            "0");
}

TEST_P(PgClusterTest, MakeDirectoryRefusesPathsOutsideTheCluster) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::string dir;
  EXPECT_EQ(pg->MakeDirectory("../escape", &dir).code(),
            Status::Code::kInternal);
  EXPECT_EQ(pg->MakeDirectory("a/../../escape", &dir).code(),
            Status::Code::kInternal);
  EXPECT_EQ(pg->MakeDirectory("/tmp/escape", &dir).code(),
            Status::Code::kInternal);
  EXPECT_EQ(pg->MakeDirectory("", &dir).code(), Status::Code::kInternal);
}

TEST_P(PgClusterTest, FailingClientReportsItsOutput) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::string output;
  Status s = pg->RunClient(
      {"psql", "-X", "-v", "ON_ERROR_STOP=1", "-c", "SELECT * FROM no_such"},
      &output);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("psql"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("no_such"), std::string::npos) << s.ToString();
  EXPECT_NE(output.find("does not exist"), std::string::npos) << output;
}

TEST_P(PgClusterTest, RunsPgbenchInTheBackgroundAndStopsIt) {
  PgCluster* pg;
  PGLAYOUT_ASSERT_OK(SharedCluster(&pg));
  std::string output;
  PGLAYOUT_ASSERT_OK(
      pg->RunClient({"pgbench", "-i", "-s", "1", "-q"}, &output));
  std::unique_ptr<BackgroundClient> load;
  PGLAYOUT_ASSERT_OK(
      pg->StartClient({"pgbench", "-n", "-c", "2", "-T", "60"}, &load));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_ASSERT_OK(pg->Connect(&session));

  EXPECT_TRUE(WaitFor(
      [&] {
        return Value(session.get(),
                     "SELECT count(*) > 0 FROM pgbench_history") == "t";
      },
      15000))
      << "pgbench wrote nothing";
  EXPECT_TRUE(load->Running());
  PGLAYOUT_EXPECT_OK(load->Stop(&output));
  EXPECT_FALSE(load->Running());
  EXPECT_FALSE(ProcessExists(load->pid()));

  // Leaves the shared server as it found it.
  PGLAYOUT_EXPECT_OK(pg->RunClient({"pgbench", "-i", "-I", "d"}, &output));
}

TEST_P(PgClusterTest, PrivateClusterAppliesSettings) {
  PgClusterOptions options;
  options.settings = {{"max_wal_size", "32MB"},
                      {"log_checkpoints", "on"},
                      {"cluster_name", "it's \\ quoted"},
                      // Must not move the server off its private port.
                      {"port", "1"}};
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster(options, &pg));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_ASSERT_OK(pg->Connect(&session));
  EXPECT_EQ(Value(session.get(), "SHOW max_wal_size"), "32MB");
  EXPECT_EQ(Value(session.get(), "SHOW log_checkpoints"), "on");
  EXPECT_EQ(Value(session.get(), "SHOW cluster_name"), "it's \\ quoted");
  EXPECT_EQ(Value(session.get(), "SHOW fsync"), "on");
  EXPECT_EQ(Value(session.get(), "SHOW port"), std::to_string(pg->port()));
}

TEST_P(PgClusterTest, ImmediateRestartRecoversCommittedData) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &pg));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_ASSERT_OK(pg->Connect(&session));
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(session.get(), "CREATE TABLE kept AS SELECT 42 AS answer"));
  pid_t old_postmaster = pg->postmaster_pid();

  PGLAYOUT_ASSERT_OK(pg->Restart(StopMode::kImmediate));
  EXPECT_NE(pg->postmaster_pid(), old_postmaster);
  PGLAYOUT_ASSERT_OK(pg->Connect(&session));
  EXPECT_EQ(Value(session.get(), "SELECT answer FROM kept"), "42");
  std::string log;
  std::ifstream in(pg->log_path());
  log.assign(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(log.find("not properly shut down"), std::string::npos) << log;
}

TEST_P(PgClusterTest, DestructorStopsServerAndRemovesFiles) {
  std::unique_ptr<PgCluster> pg;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &pg));
  std::string root = pg->root_dir();
  pid_t postmaster = pg->postmaster_pid();
  ASSERT_GT(postmaster, 0);
  ASSERT_TRUE(ProcessExists(postmaster));

  pg.reset();
  EXPECT_FALSE(fs::exists(root)) << root;
  EXPECT_TRUE(WaitFor([&] { return !ProcessExists(postmaster); }, 5000));
}

TEST_P(PgClusterTest, StandbyStreamsReplaysAndIsRemoved) {
  std::unique_ptr<PgCluster> primary, standby;
  PGLAYOUT_ASSERT_OK(StartCluster({}, &primary));
  std::unique_ptr<SqlSession> on_primary, on_standby;
  PGLAYOUT_ASSERT_OK(primary->Connect(&on_primary));
  PGLAYOUT_ASSERT_OK(ExecuteSql(on_primary.get(),
                                "CREATE TABLE before_copy AS SELECT 1 AS a"));
  PGLAYOUT_ASSERT_OK(PgCluster::StartStandby(*primary, &standby));
  EXPECT_TRUE(standby->is_standby());
  EXPECT_FALSE(primary->is_standby());
  EXPECT_NE(standby->port(), primary->port());
  EXPECT_EQ(standby->version(), version());
  EXPECT_EQ(
      standby->root_dir().rfind(std::string("/tmp/pglayout-") +
                                    PgVersionName(version()) + "-standby-",
                                0),
      0u)
      << standby->root_dir();

  PGLAYOUT_ASSERT_OK(standby->Connect(&on_standby));
  EXPECT_EQ(Value(on_standby.get(), "SELECT pg_is_in_recovery()"), "t");
  EXPECT_EQ(Value(on_standby.get(), "SELECT a FROM before_copy"), "1");
  EXPECT_EQ(Value(on_primary.get(),
                  "SELECT state FROM pg_stat_replication "
                  "JOIN pg_replication_slots ON active_pid = pid"),
            "streaming");
  // Changes on the primary arrive; the standby itself refuses to write.
  PGLAYOUT_ASSERT_OK(
      ExecuteSql(on_primary.get(), "CREATE TABLE after_copy AS SELECT 2 AS b"));
  PGLAYOUT_ASSERT_OK(standby->WaitForReplay());
  EXPECT_EQ(Value(on_standby.get(), "SELECT b FROM after_copy"), "2");
  EXPECT_FALSE(ExecuteSql(on_standby.get(), "CREATE TABLE no (a int)").ok());
  EXPECT_EQ(on_standby->last_sqlstate(), "25006");
  EXPECT_EQ(primary->WaitForReplay().code(), Status::Code::kInternal);

  // Destroying the standby stops it, removes its files and its slot.
  std::string root = standby->root_dir();
  pid_t postmaster = standby->postmaster_pid();
  on_standby.reset();
  standby.reset();
  EXPECT_FALSE(fs::exists(root)) << root;
  EXPECT_TRUE(WaitFor([&] { return !ProcessExists(postmaster); }, 5000));
  EXPECT_EQ(
      Value(on_primary.get(), "SELECT count(*) FROM pg_replication_slots"),
      "0");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(PgClusterTest);

// Tests that need no particular server version.

TEST(PgHarnessTest, ConnectionErrorNamesHostAndPortButNotPassword) {
  // A bound socket that does not listen: connections are refused, and no
  // other process can take the port meanwhile.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string port = std::to_string(ntohs(addr.sin_port));

  std::unique_ptr<SqlSession> session;
  Status s = OpenPgSession("host=127.0.0.1 port=" + port +
                               " dbname=postgres user=postgres "
                               "password=secret connect_timeout=5",
                           "harness-test", &session);
  close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(session, nullptr);
  EXPECT_NE(s.message().find("127.0.0.1"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(port), std::string::npos) << s.ToString();
  EXPECT_EQ(s.message().find("secret"), std::string::npos) << s.ToString();
}

TEST(PgHarnessTest, MissingBinariesFailAndPointToSetup) {
  const char* old = getenv("PGLAYOUT_PG18_BINDIR");
  std::string saved = old ? old : "";
  setenv("PGLAYOUT_PG18_BINDIR", "/nonexistent/pg18/bin", 1);
  std::unique_ptr<PgCluster> pg;
  Status s = PgCluster::Start(PgVersion::k18, {}, &pg);
  if (old) {
    setenv("PGLAYOUT_PG18_BINDIR", saved.c_str(), 1);
  } else {
    unsetenv("PGLAYOUT_PG18_BINDIR");
  }
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(pg, nullptr);
  EXPECT_NE(s.message().find("/nonexistent/pg18/bin/initdb"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.message().find("scripts/setup"), std::string::npos)
      << s.ToString();
}

TEST(PgHarnessTest, BadSettingNameIsRejected) {
  PgClusterOptions options;
  options.settings = {{"port = 5432\nlisten_addresses", "*"}};
  std::unique_ptr<PgCluster> pg;
  EXPECT_EQ(PgCluster::Start(PgVersion::k15, options, &pg).code(),
            Status::Code::kInternal);
}

// Runs |start| in a child process, which then dies of SIGKILL without
// running any destructor (as on a ctest timeout or Ctrl-C), and returns
// the clusters it had started as (postmaster PID, root directory) pairs.
// |start| appends "PID ROOT " for each cluster it keeps alive.
std::vector<std::pair<pid_t, std::string>> StartInChildAndKillIt(
    const std::function<Status(std::string*)>& start) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t child = fork();
  EXPECT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    std::string report;
    Status s = start(&report);
    if (!s.ok()) report = "error " + s.ToString();
    ssize_t ignored = write(fds[1], report.data(), report.size());
    (void)ignored;
    raise(SIGKILL);
  }
  close(fds[1]);
  std::string report;
  char buffer[512];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    report.append(buffer, n);
  close(fds[0]);
  int wait_status;
  EXPECT_EQ(waitpid(child, &wait_status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(wait_status));
  EXPECT_EQ(report.rfind("error", 0), std::string::npos) << report;
  std::vector<std::pair<pid_t, std::string>> clusters;
  std::istringstream in(report);
  pid_t pid;
  std::string root;
  while (in >> pid >> root) clusters.emplace_back(pid, root);
  return clusters;
}

std::string Describe(const PgCluster& pg) {
  return std::to_string(pg.postmaster_pid()) + " " + pg.root_dir() + " ";
}

// The watchdogs must stop every server and remove its files.
void ExpectCleanedUp(const std::vector<std::pair<pid_t, std::string>>& all) {
  for (const auto& [postmaster, root] : all) {
    EXPECT_TRUE(WaitFor([&] { return !ProcessExists(postmaster); }, 15000))
        << "postmaster " << postmaster << " still runs";
    EXPECT_TRUE(WaitFor([&] { return !fs::exists(root); }, 15000))
        << root << " still exists";
  }
}

TEST(PgHarnessTest, KilledProcessLeavesNoServerOrFilesBehind) {
  auto clusters = StartInChildAndKillIt([](std::string* report) {
    // Leaked on purpose: the process dies without destructors anyway.
    std::unique_ptr<PgCluster> pg;
    PGLAYOUT_RETURN_IF_ERROR(PgCluster::Start(PgVersion::k15, {}, &pg));
    *report = Describe(*pg);
    pg.release();
    return Status::Ok();
  });
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].second.rfind("/tmp/pglayout-pg15-", 0), 0u)
      << clusters[0].second;
  ExpectCleanedUp(clusters);
}

TEST(PgHarnessTest, KilledProcessLeavesNoStandbyBehind) {
  auto clusters = StartInChildAndKillIt([](std::string* report) {
    std::unique_ptr<PgCluster> primary, standby;
    PGLAYOUT_RETURN_IF_ERROR(PgCluster::Start(PgVersion::k15, {}, &primary));
    PGLAYOUT_RETURN_IF_ERROR(PgCluster::StartStandby(*primary, &standby));
    *report = Describe(*primary) + Describe(*standby);
    primary.release();
    standby.release();
    return Status::Ok();
  });
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[1].second.rfind("/tmp/pglayout-pg15-standby-", 0), 0u)
      << clusters[1].second;
  ExpectCleanedUp(clusters);
}

TEST(PgHarnessTest, StandbyNeedsAPrimaryThatCanFeedIt) {
  PgClusterOptions options;
  options.settings = {{"wal_level", "minimal"}, {"max_wal_senders", "0"}};
  std::unique_ptr<PgCluster> primary, standby;
  PGLAYOUT_ASSERT_OK(PgCluster::Start(PgVersion::k15, options, &primary));
  Status s = PgCluster::StartStandby(*primary, &standby);
  EXPECT_EQ(s.code(), Status::Code::kInternal) << s.ToString();
  EXPECT_NE(s.message().find("wal_level = minimal"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(standby, nullptr);
}

}  // namespace
}  // namespace pglayout
