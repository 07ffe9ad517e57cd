// Throwaway PostgreSQL 12/15/18 servers for integration tests and benchmarks:
//   std::unique_ptr<PgCluster> pg;
//   Status s = PgCluster::Start(PgVersion::k18, {}, &pg);
// Each lives in its own /tmp directory on a free port; ~PgCluster stops it
// and removes every file it made (a watchdog process does, if this process
// dies). One thread at a time per cluster; a forked child never stops its
// parent's. Binaries, cleanup, standbys: docs/test-harness.md.

#ifndef PGLAYOUT_TESTING_PG_CLUSTER_H_
#define PGLAYOUT_TESTING_PG_CLUSTER_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

// 12, the oldest release pglayout supports, runs the tests of the code that
// differs by version (the migrator, observe); 15 and 18 run them all.
enum class PgVersion { k12, k15, k18 };
constexpr int kPgVersionCount = 3;

// "pg12" / "pg15" / "pg18": used in test names and messages.
const char* PgVersionName(PgVersion version);
// 12 / 15 / 18.
int PgVersionMajor(PgVersion version);

// Stores the directory holding initdb, pg_ctl and postgres for |version| in
// *bin_dir (docs/test-harness.md#binaries). Fails with NotFound, telling to run
// scripts/setup, when initdb, pg_ctl or postgres is missing there.
Status FindPgBinDir(PgVersion version, std::string* bin_dir);

// Directory of Debian's psql and pgbench.
std::string PgClientBinDir();

struct PgClusterOptions {
  // Extra postgresql.conf settings, e.g. {"max_wal_size", "32MB"},
  // {"log_checkpoints", "on"}. Values are written quoted, so any text is
  // safe: {"log_line_prefix", "%m [%p] "}. They override the harness's own
  // settings except listen_addresses, port and unix_socket_directories.
  // fsync stays on unless set here: checkpoint tests measure real writes.
  std::map<std::string, std::string> settings;
  // Where the cluster's directory is made; "" = /tmp. The fidelity lab puts
  // it on a lab volume, so the data directory really lives there. The
  // server account must be able to enter it.
  std::string parent_dir;
  // When set, pg_wal lives in a directory of its own made under it
  // (initdb --waldir), removed with the cluster: WAL on another volume.
  std::string wal_parent_dir;
  // cgroup.procs files the server and the clients it starts run in
  // (Command::cgroup_procs_files; testing/volume_lab.h).
  std::vector<std::string> cgroup_procs_files;
};

enum class StopMode {
  kFast,       // pg_ctl stop -m fast: a clean shutdown with a checkpoint
  kImmediate,  // pg_ctl stop -m immediate: like a crash; restart recovers
};

class BackgroundClient;

class PgCluster {
 public:
  // Creates, configures and starts a new cluster and waits until it accepts
  // connections (pg_ctl's wait, then a real connection, 30 s in all). On
  // failure nothing is left behind and the message names the binary, the
  // command and the tail of the server log.
  static Status Start(PgVersion version, const PgClusterOptions& options,
                      std::unique_ptr<PgCluster>* cluster);

  // Starts a hot standby of |primary|, which must be running and not be a
  // standby itself, and waits until it streams WAL from it (the primary's
  // pg_stat_replication says "streaming", then pg_is_in_recovery() on the
  // standby; 30 s at most, else Unavailable with the standby's log tail).
  // The standby has the primary's settings plus primary_conninfo,
  // primary_slot_name and hot_standby_feedback = on (queries on the
  // standby are never cancelled by the primary's vacuum). It replicates
  // through a physical slot it creates on the primary, so the primary keeps
  // the WAL it needs; the slot is dropped when the standby is destroyed.
  // InvalidInput, naming the setting, when the primary has
  // wal_level = minimal, max_wal_senders = 0, or tablespaces: a standby on
  // the same host would share their directories. For the same reason the
  // primary must not create tablespaces while a standby runs. The primary
  // should outlive the standby (otherwise the slot is simply not dropped).
  static Status StartStandby(const PgCluster& primary,
                             std::unique_ptr<PgCluster>* standby);

  // Stops the server and removes the cluster's directory. Failures are
  // printed to stderr (a destructor cannot return them).
  ~PgCluster();

  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // "host=127.0.0.1 port=N dbname=postgres user=postgres"
  const std::string& conninfo() const { return conninfo_; }
  int port() const { return port_; }
  PgVersion version() const { return version_; }
  const std::string& root_dir() const { return root_dir_; }  // all files
  const std::string& data_dir() const { return data_dir_; }
  // pg_wal's real directory: data_dir()/pg_wal, or the one made under
  // PgClusterOptions::wal_parent_dir.
  const std::string& wal_dir() const { return wal_dir_; }
  const std::string& bin_dir() const { return bin_dir_; }
  const std::string& log_path() const { return log_path_; }
  pid_t postmaster_pid() const { return postmaster_pid_; }
  // True for a cluster made by StartStandby.
  bool is_standby() const { return !slot_name_.empty(); }

  // Opens a session as the superuser on database "postgres", with
  // application_name "pglayout-test".
  Status Connect(std::unique_ptr<SqlSession>* session) const;

  // Creates the directory <root>/<name> (with parents), owned by the server
  // account, e.g. for CREATE TABLESPACE ... LOCATION, and stores its path in
  // *path. |name| must be relative and must not contain "..".
  Status MakeDirectory(const std::string& name, std::string* path);

  // Runs a client program to completion with PGHOST, PGPORT, PGUSER and
  // PGDATABASE pointing at this server; stdout and stderr go to *output.
  // argv[0] is a name in PgClientBinDir() ("pgbench", "psql") or an
  // absolute path. A non-zero exit is an error carrying the output's tail.
  Status RunClient(const std::vector<std::string>& argv, std::string* output);

  // Starts a client program like RunClient but returns at once, e.g. pgbench
  // as concurrent load while a test runs. The client is stopped by
  // BackgroundClient::Stop or its destructor; it must not outlive *this.
  Status StartClient(const std::vector<std::string>& argv,
                     std::unique_ptr<BackgroundClient>* client);

  // Stops the server in |mode| and starts it again on the same port with
  // the same settings (after kImmediate it runs crash recovery first).
  Status Restart(StopMode mode);

  // On a standby: waits until it has replayed all the WAL the primary had
  // written when called (pg_current_wal_lsn() there), e.g. so that tables
  // just created on the primary are visible. 60 s at most, else Unavailable
  // naming both positions. InvalidInput on a primary.
  Status WaitForReplay();

 private:
  PgCluster(PgVersion version, std::string bin_dir, PgClusterOptions options);

  Status CreateRoot(const std::string& role);
  Status StartWatchdog();
  Status InitDb();
  Status WriteConfig();
  Status StartServer();
  Status StartServerOnce();
  Status WaitForConnection();
  Status PgCtl(const std::vector<std::string>& args, std::string* output);
  Status StopServer(StopMode mode);
  void StopServerHard();
  void Destroy();
  Status ServerError(const std::string& what, const Status& cause) const;
  // Standby only: the base backup into data_dir_ through |primary|, a
  // superuser session on the primary.
  Status CopyFromPrimary(SqlSession* primary, const std::string& primary_data);
  Status WaitForStreaming();
  Status ConnectPrimary(std::unique_ptr<SqlSession>* session) const;
  void DropSlot();

  const PgVersion version_;
  const std::string bin_dir_;
  const PgClusterOptions options_;
  const pid_t owner_pid_;  // the process that may stop and remove it
  std::string root_dir_;
  std::string data_dir_;
  std::string wal_dir_;
  std::string own_wal_dir_;  // made under wal_parent_dir; "" = none
  std::string socket_dir_;
  std::string log_path_;
  std::string conninfo_;
  int port_ = 0;
  pid_t postmaster_pid_ = -1;
  pid_t watchdog_pid_ = -1;
  int watchdog_fd_ = -1;  // write end of the watchdog's pipe
  int next_output_ = 0;   // numbers the files that capture command output
  // Set on a standby only.
  std::string primary_conninfo_;
  std::string slot_name_;  // also its application_name on the primary
};

// A client program started by PgCluster::StartClient.
class BackgroundClient {
 public:
  // Kills the client (SIGKILL) if it still runs and reaps it.
  ~BackgroundClient();

  BackgroundClient(const BackgroundClient&) = delete;
  BackgroundClient& operator=(const BackgroundClient&) = delete;

  pid_t pid() const { return pid_; }

  // True while the client has not exited.
  bool Running();

  // Sends SIGTERM, waits up to 10 s (then SIGKILL) and stores everything
  // the client printed in *output (if not null). Returns OK if the client
  // was still running or had exited with status 0; an error with the output
  // if it had already failed on its own.
  Status Stop(std::string* output);

  // Waits for the client to exit by itself (pgbench -T) and stores its
  // output. A non-zero exit is an error carrying the output's tail.
  Status Wait(std::string* output);

 private:
  friend class PgCluster;
  BackgroundClient(std::vector<std::string> argv, pid_t pid,
                   std::string output_path);
  Status Finish(std::string* output);

  const std::vector<std::string> argv_;
  const std::string output_path_;
  const pid_t pid_;
  const pid_t owner_pid_;  // only the starting process may kill and reap
  bool reaped_ = false;
  int wait_status_ = 0;
};

// A plain server of |version| (no extra settings) shared by all tests of
// this process: started on first use and stopped at process exit. Tests
// that change server settings, restart or crash the server must start
// their own cluster instead. A failed start is remembered, so each later
// call fails at once with the same message. Thread-safe.
Status SharedPgCluster(PgVersion version, PgCluster** cluster);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_PG_CLUSTER_H_
