// How many of the server's block reads reached the devices: the rest came
// from the OS page cache (docs/workload-model.md#page-cache).
//
// The server counts a block as read (blks_read) whenever it is not in
// shared_buffers, whether the kernel then finds it in its page cache or
// reads the device. Only the device reads load a volume. While observe
// samples the statistics views, it also counts the read requests each
// device of the data directory and tablespaces completed (what an IOPS cap
// counts); their ratio is what the plan scales the relations' reads by.

#ifndef PGLAYOUT_OBSERVE_DEVICE_READS_H_
#define PGLAYOUT_OBSERVE_DEVICE_READS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/locate.h"
#include "common/model.h"

namespace pglayout {

// Read requests completed since boot, per block device name ("loop0",
// "nvme1n1p2").
using DeviceReadCounts = std::map<std::string, uint64_t>;

// The counters of each device that holds the data directory or a
// tablespace in |locations|, from <sysfs_root>/class/block/<device>/stat.
// A device whose file is missing or unreadable is left out.
DeviceReadCounts ReadDeviceReadCounts(
    const SystemPaths& paths, const std::vector<DataLocation>& locations);

// Appends to w->device_reads, for each device of a data directory or
// tablespace location of |w| that was counted at both ends of the |seconds|
// it took, the relations' average reads (read_iops_avg) that live on that
// device against what the device delivered.
void RecordDeviceReads(const DeviceReadCounts& before,
                       const DeviceReadCounts& after, double seconds,
                       Workload* w);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_DEVICE_READS_H_
