// The fidelity lab: an emulated host whose volumes really differ, for tests
// that check what pglayout measures against what the kernel enforces.
//
//   VolumeLabSpec spec;
//   spec.volumes = {{.name = "slow", .size = 384 * kMiB, .read_iops = 600},
//                   {.name = "fast", .size = 384 * kMiB, .read_iops = 6000}};
//   std::unique_ptr<VolumeLab> lab;
//   Status s = VolumeLab::Create(spec, &lab);
//   ... lab->Run(command) runs a program inside the lab's cgroups, where
//   ... reads from <lab->Find("slow")->mount_dir> are capped at 600 IOPS.
//   // ~VolumeLab (or TearDown) removes everything the lab made.
//
// What it builds (as root; see docs/volume-lab.md):
//   - a directory of its own, mkdtemp'd as <base>/pglayout-lab-XXXXXX where
//     <base> is VolumeLabSpec::base_dir, else $TMPDIR, else /var/tmp;
//   - per volume: a sparse backing file <lab>/<name>.img, attached with
//     "losetup --find --show --direct-io=on" (the kernel must accept direct
//     I/O on it, else the lab refuses: the loop device must not add a page
//     cache of its own), formatted with "mkfs.ext4 -q -F" without lazy
//     initialisation (no background zeroing disturbs a measurement), and
//     mounted at <lab>/<name>;
//   - cgroup v1 (this machine's kind): a blkio cgroup pglayout-lab-<pid>-<n>
//     with blkio.throttle.{read,write}_{iops,bps}_device set on each loop
//     device ("MAJ:MIN value"; 0 in the spec = no rule), and, when
//     page_cache_bytes is set, a memory cgroup of the same name with
//     memory.limit_in_bytes. Each is created under the cgroup this process
//     is in within that hierarchy (/proc/self/cgroup), so limits set above
//     this process still apply to the lab: with this process in the root
//     blkio cgroup the lab's is /sys/fs/cgroup/blkio/pglayout-lab-<pid>-<n>;
//   - cgroup v2, when <cgroup root>/cgroup.controllers exists: one cgroup
//     <cgroup root>/pglayout-lab-<pid>-<n> with io.max ("MAJ:MIN riops=..
//     wiops=.. rbps=.. wbps=..") and memory.max. It is created under the
//     root because v2 lets only the root cgroup both hold processes and
//     hand controllers to its children; the io (and memory) controller must
//     already be enabled in the root's cgroup.subtree_control: the lab never
//     changes a cgroup it did not create.
//
// Safety. The lab only ever runs losetup -d, mkfs, mount and umount on a
// /dev/loopN whose backing file (/sys/block/loopN/loop/backing_file) is a
// file inside its own directory, and only rmdirs cgroups it made. It never
// names /dev/sd*, /dev/vd*, /dev/nvme* or any device it did not attach.
//
// Cleanup. TearDown (also run by the destructor, and by Create when it fails
// midway) moves any process left in the lab's cgroups back to the cgroup it
// came from, unmounts (waiting up to 5 s for a busy filesystem, then
// detaching it lazily), detaches the loop devices, removes the cgroups and
// finally the directory. For the cases where no destructor runs (SIGKILL, a
// ctest timeout, a crash) a detached watchdog (/bin/sh, its own session,
// terminal signals ignored) waits on a pipe from this process, like
// PgCluster's; when the pipe closes without "done" it reads the manifest
// <lab>/manifest, to which every resource is added before it is created,
// and undoes exactly those, with the same checks, then removes the
// directory (rm -rf --one-file-system). It touches nothing the manifest
// does not name.
//
// Threading: one thread at a time. A forked child (a gtest death test)
// never tears down its parent's lab.

#ifndef PGLAYOUT_TESTING_VOLUME_LAB_H_
#define PGLAYOUT_TESTING_VOLUME_LAB_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/block_stats.h"
#include "common/status.h"
#include "testing/subprocess.h"

namespace pglayout {

// One volume of the lab. Caps are enforced by the kernel on the volume's
// loop device for the processes inside the lab's cgroups; 0 = no cap.
struct LabVolumeSpec {
  std::string name;         // [A-Za-z0-9_-]+, unique: file and mount names
  uint64_t size = 0;        // bytes of the (sparse) backing file, >= 32 MiB
  uint64_t read_iops = 0;   // I/Os per second, whatever their size
  uint64_t write_iops = 0;  // idem
  double read_mbps = 0;     // MB/s of 10^6 bytes
  double write_mbps = 0;    // idem
};

// Where the lab looks for its tools and the kernel's facilities; the
// defaults are the real ones. Tests of the refusals point them elsewhere.
struct LabHost {
  // Directories searched for losetup, mkfs.ext4 and umount, in order.
  // Empty = $PATH, then /usr/sbin, /sbin, /usr/bin, /bin.
  std::vector<std::string> tool_dirs;
  std::string proc_mounts = "/proc/mounts";
  std::string proc_self_cgroup = "/proc/self/cgroup";
  // Where cgroup v2 is mounted when it is the only hierarchy.
  std::string cgroup2_root = "/sys/fs/cgroup";
};

struct VolumeLabSpec {
  std::vector<LabVolumeSpec> volumes;  // at least one
  // A limit on the memory of the processes in the lab, page cache
  // included (memory.limit_in_bytes / memory.max). 0 = none, and then no
  // memory cgroup is made.
  uint64_t page_cache_bytes = 0;
  std::string base_dir;  // "" = $TMPDIR, else /var/tmp
  LabHost host;
};

// Counters of a block device from /proc/diskstats.
using DiskStats = BlockStats;

// A volume as built.
struct LabVolume {
  LabVolumeSpec spec;
  std::string backing_file;  // <lab>/<name>.img
  std::string loop_device;   // "/dev/loopN"
  unsigned major = 0;        // of the loop device
  unsigned minor = 0;
  std::string mount_dir;  // <lab>/<name>, an ext4 filesystem on loop_device
};

// One cgroup the lab made.
struct LabCgroup {
  std::string dir;  // e.g. /sys/fs/cgroup/blkio/pglayout-lab-123-1
  // Where processes go back to when the lab is torn down: the cgroup.procs
  // of the cgroup this process was in when the lab was made.
  std::string return_procs_file;
};

class VolumeLab {
 public:
  // OK when |host| can hold a lab with a memory cgroup if |memory_cgroup|:
  // this process is root, losetup, mkfs.ext4 and umount are found,
  // /dev/loop-control exists, and the blkio (cgroup v1) or io (v2)
  // controller is mounted (and memory's when asked for). Otherwise
  // Unavailable with one line naming everything that is missing.
  static Status CheckPrerequisites(const LabHost& host, bool memory_cgroup);

  // Builds the lab of |spec|. InvalidInput for a bad spec (nothing is
  // made); Unavailable when CheckPrerequisites fails or there is not room
  // for the backing files on the base directory's filesystem (they may be
  // filled completely); otherwise the failing step, with everything made so
  // far removed again.
  static Status Create(const VolumeLabSpec& spec,
                       std::unique_ptr<VolumeLab>* lab);

  // TearDown; a failure is printed to stderr.
  ~VolumeLab();

  VolumeLab(const VolumeLab&) = delete;
  VolumeLab& operator=(const VolumeLab&) = delete;

  // Removes everything the lab made (see "Cleanup" above). Once it has
  // succeeded the lab is empty and later calls do nothing. A failure names
  // every step that failed; the watchdog is then left to retry. Does
  // nothing in a forked child of the creating process.
  Status TearDown();

  const std::string& dir() const { return dir_; }
  const std::string& manifest_path() const { return manifest_path_; }
  const std::vector<LabVolume>& volumes() const { return volumes_; }
  const std::vector<LabCgroup>& cgroups() const { return cgroups_; }
  pid_t watchdog_pid() const { return watchdog_pid_; }
  // The volume named |name|, or nullptr.
  const LabVolume* Find(const std::string& name) const;

  // The cgroup.procs file of each of the lab's cgroups: put them in
  // Command::cgroup_procs_files to start a program inside the lab.
  std::vector<std::string> cgroup_procs_files() const;

  // Runs |command| to completion inside the lab's cgroups (RunToCompletion).
  Completion Run(Command command) const;

  // The /proc/diskstats counters of volume |name|'s loop device.
  Status ReadDiskStats(const std::string& name, DiskStats* stats) const;

 private:
  VolumeLab(VolumeLabSpec spec, std::vector<std::string> tools);

  Status Build();
  Status MakeDirectory();
  Status StartWatchdog();
  Status AppendToManifest(const std::string& line);
  Status MakeCgroups();
  Status MakeCgroup(const std::string& parent_dir, const std::string& name,
                    LabCgroup* cgroup);
  Status MakeVolume(const LabVolumeSpec& spec);
  Status Attach(LabVolume* volume);
  Status Throttle(const LabVolume& volume);
  Status LimitMemory();
  Status RunTool(const std::vector<std::string>& argv, std::string* output);
  // Teardown steps; each appends what failed to *problems.
  void MoveProcessesOut(std::vector<std::string>* problems);
  void Unmount(std::vector<std::string>* problems);
  void DetachLoops(std::vector<std::string>* problems);
  void RemoveCgroups(std::vector<std::string>* problems);
  void StopWatchdog(bool done);

  const VolumeLabSpec spec_;
  const std::string losetup_;
  const std::string mkfs_;
  const std::string umount_;
  const pid_t owner_pid_;
  bool cgroup2_ = false;
  std::string dir_;
  std::string manifest_path_;
  std::vector<LabVolume> volumes_;
  std::vector<std::string> backing_files_;  // made, even if not attached
  std::vector<std::string> mount_dirs_;     // made, mounted or not
  std::vector<LabCgroup> cgroups_;
  // Indexes into cgroups_: v1's blkio and memory cgroups, or v2's one
  // cgroup for both; -1 = none.
  int io_cgroup_ = -1;
  int memory_cgroup_ = -1;
  pid_t watchdog_pid_ = -1;
  int watchdog_fd_ = -1;  // write end of the watchdog's pipe
  int next_output_ = 0;
};

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_VOLUME_LAB_H_
