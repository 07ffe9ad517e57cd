#include "probes/probe_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "common/units.h"

namespace pglayout::probes {
namespace {

// Probe files alive right now, readable from a signal handler: fixed
// storage, an atomic flag per slot, and only unlink() called on them.
constexpr int kSlots = 32;
struct Registry {
  std::atomic<bool> used[kSlots];
  char paths[kSlots][PATH_MAX];
};
Registry g_registry;
std::atomic<bool> g_handlers_installed{false};

int Register(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_registry.used[i].load()) {
      std::memcpy(g_registry.paths[i], path.c_str(), path.size() + 1);
      if (g_registry.used[i].compare_exchange_strong(expected, true)) return i;
    }
  }
  return -1;
}

void Unregister(int slot) {
  if (slot >= 0) g_registry.used[slot].store(false);
}

extern "C" void RemoveProbeFilesAndDie(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_registry.used[i].load()) unlink(g_registry.paths[i]);
  }
  // SA_RESETHAND restored the default action; dying of the same signal
  // keeps the exit status honest for the shell.
  raise(sig);
}

uint64_t DioAlignment(int fd, bool* supported) {
  *supported = true;
  struct statx stx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0 ||
      (stx.stx_mask & STATX_DIOALIGN) == 0) {
    return 4096;  // kernel before 6.1: page alignment is always accepted
  }
  if (stx.stx_dio_offset_align == 0) {
    *supported = false;
    return 0;
  }
  return std::max<uint64_t>(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
}

Status NoDirectIo(const std::string& dir) {
  return Status::Unavailable(fmt::format(
      "{}: the filesystem does not support direct I/O (O_DIRECT). pglayout "
      "probe measures the device, not the page cache, and needs it; tmpfs "
      "before Linux 6.6, ext4 with data=journal and some FUSE or network "
      "filesystems cannot be probed",
      dir));
}

}  // namespace

Status InspectTarget(const std::string& path, TargetInfo* info) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return Status::InvalidInput(fmt::format("{}: no such directory", path));
    }
    return Status::InvalidInput(
        fmt::format("{}: could not inspect: {}", path, std::strerror(errno)));
  }
  if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
    return Status::InvalidInput(fmt::format(
        "{}: is a device node; pglayout never writes to devices. Give a "
        "directory on the mounted volume instead (the probe writes one "
        "temporary file there)",
        path));
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidInput(fmt::format(
        "{}: not a directory; give a directory on the volume to probe", path));
  }
  if (access(path.c_str(), W_OK | X_OK) != 0) {
    return Status::InvalidInput(fmt::format("{}: not writable by this user: {}",
                                            path, std::strerror(errno)));
  }
  struct statvfs vfs;
  if (statvfs(path.c_str(), &vfs) != 0) {
    return Status::FromErrno(fmt::format("statvfs {}", path), errno);
  }
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(path, ec);
  info->path = ec ? path : canonical.string();
  info->device = st.st_dev;
  info->capacity = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  info->free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  return Status::Ok();
}

Status CheckSpace(const TargetInfo& info, uint64_t size) {
  double keep = kMinFreeFraction * static_cast<double>(info.capacity);
  if (info.free_bytes >= size &&
      static_cast<double>(info.free_bytes - size) >= keep) {
    return Status::Ok();
  }
  return Status::InvalidInput(fmt::format(
      "{}: a {} probe file would leave {} of {} free, under the {:.0f}% "
      "pglayout always leaves; pass a smaller --size",
      info.path, HumanSize(static_cast<double>(size)),
      HumanSize(info.free_bytes > size
                    ? static_cast<double>(info.free_bytes - size)
                    : 0),
      HumanSize(static_cast<double>(info.capacity)), kMinFreeFraction * 100));
}

Status ProbeFile::Create(const std::string& dir, uint64_t size,
                         std::unique_ptr<ProbeFile>* out) {
  InstallCleanupHandlers();
  static std::atomic<int> counter{0};
  std::string path = fmt::format("{}/.pglayout-probe-{}-{}.tmp", dir, getpid(),
                                 counter.fetch_add(1));
  // Register before creating: a signal between open() and Register() would
  // otherwise leave the file behind. Unlinking a name that does not exist
  // yet is harmless.
  int slot = Register(path);
  int fd = open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_DIRECT | O_CLOEXEC,
                0600);
  if (fd < 0) {
    int error = errno;
    Unregister(slot);
    if (error == EINVAL) return NoDirectIo(dir);
    if (error == EACCES || error == EROFS || error == EPERM) {
      return Status::InvalidInput(
          fmt::format("{}: could not create the probe file: {}", dir,
                      std::strerror(error)));
    }
    return Status::FromErrno(fmt::format("creating {}", path), error);
  }
  // Own the file from here on, so every early return removes it.
  std::unique_ptr<ProbeFile> file(new ProbeFile(fd, path, 4096, slot));
  bool supported;
  file->alignment_ = DioAlignment(fd, &supported);
  if (!supported) return NoDirectIo(dir);
  // Sets the length without allocating: the fill writes every byte before
  // anything is read, so no read ever lands on a hole.
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return Status::FromErrno(fmt::format("sizing {}", path), errno);
  }
  *out = std::move(file);
  return Status::Ok();
}

ProbeFile::~ProbeFile() {
  close(fd_);
  unlink(path_.c_str());
  Unregister(slot_);
}

void InstallCleanupHandlers() {
  if (g_handlers_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = RemoveProbeFilesAndDie;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

}  // namespace pglayout::probes
