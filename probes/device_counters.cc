#include "probes/device_counters.h"

#include <fmt/format.h>

#include <vector>

#include "common/block_stats.h"
#include "common/files.h"

namespace pglayout::probes {
namespace {

uint64_t Above(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

Status DiskstatsCounters::Read(DiskCounters* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path_, &text));
  BlockStats stats;
  PGLAYOUT_RETURN_IF_ERROR(
      ParseDiskstats(text, device_, &stats).WithContext(path_));
  out->read_bytes = stats.read_sectors * kBlockStatSector;
  out->write_bytes = stats.write_sectors * kBlockStatSector;
  return Status::Ok();
}

ForeignIo JudgeForeignIo(const DiskCounters& before, const DiskCounters& after,
                         const OwnIo& own) {
  ForeignIo f;
  const uint64_t read = Above(after.read_bytes, before.read_bytes);
  const uint64_t written = Above(after.write_bytes, before.write_bytes);
  f.read_bytes = Above(read, own.read_bytes);
  f.write_bytes = own.write_bytes == 0 ? written : 0;
  const uint64_t foreign = f.read_bytes + f.write_bytes;
  const uint64_t mine = own.read_bytes + own.write_bytes;
  f.share = mine > 0 ? static_cast<double>(foreign) / static_cast<double>(mine)
                     : (foreign > 0 ? 1e9 : 0);
  f.found = foreign >= kForeignMinBytes && f.share >= kForeignShare;
  return f;
}

std::string DescribeForeignIo(const ForeignIo& f) {
  std::vector<std::string> parts;
  if (f.read_bytes > 0) {
    parts.push_back(fmt::format("{} of reads",
                                HumanSize(static_cast<double>(f.read_bytes))));
  }
  if (f.write_bytes > 0) {
    parts.push_back(fmt::format("{} of writes",
                                HumanSize(static_cast<double>(f.write_bytes))));
  }
  return fmt::format("{} (+{:.0f}% on the probe's own)",
                     parts.size() == 2 ? parts[0] + " and " + parts[1]
                     : parts.empty()   ? "nothing"
                                       : parts[0],
                     f.share * 100);
}

}  // namespace pglayout::probes
