#include "testing/pg_cluster.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "common/files.h"
#include "testing/subprocess.h"

#ifndef PGLAYOUT_SOURCE_DIR
#error "PGLAYOUT_SOURCE_DIR must be defined (testing/CMakeLists.txt)"
#endif

namespace pglayout {
namespace {

namespace fs = std::filesystem;

constexpr int kStartAttempts = 5;
constexpr int kPgCtlWaitSeconds = 30;
constexpr int kConnectWaitSeconds = 10;
constexpr int kLogTailLines = 25;
constexpr char kHarnessConf[] = "pglayout_harness.conf";
constexpr int kStreamingWaitSeconds = 30;
constexpr int kReplayWaitSeconds = 60;
constexpr int kSlotDropWaitSeconds = 10;

// Runs detached with the read end of a pipe as stdin; $1 = root directory,
// $2 = data directory. See "Cleanup" in pg_cluster.h. The postmaster's
// working directory is its data directory: checking it ensures that a
// recycled PID is never signalled.
constexpr char kWatchdogScript[] = R"sh(
root=$1 data=$2 wal=$3
msg=$(cat)
[ "$msg" = done ] && exit 0
pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null) || pid=
# A zombie counts as gone: some container inits reap only now and then.
alive() {
  kill -0 "$1" 2>/dev/null && ! grep -q ') Z' "/proc/$1/stat" 2>/dev/null
}
if [ -n "$pid" ] && [ "$(readlink "/proc/$pid/cwd")" = "$data" ]; then
  kill -QUIT "$pid" 2>/dev/null
  n=0
  while alive "$pid" && [ $n -lt 100 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$root"
[ -n "$wal" ] && rm -rf "$wal"
)sh";

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = getenv(name);
  return (value != nullptr && *value != '\0') ? value : fallback;
}

std::string DefaultBinDir(PgVersion version) {
  if (version == PgVersion::k15) {
    return EnvOr("PGLAYOUT_PG15_BINDIR", "/usr/lib/postgresql/15/bin");
  }
  std::string cache =
      EnvOr("PGLAYOUT_CACHE", std::string(PGLAYOUT_SOURCE_DIR) + "/.cache");
  std::string name = PgVersionName(version);  // "pg12", "pg18"
  std::string variable = "PGLAYOUT_PG" + name.substr(2) + "_BINDIR";
  return EnvOr(variable.c_str(), cache + "/" + name + "/native/bin");
}

bool IsExecutable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

Status ChownToServerAccount(const std::string& path) {
  ServerAccount account;
  PGLAYOUT_RETURN_IF_ERROR(GetServerAccount(&account));
  if (account.switch_user && chown(path.c_str(), account.uid, account.gid)) {
    return Status::FromErrno("could not give " + path + " to postgres", errno);
  }
  return Status::Ok();
}

// Lets the OS choose a free port. Another process could take it before the
// server binds it; StartServer retries with a new port when that happens.
Status PickFreePort(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("could not create a socket", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (rc == 0) rc = getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int err = errno;
  close(fd);
  if (rc != 0)
    return Status::FromErrno("could not bind a socket to 127.0.0.1:0", err);
  *port = ntohs(addr.sin_port);
  return Status::Ok();
}

bool IsSettingName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

Status ValidateSettings(const PgClusterOptions& options) {
  for (const auto& [name, value] : options.settings) {
    if (!IsSettingName(name)) {
      return Status::Internal("bad server setting name '" + name + "'");
    }
    for (char c : value) {
      if (iscntrl(static_cast<unsigned char>(c))) {
        return Status::Internal("control character in setting " + name);
      }
    }
  }
  return Status::Ok();
}

// A postgresql.conf string: backslashes are escapes there, quotes double.
std::string QuoteConfValue(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\\' || c == '\'') out += c;
    out += c;
  }
  return out + "'";
}

// True when the PID's working directory is |data_dir|, i.e. it is (still)
// the postmaster of that cluster and not a recycled PID.
bool IsPostmasterOf(pid_t pid, const std::string& data_dir) {
  std::error_code ec;
  fs::path cwd = fs::read_symlink("/proc/" + std::to_string(pid) + "/cwd", ec);
  return !ec && cwd == data_dir;
}

// The first line of postmaster.pid, or -1.
pid_t ReadPostmasterPid(const std::string& data_dir) {
  std::string text;
  if (!ReadTextFile(data_dir + "/postmaster.pid", &text).ok()) return -1;
  int pid = atoi(text.c_str());
  return pid > 0 ? pid : -1;
}

// A zombie counts as gone: the postmaster is reparented to init when
// pg_ctl exits, and some container inits reap only now and then.
bool ProcessGone(pid_t pid) {
  int ignored;
  // Reaps it in the rare case it is our child (this process a subreaper).
  waitpid(pid, &ignored, WNOHANG);
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && line.compare(paren, 3, ") Z") == 0;
}

bool WaitUntilGone(pid_t pid, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    if (ProcessGone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ProcessGone(pid);
}

std::string ResolveClient(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  return PgClientBinDir() + "/" + program;
}

std::vector<std::string> ClientEnv(int port) {
  return {"PGHOST=127.0.0.1", "PGPORT=" + std::to_string(port),
          "PGUSER=postgres", "PGDATABASE=postgres"};
}

Status CheckRelativeName(const std::string& name) {
  fs::path path(name);
  if (name.empty() || path.is_absolute()) {
    return Status::Internal("directory name must be relative: '" + name + "'");
  }
  for (const fs::path& part : path) {
    if (part == "..") {
      return Status::Internal("directory name must not contain '..': '" + name +
                              "'");
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Base backups for standbys

// What pg_basebackup leaves out of a copy (basebackup.c): files that only
// make sense for the running primary, and directories whose contents the
// standby rebuilds (copied empty). Of pg_wal only the subdirectories are
// copied: the standby streams the WAL, but pg_wal/archive_status must exist.
bool IsSkippedFile(const std::string& name) {
  static const char* const kNames[] = {
      "postmaster.pid",   "postmaster.opts",     "backup_label",
      "tablespace_map",   "backup_manifest",     "postgresql.auto.conf.tmp",
      "current_logfiles", "current_logfiles.tmp"};
  for (const char* skipped : kNames) {
    if (name == skipped) return true;
  }
  return name.rfind("pg_internal.init", 0) == 0 ||
         name.rfind("pgsql_tmp", 0) == 0;
}

bool IsCopiedEmpty(const std::string& relative_dir) {
  static const char* const kDirs[] = {
      "pg_replslot",  "pg_dynshmem", "pg_notify",  "pg_serial",
      "pg_snapshots", "pg_stat_tmp", "pg_subtrans"};
  for (const char* dir : kDirs) {
    if (relative_dir == dir) return true;
  }
  return false;
}

Status ChownTo(const ServerAccount& account, const fs::path& path) {
  if (account.switch_user && lchown(path.c_str(), account.uid, account.gid)) {
    return Status::FromErrno("could not give " + path.string() + " to postgres",
                             errno);
  }
  return Status::Ok();
}

// Copies the directory |from| into the new directory |to| while the server
// writes to it: a file that vanishes meanwhile (a recycled temporary file)
// is skipped, torn pages are repaired by WAL replay from the backup's start
// (full-page writes are forced during a backup). |relative| is |from|
// below the data directory ("" at the top); |files_too| is false inside
// pg_wal.
Status MakeServerDirectory(const ServerAccount& account, const fs::path& dir) {
  if (mkdir(dir.c_str(), 0700) != 0) {
    return Status::FromErrno("could not create directory " + dir.string(),
                             errno);
  }
  return ChownTo(account, dir);
}

Status CopyTree(const fs::path& from, const fs::path& to,
                const std::string& relative, bool files_too,
                const ServerAccount& account) {
  PGLAYOUT_RETURN_IF_ERROR(MakeServerDirectory(account, to));
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::string child = relative.empty() ? name : relative + "/" + name;
    fs::path target = to / name;
    fs::file_status status = it->symlink_status(ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) continue;
      break;
    }
    if (fs::is_directory(status)) {
      PGLAYOUT_RETURN_IF_ERROR(IsCopiedEmpty(child)
                                   ? MakeServerDirectory(account, target)
                                   : CopyTree(it->path(), target, child,
                                              files_too && child != "pg_wal",
                                              account));
      continue;
    }
    if (!files_too || IsSkippedFile(name)) continue;
    if (fs::is_symlink(status)) {
      fs::copy_symlink(it->path(), target, ec);
    } else {
      fs::copy_file(it->path(), target, ec);
    }
    if (ec == std::errc::no_such_file_or_directory) continue;
    if (ec) break;
    PGLAYOUT_RETURN_IF_ERROR(ChownTo(account, target));
  }
  // A directory that vanished (a temporary one) is copied as empty.
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IoError("could not copy " + from.string() + " to " +
                           to.string() + ": " + ec.message());
  }
  return Status::Ok();
}

// Writes a file of the standby's data directory, owned by the server
// account.
Status WriteServerFile(const ServerAccount& account, const std::string& path,
                       const std::string& text) {
  PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(path, text));
  return ChownTo(account, path);
}

// The streaming-replication prerequisites on the primary, named so that a
// test author knows which setting to change.
Status CheckCanReplicate(SqlSession* primary, int port) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      primary->Execute("SELECT current_setting('wal_level'), "
                       "current_setting('max_wal_senders')::int, "
                       "(SELECT string_agg(spcname, ', ') FROM pg_tablespace "
                       "WHERE spcname NOT IN ('pg_default', 'pg_global'))",
                       {}, &r));
  std::string where = "primary on port " + std::to_string(port) + ": ";
  if (r.rows.at(0)[0].value_or("") == "minimal") {
    return Status::Internal(where +
                            "wal_level = minimal cannot feed a standby; "
                            "use replica (the default)");
  }
  if (r.rows[0][1].value_or("0") == "0") {
    return Status::Internal(where +
                            "max_wal_senders = 0 cannot feed a standby");
  }
  if (r.rows[0][2]) {
    return Status::Internal(
        where + "has tablespaces (" + *r.rows[0][2] +
        "): a standby on the same host would share their directories");
  }
  return Status::Ok();
}

// A replication slot name, unique on this host: [a-z0-9_] only.
std::string NextSlotName() {
  static std::atomic<int> counter{0};
  return "pglayout_standby_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++);
}

// Polls |condition| every 100 ms until it returns true or fails, for at
// most |seconds|; *reached stays false on timeout.
Status PollUntil(int seconds, const std::function<Status(bool*)>& condition,
                 bool* reached) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (true) {
    PGLAYOUT_RETURN_IF_ERROR(condition(reached));
    if (*reached || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::Ok();
}

}  // namespace

const char* PgVersionName(PgVersion version) {
  switch (version) {
    case PgVersion::k12:
      return "pg12";
    case PgVersion::k15:
      return "pg15";
    case PgVersion::k18:
      return "pg18";
  }
  return "pg?";
}

int PgVersionMajor(PgVersion version) {
  return std::stoi(std::string(PgVersionName(version)).substr(2));
}

std::string PgClientBinDir() { return "/usr/lib/postgresql/15/bin"; }

// The first directory on the way to `path` that others may not enter, or ""
// when the postgres user can reach it (through "other" permissions: the
// checkout's owner is root, not postgres).
std::string FirstClosedDirectory(const std::filesystem::path& path) {
  std::filesystem::path dir;
  for (const auto& part : path) {
    dir /= part;
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) break;
    if ((st.st_mode & S_IXOTH) == 0) return dir.string();
  }
  return "";
}

Status FindPgBinDir(PgVersion version, std::string* bin_dir) {
  std::string dir = DefaultBinDir(version);
  // scripts/setup makes .cache/pgNN a link into /var/cache/pglayout when the
  // checkout is closed to the postgres user: run the link's target.
  std::error_code error;
  std::filesystem::path resolved = std::filesystem::canonical(dir, error);
  if (!error) dir = resolved.string();
  ServerAccount account;
  PGLAYOUT_RETURN_IF_ERROR(GetServerAccount(&account));
  std::string closed = account.switch_user ? FirstClosedDirectory(dir) : "";
  if (!closed.empty()) {
    return Status::Unavailable(
        "the postgres user cannot reach " + dir + ": " + closed +
        " is closed to other users; run scripts/setup, which keeps the "
        "binaries in /var/cache/pglayout for such checkouts");
  }
  for (const char* program : {"initdb", "pg_ctl", "postgres"}) {
    std::string path = dir + "/" + program;
    if (!IsExecutable(path)) {
      return Status::NotFound(
          std::string("PostgreSQL ") + std::to_string(PgVersionMajor(version)) +
          " is not installed: " + path +
          " is missing or not executable; run scripts/setup");
    }
  }
  *bin_dir = dir;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// PgCluster

PgCluster::PgCluster(PgVersion version, std::string bin_dir,
                     PgClusterOptions options)
    : version_(version),
      bin_dir_(std::move(bin_dir)),
      options_(std::move(options)),
      owner_pid_(getpid()) {}

Status PgCluster::Start(PgVersion version, const PgClusterOptions& options,
                        std::unique_ptr<PgCluster>* cluster) {
  PGLAYOUT_RETURN_IF_ERROR(ValidateSettings(options));
  std::string bin_dir;
  PGLAYOUT_RETURN_IF_ERROR(FindPgBinDir(version, &bin_dir));
  // From here on, the destructor of |c| undoes whatever was done.
  std::unique_ptr<PgCluster> c(new PgCluster(version, bin_dir, options));
  PGLAYOUT_RETURN_IF_ERROR(c->CreateRoot(""));
  PGLAYOUT_RETURN_IF_ERROR(c->StartWatchdog());
  PGLAYOUT_RETURN_IF_ERROR(c->InitDb());
  PGLAYOUT_RETURN_IF_ERROR(c->StartServer());
  *cluster = std::move(c);
  return Status::Ok();
}

Status PgCluster::StartStandby(const PgCluster& primary,
                               std::unique_ptr<PgCluster>* standby) {
  if (primary.is_standby()) {
    return Status::Internal("the cluster on port " +
                            std::to_string(primary.port_) +
                            " is a standby itself");
  }
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(primary.Connect(&session));
  PGLAYOUT_RETURN_IF_ERROR(CheckCanReplicate(session.get(), primary.port_));
  std::string slot = NextSlotName();
  PgClusterOptions options = primary.options_;
  // The base backup copies pg_wal's contents into the standby's own.
  options.wal_parent_dir.clear();
  options.settings["primary_conninfo"] =
      primary.conninfo_ + " application_name=" + slot;
  options.settings["primary_slot_name"] = slot;
  options.settings["hot_standby"] = "on";
  options.settings["hot_standby_feedback"] = "on";
  // From here on, the destructor of |c| undoes whatever was done, the slot
  // on the primary included.
  std::unique_ptr<PgCluster> c(
      new PgCluster(primary.version_, primary.bin_dir_, std::move(options)));
  c->primary_conninfo_ = primary.conninfo_;
  c->slot_name_ = slot;
  PGLAYOUT_RETURN_IF_ERROR(c->CreateRoot("standby-"));
  PGLAYOUT_RETURN_IF_ERROR(c->StartWatchdog());
  PGLAYOUT_RETURN_IF_ERROR(c->CopyFromPrimary(session.get(), primary.data_dir_)
                               .WithContext("base backup of the primary on "
                                            "port " +
                                            std::to_string(primary.port_)));
  PGLAYOUT_RETURN_IF_ERROR(c->StartServer());
  PGLAYOUT_RETURN_IF_ERROR(c->WaitForStreaming());
  *standby = std::move(c);
  return Status::Ok();
}

PgCluster::~PgCluster() { Destroy(); }

Status PgCluster::CreateRoot(const std::string& role) {
  // The watchdog compares the postmaster's working directory with the data
  // directory, which the kernel reports without symlinks.
  std::string parent =
      options_.parent_dir.empty() ? "/tmp" : options_.parent_dir;
  std::string prefix =
      std::string("/pglayout-") + PgVersionName(version_) + "-" + role;
  PGLAYOUT_RETURN_IF_ERROR(
      MakeTempDirectory(parent + prefix + "XXXXXX", &root_dir_));
  data_dir_ = root_dir_ + "/data";
  wal_dir_ = data_dir_ + "/pg_wal";
  if (!options_.wal_parent_dir.empty()) {
    // initdb --waldir takes an empty directory and links pg_wal to it.
    PGLAYOUT_RETURN_IF_ERROR(MakeTempDirectory(
        options_.wal_parent_dir + prefix + "wal-XXXXXX", &own_wal_dir_));
    PGLAYOUT_RETURN_IF_ERROR(ChownToServerAccount(own_wal_dir_));
    wal_dir_ = own_wal_dir_;
  }
  socket_dir_ = root_dir_ + "/sock";
  log_path_ = root_dir_ + "/server.log";
  PGLAYOUT_RETURN_IF_ERROR(ChownToServerAccount(root_dir_));
  if (mkdir(socket_dir_.c_str(), 0700) != 0) {
    return Status::FromErrno("could not create directory " + socket_dir_,
                             errno);
  }
  return ChownToServerAccount(socket_dir_);
}

Status PgCluster::StartWatchdog() {
  return SpawnWatchdog({"/bin/sh", "-c", kWatchdogScript, "pglayout-watchdog",
                        root_dir_, data_dir_, own_wal_dir_},
                       &watchdog_pid_, &watchdog_fd_);
}

Status PgCluster::InitDb() {
  Command command;
  // --no-sync: fsyncing a cluster that lives for one test is wasted time;
  // the server itself keeps fsync on (see PgClusterOptions).
  command.argv = {bin_dir_ + "/initdb",  "--pgdata=" + data_dir_,
                  "--username=postgres", "--auth=trust",
                  "--no-sync",           "--encoding=UTF8",
                  "--locale=C"};
  // --no-instructions (13+) only silences the "start the server" hint.
  if (PgVersionMajor(version_) >= 13)
    command.argv.push_back("--no-instructions");
  if (!own_wal_dir_.empty()) command.argv.push_back("--waldir=" + wal_dir_);
  command.as_server_account = true;
  command.cwd = root_dir_;
  command.env = {"HOME=" + root_dir_};
  std::string output;
  Status s = RunCommand(command, root_dir_ + "/initdb.log", &output);
  if (!s.ok()) return s.WithContext("could not run initdb");
  // Everything the harness sets lives in its own file, rewritten before
  // each start; postgresql.conf itself only includes it.
  std::ofstream conf(data_dir_ + "/postgresql.conf", std::ios::app);
  conf << "\ninclude '" << kHarnessConf << "'\n";
  conf.close();
  if (!conf)
    return Status::IoError("could not append to " + data_dir_ +
                           "/postgresql.conf");
  return Status::Ok();
}

Status PgCluster::WriteConfig() {
  std::string path = data_dir_ + "/" + kHarnessConf;
  std::ofstream out(path, std::ios::trunc);
  out << "# Written by pglayout's test harness (testing/pg_cluster.cc).\n"
      << "logging_collector = off\n";
  for (const auto& [name, value] : options_.settings) {
    out << name << " = " << QuoteConfValue(value) << "\n";
  }
  // Last, so that no option can move the server off its private address.
  out << "listen_addresses = '127.0.0.1'\n"
      << "port = " << port_ << "\n"
      << "unix_socket_directories = " << QuoteConfValue(socket_dir_) << "\n";
  out.close();
  if (!out) return Status::IoError("could not write " + path);
  conninfo_ = "host=127.0.0.1 port=" + std::to_string(port_) +
              " dbname=postgres user=postgres";
  return ChownToServerAccount(path);
}

Status PgCluster::StartServer() {
  Status last;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    PGLAYOUT_RETURN_IF_ERROR(PickFreePort(&port_));
    PGLAYOUT_RETURN_IF_ERROR(WriteConfig());
    size_t log_before = 0;
    std::error_code ec;
    if (fs::exists(log_path_, ec)) log_before = fs::file_size(log_path_, ec);
    last = StartServerOnce();
    if (last.ok()) return last;
    std::string log;
    (void)ReadTextFile(log_path_, &log);
    std::string new_log = log.substr(std::min(log_before, log.size()));
    // Only a lost race for the port is worth another attempt.
    if (new_log.find("could not bind") == std::string::npos &&
        new_log.find("Address already in use") == std::string::npos) {
      return last;
    }
    if (postmaster_pid_ > 0) StopServerHard();
  }
  return last.WithContext("could not find a free port in " +
                          std::to_string(kStartAttempts) + " attempts");
}

Status PgCluster::StartServerOnce() {
  std::string output;
  Status s = PgCtl({"start", "-w", "-t", std::to_string(kPgCtlWaitSeconds),
                    "-D", data_dir_, "-l", log_path_},
                   &output);
  if (!s.ok())
    return ServerError("could not start the server (pg_ctl start)", s);
  postmaster_pid_ = ReadPostmasterPid(data_dir_);
  if (postmaster_pid_ <= 0) {
    return ServerError("server started without a PID file",
                       Status::NotFound(data_dir_ + "/postmaster.pid"));
  }
  return WaitForConnection();
}

Status PgCluster::WaitForConnection() {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(kConnectWaitSeconds);
  std::unique_ptr<SqlSession> session;
  Status s;
  while (true) {
    s = Connect(&session);
    if (s.ok() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!s.ok()) return ServerError("server does not accept connections", s);
  // Catches a PGLAYOUT_PG<major>_BINDIR that points at another version.
  int major = session->server_version() / 10000;
  if (major != PgVersionMajor(version_)) {
    std::string expected = std::to_string(PgVersionMajor(version_));
    return Status::Unavailable("the server started from " + bin_dir_ +
                               " is PostgreSQL " + std::to_string(major) +
                               ", expected " + expected +
                               " (check PGLAYOUT_PG" + expected + "_BINDIR)");
  }
  return Status::Ok();
}

Status PgCluster::PgCtl(const std::vector<std::string>& args,
                        std::string* output) {
  Command command;
  command.argv = {bin_dir_ + "/pg_ctl"};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.as_server_account = true;
  // pg_ctl start forks the postmaster, which so starts in these cgroups.
  command.cgroup_procs_files = options_.cgroup_procs_files;
  command.cwd = root_dir_;
  command.env = {"HOME=" + root_dir_};
  return RunCommand(command, root_dir_ + "/pg_ctl.out", output);
}

Status PgCluster::ServerError(const std::string& what,
                              const Status& cause) const {
  std::string message = "PostgreSQL " +
                        std::to_string(PgVersionMajor(version_)) + " (" +
                        bin_dir_ + ") port " + std::to_string(port_) + ": " +
                        what + ": " + cause.message();
  std::string tail = TailOfFile(log_path_, kLogTailLines);
  if (!tail.empty()) {
    message += "\nlast lines of the server log " + log_path_ + ":\n" + tail;
  }
  return Status::Unavailable(message);
}

Status PgCluster::Connect(std::unique_ptr<SqlSession>* session) const {
  return OpenPgSessionAsConfigured(conninfo_, "pglayout-test", session);
}

Status PgCluster::StopServer(StopMode mode) {
  const char* mode_name = mode == StopMode::kFast ? "fast" : "immediate";
  std::string output;
  Status s = PgCtl({"stop", "-w", "-t", "60", "-D", data_dir_, "-m", mode_name},
                   &output);
  if (!s.ok()) return ServerError("could not stop the server (pg_ctl stop)", s);
  if (postmaster_pid_ > 0) WaitUntilGone(postmaster_pid_, 10000);
  postmaster_pid_ = -1;
  return Status::Ok();
}

// The last resort when pg_ctl cannot stop the server.
void PgCluster::StopServerHard() {
  pid_t pid =
      postmaster_pid_ > 0 ? postmaster_pid_ : ReadPostmasterPid(data_dir_);
  if (pid > 0 && IsPostmasterOf(pid, data_dir_)) {
    kill(pid, SIGKILL);
    if (!WaitUntilGone(pid, 10000)) {
      fprintf(stderr, "pglayout test harness: postmaster %d did not die\n",
              static_cast<int>(pid));
    }
  }
  postmaster_pid_ = -1;
}

Status PgCluster::Restart(StopMode mode) {
  PGLAYOUT_RETURN_IF_ERROR(StopServer(mode));
  return StartServerOnce();
}

// The slot comes first so that the primary keeps all WAL from the backup's
// start until the standby streams. pg_backup_stop's label tells the
// standby where replay must start and when the copy is consistent.
Status PgCluster::CopyFromPrimary(SqlSession* primary,
                                  const std::string& primary_data) {
  ServerAccount account;
  PGLAYOUT_RETURN_IF_ERROR(GetServerAccount(&account));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      primary->Execute("SELECT pg_create_physical_replication_slot($1, true)",
                       {slot_name_}, &r));
  // PostgreSQL 15 renamed the non-exclusive pg_start/stop_backup.
  const bool renamed = primary->server_version() >= 150000;
  PGLAYOUT_RETURN_IF_ERROR(
      primary->Execute(renamed ? "SELECT pg_backup_start($1, true)"
                               : "SELECT pg_start_backup($1, true, false)",
                       {"pglayout standby"}, &r));
  // On failure the backup ends with |primary|'s session.
  PGLAYOUT_RETURN_IF_ERROR(
      CopyTree(primary_data, data_dir_, "", true, account));
  PGLAYOUT_RETURN_IF_ERROR(primary->Execute(
      std::string("SELECT labelfile, spcmapfile FROM ") +
          (renamed ? "pg_backup_stop(false)" : "pg_stop_backup(false)"),
      {}, &r));
  PGLAYOUT_RETURN_IF_ERROR(WriteServerFile(account, data_dir_ + "/backup_label",
                                           r.rows.at(0)[0].value_or("")));
  return WriteServerFile(account, data_dir_ + "/standby.signal", "");
}

Status PgCluster::ConnectPrimary(std::unique_ptr<SqlSession>* session) const {
  return OpenPgSessionAsConfigured(primary_conninfo_, "pglayout-test", session);
}

Status PgCluster::WaitForStreaming() {
  std::unique_ptr<SqlSession> primary, standby;
  PGLAYOUT_RETURN_IF_ERROR(ConnectPrimary(&primary));
  PGLAYOUT_RETURN_IF_ERROR(Connect(&standby));
  std::string state = "(no walsender)";
  bool streaming = false;
  PGLAYOUT_RETURN_IF_ERROR(PollUntil(
      kStreamingWaitSeconds,
      [&](bool* done) {
        SqlResult r;
        PGLAYOUT_RETURN_IF_ERROR(primary->Execute(
            "SELECT state FROM pg_stat_replication WHERE application_name = $1",
            {slot_name_}, &r));
        if (!r.rows.empty()) state = r.rows[0][0].value_or("(null)");
        *done = state == "streaming";
        return Status::Ok();
      },
      &streaming));
  SqlValue in_recovery;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      standby.get(), "SELECT pg_is_in_recovery()", {}, &in_recovery));
  if (streaming && in_recovery.value_or("") == "t") return Status::Ok();
  return ServerError(
      "standby is not streaming from the primary",
      Status::Unavailable("after " + std::to_string(kStreamingWaitSeconds) +
                          " s the primary's pg_stat_replication state for " +
                          slot_name_ + " is " + state +
                          ", pg_is_in_recovery() on the standby is " +
                          in_recovery.value_or("(null)")));
}

Status PgCluster::WaitForReplay() {
  if (!is_standby()) {
    return Status::Internal("WaitForReplay: the cluster on port " +
                            std::to_string(port_) + " is not a standby");
  }
  std::unique_ptr<SqlSession> primary, standby;
  PGLAYOUT_RETURN_IF_ERROR(ConnectPrimary(&primary));
  PGLAYOUT_RETURN_IF_ERROR(Connect(&standby));
  SqlValue target, replayed;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      primary.get(), "SELECT pg_current_wal_lsn()::text", {}, &target));
  bool caught_up = false;
  PGLAYOUT_RETURN_IF_ERROR(PollUntil(
      kReplayWaitSeconds,
      [&](bool* done) {
        SqlResult r;
        PGLAYOUT_RETURN_IF_ERROR(
            standby->Execute("SELECT pg_last_wal_replay_lsn()::text, "
                             "pg_last_wal_replay_lsn() >= $1::pg_lsn",
                             {target}, &r));
        replayed = r.rows.at(0)[0];
        *done = r.rows[0][1].value_or("") == "t";
        return Status::Ok();
      },
      &caught_up));
  if (caught_up) return Status::Ok();
  return ServerError(
      "standby does not catch up",
      Status::Unavailable(
          "after " + std::to_string(kReplayWaitSeconds) +
          " s it has replayed up to " + replayed.value_or("(null)") +
          ", the primary had written up to " + target.value_or("(null)")));
}

// The slot stays active until the walsender notices that the standby is
// gone, so the drop is retried for a while. Only a reachable primary that
// keeps the slot is worth a message: a primary already destroyed took the
// slot with it.
void PgCluster::DropSlot() {
  std::unique_ptr<SqlSession> primary;
  if (!ConnectPrimary(&primary).ok()) return;
  bool dropped = false;
  Status s = PollUntil(
      kSlotDropWaitSeconds,
      [&](bool* done) {
        SqlResult r;
        PGLAYOUT_RETURN_IF_ERROR(primary->Execute(
            "SELECT pg_drop_replication_slot(slot_name) "
            "FROM pg_replication_slots WHERE slot_name = $1 AND NOT active",
            {slot_name_}, &r));
        SqlValue left;
        PGLAYOUT_RETURN_IF_ERROR(QueryValue(
            primary.get(),
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1",
            {slot_name_}, &left));
        *done = left.value_or("") == "0";
        return Status::Ok();
      },
      &dropped);
  if (!s.ok() || !dropped) {
    fprintf(stderr,
            "pglayout test harness: could not drop replication slot %s on the "
            "primary: %s\n",
            slot_name_.c_str(),
            s.ok() ? "it stays active" : s.ToString().c_str());
  }
}

Status PgCluster::MakeDirectory(const std::string& name, std::string* path) {
  PGLAYOUT_RETURN_IF_ERROR(CheckRelativeName(name));
  fs::path current(root_dir_);
  // Each level is created and handed to the server account, so that the
  // server may create files anywhere below.
  for (const fs::path& part : fs::path(name).lexically_normal()) {
    if (part.empty() || part == ".") continue;
    current /= part;
    if (mkdir(current.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::FromErrno("could not create directory " + current.string(),
                               errno);
    }
    PGLAYOUT_RETURN_IF_ERROR(ChownToServerAccount(current.string()));
  }
  *path = current.string();
  return Status::Ok();
}

Status PgCluster::RunClient(const std::vector<std::string>& argv,
                            std::string* output) {
  if (argv.empty()) return Status::Internal("RunClient: empty argv");
  Command command;
  command.argv = argv;
  command.argv[0] = ResolveClient(argv[0]);
  command.env = ClientEnv(port_);
  command.cgroup_procs_files = options_.cgroup_procs_files;
  std::string out_path =
      root_dir_ + "/client-" + std::to_string(next_output_++) + ".out";
  return RunCommand(command, out_path, output);
}

Status PgCluster::StartClient(const std::vector<std::string>& argv,
                              std::unique_ptr<BackgroundClient>* client) {
  if (argv.empty()) return Status::Internal("StartClient: empty argv");
  Command command;
  command.argv = argv;
  command.argv[0] = ResolveClient(argv[0]);
  command.env = ClientEnv(port_);
  command.cgroup_procs_files = options_.cgroup_procs_files;
  std::string out_path =
      root_dir_ + "/client-" + std::to_string(next_output_++) + ".out";
  pid_t pid;
  PGLAYOUT_RETURN_IF_ERROR(SpawnCommand(command, out_path, &pid));
  client->reset(new BackgroundClient(command.argv, pid, out_path));
  return Status::Ok();
}

void PgCluster::Destroy() {
  // A forked child (a death test) shares the parent's objects but must not
  // touch the parent's server.
  if (getpid() != owner_pid_ || root_dir_.empty()) return;
  std::error_code ec;
  if (fs::exists(data_dir_ + "/postmaster.pid", ec)) {
    Status s = StopServer(StopMode::kFast);
    if (!s.ok()) s = StopServer(StopMode::kImmediate);
    if (!s.ok()) {
      fprintf(stderr, "pglayout test harness: %s\n", s.ToString().c_str());
      StopServerHard();
    }
  }
  for (const std::string& dir : {root_dir_, own_wal_dir_}) {
    if (dir.empty()) continue;
    fs::remove_all(dir, ec);
    if (ec) {
      fprintf(stderr, "pglayout test harness: could not remove %s: %s\n",
              dir.c_str(), ec.message().c_str());
    }
  }
  if (is_standby()) DropSlot();
  if (watchdog_fd_ >= 0) {
    ssize_t ignored = write(watchdog_fd_, "done", 4);
    (void)ignored;
    close(watchdog_fd_);
  }
  int wait_status;
  if (watchdog_pid_ > 0 &&
      !WaitForChildFor(watchdog_pid_, 5000, &wait_status)) {
    kill(watchdog_pid_, SIGKILL);
    (void)WaitForChild(watchdog_pid_, &wait_status);
  }
}

// ---------------------------------------------------------------------------
// BackgroundClient

BackgroundClient::BackgroundClient(std::vector<std::string> argv, pid_t pid,
                                   std::string output_path)
    : argv_(std::move(argv)),
      output_path_(std::move(output_path)),
      pid_(pid),
      owner_pid_(getpid()) {}

BackgroundClient::~BackgroundClient() {
  if (reaped_ || getpid() != owner_pid_) return;
  kill(pid_, SIGKILL);
  (void)WaitForChild(pid_, &wait_status_);
}

bool BackgroundClient::Running() {
  if (!reaped_ && WaitForChildFor(pid_, 0, &wait_status_)) reaped_ = true;
  return !reaped_;
}

Status BackgroundClient::Stop(std::string* output) {
  if (!Running()) return Finish(output);
  kill(pid_, SIGTERM);
  if (!WaitForChildFor(pid_, 10000, &wait_status_)) {
    kill(pid_, SIGKILL);
    PGLAYOUT_RETURN_IF_ERROR(WaitForChild(pid_, &wait_status_));
  }
  reaped_ = true;
  // Dying of our signal is the expected end.
  wait_status_ = 0;
  return Finish(output);
}

Status BackgroundClient::Wait(std::string* output) {
  if (!reaped_) {
    PGLAYOUT_RETURN_IF_ERROR(WaitForChild(pid_, &wait_status_));
    reaped_ = true;
  }
  return Finish(output);
}

Status BackgroundClient::Finish(std::string* output) {
  std::string text;
  (void)ReadTextFile(output_path_, &text);
  if (output != nullptr) *output = text;
  if (WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 0) {
    return Status::Ok();
  }
  return Status::IoError(DescribeCommand(argv_) + " " +
                         DescribeWaitStatus(wait_status_) + "; output:\n" +
                         TailOfText(text, 20));
}

// ---------------------------------------------------------------------------
// Shared clusters

namespace {

// Destroyed at process exit, which stops the servers.
struct SharedClusters {
  std::mutex mu;
  std::unique_ptr<PgCluster> clusters[kPgVersionCount];
  std::optional<Status> start_status[kPgVersionCount];
};

SharedClusters& Shared() {
  static SharedClusters shared;
  return shared;
}

}  // namespace

Status SharedPgCluster(PgVersion version, PgCluster** cluster) {
  SharedClusters& shared = Shared();
  std::lock_guard<std::mutex> lock(shared.mu);
  int i = static_cast<int>(version);
  if (!shared.start_status[i].has_value()) {
    shared.start_status[i] =
        PgCluster::Start(version, PgClusterOptions(), &shared.clusters[i]);
  }
  PGLAYOUT_RETURN_IF_ERROR(*shared.start_status[i]);
  *cluster = shared.clusters[i].get();
  return Status::Ok();
}

}  // namespace pglayout
