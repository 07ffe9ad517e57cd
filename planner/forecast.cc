#include "planner/forecast.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace pglayout::planner {
namespace {

// Per volume: the sum of |own| over the volumes on its device.
std::vector<double> PooledUtilization(const PlanInputs& in,
                                      const std::vector<double>& own) {
  std::vector<double> pooled(own.size(), 0);
  for (size_t v = 0; v < own.size(); ++v) {
    for (size_t u = 0; u < own.size(); ++u) {
      if (in.pools.Same(static_cast<int>(v), static_cast<int>(u))) {
        pooled[v] += own[u];
      }
    }
  }
  return pooled;
}

// Rounded so that plan files stay readable and byte-stable.
// |before| is nullopt for a stripe, which does not exist before the plan.
void AddForecastEntry(const std::string& name, const DeviceModel& model,
                      std::optional<double> before, ForecastEntry after,
                      std::vector<ForecastEntry>* out) {
  auto round3 = [](double x) { return std::round(x * 1000) / 1000; };
  auto round1 = [](double x) { return std::round(x * 10) / 10; };
  after.volume = name;
  after.utilization_before = round3(before.value_or(0));
  after.read_latency_us_before =
      before ? std::round(model.ReadLatencyUs(*before)) : 0;
  after.read_latency_us_after =
      std::round(model.ReadLatencyUs(after.utilization_after));
  after.utilization_after = round3(after.utilization_after);
  for (double* x : {&after.read_iops, &after.write_iops,
                    &after.checkpoint_write_iops, &after.wal_write_iops,
                    &after.wal_write_mbps, &after.backup_read_mbps}) {
    *x = round1(*x);
  }
  out->push_back(after);
}

// A member of the data stripe or of the WAL's stripe.
bool StripeMember(const std::optional<StripeState>& stripe,
                  const WalPlacement& wal, int volume) {
  for (const std::optional<StripeState>* s : {&stripe, &wal.stripe}) {
    if (*s && std::count((*s)->members.begin(), (*s)->members.end(), volume)) {
      return true;
    }
  }
  return false;
}

VolumeView StripeView(const StripeState& stripe, const std::string& role,
                      uint64_t bytes_after) {
  VolumeView view;
  view.name = stripe.name;
  view.model = stripe.model.Describe();
  view.read_capacity = stripe.model.read_capacity();
  view.write_capacity = stripe.model.write_capacity();
  view.capacity = stripe.model.capacity_bytes();
  view.bytes_after = bytes_after;
  view.role = role;
  return view;
}

}  // namespace

std::vector<ForecastEntry> ForecastVolumes(
    const PlanInputs& in, const WalPlacement& wal, const Layout& layout,
    const std::optional<StripeState>& stripe, std::vector<double>* own_after) {
  const size_t n = in.volumes.volumes.size();
  std::vector<double> before(n, 0);
  for (const TableDemand& d : in.tables) {
    const int v = in.VolumeIndex(d.current_volume);
    if (v >= 0) before[v] += TableUtilization(in.models[v], d);
  }
  // "before" counts the WAL where pg_wal is now; when the workload does not
  // say, only where it cannot be anywhere else: on the only volume.
  if (in.wal_now >= 0) {
    before[in.wal_now] += WalUtilization(in.models[in.wal_now], in.wal);
  } else if (in.WalShares() && in.wal_location == nullptr) {
    before[wal.volume] += wal.utilization;
  }
  // A volume that shares its device is as busy as the device.
  before = PooledUtilization(in, before);
  // The load after the plan, per bin, then per volume; a stripe's members
  // each carry an equal share of it.
  const PlaceResult& result = layout.result;
  std::vector<ForecastEntry> bin_load(layout.bins.size());
  for (size_t i = 0; i < layout.items.size(); ++i) {
    const PlaceItem& item = layout.items[i];
    ForecastEntry& e = bin_load[result.bin_of[i]];
    e.read_iops += item.read_iops;
    e.write_iops += in.tables[item.table].write_iops / item.parts;
    e.checkpoint_write_iops += item.write_iops;
    e.backup_read_mbps += item.backup_bytes_per_second / 1e6;
  }
  ForecastEntry wal_load;
  wal_load.utilization_after = wal.utilization;
  wal_load.wal_write_iops = in.wal.flushes_per_second;
  wal_load.wal_write_mbps = in.wal.bytes_per_second / 1e6;
  for (size_t b = 0; b < layout.bins.size(); ++b) {
    bin_load[b].utilization_after = result.utilization[b];
    if (layout.bin_volume[b] == wal.volume && in.WalShares()) {
      bin_load[b].wal_write_iops = wal_load.wal_write_iops;
      bin_load[b].wal_write_mbps = wal_load.wal_write_mbps;
    }
  }
  std::vector<ForecastEntry> after(n);
  std::vector<double> own(n, 0);
  for (size_t b = 0; b < layout.bins.size(); ++b) {
    if (layout.bin_volume[b] < 0) continue;
    after[layout.bin_volume[b]] = bin_load[b];
    own[layout.bin_volume[b]] = result.own_utilization[b];
  }
  if (!in.WalShares() && !wal.stripe) {
    after[wal.volume] = wal_load;
    own[wal.volume] = wal.utilization;
  }
  *own_after = own;
  const std::vector<double> pooled = PooledUtilization(in, own);
  for (size_t v = 0; v < n; ++v) {
    if (in.pools.pool_of[v] >= 0) after[v].utilization_after = pooled[v];
  }
  std::vector<ForecastEntry> out;
  // A stripe is one volume: its members are not listed beside it.
  for (size_t v = 0; v < n; ++v) {
    if (StripeMember(stripe, wal, static_cast<int>(v))) continue;
    AddForecastEntry(in.volumes.volumes[v].name, in.models[v], before[v],
                     after[v], &out);
  }
  if (stripe) {
    AddForecastEntry(stripe->name, stripe->model, std::nullopt,
                     bin_load[layout.BinOfStripe()], &out);
  }
  if (wal.stripe) {
    AddForecastEntry(wal.stripe->name, wal.stripe->model, std::nullopt,
                     wal_load, &out);
  }
  return out;
}

std::vector<PoolForecast> ForecastPools(
    const PlanInputs& in, const std::vector<ForecastEntry>& forecast,
    const std::vector<double>& own_after) {
  std::vector<PoolForecast> out;
  const DevicePools& pools = in.pools;
  for (size_t p = 0; p < pools.members.size(); ++p) {
    PoolForecast pool;
    pool.kind = "device";
    pool.name = pools.names[p];
    pool.in_forecast = true;
    for (int v : pools.members[p]) {
      const std::string& name = in.volumes.volumes[v].name;
      pool.volumes.push_back(name);
      for (const ForecastEntry& f : forecast) {
        if (f.volume == name) pool.utilization = f.utilization_after;
      }
    }
    pool.detail = fmt::format(
        "{} share it: each is as busy as the device, the sum of their loads "
        "(each measured alone on the whole device)",
        fmt::join(pool.volumes, ", "));
    out.push_back(std::move(pool));
  }
  if (std::optional<PoolForecast> measured =
          MeasuredPool(in.volumes, pools, own_after)) {
    out.push_back(std::move(*measured));
  }
  if (std::optional<PoolForecast> instance =
          InstancePool(in.volumes.host, TotalLoad(in.tables, in.wal))) {
    out.push_back(std::move(*instance));
  }
  return out;
}

std::vector<VolumeView> ViewVolumes(const PlanInputs& in,
                                    const WalPlacement& wal,
                                    const Layout& layout,
                                    const std::optional<StripeState>& stripe) {
  std::vector<VolumeView> out;
  for (size_t v = 0; v < in.volumes.volumes.size(); ++v) {
    const DeviceModel& model = in.models[v];
    VolumeView view;
    view.name = in.volumes.volumes[v].name;
    view.model = model.Describe();
    view.read_capacity = model.read_capacity();
    view.write_capacity = model.write_capacity();
    view.capacity = model.capacity_bytes();
    const int vi = static_cast<int>(v);
    const int b = layout.BinOfVolume(vi);
    if (b >= 0) view.bytes_after = layout.result.bytes[b];
    const bool member = stripe && std::count(stripe->members.begin(),
                                             stripe->members.end(), vi);
    view.role = member                        ? "stripe member"
                : wal.stripe && wal.Holds(vi) ? "wal member"
                : vi == wal.volume ? (in.WalShares() ? "wal+data" : "wal")
                : wal.OnDevice(in, vi) && !in.WalShares() ? "wal's device"
                                                          : "data";
    out.push_back(view);
  }
  if (stripe) {
    out.push_back(StripeView(*stripe, "stripe",
                             layout.result.bytes[layout.BinOfStripe()]));
  }
  if (wal.stripe) out.push_back(StripeView(*wal.stripe, "wal", 0));
  return out;
}

LayoutFigures FiguresOf(const PlanInputs& in, const Layout& layout) {
  std::vector<BoundVolume> volumes;
  for (const PlaceBin& b : layout.bins) {
    volumes.push_back({b.model, b.base_utilization});
  }
  // The bound spreads over devices: a pool's bins are one device, whose
  // capacity each of them was measured with.
  std::vector<BoundVolume> devices;
  std::vector<int> device_of_pool(in.pools.members.size(), -1);
  for (const PlaceBin& b : layout.bins) {
    if (b.pool < 0) {
      devices.push_back({b.model, b.base_utilization});
    } else if (device_of_pool[b.pool] < 0) {
      device_of_pool[b.pool] = static_cast<int>(devices.size());
      devices.push_back({b.model, b.base_utilization});
    } else {
      devices[device_of_pool[b.pool]].base_utilization += b.base_utilization;
    }
  }
  std::vector<double> reads, writes;
  layout.ReadsAndWrites(&reads, &writes);
  double read_total = 0, write_total = 0;
  for (const PlaceItem& item : layout.items) {
    read_total += item.read_iops;
    write_total += item.write_iops;
  }
  LayoutFigures f;
  f.bound = ComputeBound(read_total, write_total, devices);
  f.mean_latency_us =
      MeanLatencyUs(volumes, reads, writes, layout.result.utilization);
  f.max_utilization = layout.result.max_utilization;
  f.read_iops = read_total;
  return f;
}

}  // namespace pglayout::planner
