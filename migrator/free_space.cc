#include "migrator/free_space.h"

#include <sys/statvfs.h>

namespace pglayout::migrator {

std::map<std::string, uint64_t> LocalFreeBytes(
    const std::vector<std::string>& directories) {
  std::map<std::string, uint64_t> out;
  for (const std::string& dir : directories) {
    if (dir.empty()) continue;
    struct statvfs st;
    if (statvfs(dir.c_str(), &st) != 0) continue;  // unknown from here
    out[dir] = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  }
  return out;
}

uint64_t WalFreeBytes(const std::string& data_directory) {
  if (data_directory.empty()) return 0;
  auto free = LocalFreeBytes({data_directory + "/pg_wal"});
  return free.empty() ? 0 : free.begin()->second;
}

}  // namespace pglayout::migrator
