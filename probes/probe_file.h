// The only thing `pglayout probe` ever writes: one temporary file inside a
// target directory, created exclusively, removed when done, and removed on
// SIGINT, SIGTERM and SIGHUP too. Block and character devices are refused
// outright; nothing here can write to a device node.

#ifndef PGLAYOUT_PROBES_PROBE_FILE_H_
#define PGLAYOUT_PROBES_PROBE_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace pglayout::probes {

// Free space the probe always leaves on a volume, as a share of its size.
inline constexpr double kMinFreeFraction = 0.10;

struct TargetInfo {
  std::string path;         // the directory, made absolute and canonical
  dev_t device = 0;         // st_dev of the directory
  uint64_t capacity = 0;    // filesystem size in bytes (statvfs)
  uint64_t free_bytes = 0;  // bytes available to this user (statvfs)
};

// Checks that |path| exists and is a directory this process may write into.
// InvalidInput (nothing written) for a missing path, a block or character
// device, any other non-directory, or a directory without write access.
Status InspectTarget(const std::string& path, TargetInfo* info);

// InvalidInput when a probe file of |size| bytes would leave less than
// kMinFreeFraction of the filesystem free.
Status CheckSpace(const TargetInfo& info, uint64_t size);

class ProbeFile {
 public:
  // Creates "<dir>/.pglayout-probe-<pid>-<n>.tmp" (O_CREAT|O_EXCL, 0600,
  // O_RDWR|O_DIRECT), sets its length to |size| without allocating, and
  // registers it for removal on a fatal signal. Errors: InvalidInput when
  // the directory refuses the file (EACCES, EROFS, EPERM); Unavailable when
  // the filesystem has no direct I/O (EINVAL, or statx reporting no DIO
  // alignment), with a message saying why the probe needs it.
  static Status Create(const std::string& dir, uint64_t size,
                       std::unique_ptr<ProbeFile>* out);
  ~ProbeFile();  // closes and unlinks the file
  ProbeFile(const ProbeFile&) = delete;
  ProbeFile& operator=(const ProbeFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Direct-I/O offset alignment (statx STATX_DIOALIGN), 4096 if unknown.
  uint64_t alignment() const { return alignment_; }

 private:
  ProbeFile(int fd, std::string path, uint64_t alignment, int slot)
      : fd_(fd), path_(std::move(path)), alignment_(alignment), slot_(slot) {}

  int fd_;
  std::string path_;
  uint64_t alignment_;
  int slot_;  // in the signal-cleanup registry, -1 if not registered
};

// Installs the SIGINT/SIGTERM/SIGHUP handlers that unlink every live probe
// file and then die of the same signal (default action), so the exit status
// still tells the shell what happened. Idempotent; ProbeFile::Create calls
// it.
void InstallCleanupHandlers();

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_PROBE_FILE_H_
