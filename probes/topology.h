// What the kernel says about the storage under a directory, read from sysfs
// and /proc/self/mountinfo. Both locations are parameters so tests can point
// them at fixture trees (probes/testdata/).
//
// From st_dev: /sys/dev/block/M:m -> the device; a partition steps up to its
// disk for the queue attributes; md arrays give level, chunk and member
// count; device-mapper gives its name and uuid, and a striped LV is
// recognised by its I/O hints (dm-stripe sets minimum_io_size = chunk and
// optimal_io_size = chunk x stripes; sysfs does not expose the table
// itself). slaves/ is walked down to the physical disks, whose model string
// tells the kind of volume (AWS EBS, instance store, Azure, GCP, ...).

#ifndef PGLAYOUT_PROBES_TOPOLOGY_H_
#define PGLAYOUT_PROBES_TOPOLOGY_H_

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/locate.h"
#include "common/model.h"
#include "common/status.h"

namespace pglayout::probes {

// The mount table and sysfs readers live in common/locate.h (observe
// resolves the server's directories with the same functions).
using ::pglayout::FindMount;
using ::pglayout::MountEntry;
using ::pglayout::ParseMountInfo;
using ::pglayout::SystemPaths;

// The volume kind from a disk's name and model string: "aws-ebs",
// "aws-instance-store", "azure-local-nvme", "azure-disk", "gcp-pd",
// "gcp-local-ssd", "local-nvme", "virtio", "xen", "hdd", "ssd".
std::string ClassifyKind(const std::string& disk, const std::string& model,
                         bool rotational);

// Fills |topology| for the block device |device| (a directory's st_dev)
// and the mount holding |path|, including dev ("major:minor") and the
// mount point. A filesystem without a block device behind
// it (tmpfs, overlay, NFS, btrfs' anonymous devices) is not an error: only
// the filesystem fields are set and device stays empty.
Status DiscoverTopology(const SystemPaths& paths, dev_t device,
                        const std::string& path, Topology* topology);

// Reads the md array's health (md/degraded, md/sync_action) under |device|
// again, after the probe, and adds a warning to |topology| when it changed
// while the probe ran (a resync started, a member dropped out): such
// figures describe neither state. No-op for anything but md arrays.
void RecheckArrayHealth(const SystemPaths& paths, dev_t device,
                        Topology* topology);

// Sets members, chunk, kind and stripe_width of |volume| from its
// topology: an md RAID0 or a striped dm volume has raid_disks / stripes
// members of one chunk; the full stripe is FullStripeWidth (RAID5 and 6
// count their data members only).
void ApplyTopology(const Topology& topology, Volume* volume);

// The physical disks under a topology (its members, or its own disk), for
// telling when two volumes share hardware.
std::vector<std::string> PhysicalDisks(const Topology& topology);

// vCPUs and memory of this host, and the DMI product name (the instance
// type on EC2, e.g. "i8ge.12xlarge") from <sysfs_root>/class/dmi/id.
Host DiscoverHost(const SystemPaths& paths);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_TOPOLOGY_H_
