#include "testing/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/files.h"

extern char** environ;

namespace pglayout {
namespace {

// Everything the child needs, prepared before fork: between fork and execve
// only async-signal-safe calls are allowed, so no allocation happens there.
struct ChildSetup {
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* cwd = nullptr;
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  bool detach = false;
  int stdin_fd = -1;
  int output_fd = -1;
  int error_fd = -1;  // write end of the exec-error pipe
  std::vector<const char*> cgroup_procs_files;
};

// What a child that could not start reports through the exec-error pipe.
// One write of 8 bytes, well under PIPE_BUF, so it arrives whole.
struct ChildFailure {
  int error = 0;   // errno
  int stage = -1;  // -1: setup or execve; i >= 0: cgroup_procs_files[i]
};

std::vector<std::string> ChildEnvironment(
    const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (strncmp(*e, "PG", 2) != 0) env.emplace_back(*e);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void SetSignals(void (*disposition)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = disposition;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    sigaction(sig, &action, nullptr);
  }
}

// Writes this process's PID in decimal to |path|. Async-signal-safe: no
// allocation, only open/write/close. Returns 0 or the errno.
int WriteOwnPid(const char* path) {
  char digits[24];
  char* end = digits + sizeof(digits);
  char* p = end;
  unsigned long value = static_cast<unsigned long>(getpid());
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, p, static_cast<size_t>(end - p));
  int err = n < 0 ? errno : 0;
  if (n >= 0 && n != end - p) err = EIO;
  close(fd);
  return err;
}

[[noreturn]] void ChildFailed(const ChildSetup& setup, int error, int stage) {
  ChildFailure failure{error, stage};
  ssize_t ignored = write(setup.error_fd, &failure, sizeof(failure));
  (void)ignored;
  _exit(127);
}

// Runs in the child after fork; never returns.
[[noreturn]] void ExecChild(const ChildSetup& setup) {
  if (setup.detach) {
    setsid();
    SetSignals(SIG_IGN);
  } else {
    // The harness may run inside a process that ignores SIGPIPE or SIGINT;
    // a client must die on them as usual.
    SetSignals(SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Joining cgroups needs the privileges the child may drop below.
  for (size_t i = 0; i < setup.cgroup_procs_files.size(); ++i) {
    int err = WriteOwnPid(setup.cgroup_procs_files[i]);
    if (err != 0) ChildFailed(setup, err, static_cast<int>(i));
  }
  bool ok = dup2(setup.stdin_fd, 0) >= 0 && dup2(setup.output_fd, 1) >= 0 &&
            dup2(setup.output_fd, 2) >= 0;
  if (ok && setup.cwd != nullptr) ok = chdir(setup.cwd) == 0;
  if (ok && setup.switch_user) {
    ok = setgroups(0, nullptr) == 0 && setgid(setup.gid) == 0 &&
         setuid(setup.uid) == 0;
  }
  if (ok) execve(setup.argv[0], setup.argv.data(), setup.envp.data());
  ChildFailed(setup, errno, -1);
}

int OpenOrDevNull(const std::string& path, int flags) {
  const char* name = path.empty() ? "/dev/null" : path.c_str();
  return open(name, flags | O_CLOEXEC, 0644);
}

// Closes the descriptors opened for one spawn, whatever happens.
struct SpawnFds {
  int in = -1, out = -1, err_read = -1, err_write = -1;
  bool own_in = false;
  ~SpawnFds() {
    if (own_in && in >= 0) close(in);
    for (int fd : {out, err_read, err_write}) {
      if (fd >= 0) close(fd);
    }
  }
};

Status OpenSpawnFds(const Command& command, const std::string& output_path,
                    SpawnFds* fds) {
  if (command.stdin_fd >= 0) {
    fds->in = command.stdin_fd;
  } else {
    fds->in = OpenOrDevNull("", O_RDONLY);
    fds->own_in = true;
    if (fds->in < 0)
      return Status::FromErrno("could not open /dev/null", errno);
  }
  fds->out = OpenOrDevNull(output_path, O_WRONLY | O_CREAT | O_APPEND);
  if (fds->out < 0)
    return Status::FromErrno("could not open " + output_path, errno);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return Status::FromErrno("could not create a pipe", errno);
  fds->err_read = pipe_fds[0];
  fds->err_write = pipe_fds[1];
  return Status::Ok();
}

// After fork: reads the exec-error pipe. EOF means execve succeeded.
Status CheckExec(const Command& command, SpawnFds* fds, pid_t pid) {
  const std::string& program = command.argv[0];
  close(fds->err_write);
  fds->err_write = -1;
  ChildFailure failure;
  ssize_t n;
  do {
    n = read(fds->err_read, &failure, sizeof(failure));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return Status::Ok();
  int ignored;
  (void)WaitForChild(pid, &ignored);
  if (failure.stage >= 0 &&
      static_cast<size_t>(failure.stage) < command.cgroup_procs_files.size()) {
    return Status::FromErrno(
        "could not start " + program + ": writing its PID to " +
            command.cgroup_procs_files[static_cast<size_t>(failure.stage)],
        failure.error);
  }
  return Status::FromErrno("could not start " + program, failure.error);
}

}  // namespace

Status GetServerAccount(ServerAccount* account) {
  if (geteuid() != 0) {
    *account = ServerAccount{false, geteuid(), getegid()};
    return Status::Ok();
  }
  struct passwd pw;
  struct passwd* found = nullptr;
  char buffer[4096];
  int err = getpwnam_r("postgres", &pw, buffer, sizeof(buffer), &found);
  if (found == nullptr) {
    return Status::NotFound(
        "running as root, but there is no 'postgres' user to run PostgreSQL "
        "(run scripts/setup)" +
        std::string(err != 0 ? ": " + std::string(strerror(err)) : ""));
  }
  *account = ServerAccount{true, pw.pw_uid, pw.pw_gid};
  return Status::Ok();
}

std::string DescribeCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

Status SpawnCommand(const Command& command, const std::string& output_path,
                    pid_t* pid) {
  if (command.argv.empty() || command.argv[0].empty() ||
      command.argv[0][0] != '/') {
    return Status::Internal("SpawnCommand needs an absolute program path: " +
                            DescribeCommand(command.argv));
  }
  ServerAccount account;
  if (command.as_server_account) {
    PGLAYOUT_RETURN_IF_ERROR(GetServerAccount(&account));
  }
  SpawnFds fds;
  PGLAYOUT_RETURN_IF_ERROR(OpenSpawnFds(command, output_path, &fds));

  std::vector<std::string> argv = command.argv;
  std::vector<std::string> env = ChildEnvironment(command.env);
  ChildSetup setup;
  setup.argv = CStrings(argv);
  setup.envp = CStrings(env);
  setup.cwd = command.cwd.empty() ? nullptr : command.cwd.c_str();
  setup.switch_user = account.switch_user;
  setup.uid = account.uid;
  setup.gid = account.gid;
  setup.detach = command.detach;
  setup.stdin_fd = fds.in;
  setup.output_fd = fds.out;
  setup.error_fd = fds.err_write;
  for (const std::string& file : command.cgroup_procs_files) {
    setup.cgroup_procs_files.push_back(file.c_str());
  }

  pid_t child = fork();
  if (child < 0) return Status::FromErrno("could not fork", errno);
  if (child == 0) ExecChild(setup);
  PGLAYOUT_RETURN_IF_ERROR(CheckExec(command, &fds, child));
  *pid = child;
  return Status::Ok();
}

Status SpawnWatchdog(const std::vector<std::string>& argv, pid_t* pid,
                     int* write_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status::FromErrno("could not create a pipe", errno);
  Command command;
  command.argv = argv;
  command.detach = true;
  command.stdin_fd = fds[0];
  Status s = SpawnCommand(command, "", pid);
  close(fds[0]);
  if (!s.ok()) {
    close(fds[1]);
    *pid = -1;
    return s.WithContext("starting the cleanup watchdog");
  }
  *write_fd = fds[1];
  return Status::Ok();
}

Status WaitForChild(pid_t pid, int* wait_status) {
  while (waitpid(pid, wait_status, 0) < 0) {
    if (errno != EINTR) {
      return Status::FromErrno(
          "could not wait for process " + std::to_string(pid), errno);
    }
  }
  return Status::Ok();
}

bool WaitForChildFor(pid_t pid, int timeout_ms, int* wait_status) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    pid_t r = waitpid(pid, wait_status, WNOHANG);
    // ECHILD: somebody else reaped it; it is gone either way.
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    return "killed by signal " + std::to_string(WTERMSIG(wait_status));
  }
  return "ended with wait status " + std::to_string(wait_status);
}

Status RunCommand(const Command& command, const std::string& output_path,
                  std::string* output) {
  pid_t pid;
  PGLAYOUT_RETURN_IF_ERROR(SpawnCommand(command, output_path, &pid));
  int wait_status;
  PGLAYOUT_RETURN_IF_ERROR(WaitForChild(pid, &wait_status));
  std::string text;
  if (!output_path.empty()) (void)ReadTextFile(output_path, &text);
  if (output != nullptr) *output = text;
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    return Status::Ok();
  }
  return Status::IoError(DescribeCommand(command.argv) + " " +
                         DescribeWaitStatus(wait_status) + "; output:\n" +
                         TailOfText(text, 20));
}

Completion RunToCompletion(const Command& command) {
  static int counter = 0;
  const char* tmp = std::getenv("TMPDIR");
  std::string out = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                    "/pglayout-run-" + std::to_string(getpid()) + "-" +
                    std::to_string(++counter) + ".out";
  Completion done;
  pid_t pid = 0;
  int wait_status = 0;
  Status st = SpawnCommand(command, out, &pid);
  if (st.ok()) st = WaitForChild(pid, &wait_status);
  if (!st.ok()) {
    done.output = st.message();
    unlink(out.c_str());
    return done;
  }
  done.started = true;
  if (WIFEXITED(wait_status)) done.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) done.signal = WTERMSIG(wait_status);
  (void)ReadTextFile(out, &done.output);
  unlink(out.c_str());
  return done;
}

std::string TailOfText(const std::string& text, int lines) {
  if (lines <= 0) return "";
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  size_t start = end;
  int newlines = 0;
  // Walk back to just after the |lines|-th newline before the end.
  while (start > 0) {
    if (text[start - 1] == '\n' && ++newlines == lines) break;
    --start;
  }
  return text.substr(start, end - start);
}

std::string TailOfFile(const std::string& path, int lines) {
  std::string text;
  if (!ReadTextFile(path, &text).ok()) return "";
  return TailOfText(text, lines);
}

Status MakeTempDirectory(const std::string& pattern, std::string* dir) {
  std::string name = pattern;
  if (mkdtemp(name.data()) == nullptr) {
    return Status::FromErrno("could not create directory " + name, errno);
  }
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(name, ec);
  *dir = ec ? name : canonical.string();
  return Status::Ok();
}

}  // namespace pglayout
