// The I/O counters the kernel keeps for each block device: completed
// requests and 512-byte sectors since the device appeared, as
// /proc/diskstats and /sys/class/block/<device>/stat print them.

#ifndef PGLAYOUT_COMMON_BLOCK_STATS_H_
#define PGLAYOUT_COMMON_BLOCK_STATS_H_

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pglayout {

inline constexpr uint64_t kBlockStatSector = 512;  // whatever the block size

struct BlockStats {
  uint64_t reads = 0;  // completed read requests
  uint64_t read_sectors = 0;
  // ms the device spent on reads, from their start in its queue to their
  // completion: a throttle's wait above the queue is not in it.
  uint64_t read_ms = 0;
  uint64_t writes = 0;  // completed write requests
  uint64_t write_sectors = 0;

  // Field by field: a stripe's counters are its members' sum, a window's
  // the end's less the start's.
  BlockStats& operator+=(const BlockStats& o) {
    reads += o.reads;
    read_sectors += o.read_sectors;
    read_ms += o.read_ms;
    writes += o.writes;
    write_sectors += o.write_sectors;
    return *this;
  }
  BlockStats operator-(const BlockStats& o) const {
    return {reads - o.reads, read_sectors - o.read_sectors, read_ms - o.read_ms,
            writes - o.writes, write_sectors - o.write_sectors};
  }
};

// The fields of a stat file: reads, reads merged, sectors read, ms reading,
// writes, writes merged, sectors written, ... InvalidInput when fewer than
// seven fields or one of them is not a number.
Status ParseBlockStat(const std::string& fields, BlockStats* out);

// |device|'s line of /proc/diskstats text: major, minor, name, then the
// fields of a stat file. NotFound when the device has no line.
Status ParseDiskstats(const std::string& text, const std::string& device,
                      BlockStats* out);

// <sysfs_root>/class/block/<device>/stat.
Status ReadBlockStat(const std::string& sysfs_root, const std::string& device,
                     BlockStats* out);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_BLOCK_STATS_H_
