#include "probes/device_counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "common/files.h"

namespace pglayout::probes {
namespace {

constexpr uint64_t kSector = 512;  // diskstats counts 512-byte sectors

uint64_t Above(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

Status ParseDiskstats(const std::string& text, const std::string& device,
                      DiskCounters* out) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    if (f.size() < 3 || f[2] != device) continue;
    // major minor name reads merged sectors ms writes merged sectors ...
    auto number = [&](size_t i, uint64_t* v) {
      if (i >= f.size() || f[i].empty() ||
          !std::all_of(f[i].begin(), f[i].end(),
                       [](char c) { return c >= '0' && c <= '9'; })) {
        return false;
      }
      *v = std::stoull(f[i]);
      return true;
    };
    uint64_t read = 0, written = 0;
    if (!number(5, &read) || !number(9, &written)) {
      return Status::InvalidInput(fmt::format(
          "diskstats: the line of {} is malformed: '{}'", device, line));
    }
    out->read_bytes = read * kSector;
    out->write_bytes = written * kSector;
    return Status::Ok();
  }
  return Status::NotFound(
      fmt::format("diskstats: no line for device {}", device));
}

Status DiskstatsCounters::Read(DiskCounters* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path_, &text));
  return ParseDiskstats(text, device_, out).WithContext(path_);
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
