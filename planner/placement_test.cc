// Property tests of the optimiser and the bound on seeded random instances
// (std::mt19937 is specified by the standard, so every run sees the same).

#include "planner/placement.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "planner/bound.h"

namespace pglayout::planner {
namespace {

struct Instance {
  std::vector<DeviceModel> models;
  std::vector<PlaceBin> bins;
  std::vector<PlaceItem> items;
};

Instance RandomInstance(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> iops(2000, 40000), frac(0, 1);
  Instance in;
  const int volumes = 2 + static_cast<int>(rng() % 7);
  in.models.resize(volumes);
  for (int v = 0; v < volumes; ++v) {
    Volume vol;
    vol.name = "v" + std::to_string(v);
    vol.capacity = (100 + rng() % 900) * (1ull << 30);
    vol.read_iops = iops(rng);
    vol.write_iops = iops(rng);
    vol.read_latency_us = 200 + rng() % 2000;
    EXPECT_TRUE(DeviceModel::Build(vol, &in.models[v]).ok());
  }
  for (int v = 0; v < volumes; ++v) {
    PlaceBin b;
    b.model = &in.models[v];
    b.hard_bytes = in.models[v].capacity_bytes();
    b.usable_bytes = b.hard_bytes * 8 / 10;
    in.bins.push_back(b);
  }
  const int tables = 5 + static_cast<int>(rng() % 60);
  for (int t = 0; t < tables; ++t) {
    const int parts =
        rng() % 5 == 0 ? 2 + static_cast<int>(rng() % (volumes - 1)) : 1;
    const double r = 3000 * frac(rng) * frac(rng), w = 1500 * frac(rng);
    const uint64_t bytes = (1 + rng() % 40) * (1ull << 30);
    for (int p = 0; p < parts; ++p) {
      PlaceItem item;
      item.table = t;
      item.part = p;
      item.parts = parts;
      item.read_iops = r / parts;
      item.write_iops = w / parts;
      item.bytes = bytes / parts;
      item.current = parts == 1 ? static_cast<int>(rng() % volumes) : -1;
      in.items.push_back(item);
    }
  }
  return in;
}

TEST(PlaceItems, NeverOverCapacityAndPartitionsOnDistinctVolumes) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Instance in = RandomInstance(seed);
    PlaceResult r;
    Status st = PlaceItems(in.items, in.bins, 0.7, &r);
    if (!st.ok()) {
      EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
      continue;
    }
    std::vector<uint64_t> bytes(in.bins.size(), 0);
    std::set<std::pair<int, int>> table_bin;
    for (size_t i = 0; i < in.items.size(); ++i) {
      const int b = r.bin_of[i];
      ASSERT_GE(b, 0);
      bytes[b] += in.items[i].bytes;
      if (in.items[i].parts > 1) {
        EXPECT_TRUE(table_bin.insert({in.items[i].table, b}).second)
            << "seed " << seed << ": two partitions of one table on a volume";
      }
    }
    for (size_t b = 0; b < in.bins.size(); ++b) {
      EXPECT_LE(bytes[b], in.bins[b].hard_bytes) << "seed " << seed;
      EXPECT_EQ(bytes[b], r.bytes[b]);
    }
  }
}

TEST(PlaceItems, Deterministic) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Instance in = RandomInstance(seed);
    PlaceResult a, b;
    Status sa = PlaceItems(in.items, in.bins, 0.7, &a);
    Status sb = PlaceItems(in.items, in.bins, 0.7, &b);
    EXPECT_EQ(sa.ok(), sb.ok());
    EXPECT_EQ(a.bin_of, b.bin_of);
  }
}

TEST(PlaceItems, NoRoomAnywhereNamesTheItem) {
  Instance in = RandomInstance(7);
  for (PlaceBin& b : in.bins) b.usable_bytes = b.hard_bytes = 1;
  PlaceResult r;
  EXPECT_TRUE(PlaceItems(in.items, in.bins, 0.7, &r).IsInvalidInput());
  EXPECT_GE(r.unplaced_item, 0);
}

TEST(Bound, NoPlacementBeatsIt) {
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    Instance in = RandomInstance(seed);
    PlaceResult r;
    if (!PlaceItems(in.items, in.bins, 0.7, &r).ok()) continue;
    std::vector<BoundVolume> volumes;
    for (const PlaceBin& b : in.bins) volumes.push_back({b.model, 0});
    std::vector<double> reads(in.bins.size()), writes(in.bins.size());
    double read = 0, write = 0;
    for (size_t i = 0; i < in.items.size(); ++i) {
      reads[r.bin_of[i]] += in.items[i].read_iops;
      writes[r.bin_of[i]] += in.items[i].write_iops;
      read += in.items[i].read_iops;
      write += in.items[i].write_iops;
    }
    Bound bound = ComputeBound(read, write, volumes);
    const double plan = MeanLatencyUs(volumes, reads, writes, r.utilization);
    if (r.max_utilization < kMaxUtilization) {
      EXPECT_LE(bound.mean_latency_us, plan * (1 + 1e-6)) << "seed " << seed;
    }
    EXPECT_LE(bound.max_utilization, r.max_utilization * (1 + 1e-9) + 1e-9)
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace pglayout::planner
