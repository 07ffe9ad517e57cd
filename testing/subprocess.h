// Running programs for the test harness: initdb, pg_ctl, pgbench, psql.
//
// Programs are started with fork + execve, never through a shell, so
// arguments need no quoting. The child switches to the server account
// (ServerAccount) when asked to, which is how the harness runs PostgreSQL
// when the tests run as root. Output goes to a file rather than a pipe:
// pg_ctl leaves a daemon behind that would otherwise hold the pipe open.
//
// The environment of every child is this process's environment minus all
// PG* variables (a developer's PGHOST or PGDATA must not leak into a test),
// plus Command::env.

#ifndef PGLAYOUT_TESTING_SUBPROCESS_H_
#define PGLAYOUT_TESTING_SUBPROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace pglayout {

// The account that owns and runs test servers: "postgres" when this process
// is root (PostgreSQL refuses to run as root), otherwise this process's own
// user, in which case switch_user is false.
struct ServerAccount {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Looks the account up once per call. Fails with NotFound when running as
// root and no "postgres" user exists.
Status GetServerAccount(ServerAccount* account);

struct Command {
  std::vector<std::string> argv;   // argv[0] must be an absolute path
  std::vector<std::string> env;    // "NAME=value", added after filtering
  std::string cwd;                 // "" keeps the current directory
  bool as_server_account = false;  // run as ServerAccount
  // For watchdogs: start a new session (no terminal signals reach it) and
  // ignore SIGINT, SIGTERM, SIGHUP and SIGQUIT.
  bool detach = false;
  int stdin_fd = -1;  // -1 = /dev/null; otherwise duplicated onto stdin
  // Files the child writes its own PID to before it drops privileges and
  // executes the program: each a cgroup's cgroup.procs (or v1 "tasks"), so
  // that the program and everything it forks start inside those cgroups
  // (testing/volume_lab.h). Empty = the child stays in this process's
  // cgroups. A file the child cannot write makes SpawnCommand fail, naming
  // the file, and the program never runs.
  std::vector<std::string> cgroup_procs_files;
};

// "argv[0] arg1 arg2": for messages.
std::string DescribeCommand(const std::vector<std::string>& argv);

// Starts |command| with stdout and stderr appended to |output_path| ("" =
// /dev/null) and stores its PID in *pid. The caller must reap the child
// (WaitForChild). Fails if the program cannot be executed.
Status SpawnCommand(const Command& command, const std::string& output_path,
                    pid_t* pid);

// Starts |argv| detached, reading its stdin from a pipe whose write end
// (close-on-exec) is stored in *write_fd: the child sees EOF when this
// process dies, however it dies. The cleanup watchdogs of the test servers
// and the volume lab wait on that EOF.
Status SpawnWatchdog(const std::vector<std::string>& argv, pid_t* pid,
                     int* write_fd);

// Waits for child |pid| and stores its raw wait status in *wait_status.
Status WaitForChild(pid_t pid, int* wait_status);

// Polls child |pid| for up to |timeout_ms|. Returns true and stores the wait
// status if it exited, false if it is still running.
bool WaitForChildFor(pid_t pid, int timeout_ms, int* wait_status);

// "exited with status 1", "killed by signal 9".
std::string DescribeWaitStatus(int wait_status);

// Runs |command| to completion, its stdout and stderr going to
// |output_path|, then stores that file's contents in *output (if not null).
// A non-zero exit is an error whose message names the command, the exit
// status and the last lines of the output.
Status RunCommand(const Command& command, const std::string& output_path,
                  std::string* output);

// How a program run by RunToCompletion ended.
struct Completion {
  bool started = false;  // false: it could not be started (see output)
  int exit_code = -1;    // its exit status, -1 unless it exited normally
  int signal = 0;        // the signal that killed it, 0 if none
  std::string output;    // stdout and stderr together
};

// Runs |command| to completion, capturing its output in a temporary file
// under $TMPDIR (or /tmp) that is removed afterwards. A non-zero exit is not
// an error here: tests of exit codes read Completion::exit_code.
Completion RunToCompletion(const Command& command);

// The last |lines| lines of a file, "" if it cannot be read.
std::string TailOfFile(const std::string& path, int lines);

// mkdtemp(|pattern|, ending in XXXXXX), and the new directory's path as the
// kernel reports it (symlinks resolved: /proc shows working directories,
// backing files and mount points that way) in *dir.
Status MakeTempDirectory(const std::string& pattern, std::string* dir);
// The last |lines| lines of |text|.
std::string TailOfText(const std::string& text, int lines);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_SUBPROCESS_H_
