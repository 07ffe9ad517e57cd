#include "observe/device_reads.h"

#include <algorithm>

#include "common/block_stats.h"

namespace pglayout {
namespace {

bool HoldsData(const DataLocation& l) {
  return l.role != "pg_wal" && l.on && !l.on->device.empty();
}

}  // namespace

DeviceReadCounts ReadDeviceReadCounts(
    const SystemPaths& paths, const std::vector<DataLocation>& locations) {
  DeviceReadCounts out;
  for (const DataLocation& l : locations) {
    if (!HoldsData(l) || out.count(l.on->device)) continue;
    BlockStats stats;
    if (ReadBlockStat(paths.sysfs_root, l.on->device, &stats).ok()) {
      out[l.on->device] = stats.reads;
    }
  }
  return out;
}

void RecordDeviceReads(const DeviceReadCounts& before,
                       const DeviceReadCounts& after, double seconds,
                       Workload* w) {
  if (seconds <= 0) return;
  std::map<std::string, double> server;  // device -> blocks/s
  for (const Relation& r : w->relations) {
    const DataLocation* l = w->TablespaceLocation(r.tablespace);
    if (l != nullptr && HoldsData(*l)) server[l->on->device] += r.read_iops_avg;
  }
  for (const DataLocation& l : w->locations) {
    if (!HoldsData(l)) continue;
    const std::string& device = l.on->device;
    auto b = before.find(device);
    auto a = after.find(device);
    bool counted =
        std::any_of(w->device_reads.begin(), w->device_reads.end(),
                    [&](const DeviceReads& d) { return d.device == device; });
    if (counted || b == before.end() || a == after.end() ||
        a->second < b->second) {
      continue;
    }
    w->device_reads.push_back(
        {.device = device,
         .dev = l.on->dev,
         .server_block_reads = server[device],
         .device_reads = static_cast<double>(a->second - b->second) / seconds});
  }
}

}  // namespace pglayout
