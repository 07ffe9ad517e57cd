#include "observe/data_locations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

namespace pglayout {
namespace {

namespace fs = std::filesystem;

std::vector<DataLocation> Directories(
    const std::string& data_directory,
    const std::vector<TablespaceInfo>& tablespaces) {
  std::vector<DataLocation> out;
  if (!data_directory.empty()) {
    out.push_back({"data_directory", "", data_directory, std::nullopt});
    out.push_back({"pg_wal", "", data_directory + "/pg_wal", std::nullopt});
  }
  for (const TablespaceInfo& t : tablespaces) {
    if (t.location.empty()) continue;  // pg_default, pg_global
    out.push_back({"tablespace", t.name, t.location, std::nullopt});
  }
  return out;
}

// The server's data directory is here: it exists and holds PG_VERSION (or
// this user may not look inside it, which only the server's own host has).
bool OnThisHost(const SystemPaths& paths, const std::string& data_directory) {
  DeviceLocation ignored;
  if (!LocateDirectory(paths, data_directory, &ignored).ok()) return false;
  std::error_code ec;
  const bool found = fs::exists(fs::path(data_directory) / "PG_VERSION", ec);
  return found || ec;
}

std::string Note(const std::string& data_directory, bool here,
                 const std::vector<std::string>& failed) {
  if (data_directory.empty()) {
    return "data_directory is not readable by this role (pg_monitor or "
           "pg_read_all_settings grants it): where the data directory and "
           "pg_wal live is unknown; tablespaces recorded as paths only";
  }
  if (!here) {
    return fmt::format(
        "{} is no data directory on this host (observed from another "
        "host): paths recorded only, devices unknown",
        data_directory);
  }
  if (failed.empty()) {
    return "resolved on this host: symlinks followed, st_dev, mount point "
           "and block device";
  }
  return fmt::format("resolved on this host, except {}",
                     fmt::join(failed, "; "));
}

}  // namespace

LocatedDirectories LocateServerDirectories(
    const SystemPaths& paths,
    const std::map<std::string, std::string>& settings,
    const std::vector<TablespaceInfo>& tablespaces) {
  auto it = settings.find("data_directory");
  const std::string data_directory = it == settings.end() ? "" : it->second;
  LocatedDirectories out;
  out.locations = Directories(data_directory, tablespaces);
  const bool here =
      !data_directory.empty() && OnThisHost(paths, data_directory);
  std::vector<std::string> failed;
  for (DataLocation& l : out.locations) {
    if (!here) break;
    DeviceLocation on;
    Status st = LocateDirectory(paths, l.path, &on);
    if (st.ok()) {
      l.on = std::move(on);
    } else {
      failed.push_back(st.message());
    }
  }
  out.note = Note(data_directory, here, failed);
  return out;
}

}  // namespace pglayout
