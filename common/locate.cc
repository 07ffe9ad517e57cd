#include "common/locate.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pglayout {
namespace {

namespace fs = std::filesystem;

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(s[i + 1]) &&
        std::isdigit(s[i + 2]) && std::isdigit(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                               (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "a,b" + "b,c" -> "a,b,c": mount options then superblock options.
std::string MergeOptions(const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  for (const std::string* list : {&a, &b}) {
    std::stringstream in(*list);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (!item.empty() &&
          std::find(out.begin(), out.end(), item) == out.end()) {
        out.push_back(item);
      }
    }
  }
  std::string joined;
  for (const std::string& o : out) joined += (joined.empty() ? "" : ",") + o;
  return joined;
}

bool IsPathPrefix(const std::string& prefix, const std::string& path) {
  if (prefix == "/") return true;
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 10 || dash == f.end() || f.end() - dash < 4 ||
        dash - f.begin() < 6) {
      continue;
    }
    MountEntry e;
    if (std::sscanf(f[2].c_str(), "%u:%u", &e.major, &e.minor) != 2) continue;
    e.mount_point = Unescape(f[4]);
    e.fstype = *(dash + 1);
    e.source = Unescape(*(dash + 2));
    e.options = MergeOptions(f[5], *(dash + 3));
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<MountEntry> ReadMountInfo(const SystemPaths& paths) {
  std::ifstream in(paths.mountinfo);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseMountInfo(buffer.str());
}

const MountEntry* FindMount(const std::vector<MountEntry>& mounts,
                            unsigned major, unsigned minor,
                            const std::string& path) {
  const MountEntry* best = nullptr;
  auto better = [&](const MountEntry& e) {
    if (best == nullptr) return true;
    bool e_dev = e.major == major && e.minor == minor;
    bool b_dev = best->major == major && best->minor == minor;
    if (e_dev != b_dev) return e_dev;
    // Later lines are mounted over earlier ones at the same point.
    return e.mount_point.size() >= best->mount_point.size();
  };
  for (const MountEntry& e : mounts) {
    if (IsPathPrefix(e.mount_point, path) && better(e)) best = &e;
  }
  return best;
}

std::string DeviceNumber(dev_t device) {
  return fmt::format("{}:{}", ::major(device), ::minor(device));
}

bool BlockDeviceNode(const SystemPaths& paths, dev_t device, fs::path* node) {
  std::error_code ec;
  *node = fs::canonical(
      fs::path(paths.sysfs_root) / "dev" / "block" / DeviceNumber(device), ec);
  return !ec;
}

Status LocateDirectory(const SystemPaths& paths, const std::string& path,
                       DeviceLocation* out) {
  std::error_code ec;
  const fs::path resolved = fs::canonical(path, ec);
  struct stat st {};
  if (ec || ::stat(resolved.c_str(), &st) != 0) {
    const int err = ec ? ec.value() : errno;
    const std::string why = std::strerror(err);
    if (err == ENOENT || err == ENOTDIR) {
      return Status::NotFound(fmt::format("{}: {}", path, why));
    }
    return Status::Unavailable(fmt::format("{}: {}", path, why));
  }
  DeviceLocation l;
  l.resolved = resolved.string();
  l.dev = DeviceNumber(st.st_dev);
  const std::vector<MountEntry> mounts = ReadMountInfo(paths);
  const MountEntry* m =
      FindMount(mounts, ::major(st.st_dev), ::minor(st.st_dev), l.resolved);
  if (m != nullptr) l.mount_point = m->mount_point;
  fs::path node;
  if (BlockDeviceNode(paths, st.st_dev, &node)) {
    l.device = node.filename().string();
  }
  *out = std::move(l);
  return Status::Ok();
}

}  // namespace pglayout
