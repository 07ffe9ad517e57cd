#include "testing/volume_lab.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "common/files.h"

namespace pglayout {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinVolumeSize = 32ULL << 20;
constexpr int kBusyWaitMs = 5000;  // for a busy mount, loop device, cgroup
constexpr int kPollMs = 50;
constexpr int kWatchdogDoneWaitMs = 5000;
constexpr int kWatchdogCleanupWaitMs = 60000;
constexpr char kCgroupPrefix[] = "pglayout-lab-";

// Runs detached with the read end of a pipe as stdin; $1 = the lab's
// directory, $2 = losetup, $3 = umount. See "Cleanup" in volume_lab.h. The
// manifest's lines: "cgroup DIR RETURN_PROCS_FILE", "forget DIR" (a cgroup
// whose mkdir failed: not ours), "file BACKING_FILE", "loop DEV FILE" (for
// people: devices are found again from the backing files) and
// "mount DIR". Every action is checked against what the lab made: a mount
// is only unmounted when it lies in the lab's directory and comes from a
// loop device backed by a file in it, and a loop device is only detached
// when its backing file is one of the lab's.
constexpr char kWatchdogScript[] = R"sh(
lab=$1 losetup=$2 umount=$3
msg=$(cat)
[ "$msg" = done ] && exit 0
[ -n "$lab" ] || exit 0
m=$lab/manifest
[ -f "$m" ] || exit 0
forgotten() { grep -qxF "forget $1" "$m"; }
inside_lab() { case $1 in "$lab"/*) return 0 ;; esac; return 1; }
# The loop device whose backing file is $1, if any.
loop_of() {
  for f in /sys/block/loop*/loop/backing_file; do
    b=$(cat "$f" 2>/dev/null) || continue
    if [ "$b" = "$1" ] || [ "$b" = "$1 (deleted)" ]; then
      d=${f%/loop/backing_file}
      echo "/dev/${d##*/}"
      return 0
    fi
  done
  return 1
}
# True when $1 is a /dev/loopN backed by a file inside the lab.
own_loop() {
  case $1 in /dev/loop[0-9]*) ;; *) return 1 ;; esac
  b=$(cat "/sys/block/${1#/dev/}/loop/backing_file" 2>/dev/null) || return 1
  inside_lab "$b"
}
# The source of the filesystem mounted at $1, if any.
mounted_from() {
  while read -r src dir rest; do
    [ "$dir" = "$1" ] && { echo "$src"; return 0; }
  done < /proc/mounts
  return 1
}
move_out() {
  for p in $(cat "$1/cgroup.procs" 2>/dev/null); do
    echo "$p" > "$2"
  done 2>/dev/null
}
while read -r kind a b; do
  [ "$kind" = cgroup ] && ! forgotten "$a" && move_out "$a" "$b"
done < "$m"
while read -r kind a b; do
  [ "$kind" = mount ] && inside_lab "$a" || continue
  src=$(mounted_from "$a") && own_loop "$src" || continue
  n=0
  until "$umount" "$a" 2>/dev/null; do
    n=$((n + 1))
    if [ $n -ge 50 ]; then "$umount" -l "$a"; break; fi
    sleep 0.1
  done
done < "$m"
while read -r kind a b; do
  [ "$kind" = file ] && inside_lab "$a" || continue
  n=0
  while dev=$(loop_of "$a") && [ $n -lt 50 ]; do
    "$losetup" -d "$dev" 2>/dev/null
    loop_of "$a" > /dev/null || break
    sleep 0.1
    n=$((n + 1))
  done
done < "$m"
while read -r kind a b; do
  [ "$kind" = cgroup ] && ! forgotten "$a" || continue
  n=0
  while [ -d "$a" ] && ! rmdir "$a" 2>/dev/null && [ $n -lt 50 ]; do
    move_out "$a" "$b"
    sleep 0.1
    n=$((n + 1))
  done
done < "$m"
rm -rf --one-file-system "$lab"
)sh";

std::string Trim(std::string s) {
  while (!s.empty() && isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  size_t start = 0;
  while (start < s.size() && isspace(static_cast<unsigned char>(s[start])))
    ++start;
  return s.substr(start);
}

std::vector<std::string> Split(const std::string& s, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::string Join(const std::vector<std::string>& parts, const char* glue) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += glue;
    out += p;
  }
  return out;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  for (const std::string& x : list) {
    if (x == item) return true;
  }
  return false;
}

bool HasWhitespace(const std::string& s) {
  for (char c : s) {
    if (isspace(static_cast<unsigned char>(c)) || c == '\\') return true;
  }
  return false;
}

bool WaitUntil(const std::function<bool()>& condition, int timeout_ms) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
  }
  return true;
}

std::string FindTool(const std::string& name,
                     const std::vector<std::string>& dirs) {
  std::vector<std::string> search = dirs;
  if (search.empty()) {
    const char* path = getenv("PATH");
    if (path != nullptr) search = Split(path, ':');
    for (const char* d : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}) {
      search.emplace_back(d);
    }
  }
  for (const std::string& dir : search) {
    if (dir.empty() || dir[0] != '/') continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// One line of /proc/mounts, with the kernel's octal escapes (\040 for a
// space) undone.
struct MountEntry {
  std::string source;
  std::string target;
  std::string type;
  std::vector<std::string> options;
};

std::string Unescape(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      int value = 0;
      bool octal = true;
      for (size_t k = 1; k <= 3 && octal; ++k) {
        char c = field[i + k];
        octal = c >= '0' && c <= '7';
        value = value * 8 + (c - '0');
      }
      if (octal) {
        out += static_cast<char>(value);
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

std::vector<MountEntry> ReadMounts(const std::string& path) {
  std::vector<MountEntry> mounts;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string source, target, type, options;
    if (!(fields >> source >> target >> type >> options)) continue;
    mounts.push_back(MountEntry{Unescape(source), Unescape(target), type,
                                Split(options, ',')});
  }
  return mounts;
}

const MountEntry* FindMount(const std::vector<MountEntry>& mounts,
                            const std::string& target) {
  const MountEntry* found = nullptr;
  // The last line wins: a later mount over the same directory hides the
  // earlier ones.
  for (const MountEntry& m : mounts) {
    if (m.target == target) found = &m;
  }
  return found;
}

// Where the cgroup v1 hierarchy holding |controller| is mounted, or "".
std::string CgroupV1Mount(const std::vector<MountEntry>& mounts,
                          const std::string& controller) {
  for (const MountEntry& m : mounts) {
    if (m.type == "cgroup" && Contains(m.options, controller)) return m.target;
  }
  return "";
}

// This process's cgroup in the v1 hierarchy of |controller| (or, for "",
// in the v2 hierarchy), from /proc/self/cgroup: "/" for the root.
Status OwnCgroup(const std::string& proc_self_cgroup,
                 const std::string& controller, std::string* path) {
  std::ifstream in(proc_self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    // "7:blkio:/", "4:memory:/a/b", "0::/user.slice"
    size_t first = line.find(':');
    size_t second =
        first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    bool match = controller.empty()
                     ? line.compare(0, first, "0") == 0 && controllers.empty()
                     : Contains(Split(controllers, ','), controller);
    if (!match) continue;
    *path = line.substr(second + 1);
    return Status::Ok();
  }
  return Status::NotFound(
      proc_self_cgroup + " names no cgroup of this process for " +
      (controller.empty() ? std::string("cgroup v2") : controller));
}

std::string JoinPath(const std::string& mount, const std::string& cgroup) {
  if (cgroup.empty() || cgroup == "/") return mount;
  return mount + cgroup;
}

bool IsCgroup2(const LabHost& host) {
  return access((host.cgroup2_root + "/cgroup.controllers").c_str(), F_OK) == 0;
}

bool FileListsWord(const std::string& path, const std::string& word) {
  std::string text;
  if (!ReadTextFile(path, &text).ok()) return false;
  std::istringstream in(text);
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

Status WriteCgroupFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("could not open " + path, errno);
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n < 0) {
    return Status::FromErrno("could not write '" + Trim(text) + "' to " + path,
                             err);
  }
  return Status::Ok();
}

// "/dev/loopN" -> "loopN"; "" for anything else. Nothing outside
// /dev/loop[0-9]+ is ever handed to a tool.
std::string LoopName(const std::string& device) {
  const std::string prefix = "/dev/loop";
  if (device.compare(0, prefix.size(), prefix) != 0 ||
      device.size() == prefix.size()) {
    return "";
  }
  for (size_t i = prefix.size(); i < device.size(); ++i) {
    if (!isdigit(static_cast<unsigned char>(device[i]))) return "";
  }
  return device.substr(5);
}

// The backing file of loop device |name| ("loopN"), without the kernel's
// " (deleted)" suffix; "" when the device has none.
std::string BackingFile(const std::string& name) {
  std::string text;
  if (!ReadTextFile("/sys/block/" + name + "/loop/backing_file", &text).ok())
    return "";
  text = Trim(text);
  const std::string deleted = " (deleted)";
  if (text.size() > deleted.size() &&
      text.compare(text.size() - deleted.size(), deleted.size(), deleted) ==
          0) {
    text.resize(text.size() - deleted.size());
  }
  return text;
}

// The loop devices ("/dev/loopN") whose backing file is |file|.
std::vector<std::string> LoopsBackedBy(const std::string& file) {
  std::vector<std::string> devices;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/block", ec)) {
    std::string name = entry.path().filename().string();
    if (LoopName("/dev/" + name).empty()) continue;
    if (BackingFile(name) == file) devices.push_back("/dev/" + name);
  }
  return devices;
}

std::string CapValue(uint64_t value) {
  return value == 0 ? "max" : std::to_string(value);
}

uint64_t BytesPerSecond(double mbps) {
  return static_cast<uint64_t>(std::llround(mbps * 1e6));
}

bool ValidName(const std::string& name) {
  if (name.empty() || name == "manifest") return false;
  for (char c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      return false;
  }
  return true;
}

// At least two members, each a volume of |volumes| in no other stripe
// (|striped| collects them).
Status CheckStripeMembers(const LabStripeSpec& stripe,
                          const std::vector<LabVolumeSpec>& volumes,
                          std::set<std::string>* striped) {
  if (stripe.members.size() < 2) {
    return Status::InvalidInput("stripe '" + stripe.name +
                                "' needs at least two member volumes");
  }
  for (const std::string& m : stripe.members) {
    bool found = false;
    for (const LabVolumeSpec& v : volumes) found |= v.name == m;
    if (!found) {
      return Status::InvalidInput("stripe '" + stripe.name +
                                  "': no lab volume named '" + m + "'");
    }
    if (!striped->insert(m).second) {
      return Status::InvalidInput("stripe '" + stripe.name + "': volume '" + m +
                                  "' is in a stripe already");
    }
  }
  return Status::Ok();
}

Status ValidateSpec(const VolumeLabSpec& spec) {
  if (spec.volumes.empty()) {
    return Status::InvalidInput("a volume lab needs at least one volume");
  }
  std::set<std::string> names;
  for (const LabVolumeSpec& v : spec.volumes) {
    if (!ValidName(v.name)) {
      return Status::InvalidInput(
          "volume name '" + v.name +
          "': use letters, digits, '-' and '_' (it names a file and a "
          "directory of the lab)");
    }
    if (!names.insert(v.name).second) {
      return Status::InvalidInput("volume name '" + v.name + "' is used twice");
    }
    if (v.size < kMinVolumeSize) {
      return Status::InvalidInput(
          "volume '" + v.name + "': size " + std::to_string(v.size) +
          " bytes is below the minimum of 32 MiB (ext4 needs room for its "
          "journal)");
    }
    for (double mbps : {v.read_mbps, v.write_mbps}) {
      if (!std::isfinite(mbps) || mbps < 0 ||
          (mbps > 0 && BytesPerSecond(mbps) == 0)) {
        return Status::InvalidInput("volume '" + v.name +
                                    "': a bandwidth cap must be 0 (none) or "
                                    "at least 10^-6 MB/s");
      }
    }
  }
  std::set<std::string> striped;
  for (const LabStripeSpec& stripe : spec.stripes) {
    if (!ValidName(stripe.name) || !names.insert(stripe.name).second) {
      return Status::InvalidInput("stripe name '" + stripe.name +
                                  "': letters, digits, '-' and '_', and no "
                                  "volume's or other stripe's name");
    }
    PGLAYOUT_RETURN_IF_ERROR(
        CheckStripeMembers(stripe, spec.volumes, &striped));
  }
  return Status::Ok();
}

std::atomic<int> lab_counter{0};

}  // namespace

// ---------------------------------------------------------------------------
// Prerequisites and creation

Status VolumeLab::CheckPrerequisites(const LabHost& host, bool memory_cgroup) {
  std::vector<std::string> missing;
  if (geteuid() != 0) {
    missing.push_back("root (running as uid " + std::to_string(geteuid()) +
                      ")");
  }
  // Debian's packages: util-linux's losetup and umount are in "mount".
  const std::pair<const char*, const char*> tools[] = {
      {"losetup", "mount"}, {"mkfs.ext4", "e2fsprogs"}, {"umount", "mount"}};
  for (const auto& [tool, package] : tools) {
    if (FindTool(tool, host.tool_dirs).empty()) {
      missing.push_back(std::string(tool) + " (Debian package " + package +
                        ")");
    }
  }
  if (access("/dev/loop-control", F_OK) != 0) {
    missing.push_back("/dev/loop-control (the loop driver)");
  }
  if (IsCgroup2(host)) {
    std::string subtree = host.cgroup2_root + "/cgroup.subtree_control";
    if (!FileListsWord(subtree, "io")) {
      missing.push_back("the cgroup v2 io controller enabled in " + subtree);
    }
    if (memory_cgroup && !FileListsWord(subtree, "memory")) {
      missing.push_back("the cgroup v2 memory controller enabled in " +
                        subtree);
    }
  } else {
    std::vector<MountEntry> mounts = ReadMounts(host.proc_mounts);
    if (CgroupV1Mount(mounts, "blkio").empty()) {
      missing.push_back(
          "a mounted cgroup blkio controller (no cgroup v1 "
          "blkio line in " +
          host.proc_mounts + ", and no cgroup v2 at " + host.cgroup2_root +
          ")");
    }
    if (memory_cgroup && CgroupV1Mount(mounts, "memory").empty()) {
      missing.push_back(
          "a mounted cgroup v1 memory controller (for the "
          "page-cache cap)");
    }
  }
  if (missing.empty()) return Status::Ok();
  return Status::Unavailable("the volume lab needs " + Join(missing, "; ") +
                             " (docs/volume-lab.md)");
}

Status VolumeLab::Create(const VolumeLabSpec& spec,
                         std::unique_ptr<VolumeLab>* lab) {
  PGLAYOUT_RETURN_IF_ERROR(ValidateSpec(spec));
  PGLAYOUT_RETURN_IF_ERROR(
      CheckPrerequisites(spec.host, spec.page_cache_bytes > 0));
  std::vector<std::string> tools;
  for (const char* tool : {"losetup", "mkfs.ext4", "umount"}) {
    tools.push_back(FindTool(tool, spec.host.tool_dirs));
  }
  std::unique_ptr<VolumeLab> made(new VolumeLab(spec, std::move(tools)));
  Status st = made->Build();
  if (!st.ok()) {
    Status cleanup = made->TearDown();
    if (!cleanup.ok()) {
      fprintf(stderr, "pglayout volume lab: after a failed start: %s\n",
              cleanup.ToString().c_str());
    }
    return st.WithContext("building the volume lab");
  }
  *lab = std::move(made);
  return Status::Ok();
}

VolumeLab::VolumeLab(VolumeLabSpec spec, std::vector<std::string> tools)
    : spec_(std::move(spec)),
      losetup_(tools[0]),
      mkfs_(tools[1]),
      umount_(tools[2]),
      owner_pid_(getpid()) {}

VolumeLab::~VolumeLab() {
  Status st = TearDown();
  if (!st.ok()) {
    fprintf(stderr, "pglayout volume lab: %s\n", st.ToString().c_str());
  }
}

Status VolumeLab::Build() {
  cgroup2_ = IsCgroup2(spec_.host);
  PGLAYOUT_RETURN_IF_ERROR(MakeDirectory());
  PGLAYOUT_RETURN_IF_ERROR(StartWatchdog());
  PGLAYOUT_RETURN_IF_ERROR(MakeCgroups());
  for (const LabVolumeSpec& v : spec_.volumes) {
    PGLAYOUT_RETURN_IF_ERROR(MakeVolume(v).WithContext("volume " + v.name));
  }
  for (const LabStripeSpec& stripe : spec_.stripes) {
    PGLAYOUT_RETURN_IF_ERROR(
        Stripe(stripe.name, stripe.members, dir_ + "/" + stripe.name)
            .WithContext("stripe " + stripe.name));
  }
  return LimitMemory();
}

Status VolumeLab::MakeDirectory() {
  std::string base = spec_.base_dir;
  if (base.empty()) {
    const char* tmp = getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/var/tmp";
  }
  uint64_t needed = 0;
  for (const LabVolumeSpec& v : spec_.volumes) needed += v.size;
  struct statvfs fs_stats;
  if (statvfs(base.c_str(), &fs_stats) != 0) {
    return Status::FromErrno("could not stat the file system of " + base,
                             errno);
  }
  uint64_t available =
      static_cast<uint64_t>(fs_stats.f_bavail) * fs_stats.f_frsize;
  if (available < needed) {
    return Status::Unavailable(
        base + " has " + std::to_string(available >> 20) +
        " MiB free; the lab's backing files may grow to " +
        std::to_string(needed >> 20) + " MiB (set TMPDIR elsewhere)");
  }
  PGLAYOUT_RETURN_IF_ERROR(
      MakeTempDirectory(base + "/pglayout-lab-XXXXXX", &dir_));
  // Enterable (not listable) by the server account, whose data directory,
  // WAL and tablespaces may live on the lab's volumes.
  if (chmod(dir_.c_str(), 0711) != 0) {
    return Status::FromErrno("could not change the mode of " + dir_, errno);
  }
  if (HasWhitespace(dir_)) {
    // Cleaned up by TearDown like any other failure midway.
    return Status::InvalidInput(
        "the lab directory " + dir_ +
        " contains whitespace or a backslash, which /proc/mounts and the "
        "manifest cannot carry; set TMPDIR to a plain path");
  }
  manifest_path_ = dir_ + "/manifest";
  return WriteTextFile(manifest_path_,
                       "# pglayout volume lab of pid " +
                           std::to_string(owner_pid_) +
                           ": what it made; its watchdog undoes these "
                           "lines if the process dies\n");
}

Status VolumeLab::StartWatchdog() {
  return SpawnWatchdog({"/bin/sh", "-c", kWatchdogScript,
                        "pglayout-lab-watchdog", dir_, losetup_, umount_},
                       &watchdog_pid_, &watchdog_fd_);
}

Status VolumeLab::AppendToManifest(const std::string& line) {
  // The watchdog splits lines at whitespace.
  if (line.find('\n') != std::string::npos) {
    return Status::Internal("manifest line with a line break: " + line);
  }
  int fd = open(manifest_path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return Status::FromErrno("could not open " + manifest_path_, errno);
  std::string text = line + "\n";
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return Status::FromErrno("could not append to " + manifest_path_,
                             n < 0 ? err : EIO);
  }
  return Status::Ok();
}

Status VolumeLab::MakeCgroups() {
  std::string name = kCgroupPrefix + std::to_string(owner_pid_) + "-" +
                     std::to_string(lab_counter.fetch_add(1) + 1);
  const LabHost& host = spec_.host;
  if (cgroup2_) {
    std::string own;
    PGLAYOUT_RETURN_IF_ERROR(OwnCgroup(host.proc_self_cgroup, "", &own));
    LabCgroup cgroup;
    cgroup.return_procs_file =
        JoinPath(host.cgroup2_root, own) + "/cgroup.procs";
    PGLAYOUT_RETURN_IF_ERROR(MakeCgroup(host.cgroup2_root, name, &cgroup));
    io_cgroup_ = 0;
    if (spec_.page_cache_bytes > 0) memory_cgroup_ = 0;
    return Status::Ok();
  }
  std::vector<MountEntry> mounts = ReadMounts(host.proc_mounts);
  std::vector<std::string> controllers = {"blkio"};
  if (spec_.page_cache_bytes > 0) controllers.push_back("memory");
  for (const std::string& controller : controllers) {
    std::string own;
    PGLAYOUT_RETURN_IF_ERROR(
        OwnCgroup(host.proc_self_cgroup, controller, &own));
    std::string parent = JoinPath(CgroupV1Mount(mounts, controller), own);
    LabCgroup cgroup;
    cgroup.return_procs_file = parent + "/cgroup.procs";
    PGLAYOUT_RETURN_IF_ERROR(MakeCgroup(parent, name, &cgroup));
    int index = static_cast<int>(cgroups_.size()) - 1;
    (controller == "blkio" ? io_cgroup_ : memory_cgroup_) = index;
  }
  return Status::Ok();
}

Status VolumeLab::MakeCgroup(const std::string& parent_dir,
                             const std::string& name, LabCgroup* cgroup) {
  cgroup->dir = parent_dir + "/" + name;
  if (HasWhitespace(cgroup->dir) || HasWhitespace(cgroup->return_procs_file)) {
    return Status::Unavailable("this process's cgroup path " + parent_dir +
                               " contains whitespace, which the lab's "
                               "manifest cannot carry");
  }
  if (access(parent_dir.c_str(), W_OK) != 0) {
    return Status::FromErrno("could not create a cgroup in " + parent_dir,
                             errno);
  }
  PGLAYOUT_RETURN_IF_ERROR(AppendToManifest("cgroup " + cgroup->dir + " " +
                                            cgroup->return_procs_file));
  if (mkdir(cgroup->dir.c_str(), 0755) != 0) {
    int err = errno;
    // Whatever is there is not the lab's: the watchdog must leave it alone.
    Status forget = AppendToManifest("forget " + cgroup->dir);
    (void)forget;
    return Status::FromErrno("could not create directory " + cgroup->dir, err);
  }
  cgroups_.push_back(*cgroup);
  return Status::Ok();
}

Status VolumeLab::MakeVolume(const LabVolumeSpec& spec) {
  LabVolume v;
  v.spec = spec;
  v.backing_file = dir_ + "/" + spec.name + ".img";
  v.mount_dir = dir_ + "/" + spec.name;
  PGLAYOUT_RETURN_IF_ERROR(AppendToManifest("file " + v.backing_file));
  int fd = open(v.backing_file.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
                0600);
  if (fd < 0)
    return Status::FromErrno("could not create " + v.backing_file, errno);
  backing_files_.push_back(v.backing_file);
  // Sparse: blocks are allocated as the filesystem on it writes them.
  int rc = ftruncate(fd, static_cast<off_t>(spec.size));
  int err = errno;
  close(fd);
  if (rc != 0)
    return Status::FromErrno("could not size " + v.backing_file, err);

  PGLAYOUT_RETURN_IF_ERROR(Attach(&v));
  PGLAYOUT_RETURN_IF_ERROR(
      RunTool({mkfs_, "-q", "-F", "-E",
               "lazy_itable_init=0,lazy_journal_init=0", v.loop_device},
              nullptr));
  PGLAYOUT_RETURN_IF_ERROR(AppendToManifest("mount " + v.mount_dir));
  if (mkdir(v.mount_dir.c_str(), 0755) != 0) {
    return Status::FromErrno("could not create directory " + v.mount_dir,
                             errno);
  }
  mount_dirs_.push_back(v.mount_dir);
  if (mount(v.loop_device.c_str(), v.mount_dir.c_str(), "ext4", 0, nullptr) !=
      0) {
    return Status::FromErrno(
        "mount " + v.loop_device + " (ext4) on " + v.mount_dir, errno);
  }
  volumes_.push_back(v);
  return Throttle(v);
}

Status VolumeLab::Attach(LabVolume* v) {
  std::string output;
  PGLAYOUT_RETURN_IF_ERROR(
      RunTool({losetup_, "--find", "--show", "--direct-io=on", v->backing_file},
              &output));
  // The device is the last line; losetup may warn before it.
  std::string device;
  for (const std::string& line : Split(output, '\n')) {
    if (!Trim(line).empty()) device = Trim(line);
  }
  std::string name = LoopName(device);
  if (name.empty() || BackingFile(name) != v->backing_file) {
    return Status::IoError("losetup attached " + v->backing_file +
                           " but printed '" + Trim(output) +
                           "', not a loop device backed by it");
  }
  v->loop_device = device;
  PGLAYOUT_RETURN_IF_ERROR(
      AppendToManifest("loop " + device + " " + v->backing_file));
  std::string dio;
  (void)ReadTextFile("/sys/block/" + name + "/loop/dio", &dio);
  if (Trim(dio) != "1") {
    return Status::Unavailable(
        "the kernel did not enable direct I/O on " + device + " (backing " +
        v->backing_file +
        "): its reads would go through a second page cache, so the lab "
        "refuses; put the lab on a filesystem with O_DIRECT (TMPDIR)");
  }
  std::string dev;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile("/sys/block/" + name + "/dev", &dev));
  if (sscanf(Trim(dev).c_str(), "%u:%u", &v->major, &v->minor) != 2) {
    return Status::IoError("/sys/block/" + name + "/dev holds '" + Trim(dev) +
                           "', not MAJ:MIN");
  }
  return Status::Ok();
}

Status VolumeLab::Throttle(const LabVolume& v) {
  const LabCgroup& cgroup = cgroups_[static_cast<size_t>(io_cgroup_)];
  std::string device = std::to_string(v.major) + ":" + std::to_string(v.minor);
  const LabVolumeSpec& s = v.spec;
  uint64_t read_bps = BytesPerSecond(s.read_mbps);
  uint64_t write_bps = BytesPerSecond(s.write_mbps);
  if (cgroup2_) {
    if (s.read_iops == 0 && s.write_iops == 0 && read_bps == 0 &&
        write_bps == 0) {
      return Status::Ok();
    }
    return WriteCgroupFile(cgroup.dir + "/io.max",
                           device + " riops=" + CapValue(s.read_iops) +
                               " wiops=" + CapValue(s.write_iops) +
                               " rbps=" + CapValue(read_bps) +
                               " wbps=" + CapValue(write_bps) + "\n");
  }
  const std::pair<const char*, uint64_t> rules[] = {
      {"blkio.throttle.read_iops_device", s.read_iops},
      {"blkio.throttle.write_iops_device", s.write_iops},
      {"blkio.throttle.read_bps_device", read_bps},
      {"blkio.throttle.write_bps_device", write_bps},
  };
  for (const auto& [file, value] : rules) {
    if (value == 0) continue;
    PGLAYOUT_RETURN_IF_ERROR(WriteCgroupFile(
        cgroup.dir + "/" + file, device + " " + std::to_string(value) + "\n"));
  }
  return Status::Ok();
}

Status VolumeLab::LimitMemory() {
  if (memory_cgroup_ < 0) return Status::Ok();
  const LabCgroup& cgroup = cgroups_[static_cast<size_t>(memory_cgroup_)];
  return WriteCgroupFile(
      cgroup.dir + (cgroup2_ ? "/memory.max" : "/memory.limit_in_bytes"),
      std::to_string(spec_.page_cache_bytes) + "\n");
}

Status VolumeLab::RunTool(const std::vector<std::string>& argv,
                          std::string* output) {
  Command command;
  command.argv = argv;
  std::string path = dir_ + "/tool-" + std::to_string(next_output_++) + ".out";
  Status st = RunCommand(command, path, output);
  unlink(path.c_str());
  return st;
}

// ---------------------------------------------------------------------------
// Use

const LabVolume* VolumeLab::Find(const std::string& name) const {
  for (const LabVolume& v : volumes_) {
    if (v.spec.name == name) return &v;
  }
  return nullptr;
}

LabVolume* VolumeLab::FindMutable(const std::string& name) {
  for (LabVolume& v : volumes_) {
    if (v.spec.name == name) return &v;
  }
  return nullptr;
}

Status VolumeLab::Stripe(const std::string& name,
                         const std::vector<std::string>& members,
                         const std::string& mount_dir) {
  if (!ValidName(name) || Find(name) != nullptr) {
    return Status::InvalidInput("stripe name '" + name +
                                "': letters, digits, '-' and '_', and no "
                                "lab volume's name");
  }
  if (mount_dir.compare(0, dir_.size() + 1, dir_ + "/") != 0 ||
      HasWhitespace(mount_dir) || mount_dir.find("/../") != std::string::npos) {
    return Status::InvalidInput("stripe '" + name + "': mount point " +
                                mount_dir + " is not a plain path inside " +
                                dir_);
  }
  std::vector<LabVolumeSpec> specs;
  for (const LabVolume& v : volumes_) {
    if (v.members.empty() && v.stripe.empty()) specs.push_back(v.spec);
  }
  std::set<std::string> striped;
  PGLAYOUT_RETURN_IF_ERROR(
      CheckStripeMembers({name, members}, specs, &striped));
  const std::string mkfs_btrfs = FindTool("mkfs.btrfs", spec_.host.tool_dirs);
  std::vector<std::string> missing;
  if (mkfs_btrfs.empty()) {
    missing.push_back("mkfs.btrfs (Debian package btrfs-progs)");
  }
  if (!FileListsWord("/proc/filesystems", "btrfs")) {
    missing.push_back("btrfs in the kernel (/proc/filesystems)");
  }
  if (!missing.empty()) {
    return Status::Unavailable("the volume lab's stripes need " +
                               Join(missing, "; ") + " (docs/volume-lab.md)");
  }
  LabVolume stripe;
  stripe.spec.name = name;
  stripe.mount_dir = mount_dir;
  stripe.members = members;
  std::vector<std::string> argv = {mkfs_btrfs, "-q", "-f",   "-d",
                                   "raid0",    "-m", "raid1"};
  std::string device_options;
  for (const std::string& m : members) {
    LabVolume* v = FindMutable(m);
    // Its own ext4 goes: only ever a filesystem on one of the lab's devices.
    std::vector<MountEntry> mounts = ReadMounts("/proc/mounts");
    const MountEntry* mounted = FindMount(mounts, v->mount_dir);
    if (mounted == nullptr ||
        !Contains(backing_files_, BackingFile(LoopName(mounted->source)))) {
      return Status::IoError("stripe member " + m + ": " + v->mount_dir +
                             " does not hold the lab's own filesystem");
    }
    if (umount2(v->mount_dir.c_str(), 0) != 0) {
      return Status::FromErrno(
          "could not unmount " + v->mount_dir + " (stripe member)", errno);
    }
    v->stripe = name;
    argv.push_back(v->loop_device);
    device_options +=
        (device_options.empty() ? "device=" : ",device=") + v->loop_device;
    if (stripe.loop_device.empty()) {
      stripe.loop_device = v->loop_device;
      stripe.major = v->major;
      stripe.minor = v->minor;
    }
    stripe.spec.size += v->spec.size;
    stripe.spec.read_iops += v->spec.read_iops;
    stripe.spec.write_iops += v->spec.write_iops;
    stripe.spec.read_mbps += v->spec.read_mbps;
    stripe.spec.write_mbps += v->spec.write_mbps;
  }
  PGLAYOUT_RETURN_IF_ERROR(RunTool(argv, nullptr));
  PGLAYOUT_RETURN_IF_ERROR(AppendToManifest("mount " + mount_dir));
  std::error_code ec;
  fs::create_directories(mount_dir, ec);
  if (ec)
    return Status::IoError("could not create directory " + mount_dir + ": " +
                           ec.message());
  mount_dirs_.push_back(mount_dir);
  if (mount(stripe.loop_device.c_str(), mount_dir.c_str(), "btrfs", 0,
            device_options.c_str()) != 0) {
    return Status::FromErrno("could not mount " + stripe.loop_device +
                                 " (btrfs, " + device_options + ") on " +
                                 mount_dir,
                             errno);
  }
  volumes_.push_back(stripe);
  return Status::Ok();
}

std::vector<std::string> VolumeLab::cgroup_procs_files() const {
  std::vector<std::string> files;
  for (const LabCgroup& c : cgroups_) files.push_back(c.dir + "/cgroup.procs");
  return files;
}

Completion VolumeLab::Run(Command command) const {
  command.cgroup_procs_files = cgroup_procs_files();
  return RunToCompletion(command);
}

Status VolumeLab::ReadDiskStats(const std::string& name,
                                DiskStats* stats) const {
  const LabVolume* v = Find(name);
  if (v == nullptr) return Status::NotFound("no lab volume named " + name);
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile("/proc/diskstats", &text));
  if (v->members.empty()) {
    return ParseDiskstats(text, LoopName(v->loop_device), stats);
  }
  *stats = {};
  for (const std::string& m : v->members) {
    DiskStats one;
    PGLAYOUT_RETURN_IF_ERROR(
        ParseDiskstats(text, LoopName(Find(m)->loop_device), &one));
    *stats += one;
  }
  return Status::Ok();
}

Status VolumeLab::DropPageCache(int* files) const {
  *files = 0;
  for (const LabVolume& v : volumes_) {
    if (!v.stripe.empty()) continue;  // its filesystem is the stripe's
    std::error_code ec;
    fs::recursive_directory_iterator it(
        v.mount_dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      return Status::IoError(
          fmt::format("could not list {}: {}", v.mount_dir, ec.message()));
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (!it->is_regular_file(ec) || ec) continue;
      const int fd = ::open(it->path().c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;  // removed since it was listed
      const int err = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      ::close(fd);
      if (err != 0) {
        return Status::IoError(
            fmt::format("could not drop {} from the page cache: {}",
                        it->path().string(), strerror(err)));
      }
      ++*files;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Teardown

Status VolumeLab::TearDown() {
  if (getpid() != owner_pid_ || dir_.empty()) return Status::Ok();
  std::vector<std::string> problems;
  MoveProcessesOut(&problems);
  Unmount(&problems);
  DetachLoops(&problems);
  RemoveCgroups(&problems);
  if (problems.empty()) {
    // Never descend into a filesystem that is still mounted in the lab.
    for (const MountEntry& m : ReadMounts("/proc/mounts")) {
      if (m.target.compare(0, dir_.size() + 1, dir_ + "/") == 0) {
        problems.push_back(m.target + " is still mounted");
      }
    }
  }
  if (problems.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec)
      problems.push_back("could not remove " + dir_ + ": " + ec.message());
  }
  std::string dir = dir_;
  // On success the watchdog is told to exit; otherwise it gets its turn at
  // everything the manifest names.
  StopWatchdog(problems.empty());
  dir_.clear();
  volumes_.clear();
  backing_files_.clear();
  mount_dirs_.clear();
  cgroups_.clear();
  io_cgroup_ = memory_cgroup_ = -1;
  if (problems.empty()) return Status::Ok();
  return Status::IoError("could not tear down the volume lab " + dir + ": " +
                         Join(problems, "; ") +
                         " (its watchdog has retried from the manifest)");
}

void VolumeLab::MoveProcessesOut(std::vector<std::string>* problems) {
  for (const LabCgroup& c : cgroups_) {
    std::string text;
    if (!ReadTextFile(c.dir + "/cgroup.procs", &text).ok()) continue;
    std::istringstream in(text);
    std::string pid;
    while (in >> pid) {
      Status st = WriteCgroupFile(c.return_procs_file, pid + "\n");
      // A process that exited meanwhile is out already.
      if (!st.ok() && kill(std::stoi(pid), 0) == 0) {
        problems->push_back("moving pid " + pid + " out of " + c.dir + ": " +
                            st.message());
      }
    }
  }
}

void VolumeLab::Unmount(std::vector<std::string>* problems) {
  for (auto it = mount_dirs_.rbegin(); it != mount_dirs_.rend(); ++it) {
    const std::string& dir = *it;
    std::vector<MountEntry> mounts = ReadMounts("/proc/mounts");
    const MountEntry* m = FindMount(mounts, dir);
    if (m == nullptr) continue;
    std::string name = LoopName(m->source);
    std::string backing = name.empty() ? "" : BackingFile(name);
    if (!Contains(backing_files_, backing)) {
      problems->push_back(dir + " holds " + m->source +
                          ", which the lab did not attach; left mounted");
      continue;
    }
    int err = 0;
    WaitUntil(
        [&] {
          err = umount2(dir.c_str(), 0) == 0 ? 0 : errno;
          return err != EBUSY;
        },
        kBusyWaitMs);
    if (err != 0 && err != EBUSY) {
      problems->push_back(
          Status::FromErrno("could not unmount " + dir, err).message());
      continue;
    }
    if (err == EBUSY) {
      // Something still has files open there: detach it from the tree now;
      // the kernel lets go of the device when the last file closes.
      if (umount2(dir.c_str(), MNT_DETACH) != 0) {
        problems->push_back(
            Status::FromErrno("could not lazily unmount " + dir, errno)
                .message());
      } else {
        fprintf(stderr,
                "pglayout volume lab: %s was busy for %d s; detached lazily\n",
                dir.c_str(), kBusyWaitMs / 1000);
      }
    }
  }
}

void VolumeLab::DetachLoops(std::vector<std::string>* problems) {
  for (const std::string& file : backing_files_) {
    for (const std::string& device : LoopsBackedBy(file)) {
      std::string output;
      Status st = RunTool({losetup_, "-d", device}, &output);
      // A busy device (a lazily unmounted filesystem) is freed by the
      // kernel once released: losetup -d sets it to clear itself then.
      bool gone = WaitUntil(
          [&] { return BackingFile(LoopName(device)) != file; }, kBusyWaitMs);
      if (!gone) {
        problems->push_back(device + " (" + file + ") is still attached" +
                            (st.ok() ? "" : ": " + st.message()));
      }
    }
  }
}

void VolumeLab::RemoveCgroups(std::vector<std::string>* problems) {
  for (auto it = cgroups_.rbegin(); it != cgroups_.rend(); ++it) {
    const LabCgroup& c = *it;
    int err = 0;
    WaitUntil(
        [&] {
          err = rmdir(c.dir.c_str()) == 0 || errno == ENOENT ? 0 : errno;
          return err != EBUSY;
        },
        kBusyWaitMs);
    if (err != 0) {
      problems->push_back(
          Status::FromErrno("could not remove directory " + c.dir, err)
              .message());
    }
  }
}

void VolumeLab::StopWatchdog(bool done) {
  if (watchdog_fd_ >= 0) {
    if (done) {
      ssize_t ignored = write(watchdog_fd_, "done", 4);
      (void)ignored;
    }
    close(watchdog_fd_);
    watchdog_fd_ = -1;
  }
  if (watchdog_pid_ <= 0) return;
  int wait_status;
  if (WaitForChildFor(watchdog_pid_,
                      done ? kWatchdogDoneWaitMs : kWatchdogCleanupWaitMs,
                      &wait_status)) {
    watchdog_pid_ = -1;
  } else if (done) {
    kill(watchdog_pid_, SIGKILL);
    (void)WaitForChild(watchdog_pid_, &wait_status);
    watchdog_pid_ = -1;
  }
  // Otherwise it is still cleaning up: leave it to finish on its own.
}

}  // namespace pglayout
