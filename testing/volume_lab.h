// The volume lab: an emulated host whose volumes really differ (loop devices
// capped by the kernel's blkio/io throttle, an optional page-cache cap), for
// tests that check what pglayout measures against what the kernel enforces.
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
// Needs root, loop devices and a throttle controller; refuses with one line
// naming what is missing. Touches only devices and cgroups it made, and a
// watchdog cleans up after SIGKILL. One thread at a time; a forked child
// never tears down its parent's lab. What it builds, its safety rules and
// its cleanup: docs/volume-lab.md.

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

// A striped volume (RAID0) made of lab volumes, as md or LVM would build
// one (neither exists on the kernel the lab was written on): one btrfs
// filesystem over the members' loop devices, data striped (raid0, 64 KiB
// per member) and metadata mirrored (raid1). Each member keeps its own caps,
// so the stripe serves up to their sum (docs/volume-lab.md#stripes).
struct LabStripeSpec {
  std::string name;                  // like a volume's, unique among both
  std::vector<std::string> members;  // at least two of the lab's volumes
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
  // Built from the volumes once they exist, each mounted at <lab>/<name>;
  // VolumeLab::Stripe builds one later.
  std::vector<LabStripeSpec> stripes;
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
  // A stripe: its member volumes (its loop_device, major and minor are the
  // first member's, its spec's caps the members' sums). Empty otherwise.
  std::vector<std::string> members;
  // A member: the stripe it is part of (its own filesystem is gone).
  std::string stripe;
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

  // The /proc/diskstats counters of volume |name|'s loop device; a
  // stripe's are the sums of its members'.
  Status ReadDiskStats(const std::string& name, DiskStats* stats) const;

  // Drops the clean pages of every file on the lab's mounted volumes from
  // the page cache (posix_fadvise DONTNEED), so that a workload starts
  // from a cold cache whatever ran before it. Dirty pages stay. A file
  // that vanishes meanwhile is skipped; *files counts those dropped.
  Status DropPageCache(int* files) const;

  // Makes the volumes |members| (at least two, not yet striped, nothing
  // open on them) one striped volume |name| (LabStripeSpec), mounted at
  // |mount_dir| (inside the lab's directory; made when missing): unmounts
  // them, mkfs.btrfs -d raid0 -m raid1 over their loop devices, mounts the
  // filesystem. Their files are lost, as with mdadm. Unavailable without
  // mkfs.btrfs (Debian package btrfs-progs) or btrfs in the kernel.
  Status Stripe(const std::string& name,
                const std::vector<std::string>& members,
                const std::string& mount_dir);

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
  LabVolume* FindMutable(const std::string& name);
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
