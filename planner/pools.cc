#include "planner/pools.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace pglayout::planner {
namespace {

int Root(std::vector<int>* parent, int v) {
  while ((*parent)[v] != v) v = (*parent)[v] = (*parent)[(*parent)[v]];
  return v;
}

// "device vda" when every member's probe names the same disk, else the
// members' names.
std::string PoolName(const VolumeSet& set, const std::vector<int>& members) {
  auto disk = [&](int v) -> std::string {
    const std::optional<Topology>& t = set.volumes[v].topology;
    if (!t) return "";
    return t->disk.empty() ? t->device : t->disk;
  };
  const std::string first = disk(members[0]);
  const bool one =
      !first.empty() && std::all_of(members.begin(), members.end(),
                                    [&](int v) { return disk(v) == first; });
  if (one) return "device " + first;
  std::vector<std::string> names;
  for (int v : members) names.push_back(set.volumes[v].name);
  return fmt::format("the device {} share", fmt::join(names, ", "));
}

}  // namespace

int DevicePools::Devices() const {
  return static_cast<int>(members.size() +
                          std::count(pool_of.begin(), pool_of.end(), -1));
}

Status FindDevicePools(const VolumeSet& set, DevicePools* out) {
  *out = DevicePools{};
  const int n = static_cast<int>(set.volumes.size());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (int v = 0; v < n; ++v) {
    for (const std::string& other : set.volumes[v].shares_device_with) {
      int u = -1;
      for (int i = 0; i < n; ++i) {
        if (set.volumes[i].name == other) u = i;
      }
      if (u < 0) {
        return Status::InvalidInput(fmt::format(
            "volume '{}': shares_device_with names '{}', which is not a "
            "volume of the set",
            set.volumes[v].name, other));
      }
      parent[Root(&parent, u)] = Root(&parent, v);
    }
  }
  out->pool_of.assign(n, -1);
  std::vector<int> pool_of_root(n, -1);
  for (int v = 0; v < n; ++v) {
    const int r = Root(&parent, v);
    int size = 0;
    for (int u = 0; u < n; ++u) size += Root(&parent, u) == r;
    if (size < 2) continue;
    if (pool_of_root[r] < 0) {
      pool_of_root[r] = static_cast<int>(out->members.size());
      out->members.emplace_back();
    }
    out->pool_of[v] = pool_of_root[r];
    out->members[pool_of_root[r]].push_back(v);
  }
  for (const std::vector<int>& m : out->members) {
    out->names.push_back(PoolName(set, m));
  }
  return Status::Ok();
}

std::optional<PoolForecast> InstancePool(const Host& host,
                                         const InstanceLoad& load) {
  if (host.bandwidth_cap_mbps <= 0 && host.iops_cap <= 0) return std::nullopt;
  PoolForecast p;
  p.kind = "instance";
  p.name = "instance";
  std::vector<std::string> parts;
  if (host.bandwidth_cap_mbps > 0) {
    p.utilization = load.mbps / host.bandwidth_cap_mbps;
    parts.push_back(
        fmt::format("{:.0f} MB/s needed, the instance allows {:.0f}", load.mbps,
                    host.bandwidth_cap_mbps));
  }
  if (host.iops_cap > 0) {
    p.utilization = std::max(p.utilization, load.iops / host.iops_cap);
    parts.push_back(
        fmt::format("{:.0f} IOPS needed, the instance allows {:.0f}", load.iops,
                    host.iops_cap));
  }
  p.detail = fmt::format("{}", fmt::join(parts, "; "));
  return p;
}

std::optional<PoolForecast> MeasuredPool(const VolumeSet& set,
                                         const DevicePools& devices,
                                         const std::vector<double>& own) {
  if (!set.concurrent || !devices.members.empty()) return std::nullopt;
  const Concurrent& c = *set.concurrent;
  const double r = std::min(c.iops_ratio, c.mbps_ratio);
  if (!(r > 0 && r < kIndependentRatio)) return std::nullopt;
  PoolForecast p;
  p.kind = "measured";
  p.name = "the volumes measured together";
  std::vector<std::string> shares;
  double sum = 0;
  for (const ConcurrentVolume& m : c.volumes) {
    for (size_t v = 0; v < set.volumes.size(); ++v) {
      if (set.volumes[v].name != m.name) continue;
      p.volumes.push_back(m.name);
      sum += own[v];
      shares.push_back(fmt::format("{} {:.0f}%", m.name, own[v] * 100));
    }
  }
  if (p.volumes.size() < 2) return std::nullopt;
  const double worth = r * static_cast<double>(p.volumes.size());
  p.utilization = sum / worth;
  p.detail = fmt::format(
      "probe --concurrent: {} together reached {:.0f}% of what they reach "
      "alone, so they carry {:.2g} volumes' worth: {} of it",
      fmt::join(p.volumes, ", "), r * 100, worth, fmt::join(shares, " + "));
  return p;
}

}  // namespace pglayout::planner
