#include "common/block_stats.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>
#include <vector>

#include "common/files.h"

namespace pglayout {
namespace {

std::vector<std::string> Fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

bool Number(const std::string& text, uint64_t* out) {
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// From |fields|[first]: reads, merged, sectors, ms, writes, merged, sectors.
bool FromFields(const std::vector<std::string>& fields, size_t first,
                BlockStats* out) {
  return fields.size() >= first + 7 && Number(fields[first], &out->reads) &&
         Number(fields[first + 2], &out->read_sectors) &&
         Number(fields[first + 3], &out->read_ms) &&
         Number(fields[first + 4], &out->writes) &&
         Number(fields[first + 6], &out->write_sectors);
}

}  // namespace

Status ParseBlockStat(const std::string& fields, BlockStats* out) {
  if (!FromFields(Fields(fields), 0, out)) {
    return Status::InvalidInput(
        fmt::format("block device statistics are malformed: '{}'", fields));
  }
  return Status::Ok();
}

Status ParseDiskstats(const std::string& text, const std::string& device,
                      BlockStats* out) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f = Fields(line);
    if (f.size() < 3 || f[2] != device) continue;
    if (!FromFields(f, 3, out)) {
      return Status::InvalidInput(fmt::format(
          "diskstats: the line of {} is malformed: '{}'", device, line));
    }
    return Status::Ok();
  }
  return Status::NotFound(
      fmt::format("diskstats: no line for device {}", device));
}

Status ReadBlockStat(const std::string& sysfs_root, const std::string& device,
                     BlockStats* out) {
  const std::string path = sysfs_root + "/class/block/" + device + "/stat";
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path, &text));
  return ParseBlockStat(text, out).WithContext(path);
}

}  // namespace pglayout
