// Where a directory lives on this host: its filesystem's device (st_dev),
// the mount holding it and the block device behind it. One seam for
// `probe` (the volumes' directories) and `observe` (the server's data
// directory, pg_wal and tablespaces), so that both describe a directory the
// same way and the planner can match them by device, not by path
// (docs/where-data-lives.md).
//
// sysfs and the mount table are parameters (SystemPaths) so tests can point
// them at fixture trees (probes/testdata/).

#ifndef PGLAYOUT_COMMON_LOCATE_H_
#define PGLAYOUT_COMMON_LOCATE_H_

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout {

struct SystemPaths {
  std::string sysfs_root = "/sys";
  std::string mountinfo = "/proc/self/mountinfo";
};

struct MountEntry {
  unsigned major = 0;
  unsigned minor = 0;
  std::string mount_point;  // unescaped ("\040" -> space)
  std::string fstype;
  std::string source;
  std::string options;  // per-mount options, then superblock options
};

// Parses mountinfo text (proc(5) format). Malformed lines are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);

// Reads and parses the file |paths.mountinfo|; empty when unreadable.
std::vector<MountEntry> ReadMountInfo(const SystemPaths& paths);

// The mount holding |path| (absolute, canonical): the longest mount point
// that is a path prefix of it, preferring entries of device major:minor.
// nullptr when none matches.
const MountEntry* FindMount(const std::vector<MountEntry>& mounts,
                            unsigned major, unsigned minor,
                            const std::string& path);

// "major:minor" of |device|, as /sys/dev/block names it.
std::string DeviceNumber(dev_t device);

// The sysfs node of block device |device| (/sys/dev/block/M:m, links
// followed); false when the filesystem has no block device behind it
// (tmpfs, overlay, NFS, btrfs' anonymous devices).
bool BlockDeviceNode(const SystemPaths& paths, dev_t device,
                     std::filesystem::path* node);

// Where |path| lives: symlinks followed, st_dev, the mount and the block
// device. NotFound when the path does not exist on this host; Unavailable
// when it cannot be reached (permissions), naming the path.
Status LocateDirectory(const SystemPaths& paths, const std::string& path,
                       DeviceLocation* out);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_LOCATE_H_
