#include "planner/stripes.h"

#include <algorithm>

namespace pglayout::planner {

StripeState MakeStripe(const PlanInputs& in, const std::string& name,
                       const std::vector<int>& members) {
  std::vector<const DeviceModel*> member_models;
  for (int v : members) member_models.push_back(&in.models[v]);
  return StripeState{name, members, DeviceModel::Stripe(name, member_models)};
}

std::vector<std::vector<int>> AlikeEmptyGroups(
    const PlanInputs& in, const std::vector<int>& excluded) {
  std::vector<std::vector<int>> groups;
  for (size_t v = 0; v < in.models.size(); ++v) {
    const int vi = static_cast<int>(v);
    if (vi == in.default_volume || in.current_bytes[v] > 0) continue;
    if (in.pools.pool_of[v] >= 0) continue;
    if (std::count(excluded.begin(), excluded.end(), vi)) continue;
    const DeviceModel& m = in.models[v];
    auto same = [&](const std::vector<int>& g) {
      const DeviceModel& o = in.models[g[0]];
      return o.read_capacity() == m.read_capacity() &&
             o.write_capacity() == m.write_capacity() &&
             o.capacity_bytes() == m.capacity_bytes() &&
             o.sync_write_latency_us() == m.sync_write_latency_us();
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back({vi});
    } else {
      it->push_back(vi);
    }
  }
  return groups;
}

Stripe DescribeStripe(const PlanInputs& in, const StripeState& state,
                      uint64_t chunk, const std::string& reason) {
  Stripe s;
  s.name = state.name;
  for (int v : state.members) s.members.push_back(in.volumes.volumes[v].name);
  s.chunk = chunk;
  bool local = true;
  for (int v : state.members) {
    const std::string& kind = in.volumes.volumes[v].kind;
    local = local && (kind == "local-nvme" || kind == "aws-instance-store");
  }
  // mdadm for local disks (what managed hosts use for instance NVMe); LVM
  // for network volumes, where a striped LV can later grow by whole stripes.
  s.tool = local ? "mdadm" : "lvm";
  s.reason = reason;
  return s;
}

}  // namespace pglayout::planner
