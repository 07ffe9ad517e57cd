#include "planner/layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "planner/bound.h"

namespace pglayout::planner {
namespace {

void AddBin(const PlanInputs& in, const WalPlacement& wal,
            const DeviceModel* model, int volume, Layout* layout) {
  PlaceBin bin;
  bin.model = model;
  bin.hard_bytes = model->capacity_bytes();
  bin.usable_bytes = static_cast<uint64_t>(static_cast<double>(bin.hard_bytes) *
                                           (1 - in.options.headroom));
  if (volume == wal.volume) bin.base_utilization = wal.utilization;
  if (volume >= 0) bin.pool = in.pools.pool_of[volume];
  layout->bins.push_back(bin);
  layout->bin_volume.push_back(volume);
}

// Data volumes: every volume but the WAL's (unless it is the only one),
// with the stripe members replaced by the stripe.
void BuildBins(const PlanInputs& in, const WalPlacement& wal,
               const std::optional<StripeState>& stripe, Layout* layout) {
  layout->bins.clear();
  layout->bin_volume.clear();
  for (size_t v = 0; v < in.models.size(); ++v) {
    const int vi = static_cast<int>(v);
    if (wal.OnDevice(in, vi) && !in.WalShares()) continue;
    if (stripe &&
        std::count(stripe->members.begin(), stripe->members.end(), vi)) {
      continue;
    }
    AddBin(in, wal, &in.models[v], vi, layout);
  }
  if (stripe) AddBin(in, wal, &stripe->model, -1, layout);
}

void BuildItems(const PlanInputs& in, const std::vector<int>& parts,
                Layout* layout) {
  layout->items.clear();
  for (size_t t = 0; t < in.tables.size(); ++t) {
    const TableDemand& d = in.tables[t];
    const int k = parts[t];
    for (int p = 0; p < k; ++p) {
      PlaceItem item;
      item.table = static_cast<int>(t);
      item.part = p;
      item.parts = k;
      item.read_iops = d.read_iops / k;
      item.write_iops = d.checkpoint_write_iops / k;
      item.backup_bytes_per_second = d.backup_bytes_per_second / k;
      item.bytes = d.bytes_needed / k;
      item.current =
          k == 1 ? layout->BinOfVolume(in.VolumeIndex(d.current_volume)) : -1;
      layout->items.push_back(item);
    }
  }
}

}  // namespace

int Layout::BinOfVolume(int volume) const {
  for (size_t b = 0; b < bin_volume.size(); ++b) {
    if (bin_volume[b] == volume && volume >= 0) return static_cast<int>(b);
  }
  return -1;
}

int Layout::BinOfStripe() const {
  for (size_t b = 0; b < bin_volume.size(); ++b) {
    if (bin_volume[b] < 0) return static_cast<int>(b);
  }
  return -1;
}

int Layout::DataDevices() const {
  std::vector<int> pools;
  int devices = 0;
  for (const PlaceBin& b : bins) {
    if (b.pool < 0) {
      ++devices;
    } else if (std::count(pools.begin(), pools.end(), b.pool) == 0) {
      pools.push_back(b.pool);
      ++devices;
    }
  }
  return devices;
}

void Layout::ReadsAndWrites(std::vector<double>* reads,
                            std::vector<double>* writes) const {
  reads->assign(bins.size(), 0);
  writes->assign(bins.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    (*reads)[result.bin_of[i]] += items[i].read_iops;
    (*writes)[result.bin_of[i]] += items[i].write_iops;
  }
}

double Layout::MeanReadLatencyUs() const {
  std::vector<BoundVolume> volumes;
  for (const PlaceBin& b : bins) volumes.push_back({b.model, 0});
  std::vector<double> reads, writes;
  ReadsAndWrites(&reads, &writes);
  return MeanLatencyUs(volumes, reads, writes, result.utilization);
}

Status LayOut(const PlanInputs& in, const WalPlacement& wal,
              const std::vector<int>& parts,
              const std::optional<StripeState>& stripe, Layout* layout) {
  BuildBins(in, wal, stripe, layout);
  BuildItems(in, parts, layout);
  Status st = PlaceItems(layout->items, layout->bins,
                         in.options.target_utilization, &layout->result);
  if (st.ok()) return st;
  if (layout->result.unplaced_item < 0) return st;
  const TableDemand& t =
      in.tables[layout->items[layout->result.unplaced_item].table];
  uint64_t total = 0, room = 0;
  for (const TableDemand& d : in.tables) total += d.bytes_needed;
  for (const PlaceBin& b : layout->bins) room += b.hard_bytes;
  return Status::InvalidInput(fmt::format(
      "the data does not fit: no data volume has room left for '{}' ({} "
      "with growth); the workload needs {} in all and the data volumes "
      "hold {}",
      t.table, HumanSize(static_cast<double>(t.bytes_needed)),
      HumanSize(static_cast<double>(total)),
      HumanSize(static_cast<double>(room))));
}

std::string BinName(const PlanInputs& in, const Layout& layout,
                    const std::optional<StripeState>& stripe, int bin) {
  const int v = layout.bin_volume[bin];
  return v >= 0 ? in.volumes.volumes[v].name : stripe->name;
}

double BestSingle(const PlanInputs& in, const Layout& layout, int t) {
  double best = 1e300;
  for (const PlaceBin& b : layout.bins) {
    best = std::min(best, TableUtilization(*b.model, in.tables[t]));
  }
  return best;
}

double BestSingleVolume(const PlanInputs& in, const Layout& layout, int t) {
  double best = 1e300;
  for (size_t b = 0; b < layout.bins.size(); ++b) {
    if (layout.bin_volume[b] < 0) continue;
    best =
        std::min(best, TableUtilization(*layout.bins[b].model, in.tables[t]));
  }
  return best < 1e300 ? best : BestSingle(in, layout, t);
}

}  // namespace pglayout::planner
